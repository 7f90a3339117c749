"""Figures for issue 22's testing switch (not a test: run it by hand).

    .venv/bin/python tests/python/measure_testing_switch.py

1. The real time of a 429 -> 503 -> success run with a Fleet under ``retry_core.testing``
   (best of 20 runs; the virtual time it spent beside it).
2. A real 4 s outage with 10 threads on one Fleet key, logging as an application does by
   default (``logging.basicConfig()``: WARNING and above): the lines written, and the most
   "the fleet holds" lines one caller wrote for one wait (between two of its calls).
"""

from __future__ import annotations

import collections
import logging
import threading
import time

import retry_core
from retry_core import Fleet, call_llm_with_retry


class StatusError(Exception):
    def __init__(self, status, headers=None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def switch_run() -> None:
    best, virtual = float("inf"), 0.0
    for _ in range(20):
        answers = iter([StatusError(429, {"retry-after": "20"}), StatusError(503), "ok"])

        def fn():
            a = next(answers)
            if isinstance(a, Exception):
                raise a
            return a

        t0 = time.perf_counter()
        with retry_core.testing(seed=0) as rec:
            assert call_llm_with_retry(fn, fleet=Fleet(), key="openai:gpt-4o") == "ok"
            virtual = rec.elapsed
        best = min(best, time.perf_counter() - t0)
    print(f"429 -> 503 -> success with a Fleet under retry_core.testing: {best * 1000:.2f} ms real "
          f"(best of 20), {virtual:.2f} s virtual")


def outage() -> None:
    records = []

    class Count(logging.Handler):
        def emit(self, record):
            records.append((threading.get_ident(), record.getMessage()))

    logging.basicConfig(level=logging.WARNING, handlers=[Count()])
    fleet = Fleet()
    end = time.monotonic() + 4.0

    def fn():
        records.append((threading.get_ident(), None))
        time.sleep(0.02)
        if time.monotonic() < end:
            raise StatusError(503)
        return "ok"

    threads = [threading.Thread(target=lambda: call_llm_with_retry(fn, fleet=fleet, key="k")) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = [r for r in records if r[1] is not None]
    holds = [r for r in lines if "the fleet holds" in r[1]]
    worst = 0
    per_wait = collections.Counter()
    for who, text in records:
        if text is None:
            per_wait[who] = 0
        elif "the fleet holds" in text:
            per_wait[who] += 1
            worst = max(worst, per_wait[who])
    print(f"4 s outage, 10 threads, default logging: {len(lines)} lines, {len(holds)} 'the fleet holds' lines, "
          f"at most {worst} per caller per wait")


if __name__ == "__main__":
    switch_run()
    outage()
