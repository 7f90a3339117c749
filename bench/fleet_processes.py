"""Fleets across processes, measured on loopback: 4 processes x 50 agents against the fault lab
through a 4 s outage, three ways:

- ``redis``: one fleet shared by the four processes through one redis-server;
- ``local``: a fleet per process (the in-process backend), nothing shared between processes;
- ``none``: every agent on its own (the same scaled-down ``default``-shaped policy, no fleet).

Offered load during the outage over the base load before it, how long the slowest agent took to
succeed after the outage ended, and whether every call ended in a success or a surfaced error.
Prints a Markdown section (bench/run.sh puts it into bench/results/REPORT.md). Standard library
only; needs redis-server (scripts/setup.sh installs it) and the release builds of the lab and of
core/examples/fleet_agents.rs:

    cargo build --release -p retry-lab
    cargo build --release -p llm-retry-core --features reqwest,redis --example fleet_agents
    python3 bench/fleet_processes.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "target" / "release" / "retry-lab"
AGENTS = ROOT / "target" / "release" / "examples" / "fleet_agents"
# The same shape as core/tests/fleet_redis.rs.
PROCESSES, PER_PROCESS = 4, 50
OUTAGE_START, OUTAGE_S, RUN_S, THINK = 3.0, 4.0, 11.0, 0.5
MODES = ("redis", "local", "none")
HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit("redis-server did not start")
                time.sleep(0.02)

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


class Lab:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([str(LAB), "--port", "0", "--exit-on-stdin-close", "--quiet"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("LISTENING "):
            self.stop()
            raise SystemExit(f"retry-lab did not start (said {line!r})")
        self.url = "http://" + line.split()[1]

    def script(self, script: Dict[str, Any]) -> None:
        req = urllib.request.Request(self.url + "/_lab/script", data=json.dumps(script).encode(), method="POST")
        HTTP.open(req, timeout=5).read()

    def log(self) -> List[Dict[str, Any]]:
        with HTTP.open(self.url + "/_lab/log", timeout=30) as r:
            return list(json.loads(r.read()))

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def rate(log: List[Dict[str, Any]], start: float, end: float) -> float:
    return sum(1 for e in log if start * 1000 <= e["ms"] < end * 1000) / (end - start)


def run(lab: Lab, mode: str) -> Dict[str, Any]:
    redis = Redis() if mode == "redis" else None
    try:
        lab.script({"outages": [{"start_s": OUTAGE_START, "duration_s": OUTAGE_S}]})
        loaded_at = time.time()
        procs = [subprocess.Popen(
            [str(AGENTS), "--url", lab.url, "--fleet", mode, "--agents", str(PER_PROCESS), "--seconds", str(RUN_S),
             "--think", str(THINK), "--id", str(i)] + (["--redis", redis.url()] if redis else []),
            stdout=subprocess.PIPE, text=True) for i in range(PROCESSES)]
        outputs = []
        for p in procs:
            out, _ = p.communicate(timeout=RUN_S + 60)
            if p.returncode != 0:
                raise SystemExit(f"fleet_agents --fleet {mode} failed with status {p.returncode}")
            outputs.append(json.loads(out))
        log = lab.log()
    finally:
        if redis:
            redis.stop()
    base = rate(log, 1.0, OUTAGE_START)
    during = rate(log, OUTAGE_START, OUTAGE_START + OUTAGE_S)
    end = loaded_at + OUTAGE_START + OUTAGE_S
    agents = [a for o in outputs for a in o["agents"]]
    recoveries = []
    for a in agents:
        after = [t for t in a["successes"] if t >= end]
        recoveries.append(after[0] - end if after else float("inf"))
    return {
        "mode": mode,
        "backends": sorted({o["backend"] for o in outputs}),
        "base": base,
        "during": during,
        "amplification": during / base,
        "slowest": max(recoveries),
        "median": statistics.median(recoveries),
        "calls": sum(a["calls"] for a in agents),
        "unaccounted": sum(a["calls"] - a["ok"] - a["failed"] for a in agents),
        "failed": sum(a["failed"] for a in agents),
        "circuit_opened": sum(o["events"].get("circuit_opened", 0) for o in outputs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2, help="runs per mode (the table shows each)")
    args = ap.parse_args()
    for binary in (LAB, AGENTS):
        if not binary.exists():
            raise SystemExit(f"{binary} is missing: see this script's docstring for the builds")
    lab = Lab()
    try:
        rows = [run(lab, mode) for _ in range(args.repeat) for mode in MODES]
    finally:
        lab.stop()
    print("## Fleets across processes (loopback, real time)\n")
    print(f"Produced by `python3 bench/fleet_processes.py --repeat {args.repeat}` on "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n")
    print(f"{PROCESSES} processes x {PER_PROCESS} agents (`core/examples/fleet_agents.rs`: call, think {THINK} s, "
          f"again; a `default`-shaped policy scaled down 10x) against one retry-lab over loopback for {RUN_S:g} s; "
          f"every call fails with 503 from {OUTAGE_START:g} s to {OUTAGE_START + OUTAGE_S:g} s. Amplification = "
          f"requests per second the lab logged during the outage / before it (from 1 s). Recovery = from the "
          "outage's end to each agent's first success. `redis`: one fleet shared through one redis-server; "
          "`local`: a fleet per process (the per-process baseline); `none`: no fleet. The target "
          "(issue 6) is for `redis`: amplification at most 1.1x, every agent back within 2 s, no call lost.\n")
    print("| fleet | amplification (req/s before → during) | slowest recovery | median recovery | calls | "
          "failed (surfaced) | calls lost | circuit opened |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} ({', '.join(r['backends'])}) | {r['amplification']:.2f}x ({r['base']:.1f} → "
              f"{r['during']:.1f}) | {r['slowest']:.2f} s | {r['median']:.2f} s | {r['calls']} | {r['failed']} | "
              f"{r['unaccounted']} | {r['circuit_opened']} |")
    print()


if __name__ == "__main__":
    sys.exit(main())
