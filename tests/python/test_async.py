"""acall_llm_with_retry: the asyncio twin. Same policy, same decisions; cancellation cancels the
wait at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from retry_core import acall_llm_with_retry, call_llm_with_retry

from test_retry import StatusError


def failures():
    return [StatusError(429, headers={"retry-after": "3"}), TimeoutError("read timed out"),
            StatusError(503), ConnectionResetError("reset")]


def make_sync(errors):
    errors = list(errors)

    def fn():
        if errors:
            raise errors.pop(0)
        return "ok"

    return fn


def make_async(errors):
    errors = list(errors)

    async def fn():
        await asyncio.sleep(0)
        if errors:
            raise errors.pop(0)
        return "ok"

    return fn


@pytest.mark.parametrize("policy", ["default", "forgeflare", "swarm_sdk_legacy", {"preset": "default", "jitter": "decorrelated"}])
def test_sync_and_async_decide_identically(policy, no_sleep):
    sync_events, async_events = [], []
    try:
        sync_out = call_llm_with_retry(make_sync(failures()), policy=policy, seed=11, on_event=sync_events.append)
    except Exception as e:
        sync_out = type(e)
    sync_sleeps = list(no_sleep)
    no_sleep.clear()
    try:
        async_out = asyncio.run(acall_llm_with_retry(make_async(failures()), policy=policy, seed=11,
                                                     on_event=async_events.append))
    except Exception as e:
        async_out = type(e)
    assert async_out == sync_out
    assert [d for d in no_sleep if d != 0] == sync_sleeps
    assert async_events == sync_events


def test_async_success_and_give_up(no_sleep):
    async def main():
        ok = await acall_llm_with_retry(make_async([TimeoutError()]), delay=2.0)
        with pytest.raises(StatusError) as info:
            await acall_llm_with_retry(make_async([StatusError(401)]))
        return ok, info.value

    ok, exc = asyncio.run(main())
    assert ok == "ok" and 2.0 in no_sleep
    assert exc.retry_classification.category == "unauthorized"


def test_async_hooks_may_be_coroutines(no_sleep):
    pairing = StatusError(400, "tool_use ids were found without tool_result blocks")
    overflow = StatusError(400, "prompt is too long")
    seen = []

    async def on_orphans(result):
        seen.append("orphans")
        return 1

    async def compact():
        seen.append("compact")
        return True

    out = asyncio.run(acall_llm_with_retry(make_async([pairing, overflow]), policy="default",
                                           on_orphans=on_orphans, on_context_overflow=compact))
    assert out == "ok" and seen == ["orphans", "compact"]


def test_cancellation_interrupts_the_wait_at_once():
    started = []

    async def always_busy():
        raise StatusError(503)

    async def main():
        task = asyncio.ensure_future(acall_llm_with_retry(always_busy, delay=30.0, on_event=started.append))
        while not started:
            await asyncio.sleep(0.005)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - t0

    took = asyncio.run(asyncio.wait_for(main(), timeout=10))
    assert started[0]["retry_delay"] == 30.0
    assert took < 1.0


def test_cancelled_error_from_fn_is_not_retried(no_sleep):
    calls = []

    async def fn():
        calls.append(1)
        raise asyncio.CancelledError()

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(acall_llm_with_retry(fn))
    assert calls == [1] and no_sleep == []
