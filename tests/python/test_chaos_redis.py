"""Chaos, part 3 (issue 14): a Redis fleet under attack, from Python.

- Fork: while threads hammer a Redis fleet, 100 children of ``os.fork()`` each complete a fleet
  call (on Redis, not degraded) and exit 0; each child is given 10 s, stragglers are killed.
- Black hole: a redis-server stopped with SIGSTOP after the fleet warmed up (it accepts
  connections and never answers): a call returns within 2x ``redis_timeout_s`` plus a small
  margin on local state, and a concurrent call on another key is not held behind it.

redis-server is started by the tests themselves (``test_fleet_redis.RedisServer``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any, Dict, List

import pytest

from retry_core import Fleet, call_llm_with_retry
from test_fleet_redis import RedisServer, StatusError, free_port, redis_server  # noqa: F401

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGSTOP")

FORK_CHILD = textwrap.dedent(
    r"""
    import json, os, signal, sys, threading, time
    from retry_core import Fleet, call_llm_with_retry

    url, children, per_child = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])

    class Busy(Exception):
        status_code = 503

    def flaky():
        state = {"n": 0}
        def fn():
            state["n"] += 1
            if state["n"] == 1:
                raise Busy("busy")
            return "ok"
        return fn

    # No breaker and a deep budget: every call here fails once on purpose, which would open
    # the circuit (then 100 children would queue for one probe) or drain the budget; this test
    # is about fork, not about those.
    fleet = Fleet(redis_url=url, namespace="chaos-fork", breaker=False, budget={"capacity": 1000000})
    stop = threading.Event()
    used = []

    def hammer(i):
        n = 0
        while not stop.is_set():
            assert call_llm_with_retry(flaky(), max_retries=3, delay=0.0, fleet=fleet, key=f"k{i % 2}") == "ok"
            n += 1
        used.append(n)

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.2)  # the threads have used the fleet; they go on while we fork

    started = {}
    for i in range(children):
        pid = os.fork()
        if pid == 0:
            # The child: one fleet call (a failure and a retry: Redis is read and written), on
            # Redis, not degraded to local state.
            code = 2
            try:
                events = []
                ok = call_llm_with_retry(flaky(), max_retries=3, delay=0.0, fleet=fleet, key="k0",
                                         on_event=events.append) == "ok"
                degraded = any(e["type"] == "fleet_backend_degraded" for e in events)
                code = 0 if ok and not degraded else (3 if ok else 1)
            except BaseException:
                code = 2
            os._exit(code)
        started[pid] = time.monotonic()

    codes, killed, slowest = {}, 0, 0.0
    while started:
        for pid, t0 in list(started.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                codes[os.waitstatus_to_exitcode(status)] = codes.get(os.waitstatus_to_exitcode(status), 0) + 1
                slowest = max(slowest, time.monotonic() - t0)
                del started[pid]
            elif time.monotonic() - t0 > per_child:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                killed += 1
                del started[pid]
        time.sleep(0.005)
    stop.set()
    for t in threads:
        t.join()
    print(json.dumps({"codes": codes, "killed": killed, "slowest_s": round(slowest, 3),
                      "thread_calls": sum(used)}), flush=True)
    """
)


def test_100_forked_children_complete_a_fleet_call_while_threads_use_it(redis_server):
    proc = subprocess.run([sys.executable, "-c", FORK_CHILD, redis_server.url, "100", "10"],
                          capture_output=True, text=True, timeout=150)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print("fork report:", report)
    assert report["killed"] == 0, report
    assert report["codes"] == {"0": 100}, report
    assert report["thread_calls"] > 0


# --- a black-holed Redis ------------------------------------------------------------------------

TIMEOUT = 0.25  # the default redis_timeout_s
BOUND = 2 * TIMEOUT + 0.15


def _timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def test_a_black_holed_redis_costs_a_call_at_most_twice_the_timeout(redis_server):
    fleet = Fleet(redis_url=redis_server.url, namespace="chaos-hole")
    assert fleet.config["redis_timeout_s"] == TIMEOUT
    events: List[Dict[str, Any]] = []
    for key in ("a", "b"):  # warm: connected, keys written
        assert call_llm_with_retry(lambda: "ok", fleet=fleet, key=key, on_event=events.append) == "ok"
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        held: Dict[str, float] = {}

        def slow_a() -> None:
            state = {"n": 0}

            def fn() -> str:
                state["n"] += 1
                if state["n"] == 1:
                    raise StatusError(503)
                return "ok"

            held["a"] = _timed(lambda: call_llm_with_retry(fn, max_retries=3, delay=0.0, fleet=fleet, key="a",
                                                           on_event=events.append))

        t = threading.Thread(target=slow_a)
        t.start()
        time.sleep(0.05)  # a is now waiting on the black hole
        held["b"] = _timed(lambda: call_llm_with_retry(lambda: "ok", fleet=fleet, key="b", on_event=events.append))
        t.join(timeout=10)
        assert not t.is_alive()
        after = [_timed(lambda: call_llm_with_retry(lambda: "ok", fleet=fleet, key="c")) for _ in range(5)]
        print(f"black hole: a (fail + retry) {held['a']:.3f}s, b (concurrent) {held['b']:.3f}s, "
              f"then {max(after):.3f}s at most")
        assert held["a"] < BOUND, held
        assert held["b"] < BOUND, held
        assert max(after) < BOUND, after
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)


# --- issue 24: a dripping link, a cancelled probe, nested forks, forgotten keys -----------------


class DripProxy:
    """A loopback proxy in front of redis-server: requests pass at once; once ``drip`` is set,
    each reply byte is sent 0.2 s after the last (a link that never trips a per-read timeout)."""

    def __init__(self, upstream: int) -> None:
        import socket

        self.drip = False
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.upstream = upstream
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self._pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, True), daemon=True).start()

    def _pipe(self, src: Any, dst: Any, replies: bool) -> None:
        try:
            while True:
                data = src.recv(1 if replies else 4096)
                if not data:
                    break
                if replies and self.drip:
                    time.sleep(0.2)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.close()
                except OSError:
                    pass

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


def test_a_dripping_redis_costs_a_call_at_most_twice_the_timeout(redis_server):
    """A reply sent a byte every 0.2 s held a healthy fleet call 72 s: one deadline now covers
    every read of a command."""
    proxy = DripProxy(redis_server.port)
    fleet = Fleet(redis_url=proxy.url, namespace="chaos-drip")
    events: List[Dict[str, Any]] = []
    assert call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append) == "ok"
    assert not any(e["type"] == "fleet_backend_degraded" for e in events), events
    proxy.drip = True
    took = _timed(lambda: call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append))
    print(f"a dripping redis: one call took {took:.3f}s")
    assert took < 2 * TIMEOUT + 0.5, took
    assert any(e["type"] == "fleet_backend_degraded" for e in events), events


def _probing_fleet(**extra: Any) -> Fleet:
    # One failure opens the circuit for 0.05 s; a lost probe would hold the key 5 s.
    return Fleet(breaker={"consecutive_failures": 1, "open_s": 0.05, "max_open_s": 0.05,
                          "probe_timeout_s": 5}, **extra)


def _open(fleet: Fleet, key: str) -> None:
    def fail() -> str:
        raise StatusError(503)

    with pytest.raises(StatusError):
        call_llm_with_retry(fail, max_retries=1, fleet=fleet, key=key)
    time.sleep(0.08)  # the circuit half-opens: the next call is the probe


@pytest.mark.parametrize("backend", ["in_process", "redis"])
def test_a_probe_ended_by_keyboard_interrupt_frees_its_slot_though_the_caller_keeps_it(redis_server, backend):
    fleet = _probing_fleet(**({"redis_url": redis_server.url, "namespace": "chaos-probe"}
                              if backend == "redis" else {}))
    _open(fleet, "k")
    kept: List[BaseException] = []

    def interrupted() -> str:
        raise KeyboardInterrupt

    try:
        call_llm_with_retry(interrupted, fleet=fleet, key="k")
    except KeyboardInterrupt as e:
        kept.append(e)  # the caller keeps it (and with it the run's frames)
    took = _timed(lambda: call_llm_with_retry(lambda: "ok", fleet=fleet, key="k"))
    print(f"after a kept KeyboardInterrupt ({backend}): the next call took {took:.3f}s")
    assert kept
    assert took < 0.5, f"the probe's slot was held {took:.2f}s"


def test_a_cancelled_probe_task_frees_its_slot_though_gather_keeps_it():
    import asyncio

    from retry_core import acall_llm_with_retry

    fleet = _probing_fleet()
    _open(fleet, "k")

    async def main() -> float:
        async def hang() -> str:
            await asyncio.sleep(30)
            return "late"

        async def ok() -> str:
            return "ok"

        task = asyncio.ensure_future(acall_llm_with_retry(hang, fleet=fleet, key="k"))
        await asyncio.sleep(0.05)  # the task holds the probe
        task.cancel()
        kept = await asyncio.gather(task, return_exceptions=True)
        assert isinstance(kept[0], asyncio.CancelledError)
        t = time.perf_counter()
        assert await acall_llm_with_retry(ok, fleet=fleet, key="k") == "ok"
        return time.perf_counter() - t

    took = asyncio.run(main())
    print(f"after a cancelled probe task: the next call took {took:.3f}s")
    assert took < 0.5, f"the probe's slot was held {took:.2f}s"


NESTED_FORKS = textwrap.dedent(
    r"""
    import os, sys
    from retry_core import Fleet, call_llm_with_retry

    url, depth = sys.argv[1], int(sys.argv[2])
    fleet = Fleet(redis_url=url, namespace="chaos-nested", breaker=False)
    level = 0
    while True:
        # Each generation uses the fleet, on Redis, before it forks (a prefork server's master,
        # a worker that forks helpers, ...). A degraded generation fails the chain: its children
        # would inherit the "degraded" state and stay silent about it.
        events = []
        ok = call_llm_with_retry(lambda: "ok", fleet=fleet, key="k", on_event=events.append) == "ok"
        if not ok or any(e["type"] == "fleet_backend_degraded" for e in events):
            print("level", level, "degraded", flush=True)
            os._exit(3)
        if level == depth:
            print("level", level, "on redis", flush=True)
            os._exit(0)
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            os._exit(os.waitstatus_to_exitcode(status))
        level += 1
    """
)


def test_children_of_forks_nested_12_deep_use_redis(redis_server):
    proc = subprocess.run([sys.executable, "-c", NESTED_FORKS, redis_server.url, "12"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "level 12 on redis" in proc.stdout, proc.stdout


def test_key_retention_is_configurable():
    fleet = Fleet(key_idle_ttl_s=30, max_keys=5000)
    assert fleet.config["key_idle_ttl_s"] == 30
    assert fleet.config["max_keys"] == 5000
    assert Fleet().config["max_keys"] == 100000
    with pytest.raises(Exception):
        Fleet(max_keys=0)


def test_a_probe_ended_by_keyboard_interrupt_in_llm_executor_frees_its_slot():
    from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance

    fleet = _probing_fleet()
    _open(fleet, "k")

    class LLM:
        pass

    def interrupted(llm: Any) -> str:
        raise KeyboardInterrupt

    ex = LLMExecutor(LLMModelWithInstance.from_instances([LLM()]), fleet=fleet, fleet_key=lambda m: "k")
    kept: List[BaseException] = []
    try:
        ex.run(interrupted)
    except KeyboardInterrupt as e:
        kept.append(e)
    took = _timed(lambda: call_llm_with_retry(lambda: "ok", fleet=fleet, key="k"))
    print(f"after a KeyboardInterrupt in LLMExecutor: the next call took {took:.3f}s")
    assert kept and took < 0.5, f"the probe's slot was held {took:.2f}s"


def test_redis_killed_mid_run_loses_no_admitted_call_and_pacing_goes_on_locally(redis_server):
    """Issue 23: two fleets (two processes, as far as state goes) pace one key through Redis at 10
    calls a second, eight threads calling through the front door; redis-server is killed while
    they call. Every call returns its answer, each fleet warns once that it fell back, and each
    goes on pacing on its own local admission: its calls after the fall-back are still a tenth of
    a second apart.

    The pacing bound holds whatever the load: local admission has no burst (GCRA), so its k-th
    grant is due no sooner than fall-back + k tenths, fall-back comes after the kill, and a call
    never starts before its grant is due. A call that starts late is not a bound on the next one
    (the schedule keeps its phase), so the bound is anchored on the kill, not on a first start."""
    admission = {"mode": "static", "limits": {"requests": 600}}
    fleets = [Fleet(redis_url=redis_server.url, namespace="chaos-adm", admission=admission) for _ in range(2)]
    assert all(f.backend == "redis" for f in fleets)
    lock = threading.Lock()
    starts: Dict[int, List[float]] = {0: [], 1: []}
    answers: List[Any] = []
    errors: List[BaseException] = []
    events: List[Dict[str, Any]] = []

    def worker(i: int) -> None:
        f = i % 2

        def fn() -> Dict[str, Any]:
            with lock:
                starts[f].append(time.monotonic())
            return {"usage": {"prompt_tokens": 10, "completion_tokens": 5}, "n": i}

        try:
            for _ in range(6):
                answers.append(call_llm_with_retry(fn, fleet=fleets[f], key="openai:gpt-4o",
                                                   on_event=events.append))
        except BaseException as e:  # noqa: BLE001 - any lost call fails the test below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.8)
    with lock:
        before = sum(len(v) for v in starts.values())
    redis_server.kill()
    killed = time.monotonic()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a call hung after Redis died"
    assert errors == []
    assert len(answers) == 48, "no call lost"
    assert all(a["usage"]["prompt_tokens"] == 10 for a in answers)
    # Before the kill the fleets shared one schedule: about 8 calls in 0.8 s, not 8 a fleet.
    assert 2 <= before <= 12, before
    kinds = [e["type"] for e in events]
    assert kinds.count("fleet_backend_degraded") >= 2, "each fleet warned of its fall-back"
    assert "admission_wait" in kinds
    # Slots held on Redis at the kill are all due within a second; after that each fleet paces
    # on local state.
    for f in (0, 1):
        assert len([t for t in starts[f] if t > killed + 1.0]) >= 4, f
        after_kill = sorted(t for t in starts[f] if t > killed)
        # At most one call per thread (four a fleet) was admitted by Redis before the kill and
        # starts after it; every other call after the kill is a local grant.
        local = len(after_kill) - 4
        assert after_kill[-1] - killed >= (local - 1) / 10, (f, len(after_kill), after_kill[-1] - killed)
