"""Fleets that share their state through a real redis-server on loopback: two Fleet objects (as
two processes would have) share a pause and a budget; killing Redis mid-test makes calls fall
back to local state (a degraded event) without raising, and a Redis that answers again is used
again; a Redis that hangs holds up only the calling thread (the GIL is released)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time

import pytest

from retry_core import Fleet, call_llm_with_retry

from conftest import RunMachine

INSTALL = "sudo apt-get install -y redis-server   (scripts/setup.sh installs it)"


class StatusError(Exception):
    def __init__(self, status, headers=None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A throwaway redis-server: loopback only, no persistence, stopped whatever happens."""

    def __init__(self, port: int) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail(f"redis-server is not installed; the fleet's Redis tests need it: {INSTALL}")
        self.port = port
        self.proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not ping(port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)


@pytest.fixture
def redis_server():
    server = RedisServer(free_port())
    try:
        yield server
    finally:
        server.kill()


def test_two_fleets_on_one_redis_share_a_pause_and_a_budget(redis_server):
    # Two Fleet objects are two processes as far as state goes: nothing is shared in memory.
    a = Fleet(redis_url=redis_server.url, namespace="t1", budget={"capacity": 15}, breaker=False)
    b = Fleet(redis_url=redis_server.url, namespace="t1", budget={"capacity": 15}, breaker=False)
    assert a.backend == b.backend == "redis"

    r = RunMachine("default", fleet=a, key="anthropic:sonnet")
    d = r.on_failure(StatusError(429, {"retry-after": "5"}))
    assert [e["type"] for e in d.events] == ["rate_limit_pause", "llm_retry_attempt"]
    step = RunMachine("default", fleet=b, key="anthropic:sonnet").start()
    assert step[0] == "wait" and 4.5 < step[1] <= 5.0 and step[2] == "fleet_pause", "b's callers are paused by a's 429"
    assert RunMachine("default", fleet=b, key="other").start() == ("call", 0)

    # The budget: a's retry spent 5 of 15; b sees 10 left and can pay for two more retries.
    assert b.tokens("anthropic:sonnet") == 10.0
    for _ in range(2):
        d = RunMachine("default", fleet=b, key="anthropic:sonnet").on_failure(StatusError(503))
        assert d.action == "retry"
    d = RunMachine("default", fleet=a, key="anthropic:sonnet").on_failure(StatusError(503))
    assert (d.action, d.reason) == ("give_up", "budget_exhausted")
    assert a.tokens("anthropic:sonnet") == 0.0

    # Another namespace is another fleet.
    c = Fleet(redis_url=redis_server.url, namespace="t2")
    assert c.tokens("anthropic:sonnet") == 500.0


def test_killing_redis_mid_test_falls_back_without_raising(redis_server):
    # No breaker: the flaky provider's 50 % failure rate would open it, which is not the point.
    fleet = Fleet(redis_url=redis_server.url, namespace="kill", breaker=False)
    events = []
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        if calls["n"] % 2:
            raise StatusError(503)
        return calls["n"]

    policy = {"preset": "default", "backoff": {"kind": "fixed", "delay": 0.01}, "jitter": "none"}
    for _ in range(5):
        call_llm_with_retry(flaky, policy=policy, fleet=fleet, key="k", on_event=events.append)
    assert not [e for e in events if e["type"].startswith("fleet_backend")]
    assert fleet.tokens("k") == 500.0

    redis_server.kill()
    t0 = time.monotonic()
    results = [call_llm_with_retry(flaky, policy=policy, fleet=fleet, key="k", on_event=events.append) for _ in range(20)]
    assert len(results) == 20, "every call went through on local state"
    assert time.monotonic() - t0 < 2.0, "a dead Redis costs a failed connect, not a wait per call"
    degraded = [e for e in events if e["type"] == "fleet_backend_degraded"]
    assert len(degraded) == 1, "said once, not per call"
    assert degraded[0]["backend"] == "redis" and degraded[0]["fallback"] == "in_process"
    assert isinstance(degraded[0]["error"], str) and degraded[0]["error"]
    assert fleet.metrics()["k"]["success"]["successes"] == 25

    # Redis comes back on the same port: after the backend's back-off (2 s) it is used again.
    RedisServer.__init__(redis_server, redis_server.port)
    time.sleep(2.1)
    call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append)
    assert [e["type"] for e in events if e["type"].startswith("fleet_backend")] == [
        "fleet_backend_degraded", "fleet_backend_recovered"]


def test_a_redis_down_from_the_start_is_the_same_as_one_that_goes_down():
    port = free_port()  # nothing listens here
    fleet = Fleet(redis_url=f"redis://127.0.0.1:{port}/0")
    events = []
    assert call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append) == "ok"
    assert [e["type"] for e in events] == ["fleet_backend_degraded"]


MUTE_REDIS = r"""
import socket, sys, threading
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
print(srv.getsockname()[1], flush=True)

def serve(conn):
    seen = b""
    while seen.count(b"SETINFO") < 2:
        chunk = conn.recv(4096)
        if not chunk:
            return
        seen += chunk
    conn.sendall(b"+OK\r\n+OK\r\n")  # the handshake; nothing else is ever answered

threading.Thread(target=lambda: sys.stdin.read() or srv.close(), daemon=True).start()
conns = []
while True:
    try:
        conn, _ = srv.accept()
    except OSError:
        break
    conns.append(conn)
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""


@pytest.fixture
def mute_redis():
    """A server in another process that answers a client's connection handshake (redis-rs sends
    two CLIENT SETINFO) and then never answers again: every command waits for the backend's I/O
    timeout. Another process, so that a thread holding the GIL could not stall it."""
    import sys

    proc = subprocess.Popen([sys.executable, "-c", MUTE_REDIS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield int(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_a_redis_that_stops_answering_holds_up_only_the_calling_thread(mute_redis):
    """Each Redis call waits for the backend's I/O timeout (250 ms) with the GIL released, so
    other Python threads keep running; then the call falls back to local state."""
    fleet = Fleet(redis_url=f"redis://127.0.0.1:{mute_redis}/0")
    done = threading.Event()
    took = []
    events = []

    def call():
        t0 = time.monotonic()
        call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append)
        took.append(time.monotonic() - t0)
        done.set()

    idle = threading.Event()
    rate_spins, r0 = 0, time.monotonic()
    while not idle.is_set() and time.monotonic() - r0 < 0.05:  # the loop below's speed, alone
        rate_spins += 1
    rate = rate_spins / (time.monotonic() - r0)

    t = threading.Thread(target=call)
    spins = 0
    t0 = time.monotonic()
    t.start()
    while not done.is_set() and time.monotonic() - t0 < 5:
        spins += 1
    t.join(5)
    assert took and 0.2 <= took[0] < 2.0, f"the call waited for Redis, then went on: {took}"
    assert [e["type"] for e in events] == ["fleet_backend_degraded"]
    # Python bytecode kept running in this thread meanwhile. A GIL held by the waiting thread
    # would stop this loop for the whole wait (it would get a switch interval or two: ~1 %).
    assert spins > 0.3 * rate * took[0], f"{spins} iterations in {took[0]:.2f} s; {rate:.0f}/s alone"
