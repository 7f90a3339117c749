"""``@retry_core.retry(...)`` (issue 22): sync and async functions retried through the same door
as ``call_llm_with_retry`` (same decisions and events), options checked when decorating, the
function's signature kept for ``inspect`` and for type checkers (tests/python/test_typed_names.py
runs mypy on it)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Dict, List

import pytest

import retry_core
from retry_core import InvalidPolicyError, call_llm_with_retry


class StatusError(Exception):
    def __init__(self, status: int, headers: Any = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def failing(*statuses: int):
    """A function that fails with these statuses in turn, then answers its arguments."""
    calls: List[Any] = []
    errors = [StatusError(s, {"retry-after": "2"} if s == 429 else None) for s in statuses]

    def ask(question: str, *, temperature: float = 0.0) -> str:
        """Asks the model."""
        calls.append((question, temperature))
        if errors:
            raise errors.pop(0)
        return f"{question}@{temperature}"

    return ask, calls


def test_a_sync_function_is_retried_like_call_llm_with_retry(no_sleep):
    seen: List[Dict[str, Any]] = []
    ask, calls = failing(429, 503)
    decorated = retry_core.retry(policy="forgeflare", seed=7, on_event=seen.append)(ask)
    assert decorated("hi", temperature=0.5) == "hi@0.5"
    assert calls == [("hi", 0.5)] * 3, "every attempt gets the same arguments"
    # The same failures through the door itself decide the same.
    direct: List[Dict[str, Any]] = []
    plain, _ = failing(429, 503)
    slept = list(no_sleep)
    no_sleep.clear()
    assert call_llm_with_retry(lambda: plain("hi", temperature=0.5), policy="forgeflare", seed=7,
                               on_event=direct.append) == "hi@0.5"
    assert seen == direct and slept == no_sleep and slept[0] == 2.0


def test_an_async_function_goes_through_acall(no_sleep):
    calls: List[str] = []
    errors = [StatusError(503)]

    @retry_core.retry(policy="forgeflare")
    async def ask(question: str) -> str:
        calls.append(question)
        await asyncio.sleep(0)
        if errors:
            raise errors.pop(0)
        return question.upper()

    assert inspect.iscoroutinefunction(ask)
    assert asyncio.run(ask("hi")) == "HI"
    assert calls == ["hi", "hi"]
    assert 2.0 in no_sleep, "the wait went through asyncio.sleep (patched)"


def test_a_permanent_error_is_one_call_and_the_users_exception(no_sleep):
    ask, calls = failing(401)
    with pytest.raises(StatusError) as info:
        retry_core.retry(ask)("hi")
    assert len(calls) == 1 and no_sleep == []
    assert info.value.retry_classification.category == "unauthorized"


def test_the_signature_name_and_doc_are_kept():
    ask, _ = failing()
    decorated = retry_core.retry(policy="default")(ask)
    assert inspect.signature(decorated) == inspect.signature(ask)
    assert (decorated.__name__, decorated.__doc__) == ("ask", "Asks the model.")
    assert decorated.__wrapped__ is ask


@pytest.mark.parametrize(
    "options, error",
    [
        ({"policy": "defualt"}, InvalidPolicyError),
        ({"polcy": "default"}, TypeError),
        ({"on_event": 3}, TypeError),
        ({"policy": "default", "max_retries": 2}, TypeError),
    ],
)
def test_bad_options_fail_when_decorating_never_at_a_call(options, error):
    ask, calls = failing()
    with pytest.raises(error):
        retry_core.retry(**options)
    assert calls == []


def test_retry_needs_a_function():
    with pytest.raises(TypeError, match="decorates a function"):
        retry_core.retry(policy="default")(42)
    with pytest.raises(TypeError, match="takes no options"):
        retry_core.retry(lambda: 1, policy="default")  # type: ignore[call-overload]
