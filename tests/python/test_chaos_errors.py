"""Chaos, part 1 (issue 14): the user's error always wins, hooks that raise change nothing, an
endless header iterator is read only so far, and pruning keeps values JSON cannot carry.

Each case asserts the promise itself: the caller gets the result of ``fn`` or the very exception
``fn`` raised (never one of retry-core's, never one of a hook's), and whatever went wrong inside
retry-core is attached to that exception (``retry_core_errors``, a note on 3.11+).
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from typing import Any, Dict, List

import pytest

import retry_core
from retry_core import acall_llm_with_retry, call_llm_with_retry, classify, prune_orphan_tool_calls
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, RetryConfig


class Flaky:
    """Raises the given exceptions in turn, then returns 'ok'."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            self.last = self.errors.pop(0)
            raise self.last
        return "ok"


class AFlaky(Flaky):
    async def __call__(self) -> str:  # type: ignore[override]
        return super().__call__()


class StatusError(Exception):
    def __init__(self, status: int, msg: str = "") -> None:
        super().__init__(msg or f"HTTP {status}")
        self.status_code = status


def outcome(call: Any) -> str:
    """What ``call()`` raised, by class name only: pytest cannot report an exception whose
    ``__str__`` raises or loops (it would crash formatting it), so none escapes a test."""
    try:
        call()
    except BaseException as e:  # noqa: B036
        return type(e).__name__
    return "returned"


def notes(exc: BaseException) -> List[str]:
    return list(getattr(exc, "__notes__", []))


def run(fn: Any, mode: str, **options: Any) -> Any:
    if mode == "sync":
        return call_llm_with_retry(fn, **options)
    # The error is caught inside the event loop and raised after it: asyncio.run repr()s the
    # exception of a main task that failed, which an exception whose __repr__ raises defeats.
    raised, value = asyncio.run(_caught(acall_llm_with_retry(_async(fn), **options)))
    if raised:
        raise value
    return value


async def _caught(coro: Any) -> Any:
    try:
        return False, await coro
    except BaseException as e:  # noqa: B036
        return True, e


def _async(fn: Any) -> Any:
    async def call() -> Any:
        return fn()
    return call


MODES = ["sync", "async"]

# --- exceptions that misbehave ------------------------------------------------------------------


class CauseRaises(Exception):
    """A 503 whose ``__cause__`` raises when read."""

    status_code = 503

    @property  # type: ignore[override]
    def __cause__(self) -> Any:
        raise RuntimeError("__cause__ exploded")


class ContextRaises(Exception):
    status_code = 400

    @property  # type: ignore[override]
    def __context__(self) -> Any:
        raise RuntimeError("__context__ exploded")


class ModuleRaises(type):
    @property
    def __module__(cls) -> Any:  # type: ignore[override]
        raise RuntimeError("__module__ exploded")


class WeirdModule(Exception, metaclass=ModuleRaises):
    status_code = 401


class StrRaises(Exception):
    status_code = 400

    def __str__(self) -> str:
        raise RuntimeError("__str__ exploded")


class StrNotStr(Exception):
    status_code = 400

    def __str__(self) -> Any:
        return 42


class StrLoops(Exception):
    status_code = 400

    def __str__(self) -> str:
        return str(self)


class ReprRaises(Exception):
    status_code = 400

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ exploded")


class StatusRaises(Exception):
    @property
    def status_code(self) -> int:
        raise RuntimeError("status exploded")


class HeadersRaise(Exception):
    status_code = 429

    @property
    def headers(self) -> Any:
        raise RuntimeError("headers exploded")


def _cause_not_exception() -> BaseException:
    e = StatusError(400, "bad")
    e.__cause__ = None
    object.__setattr__(e, "__context__", None)
    return e


MISBEHAVING = [CauseRaises("busy"), ContextRaises("bad"), WeirdModule("no key"),
               StrRaises(), StrNotStr(), StrLoops(), ReprRaises(), StatusRaises("x"), HeadersRaise("slow")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("exc", MISBEHAVING, ids=lambda e: type(e).__name__)
def test_an_exception_that_misbehaves_is_still_what_the_caller_gets(exc, mode, no_sleep):
    fn = Flaky(*([exc] * 5))
    got = outcome(lambda: run(fn, mode, policy="forgeflare", seed=1))
    assert got == type(exc).__name__ and fn.last is exc
    assert 1 <= fn.calls <= 5


@pytest.mark.parametrize("exc", MISBEHAVING, ids=lambda e: type(e).__name__)
def test_classify_reads_an_exception_that_misbehaves(exc):
    # The reader degrades: a misbehaving attribute is absent, the rest still counts.
    c = classify(exc)
    assert isinstance(c.category, str)


def test_a_cause_that_raises_ends_the_chain_but_keeps_what_was_read(no_sleep):
    assert classify(CauseRaises("busy")).category == "server_error"
    assert classify(WeirdModule("no key")).category == "unauthorized"


@pytest.mark.parametrize("exc", MISBEHAVING, ids=lambda e: type(e).__name__)
def test_llm_executor_moves_on_when_an_exception_misbehaves(exc, caplog):
    calls: List[str] = []

    def execute(llm: Any) -> str:
        calls.append(llm)
        if llm == "first":
            raise exc
        return "second answered"

    executor = LLMExecutor([LLMModelWithInstance("first"), LLMModelWithInstance("second")])
    result: List[Any] = []
    with caplog.at_level(logging.DEBUG):
        got = outcome(lambda: result.append(executor.run(execute)))
    assert got == "returned" and result == ["second answered"]
    assert calls == ["first", "second"]
    assert executor.attempts[0].exception is exc


def test_llm_executor_exhausted_text_survives_a_repr_that_raises():
    executor = LLMExecutor([LLMModelWithInstance("only")])

    def execute(llm: Any) -> str:
        raise ReprRaises("nope")

    with pytest.raises(Exception, match="Exhausted all LLMs") as info:
        executor.run(execute)
    assert "ReprRaises('nope')" in str(info.value)


# --- history given as messages= that the engine cannot read -------------------------------------

TOOL_400 = ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: call_1")


def _nested(depth: int) -> Any:
    v: Any = "leaf"
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("poison", ["nan", "deep", "unserialisable_key"])
def test_a_history_the_engine_cannot_read_leaves_the_users_400(poison, mode, no_sleep):
    history: List[Dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
        {"role": "user", "content": "and?"},
    ]
    if poison == "nan":
        history[0]["temperature"] = math.nan
    elif poison == "deep":
        history[0]["content"] = _nested(200)
    else:
        history[0][("tuple", "key")] = 1  # type: ignore[index]
    err = StatusError(400, TOOL_400)
    fn = Flaky(err)
    with pytest.raises(StatusError) as info:
        run(fn, mode, messages=history)
    assert info.value is err
    assert fn.calls == 1
    assert info.value.retry_core_errors, "the engine's failure is attached to the user's error"
    if sys.version_info >= (3, 11):
        assert any("pruning orphan tool calls raised" in n for n in notes(err))


@pytest.mark.parametrize("mode", MODES)
def test_an_on_orphans_hook_that_raises_leaves_the_users_400(mode, no_sleep):
    err = StatusError(400, TOOL_400)

    def on_orphans(result: Any) -> int:
        raise ValueError("my hook broke")

    with pytest.raises(StatusError) as info:
        run(Flaky(err), mode, on_orphans=on_orphans)
    assert info.value is err
    assert isinstance(err.retry_core_errors[0], ValueError)


@pytest.mark.parametrize("mode", MODES)
def test_an_on_context_overflow_hook_that_raises_leaves_the_users_error(mode, no_sleep):
    err = StatusError(400, "This model's maximum context length is 8192 tokens. context_length_exceeded")

    def compact() -> bool:
        raise ValueError("compaction broke")

    with pytest.raises(StatusError) as info:
        run(Flaky(err), mode, policy="default", on_context_overflow=compact)
    assert info.value is err


# --- options are checked before the first call --------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options, error, text", [
    ({"policy": "defualt"}, retry_core.InvalidPolicyError, "defualt"),
    ({"max_retires": 5}, TypeError, "unexpected keyword argument 'max_retires'"),
    ({"on_event": "log"}, TypeError, "on_event must be callable"),
    ({"policy": "forgeflare", "max_retries": 2}, TypeError, "not both"),
    ({"policy": {"preset": "default", "max_attempts": -1}}, retry_core.InvalidPolicyError, "invalid policy"),
    ({"seed": -1}, ValueError, "seed"),
    ({"messages": "not a list"}, TypeError, "messages must be a list"),
], ids=["misspelt preset", "misspelt keyword", "hook not callable", "both", "bad config", "bad seed",
        "bad messages"])
def test_a_bad_option_fails_before_the_first_call(options, error, text, mode):
    fn = Flaky(StatusError(503))
    with pytest.raises(error, match=text):
        run(fn, mode, **options)
    assert fn.calls == 0, "fn must not be called with options that cannot work"


# --- hooks that raise ---------------------------------------------------------------------------


def _raising_hook(event: Dict[str, Any]) -> None:
    raise RuntimeError("hook exploded")


@pytest.mark.parametrize("mode", MODES)
def test_an_on_event_hook_that_raises_does_not_cost_the_result(mode, no_sleep):
    fn = Flaky(StatusError(503), StatusError(503))
    assert run(fn, mode, policy="forgeflare", on_event=_raising_hook, seed=1) == "ok"
    assert fn.calls == 3


@pytest.mark.parametrize("mode", MODES)
def test_an_on_event_hook_that_raises_leaves_the_users_error(mode, no_sleep):
    err = StatusError(401, "invalid api key")
    with pytest.raises(StatusError) as info:
        run(Flaky(err), mode, on_event=_raising_hook)
    assert info.value is err
    assert isinstance(err.retry_core_errors[0], RuntimeError)
    if sys.version_info >= (3, 11):
        assert any("on_event hook raised RuntimeError" in n for n in notes(err))


class ExplodingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        raise RuntimeError("log filter exploded")


@pytest.fixture
def exploding_log():
    log = logging.getLogger("retry_core")
    f = ExplodingFilter()
    old = log.level
    log.setLevel(logging.DEBUG)
    log.addFilter(f)
    try:
        yield
    finally:
        log.removeFilter(f)
        log.setLevel(old)


@pytest.mark.parametrize("mode", MODES)
def test_a_logging_filter_that_raises_does_not_cost_the_result_or_the_error(mode, no_sleep, exploding_log):
    assert run(Flaky(StatusError(503)), mode, policy="forgeflare", seed=1) == "ok"
    err = StatusError(403, "forbidden")
    with pytest.raises(StatusError) as info:
        run(Flaky(err), mode, policy="forgeflare")
    assert info.value is err


def test_llm_executor_on_event_hook_that_raises_moves_on():
    executor = LLMExecutor([LLMModelWithInstance("a"), LLMModelWithInstance("b")],
                           retry_config=RetryConfig(max_retries=1, base_delay=0.0), on_event=_raising_hook)

    def execute(llm: Any) -> str:
        if llm == "a":
            raise StatusError(503)
        return "b answered"

    assert executor.run(execute) == "b answered"


def test_a_fleet_call_with_a_raising_hook_still_returns(no_sleep):
    fleet = retry_core.Fleet()
    fn = Flaky(StatusError(503))
    assert call_llm_with_retry(fn, policy="forgeflare", fleet=fleet, key="chaos:hook", on_event=_raising_hook,
                               seed=1) == "ok"


# --- an endless header iterator -----------------------------------------------------------------


class EndlessHeaders:
    """``items()`` never ends (up to a safety stop far past any cap); counts what it yields."""

    def __init__(self, limit: int = 200_000) -> None:
        self.taken = 0
        self.limit = limit

    def items(self) -> Any:
        while self.taken < self.limit:
            self.taken += 1
            yield (f"x-h-{self.taken}", "v" * 100)


class EndlessResponse:
    def __init__(self) -> None:
        self.headers = EndlessHeaders()
        self.status_code = 429


class EndlessError(Exception):
    def __init__(self) -> None:
        super().__init__("rate limited")
        self.response = EndlessResponse()


def test_an_endless_headers_items_is_read_only_so_far():
    exc = EndlessError()
    t = time.perf_counter()
    c = classify(exc)
    took = time.perf_counter() - t
    assert c.category == "rate_limited"
    assert exc.response.headers.taken <= 1024, f"took {exc.response.headers.taken} headers"
    assert took < 0.5
    record = retry_core.Failure.from_exception(exc)
    assert len(record.headers) <= 256
    assert sum(len(k) + len(v) for k, v in record.headers.items()) <= 64 * 1024


def test_huge_headers_are_capped_at_64_kib():
    class Big(Exception):
        status_code = 429
        headers = {f"x-{i}": "v" * 10_000 for i in range(100)}

    record = retry_core.Failure.from_exception(Big("slow"))
    assert sum(len(k) + len(v) for k, v in record.headers.items()) <= 64 * 1024


# --- pruning keeps values JSON cannot carry -----------------------------------------------------


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


def test_pruning_passes_non_json_values_through_untouched():
    blob = b"\x00\x01 raw bytes"
    obj = Opaque()
    kept_call = {"id": "call_2", "type": "function", "function": {"name": "Write", "arguments": "{}"}, "extra": obj}
    history: List[Any] = [
        {"role": "user", "content": blob},
        {"role": "assistant", "content": "working", "meta": obj, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
            kept_call,
        ]},
        {"role": "tool", "tool_call_id": "call_2", "content": blob},
        {"role": "user", "content": "and?"},
    ]
    before = [dict(m) for m in history]
    r = prune_orphan_tool_calls(history)
    assert [p["id"] for p in r.pruned] == ["call_1"]
    stripped = r.messages[1]
    assert stripped is not history[1]
    assert stripped["meta"] is obj, "an object of the caller's stays that object, not its str()"
    assert stripped["tool_calls"] == [kept_call] and stripped["tool_calls"][0] is kept_call
    assert r.messages[0] is history[0] and r.messages[0]["content"] is blob
    assert list(stripped) == ["role", "content", "meta", "tool_calls"]
    assert [dict(m) for m in history] == before, "the input is not modified"
    assert len(history[1]["tool_calls"]) == 2


def test_pruning_anthropic_blocks_keeps_bytes_and_objects():
    obj = Opaque()
    history: List[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "let me look", "cache": obj},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": b"/a"}},
        ]},
        {"role": "user", "content": [{"type": "text", "text": "go on", "raw": b"\xff"}]},
    ]
    r = prune_orphan_tool_calls(history)
    assert len(r.pruned) == 1
    assert r.messages[1]["content"] == [history[1]["content"][0]]
    assert r.messages[1]["content"][0]["cache"] is obj
    assert r.messages[2] is history[2]
    assert len(history[1]["content"]) == 2
