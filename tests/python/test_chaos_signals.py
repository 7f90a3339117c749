"""Chaos, part 2 (issue 14): Ctrl-C at every point of the front doors (during the call, while the
exception is read, in a hook, during the wait, at a fleet's gate, sync and async) propagates as
KeyboardInterrupt, is never swallowed, and no call happens after it.

All of it runs in one child process (a suite started in the background inherits SIGINT ignored;
the child restores Python's handler), which sends SIGINT to itself at each point and reports one
line per point: its name, whether KeyboardInterrupt reached the top, the calls made, the time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(
    r"""
    import asyncio, json, os, signal, threading, time
    from retry_core import Fleet, acall_llm_with_retry, call_llm_with_retry

    signal.signal(signal.SIGINT, signal.default_int_handler)

    def ctrl_c():
        os.kill(os.getpid(), signal.SIGINT)
        # Sync: Python's handler raises KeyboardInterrupt in this sleep, at once. Async:
        # asyncio.run's handler cancels the main task instead, which stops it at its next
        # await (the wait before a retry); asyncio.run then raises KeyboardInterrupt.
        time.sleep(0.05)

    def ctrl_c_later(delay=0.1):
        threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()

    class Busy(Exception):
        status_code = 503

    class ReadingStatus(Exception):
        @property
        def status_code(self):
            ctrl_c()
            return 503

    class ReadingStr(Exception):
        status_code = 503
        def __str__(self):
            ctrl_c()
            return "busy"

    class ReadingCause(Exception):
        status_code = 503
        @property
        def __cause__(self):
            ctrl_c()

    class ReadingHeaders(Exception):
        status_code = 429
        @property
        def headers(self):
            ctrl_c()
            return {}

    class Counter:
        def __init__(self, exc_type):
            self.calls = 0
            self.exc_type = exc_type
        def __call__(self):
            self.calls += 1
            if self.exc_type is None:
                ctrl_c()
                raise Busy("failed")
            raise self.exc_type("failed")

    results = []

    def scenario(name, counter, run):
        t = time.monotonic()
        try:
            run()
            outcome = "returned"
        except KeyboardInterrupt:
            outcome = "interrupted"
        except BaseException as e:
            outcome = "raised " + type(e).__name__
        results.append({"name": name, "outcome": outcome, "calls": counter.calls,
                        "seconds": round(time.monotonic() - t, 3)})

    def sync(exc_type, **kw):
        c = Counter(exc_type)
        return c, lambda: call_llm_with_retry(c, policy="forgeflare", **kw)

    def async_(exc_type, **kw):
        c = Counter(exc_type)
        async def fn():
            return c()
        return c, lambda: asyncio.run(acall_llm_with_retry(fn, policy="forgeflare", **kw))

    def hook(event):
        ctrl_c()

    def arm(event):
        # Once per wait: the wait's own events (retry_wait_started, ...) must not arm more.
        if event["type"] == "llm_retry_attempt":
            ctrl_c_later()

    for door, make in (("sync", sync), ("async", async_)):
        for point, exc_type in (("call", None), ("reading status", ReadingStatus), ("reading str", ReadingStr),
                                ("reading cause", ReadingCause), ("reading headers", ReadingHeaders)):
            c, run = make(exc_type)
            scenario(f"{door}: {point}", c, run)
        c, run = make(Busy, on_event=hook)
        scenario(f"{door}: on_event hook", c, run)
        # A real 2 s wait (forgeflare's first delay), interrupted 0.1 s in.
        c, run = make(Busy, on_event=arm)
        scenario(f"{door}: wait", c, run)
        # The gate: a 429 with retry-after 20 pauses the key for every caller; the next call
        # waits at the gate before its first call.
        fleet = Fleet(max_pause_s=60, breaker=False)
        key = f"{door}:gate"
        class Limited(Exception):
            status_code = 429
            headers = {"retry-after": "20"}
        try:
            call_llm_with_retry(Counter(Limited), policy={"preset": "forgeflare", "max_attempts": 1},
                                fleet=fleet, key=key)
        except Limited:
            pass
        ctrl_c_later()
        c, run = make(Busy, fleet=fleet, key=key)
        scenario(f"{door}: gate", c, run)

    print(json.dumps(results), flush=True)
    """
)


@pytest.fixture(scope="module")
def points():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {r["name"]: r for r in json.loads(proc.stdout.strip().splitlines()[-1])}


POINTS = [f"{door}: {p}" for door in ("sync", "async")
          for p in ("call", "reading status", "reading str", "reading cause", "reading headers", "on_event hook",
                    "wait", "gate")]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("point", POINTS)
def test_ctrl_c_at_every_point_propagates_and_nothing_is_called_after_it(points, point):
    r = points[point]
    assert r["outcome"] == "interrupted", r
    # The gate interrupts before the first call; everywhere else, the one call that failed.
    assert r["calls"] == (0 if point.endswith("gate") else 1), r
    assert r["seconds"] < 1.5, r
