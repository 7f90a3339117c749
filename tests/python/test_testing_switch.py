"""The testing switch (``retry_core.testing``, core ``testing.rs``): waits become steps of a
virtual clock the fleets share, the jitter seed is fixed, the decisions are recorded; a patched
``time.sleep`` beside a fleet fails fast naming the switch; a fleet's repeated gate checks log
at DEBUG (one line per caller per wait)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest

import retry_core
from retry_core import Fleet, InvalidStateError, acall_llm_with_retry, call_llm_with_retry


class StatusError(Exception):
    def __init__(self, status, headers=None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def scripted(*answers):
    """A call that raises or returns each answer in turn; counts its calls."""
    calls = []

    def fn():
        calls.append(1)
        answer = answers[len(calls) - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    fn.calls = calls
    return fn


def _429_503_ok():
    return scripted(StatusError(429, {"retry-after": "20"}), StatusError(503), "ok")


def forbid_real_sleep(monkeypatch):
    """Any real sleep fails the test: under the switch, none may happen."""
    def sleep(seconds):
        raise AssertionError(f"slept {seconds} s for real")

    async def asleep(seconds, result=None):
        if seconds:
            raise AssertionError(f"slept {seconds} s for real")
        return result

    monkeypatch.setattr(time, "sleep", sleep)
    monkeypatch.setattr(asyncio, "sleep", asleep)


def test_a_429_503_success_run_with_a_fleet_spends_virtual_time_only(monkeypatch):
    forbid_real_sleep(monkeypatch)
    with retry_core.testing(seed=3) as rec:
        fleet = Fleet()
        fn = _429_503_ok()
        assert call_llm_with_retry(fn, fleet=fleet, key="openai:gpt-4o") == "ok"
        assert len(fn.calls) == 3
        assert rec.waits[0] == (20.0, "retry_after")
        assert [r for _, r in rec.waits] == ["retry_after", "backoff"], "the fleet's pause ended on the virtual clock"
        assert rec.elapsed == pytest.approx(sum(s for s, _ in rec.waits))
        assert [e["type"] for e in rec.decisions] == ["llm_retry_attempt", "llm_retry_attempt"]
        assert [e["category"] for e in rec.decisions] == ["rate_limited", "server_error"]
    assert retry_core._native._testing_now() is None, "real time again after the block"


def test_the_async_door_waits_on_the_same_clock(monkeypatch):
    forbid_real_sleep(monkeypatch)

    async def main():
        fn = _429_503_ok()

        async def call():
            return fn()

        return await acall_llm_with_retry(call, fleet=Fleet(), key="openai:gpt-4o"), fn

    with retry_core.testing() as rec:
        out, fn = asyncio.run(main())
        assert rec.elapsed >= 20.0
    assert out == "ok" and len(fn.calls) == 3


def test_a_second_caller_waits_for_the_pause_in_virtual_time(monkeypatch):
    forbid_real_sleep(monkeypatch)
    with retry_core.testing() as rec:
        fleet = Fleet(breaker=False)
        with pytest.raises(StatusError):
            call_llm_with_retry(scripted(StatusError(429, {"retry-after": "30"})), max_retries=1,
                                fleet=fleet, key="k")
        before = rec.elapsed
        assert call_llm_with_retry(lambda: "ok", fleet=fleet, key="k") == "ok"
        assert ("fleet_pause" in [r for _, r in rec.waits])
        assert rec.elapsed - before == pytest.approx(30.0, abs=0.1)


def test_the_seed_fixes_the_jitter():
    def backoffs(seed):
        with retry_core.testing(seed=seed) as rec:
            call_llm_with_retry(scripted(StatusError(503), StatusError(503), StatusError(503), "ok"))
            return rec.waits

    first = backoffs(5)
    assert len(first) == 3
    assert backoffs(5) == first
    assert backoffs(6) != first


def test_the_fixture_records_and_advances(retry_core_testing):
    rec = retry_core_testing
    assert rec.seed == 0 and rec.elapsed == 0.0
    rec.advance(2.5)
    assert rec.elapsed == 2.5
    with pytest.raises(ValueError):
        rec.advance(-1)
    assert call_llm_with_retry(scripted(StatusError(503), "ok")) == "ok"
    assert rec.of("llm_retry_attempt")[0]["status_code"] == 503


def test_a_bad_seed_is_refused():
    for bad in (-1, 2**64, "1", True):
        with pytest.raises(ValueError):
            retry_core.testing(seed=bad)


def _outage():
    """A fleet whose circuit opens at the first failure, and a call that fails with a 503."""
    return Fleet(breaker={"consecutive_failures": 1}), scripted(StatusError(503), "never reached")


def test_a_patched_sleep_with_a_fleet_fails_fast_naming_the_switch(monkeypatch):
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    fleet, fn = _outage()
    with pytest.raises(InvalidStateError) as info:
        call_llm_with_retry(fn, fleet=fleet, key="openai:gpt-4o")
    message = str(info.value)
    assert "retry_core.testing" in message and "retry_core_testing" in message
    assert isinstance(info.value.__cause__, StatusError), "the user's error stays attached"
    assert info.value.__cause__.status_code == 503
    assert len(fn.calls) == 1, "no call while the fleet held the key back"


def test_a_patched_asyncio_sleep_with_a_fleet_fails_fast_too(monkeypatch):
    async def asleep(seconds, result=None):
        return result

    monkeypatch.setattr(asyncio, "sleep", asleep)
    fleet, fn = _outage()

    async def call():
        return fn()

    with pytest.raises(InvalidStateError, match="retry_core.testing") as info:
        asyncio.run(acall_llm_with_retry(call, fleet=fleet, key="openai:gpt-4o"))
    assert isinstance(info.value.__cause__, StatusError)


class _Lines(logging.Handler):
    """Every record of the ``retry_core`` logger, with the thread that wrote it."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append((threading.get_ident(), record.levelno, record.getMessage()))


def test_ten_threads_through_an_outage_log_one_line_per_caller_per_wait():
    """The issue's 4 s outage with 10 waiting threads, shortened to 1.5 s of real time (the
    threads must wait side by side, which virtual time does not make them do)."""
    logger = logging.getLogger("retry_core")
    lines = _Lines()
    logger.addHandler(lines)
    old = logger.level
    logger.setLevel(logging.DEBUG)
    calls = []
    lock = threading.Lock()
    fleet = Fleet()
    end = time.monotonic() + 1.5

    def fn():
        with lock:
            calls.append(threading.get_ident())
            lines.records.append((threading.get_ident(), 0, "call"))
        time.sleep(0.02)  # a call takes time: the others find the breaker's probe out meanwhile
        if time.monotonic() < end:
            raise StatusError(503)
        return "ok"

    out = []
    policy = {"preset": "default", "backoff": {"kind": "fixed", "delay": 0.2}, "jitter": "none", "max_attempts": 50}
    try:
        threads = [threading.Thread(target=lambda: out.append(call_llm_with_retry(fn, policy=policy, fleet=fleet, key="k")))
                   for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        logger.removeHandler(lines)
        logger.setLevel(old)
    assert out == ["ok"] * 10
    holds = [r for r in lines.records if "the fleet holds" in r[2]]
    assert any(level == logging.DEBUG for _, level, _ in holds), "the gate asked again: its repeats at DEBUG"
    # Per caller, between two of its calls (one wait), at most one line at the default level.
    for thread in set(calls):
        shown = 0
        for who, level, text in lines.records:
            if who != thread:
                continue
            if text == "call":
                shown = 0
            elif level >= logging.WARNING and "the fleet holds" in text:
                shown += 1
                assert shown <= 1, "a second line for the same wait"
