"""A PlanExe-style run through retry-core's drop-in LLMExecutor, against the fault lab.

Two models behind the real openai SDK (its own retries off), one Fleet shared by both runs, and
a scripted sequence of faults: a 429 with retry-after, a 503, an empty account (quota), an SSE
error in the middle of a stream, then a second run with a bad key and a stall past the client's
timeout. One line per event: when (seconds since the run began), what, the engine's category,
the HTTP status, the wait, and why. About 6 s of real waits.

    scripts/demo-python.sh            # builds what is missing, starts and stops the lab
    .venv/bin/python python-ext/examples/planexe_demo.py --lab target/debug/retry-lab
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import select
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict, List, Optional

from retry_core import Fleet
from retry_core.integrations import openai_client
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, RetryConfig, ShouldStopCallbackParameters

# The lab's steps are consumed one per model request, in order, whichever model sends it.
FIRST_RUN = [
    {"fault": "rate_limit", "retry_after": 1},   # gpt-4o: the server says when
    {"fault": "status", "status": 503},          # gpt-4o: backoff
    {"fault": "insufficient_quota"},             # gpt-4o: the account is empty; no retry helps
    {"fault": "sse_error", "after_chunks": 3},   # gpt-4o-mini: the stream breaks mid-answer
    {"fault": "ok"},                             # gpt-4o-mini: the plan
]
SECOND_RUN = [
    {"fault": "unauthorized"},                   # gpt-4o: a bad key; no wait, next model
    {"fault": "stall", "seconds": 5},            # gpt-4o-mini: past the client's 1 s timeout
    {"fault": "ok"},
]


class Lab:
    def __init__(self, binary: str) -> None:
        self.proc = subprocess.Popen([binary, "--port", "0", "--exit-on-stdin-close", "--quiet"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline() if ready else ""  # type: ignore[union-attr]
        if not line.startswith("LISTENING "):
            self.stop()
            raise SystemExit(f"retry-lab did not start (said {line!r})")
        self.url = "http://" + line.split()[1]
        self._http = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def script(self, steps: List[Dict[str, Any]]) -> None:
        body = json.dumps({"steps": steps}).encode()
        self._http.open(urllib.request.Request(self.url + "/_lab/script", data=body, method="POST"), timeout=5).read()

    def log(self) -> List[Dict[str, Any]]:
        with self._http.open(self.url + "/_lab/log", timeout=5) as r:
            return list(json.loads(r.read()))

    def stop(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


class ChatModel:
    """What PlanExe's execute_function receives: an LLM with a model name and a chat method."""

    def __init__(self, lab: Lab, model: str, key: str, timeout: float = 1.0) -> None:
        self.model = model
        self.client = openai_client(api_key=key, base_url=lab.url + "/v1", timeout=timeout)

    def chat(self, prompt: str) -> str:
        stream = self.client.chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": prompt}], stream=True)
        return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

    def __repr__(self) -> str:
        return self.model


class Timeline:
    def __init__(self) -> None:
        self.t0 = time.monotonic()

    def line(self, event: str, category: str = "-", status: Any = "-", delay: Optional[float] = None, why: str = "") -> None:
        t = time.monotonic() - self.t0
        wait = "-" if delay is None else f"{delay:g}s"
        print(f"  {t:6.2f}s  {event:26} {category:18} {str(status if status is not None else '-'):6} {wait:6} {why}", flush=True)

    def header(self) -> None:
        print(f"  {'time':>7}  {'event':26} {'category':18} {'status':6} {'wait':6} why")

    def on_event(self, e: Dict[str, Any]) -> None:
        kind = e["type"]
        cat, status = e.get("category", "-"), e.get("status_code", "-")
        if kind == "llm_retry_attempt":
            why = (f"the server's retry-after ({e['retry_after']:g} s)" if e.get("retry_after") is not None
                   else "RetryConfig's backoff, 1 s x 2^n") + f"; retry {e['attempt']}/{e['max_retries']} on this model"
            self.line(kind, cat, status, e["retry_delay"], why)
        elif kind == "llm_request_failed":
            self.line(kind, cat, status, None, f"{e['error_type']}: permanent, not retried -> next model")
        elif kind == "llm_retry_exhausted":
            self.line(kind, cat, status, None, f"gave up on this model ({e.get('reason')}) -> next model")
        elif kind == "rate_limit_pause":
            self.line(kind, cat, "-", e["seconds"], f"every caller of {e['key']} waits, not only this one")
        elif kind in ("circuit_opened", "circuit_closed", "retry_budget_exhausted"):
            self.line(kind, cat, "-", None, f"key {e.get('key')}")
        else:
            self.line(kind, cat, status, None, json.dumps({k: v for k, v in e.items() if k != "type"}))

    def after_attempt(self, p: ShouldStopCallbackParameters) -> None:
        a = p.last_attempt
        model = getattr(a.llm_model, "llm", a.llm_model)
        if a.success:
            self.line("attempt ok", "-", 200, None, f"{model}: {str(a.result)[:44]}")
        else:
            self.line("attempt failed", "-", getattr(a.exception, "status_code", "-"), None,
                      f"{model}: {type(a.exception).__name__} ({a.duration:.2f}s)")


def run(lab: Lab, fleet: Fleet, timeline: Timeline, title: str, steps: List[Dict[str, Any]]) -> None:
    lab.script(steps)
    print(f"\n  {title}")
    timeline.header()
    models = [ChatModel(lab, "gpt-4o", "sk-demo-first-model-aaaa"), ChatModel(lab, "gpt-4o-mini", "sk-demo-second-model-bbbb")]
    timeline.t0 = time.monotonic()
    executor = LLMExecutor(
        LLMModelWithInstance.from_instances(models),
        should_stop_callback=timeline.after_attempt,
        retry_config=RetryConfig(max_retries=2, base_delay=1.0, max_delay=10.0),
        on_event=timeline.on_event,
        fleet=fleet,
    )
    try:
        plan = executor.run(lambda llm: llm.chat("Write a plan."))
        timeline.line("run succeeded", "-", "-", None, f"after {executor.attempt_count} attempts: {plan!r}")
    except Exception as e:  # noqa: BLE001 - the demo reports whatever happens
        timeline.line("run failed", "-", "-", None, str(e).splitlines()[0])
    statuses = " ".join(f"{e['status'] if e['status'] is not None else 'reset'}({e['fault']})" for e in lab.log())
    print(f"  the lab saw {len(lab.log())} requests: {statuses}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", default="target/debug/retry-lab", help="the retry-lab binary")
    args = ap.parse_args()
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")  # httpx honours proxies for loopback too
    # LLMExecutor logs every failed attempt with its traceback, as PlanExe's does; the timeline
    # says it shorter.
    logging.disable(logging.ERROR)
    lab = Lab(args.lab)
    try:
        fleet = Fleet()
        timeline = Timeline()
        print(f"  retry-lab at {lab.url}; LLMExecutor(models=[gpt-4o, gpt-4o-mini], RetryConfig(max_retries=2), fleet=Fleet())")
        run(lab, fleet, timeline, "run 1: 429 retry-after 1 -> 503 -> quota exhausted -> SSE error mid-stream -> ok", FIRST_RUN)
        run(lab, fleet, timeline, "run 2: 401 -> stall past the 1 s client timeout -> ok", SECOND_RUN)
        print("\n  fleet.metrics() (per model key: calls, retries, seconds waited, calls wasted on sequences that failed):")
        for key, cats in fleet.metrics().items():
            t = cats["total"]
            detail = ", ".join(f"{c} {v['calls']}" for c, v in cats.items() if c != "total")
            print(f"    {key:12} calls {t['calls']}, retries {t['retries']}, waited {t['waited_s']:g}s, "
                  f"wasted {t['wasted_calls']} calls / {t['wasted_s']:g}s  ({detail})")
    finally:
        lab.stop()


if __name__ == "__main__":
    sys.exit(main())
