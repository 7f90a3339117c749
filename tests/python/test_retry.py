"""call_llm_with_retry: SwarmSDK's defaults, policies, events, recoveries, give-up notes,
cancellation, and bad input."""

from __future__ import annotations

import sys
import time

import pytest
from conftest import RunMachine, without_waits

import retry_core
from retry_core import Failure, RetryPolicy, call_llm_with_retry


class Flaky:
    """Fails with the given exceptions in turn, then returns 'ok'."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class StatusError(Exception):
    def __init__(self, status, msg="", headers=None, body=None):
        super().__init__(msg or f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}
        self.body = body


def test_success_path_returns_value_and_never_sleeps(no_sleep):
    assert call_llm_with_retry(lambda: 42) == 42
    assert no_sleep == []


def test_no_policy_means_the_default_preset_and_honours_retry_after(no_sleep):
    """CONTRACT §6: with no policy, max_retries or delay, the default preset decides: a 429's
    retry-after of 1 s costs 1 s (SwarmSDK's fixed 15 s used to cost 15)."""
    fn = Flaky(StatusError(429, headers={"retry-after": "1"}))
    assert call_llm_with_retry(fn) == "ok"
    assert fn.calls == 2
    assert no_sleep == [1.0]


def test_a_misspelt_policy_fails_before_the_first_call():
    calls = []
    with pytest.raises(retry_core.InvalidPolicyError):
        call_llm_with_retry(lambda: calls.append(1), policy="defualt")
    assert calls == []


def test_swarm_sdk_defaults_three_calls_fixed_delay(no_sleep):
    fn = Flaky(StatusError(503), StatusError(503), StatusError(503))
    events = []
    with pytest.raises(StatusError) as info:
        # max_retries (or delay) alone means SwarmSDK's loop (CONTRACT §6).
        call_llm_with_retry(fn, max_retries=3, on_event=events.append)
    assert fn.calls == 3
    assert no_sleep == [15.0, 15.0]
    assert [e["type"] for e in without_waits(events)] == ["llm_retry_attempt", "llm_retry_attempt", "llm_retry_exhausted"]
    first = events[0]
    assert list(first)[0] == "type"
    assert {k: first[k] for k in ("attempt", "max_retries", "retry_delay", "category", "status_code")} == {
        "attempt": 1, "max_retries": 3, "retry_delay": 15.0, "category": "server_error", "status_code": 503}
    assert first["error_class"] == f"{__name__}.StatusError"
    assert events[-1]["attempts"] == 3
    exc = info.value
    assert exc.retry_classification.category == "server_error"
    if sys.version_info >= (3, 11):
        assert any("gave up after 3 attempts" in n for n in exc.__notes__)


def test_max_retries_and_delay_arguments(no_sleep):
    fn = Flaky(TimeoutError(), TimeoutError())
    assert call_llm_with_retry(fn, max_retries=5, delay=0.5) == "ok"
    assert fn.calls == 3 and no_sleep == [0.5, 0.5]


def test_permanent_error_raises_at_once_with_note(no_sleep):
    fn = Flaky(StatusError(401, "Incorrect API key provided"))
    events = []
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(fn, on_event=events.append)
    assert fn.calls == 1 and no_sleep == []
    assert events[0]["type"] == "llm_request_failed" and events[0]["retryable"] is False
    assert info.value.retry_classification.category == "unauthorized"
    assert "not retried" in info.value.retry_decision.note


def test_cancellation_is_reraised_untouched(no_sleep):
    class PipelineStopRequested(RuntimeError):
        pass

    fn = Flaky(PipelineStopRequested("stop"))
    events = []
    with pytest.raises(PipelineStopRequested) as info:
        call_llm_with_retry(fn, on_event=events.append)
    assert fn.calls == 1 and events == [] and no_sleep == []
    assert not hasattr(info.value, "retry_classification")
    assert getattr(info.value, "__notes__", []) == []

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_llm_with_retry(interrupted)


@pytest.mark.parametrize("policy", ["forgeflare", {"preset": "forgeflare"}, RetryPolicy("forgeflare")])
def test_policy_spellings(no_sleep, policy):
    fn = Flaky(*[StatusError(503) for _ in range(5)])
    with pytest.raises(StatusError):
        call_llm_with_retry(fn, policy=policy)
    assert fn.calls == 5 and no_sleep == [2.0, 4.0, 8.0, 16.0]


def test_retry_after_honoured_by_forgeflare_and_over_cap_gives_up_by_default(no_sleep):
    fn = Flaky(StatusError(429, headers={"retry-after": "7"}))
    assert call_llm_with_retry(fn, policy="forgeflare") == "ok"
    assert no_sleep == [7.0]
    fn = Flaky(StatusError(429, headers={"retry-after": "600"}))
    events = []
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(fn, policy="default", on_event=events.append)
    assert fn.calls == 1
    assert info.value.retry_decision.reason == "retry_after_too_long"
    assert events[-1]["retry_after"] == 600.0


def test_seeded_jitter_is_reproducible(no_sleep):
    for _ in range(2):
        fn = Flaky(TimeoutError(), TimeoutError())
        call_llm_with_retry(fn, policy="default", seed=7)
    assert no_sleep[:2] == no_sleep[2:] and all(0 <= d < 2 for d in no_sleep)


def test_orphans_pruned_in_place_once_for_free(no_sleep):
    messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "/a.rb"}'}}]},
        {"role": "user", "content": "and?"},
    ]
    pairing = StatusError(400, "An assistant message with 'tool_calls' must be followed by tool messages "
                               "responding to each 'tool_call_id'.")
    fn = Flaky(pairing)
    events, results = [], []
    assert call_llm_with_retry(fn, messages=messages, on_orphans=results.append, on_event=events.append) == "ok"
    assert fn.calls == 2 and no_sleep == []
    assert [m["role"] for m in messages] == ["user", "user"]
    assert results[0].pruned[0]["name"] == "Read" and "Read(file_path" in results[0].reminder
    assert events == [{"type": "orphan_tool_calls_pruned", "pruned_count": 1, "original_error": str(pairing)}]


def test_orphans_only_once_and_custom_hook(no_sleep):
    pairing = lambda: StatusError(400, "tool_use ids were found without tool_result blocks")  # noqa: E731
    fn = Flaky(pairing(), pairing())
    calls = []

    def hook(result):
        calls.append(result)
        return 2

    with pytest.raises(StatusError):
        call_llm_with_retry(fn, on_orphans=hook)
    assert calls == [None] and fn.calls == 2


def test_context_overflow_compaction_hook(no_sleep):
    fn = Flaky(StatusError(400, "prompt is too long: 210000 tokens > 200000 maximum"))
    compactions = []
    out = call_llm_with_retry(fn, policy="default", on_context_overflow=lambda: compactions.append(1) or True)
    assert out == "ok" and compactions == [1]
    fn = Flaky(StatusError(400, "prompt is too long"))
    with pytest.raises(StatusError):
        call_llm_with_retry(fn, policy="default")  # no hook: permanent
    assert fn.calls == 1


def test_sleep_is_looked_up_at_call_time(monkeypatch):
    seen = []
    monkeypatch.setattr(time, "sleep", lambda d: seen.append(("patched", d)))
    call_llm_with_retry(Flaky(TimeoutError()), delay=3.0)
    assert seen == [("patched", 3.0)]


def test_on_event_errors_never_replace_the_result_or_the_users_error(no_sleep, caplog):
    # Issue 14: a hook that raises is logged and noted on the user's exception, never raised in
    # its place (it used to propagate and cost the caller a result the retry had earned).
    def broken(event):
        raise RuntimeError("sink down")

    assert call_llm_with_retry(Flaky(TimeoutError()), on_event=broken) == "ok"
    assert "on_event hook raised RuntimeError: sink down" in caplog.text
    err = StatusError(401, "invalid api key")
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(Flaky(err), on_event=broken)
    assert info.value is err and isinstance(err.retry_core_errors[0], RuntimeError)


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"max_retries": -1}, ValueError),
        ({"max_retries": 10**12}, ValueError),
        ({"max_retries": 2.5}, TypeError),
        ({"max_retries": True}, TypeError),
        ({"delay": -1}, ValueError),
        ({"delay": float("inf")}, ValueError),
        ({"delay": "15"}, TypeError),
        ({"policy": "nope"}, retry_core.InvalidPolicyError),
        ({"policy": {"bogus": 1}}, retry_core.InvalidPolicyError),
        ({"policy": {"max_attempts": 0}}, ValueError),
        ({"policy": {"backoff": {"kind": "fixed", "delay": -1}}}, ValueError),
        ({"policy": 42}, TypeError),
        ({"policy": {"deadline": float("nan")}}, retry_core.InvalidPolicyError),
        ({"policy": {"deadline": object()}}, TypeError),
    ],
)
def test_bad_arguments_are_python_errors(kwargs, error, no_sleep):
    with pytest.raises(error):
        call_llm_with_retry(Flaky(TimeoutError()), **kwargs)


def test_policy_objects():
    p = RetryPolicy("forgeflare", jitter="full")
    assert p.name == "forgeflare" and p.max_attempts == 5 and p.max_retries == 4
    assert p.to_config()["jitter"] == "full"
    assert RetryPolicy.from_config(p.to_config()) == p
    assert RetryPolicy.from_config('{"preset": "swarm_sdk"}') == RetryPolicy.swarm_sdk()
    assert RetryPolicy.swarm_sdk(4, 1.0).max_attempts == 4
    assert [RetryPolicy.llm_executor().backoff_delay(n) for n in range(3)] == [1.0, 2.0, 4.0]
    assert RetryPolicy().name == "default" and "default" in repr(RetryPolicy())
    with pytest.raises(retry_core.InvalidPolicyError):
        RetryPolicy.preset("nope")
    with pytest.raises(ValueError):
        RetryPolicy.llm_executor(backoff_multiplier=0.5)
    with pytest.raises(ValueError):
        RetryPolicy().backoff_delay(-1)


def test_a_run_decides_one_failure_at_a_time():
    """The engine's Run underneath the front doors: a failure's decision, the step it takes."""
    r = RunMachine("swarm_sdk", seed=1)
    d = r.on_failure(TimeoutError("read timed out"), 0.0)
    assert (d.action, d.delay, d.attempt, d.max_retries) == ("retry", 15.0, 1, 3)
    assert r.step == ("wait", 15.0, "backoff")
    assert "retrying in 15 s" in d.note and "timeout" in repr(d)
    assert r.attempts == 1
    with pytest.raises(ValueError):
        r.on_failure(Failure(message="x"), float("nan"))
    with pytest.raises(ValueError):
        call_llm_with_retry(lambda: 1, seed=-1)


def test_a_run_shared_across_threads_does_not_crash():
    import threading

    r = RunMachine("swarm_sdk_legacy")
    errors = []

    def hammer():
        try:
            for _ in range(200):
                r.on_failure(TimeoutError())
        except Exception as e:  # a clean Python error is acceptable, a crash is not
            errors.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(isinstance(e, RuntimeError) for e in errors)
    assert r.attempts > 0


def test_unknown_keyword_is_a_type_error_on_first_failure(no_sleep):
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_retires'"):
        call_llm_with_retry(Flaky(TimeoutError()), max_retires=5)
    with pytest.raises(TypeError, match="on_event must be callable"):
        call_llm_with_retry(Flaky(TimeoutError()), on_event="log")


def test_policy_and_max_retries_together_is_a_type_error(no_sleep):
    with pytest.raises(TypeError, match="not both"):
        call_llm_with_retry(Flaky(TimeoutError()), policy="forgeflare", max_retries=2)


def test_public_signature_is_keyword_only():
    import inspect

    sig = inspect.signature(call_llm_with_retry)
    assert list(sig.parameters) == ["fn", "max_retries", "delay", "policy", "on_event", "messages",
                                    "on_orphans", "on_context_overflow", "seed", "fleet", "key", "on_progress", "estimate"]
    assert sig.parameters["max_retries"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["delay"].default is None
    assert "SwarmSDK" in call_llm_with_retry.__doc__
    assert inspect.signature(retry_core.acall_llm_with_retry).parameters["max_retries"].default is None


def test_the_users_stop_iteration_stays_itself_after_retries(no_sleep):
    """The loop is one coroutine for both front doors, driven to its end by the sync one; a
    StopIteration leaving a coroutine would become a RuntimeError. The user's own must reach
    them unchanged. (An async function cannot raise one: Python itself turns it into a
    RuntimeError at the user's coroutine.)"""

    class Timeout(TimeoutError):
        pass

    stop = StopIteration("the stream ran dry")
    replies = [Timeout("slow"), stop]

    def fn():
        raise replies.pop(0)

    with pytest.raises(StopIteration) as got:
        call_llm_with_retry(fn, policy="default", seed=1)
    assert got.value is stop and replies == [] and len(no_sleep) == 1
