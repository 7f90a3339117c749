"""The Python front doors as interpreters of the engine's run (issue 13): progress during long
waits, one log line per event with the core's text, give-ups at the fleet's gate, stacked retry
layers, and LLMExecutor's one line per retried attempt."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Dict, List

import pytest

from retry_core import Fleet, acall_llm_with_retry, call_llm_with_retry
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, RetryConfig

from conftest import without_waits


class StatusError(Exception):
    def __init__(self, status: int, headers: Any = None, msg: str = "") -> None:
        super().__init__(msg or f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def flaky(*errors: BaseException) -> Any:
    left = list(errors)

    def fn() -> str:
        if left:
            raise left.pop(0)
        return "ok"

    return fn


SLOW_429 = {"retry-after": "30"}


def test_on_progress_fires_each_second_of_a_30_s_wait(no_sleep: List[float]) -> None:
    seen: List[Dict[str, Any]] = []
    out = call_llm_with_retry(flaky(StatusError(429, SLOW_429)), policy="default", on_progress=seen.append)
    assert out == "ok"
    assert no_sleep == [1.0] * 30
    assert [p["remaining"] for p in seen] == [float(n) for n in range(29, -1, -1)]
    assert {(p["seconds"], p["reason"], p["model"]) for p in seen} == {(30.0, "retry_after", None)}


def test_async_on_progress_may_be_a_coroutine(no_sleep: List[float]) -> None:
    seen: List[float] = []

    async def progress(p: Dict[str, Any]) -> None:
        seen.append(p["remaining"])

    async def fn() -> str:
        return flaky_async()

    errors = [StatusError(429, {"retry-after": "3"})]

    def flaky_async() -> str:
        if errors:
            raise errors.pop()
        return "ok"

    assert asyncio.run(acall_llm_with_retry(fn, policy="default", on_progress=progress)) == "ok"
    assert no_sleep == [1.0, 1.0, 1.0] and seen == [2.0, 1.0, 0.0]


def test_without_a_progress_hook_a_wait_is_one_sleep_and_short_waits_are_never_sliced(no_sleep: List[float]) -> None:
    call_llm_with_retry(flaky(StatusError(429, SLOW_429)), policy="default")
    assert no_sleep == [30.0]
    no_sleep.clear()
    seen: List[Any] = []
    call_llm_with_retry(flaky(StatusError(429, {"retry-after": "0.5"})), policy="default", on_progress=seen.append)
    assert no_sleep == [0.5] and seen == []


def test_a_progress_hook_that_raises_never_replaces_the_error(no_sleep: List[float]) -> None:
    calls = []

    def progress(p: Dict[str, Any]) -> None:
        calls.append(p)
        raise RuntimeError("progress bar down")

    err = StatusError(401)
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(flaky(StatusError(429, SLOW_429), err), policy="default", on_progress=progress)
    assert info.value is err
    assert len(calls) == 1, "a broken hook is not called again for that wait"
    assert no_sleep == [1.0, 29.0]
    with pytest.raises(TypeError):
        call_llm_with_retry(lambda: "ok", on_progress="not callable")


def test_a_30_s_wait_shows_a_warning_line_when_it_starts(monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    lines_at_sleep: List[List[str]] = []

    def sleep(d: float) -> None:
        lines_at_sleep.append([r.getMessage() for r in caplog.records])

    monkeypatch.setattr(time, "sleep", sleep)
    caplog.set_level(logging.WARNING)
    assert call_llm_with_retry(flaky(StatusError(429, SLOW_429)), policy="default") == "ok"
    assert lines_at_sleep == [[
        "retry-core: rate_limited (StatusError, status 429), attempt 1/30 failed; retrying in 30 s (the server's retry-after)"
    ]]
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert caplog.records[0].name == "retry_core"


@pytest.mark.parametrize("with_hook", [False, True])
def test_one_log_line_per_event_with_one_prefix_with_or_without_on_event(no_sleep: List[float], with_hook: bool,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="retry_core")
    events: List[Dict[str, Any]] = []
    options: Dict[str, Any] = {"on_event": events.append} if with_hook else {}
    with pytest.raises(StatusError):
        call_llm_with_retry(flaky(*[StatusError(503)] * 5), max_retries=3, delay=1.0, **options)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "retry-core: server_error (StatusError, status 503), attempt 1/3 failed; retrying in 1 s",
        "retry-core: server_error (StatusError, status 503), attempt 2/3 failed; retrying in 1 s",
        "retry-core: server_error (StatusError, status 503); gave up after 3 attempts (limit reached)",
    ]
    assert all(r.levelno == logging.WARNING for r in caplog.records)
    assert not any("retry-core: retry-core:" in line for line in lines)
    if with_hook:
        assert [e["type"] for e in without_waits(events)] == ["llm_retry_attempt", "llm_retry_attempt",
                                                              "llm_retry_exhausted"]


def test_a_permanent_error_is_one_line_and_the_note_is_the_cores(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="retry_core")
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(flaky(StatusError(401)))
    assert [r.getMessage() for r in caplog.records] == [
        "retry-core: unauthorized (StatusError, status 401); not retried (permanent)"]
    assert info.value.retry_decision.note == "retry-core: unauthorized (permanent, status 401); not retried"  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_gate_refusal_gives_up_with_circuit_open_and_the_exhaustion_event(mode: str) -> None:
    fleet = Fleet(breaker={"consecutive_failures": 1, "open_s": 30, "max_open_s": 30}, budget=False)
    policy = {"preset": "default", "backoff": {"kind": "fixed", "delay": 0.01}, "jitter": "none", "deadline": 1.0}
    events: List[Dict[str, Any]] = []
    err = StatusError(503)

    def down() -> str:
        raise err

    async def adown() -> str:
        raise err

    with pytest.raises(StatusError) as info:
        if mode == "sync":
            call_llm_with_retry(down, policy=policy, fleet=fleet, key="k", on_event=events.append)
        else:
            asyncio.run(acall_llm_with_retry(adown, policy=policy, fleet=fleet, key="k", on_event=events.append))
    assert info.value is err
    d = info.value.retry_decision  # type: ignore[attr-defined]
    assert (d.action, d.reason) == ("give_up", "circuit_open")
    exhausted = [e for e in events if e["type"] == "llm_retry_exhausted"]
    assert len(exhausted) == 1 and exhausted[0]["category"] == "server_error"


def test_llm_executor_logs_a_retried_attempt_in_one_line_without_traceback(no_sleep: List[float],
                                                                           caplog: pytest.LogCaptureFixture) -> None:
    class LLM:
        def __init__(self, errors: List[BaseException]) -> None:
            self.errors = errors

        def complete(self) -> str:
            if self.errors:
                raise self.errors.pop(0)
            return "done"

    caplog.set_level(logging.WARNING)
    ex = LLMExecutor(LLMModelWithInstance.from_instances([LLM([StatusError(503)])]), retry_config=RetryConfig())
    assert ex.run(lambda llm: llm.complete()) == "done"
    assert [r.getMessage() for r in caplog.records] == [
        "retry-core: server_error (StatusError, status 503), attempt 1/2 failed; retrying in 1 s"]
    assert all(r.exc_info is None and "Traceback" not in r.getMessage() for r in caplog.records)

    # A model that gives up: one ERROR line, no traceback, and the fallback's line.
    caplog.clear()
    ex = LLMExecutor(LLMModelWithInstance.from_instances([LLM([StatusError(401)]), LLM([])]), retry_config=RetryConfig())
    assert ex.run(lambda llm: llm.complete()) == "done"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "LLM" in errors[0].getMessage() and "StatusError('HTTP 401')" in errors[0].getMessage()
    assert "Traceback" not in caplog.text
    assert any("gave up" in r.getMessage() and "trying" in r.getMessage() for r in caplog.records)


def test_llm_executor_keeps_planexe_fallback_on_programming_errors(no_sleep: List[float]) -> None:
    """The engine's model chain stops on a programming error; PlanExe moves on to the next model
    on any error but a stop request, and so does the executor."""

    def execute(llm: str) -> str:
        if llm == "first":
            raise TypeError("bug in the prompt builder")
        return "second answered"

    ex = LLMExecutor(LLMModelWithInstance.from_instances(["first", "second"]), retry_config=RetryConfig())
    assert ex.run(execute) == "second answered"
    assert [a.success for a in ex.attempts] == [False, True]


def test_stacked_retry_layers_through_the_real_openai_sdk(lab: Any, no_sleep: List[float],
                                                           caplog: pytest.LogCaptureFixture) -> None:
    openai = pytest.importorskip("openai")
    lab.script({"steps": [], "then": {"fault": "status", "status": 503}})
    client = openai.OpenAI(base_url=lab.url + "/v1", api_key="sk-lab-0000stack", max_retries=2)
    events: List[Dict[str, Any]] = []
    caplog.set_level(logging.WARNING, logger="retry_core")

    def chat() -> Any:
        return client.chat.completions.create(model="m-lab", messages=[{"role": "user", "content": "hi"}])

    with pytest.raises(openai.InternalServerError):
        call_llm_with_retry(chat, max_retries=3, delay=1.0, on_event=events.append)
    stacked = [e for e in events if e["type"] == "retry_layers_stacked"]
    assert stacked == [{"type": "retry_layers_stacked", "client_retries": 2, "attempts": 3, "requests": 9,
                        "source": "observed"}]
    assert len(lab.log()) == 9, "3 attempts x (1 + the SDK's 2 retries)"
    lines = [r.getMessage() for r in caplog.records if "layers multiply" in r.getMessage()]
    assert len(lines) == 1 and "9 requests per call" in lines[0]
