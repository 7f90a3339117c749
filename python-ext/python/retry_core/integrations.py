"""One layer owns retries.

The openai and anthropic SDKs retry on their own (2 retries by default, with their own backoff).
Wrapped in ``call_llm_with_retry`` the layers multiply: 3 outer attempts x 3 SDK requests = 9
HTTP requests, with events that count 3. These helpers return clients whose own retries are off
(``with_options(max_retries=0)``), so that every event counts a true HTTP attempt and the engine's
policy (``retry-after``, caps, deadlines, billing errors never retried) is the only one.

Both SDKs are optional: they are imported when a helper is called.
"""

from __future__ import annotations

from typing import Any, Dict, TypeVar

__all__ = [
    "without_sdk_retries",
    "openai_client",
    "async_openai_client",
    "anthropic_client",
    "async_anthropic_client",
]

C = TypeVar("C")


def without_sdk_retries(client: C) -> C:
    """A copy of an openai / anthropic client (sync or async) with its own retries off.

    Also accepts objects that carry a ``max_retries`` setting (e.g. llama-index's ``OpenAI``
    LLM, which defaults to 3): a copy with ``max_retries=0`` where the object can be copied,
    else the object itself, changed.
    """
    with_options = getattr(client, "with_options", None)
    if callable(with_options):
        return with_options(max_retries=0)  # type: ignore[no-any-return]
    if hasattr(client, "max_retries"):
        copy = getattr(client, "model_copy", None)
        if callable(copy):
            return copy(update={"max_retries": 0})  # type: ignore[no-any-return]
        setattr(client, "max_retries", 0)
        return client
    raise TypeError(f"{type(client).__name__} has no retry setting to turn off")


def _no_retries(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    n = kwargs.pop("max_retries", 0)
    if n not in (0, None):
        raise ValueError(
            f"max_retries={n!r}: retry-core owns retries; stacked layers multiply the requests "
            "(pass the count to call_llm_with_retry or a policy instead)"
        )
    return kwargs


def openai_client(**kwargs: Any) -> Any:
    """``openai.OpenAI(**kwargs)`` with its own retries off."""
    import openai

    return without_sdk_retries(openai.OpenAI(**_no_retries(kwargs)))


def async_openai_client(**kwargs: Any) -> Any:
    """``openai.AsyncOpenAI(**kwargs)`` with its own retries off."""
    import openai

    return without_sdk_retries(openai.AsyncOpenAI(**_no_retries(kwargs)))


def anthropic_client(**kwargs: Any) -> Any:
    """``anthropic.Anthropic(**kwargs)`` with its own retries off."""
    import anthropic

    return without_sdk_retries(anthropic.Anthropic(**_no_retries(kwargs)))


def async_anthropic_client(**kwargs: Any) -> Any:
    """``anthropic.AsyncAnthropic(**kwargs)`` with its own retries off."""
    import anthropic

    return without_sdk_retries(anthropic.AsyncAnthropic(**_no_retries(kwargs)))
