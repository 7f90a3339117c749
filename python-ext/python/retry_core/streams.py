"""Honest streams: a streamed answer that stops without its finish or stop reason is half an
answer, not a success. The SDKs return it as if it were whole (a body that ends early without
``[DONE]`` or ``message_stop`` raises nothing); these helpers watch the reasons the stream
carries and raise :class:`StreamIncomplete` at its end when none came (or one that reports a
failure). The engine classifies ``StreamIncomplete`` as ``stream_interrupted``, so inside
``call_llm_with_retry(lambda: ...)`` the whole stream is asked for again::

    def ask() -> str:
        stream = client.chat.completions.create(model=..., messages=..., stream=True)
        return "".join(c.choices[0].delta.content or ""
                       for c in retry_core.streams.checked(stream) if c.choices)

    text = retry_core.call_llm_with_retry(ask)

Which reasons end a stream, per API, is the core's table (core/src/stream_end.rs,
``STREAM_APIS`` here), and which field of which event carries the reason is the core's
``stream_end::Watch`` too (``_native._StreamWatch`` reads dicts by key and SDK objects by
attribute); it knows:

- openai Chat Completions chunks (``choices[].finish_reason``), and the events of
  ``client.chat.completions.stream(...)`` (``type == "chunk"``);
- openai Responses events (``response.status`` of the last event that carries a response);
- anthropic raw events and ``MessageStream`` events (``message_delta.delta.stop_reason``);
- google-genai chunks (``candidates[].finish_reason``);
- the same shapes as plain dicts (SSE ``data`` decoded from JSON).

A dict that is an SSE ``error`` event (``{"type": "error", "error": {...}}`` or
``{"error": {...}}``) raises :class:`StreamError`, which the engine classifies by its payload
(``error.type``) like any error answer: ``overloaded_error`` is retried, ``invalid_request_error``
is not.
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, Optional, Tuple, TypeVar

from . import _native

__all__ = ["StreamIncomplete", "StreamError", "STREAM_APIS", "checked", "achecked", "check", "check_final"]

T = TypeVar("T")

#: ``{api: (field, reasons that end a stream, reasons that report a failure)}``, the core's table.
STREAM_APIS: Dict[str, Tuple[str, Tuple[str, ...], Tuple[str, ...]]] = {
    api: (field, tuple(ends), tuple(fails)) for api, (field, ends, fails) in _native.STREAM_APIS.items()
}


class StreamIncomplete(Exception):
    """A stream ended without its finish or stop reason: classified ``stream_interrupted``
    (transient), so a retry loop asks for the whole answer again.

    ``api``: which stream (``openai``, ``openai_responses``, ``anthropic``, ``gemini``, or None
    when nothing in it told); ``reason``: the last reason it carried (None when none came);
    ``events``: how many events or chunks it delivered before it ended."""

    def __init__(self, message: str, *, api: Optional[str] = None, reason: Optional[str] = None,
                 events: int = 0) -> None:
        super().__init__(message)
        self.api = api
        self.reason = reason
        self.events = events

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self), self.api, self.reason, self.events))


# The class name the engine reads is `retry_core.StreamIncomplete` (core/src/stream_end.rs):
# its table, not this module, says that it is `stream_interrupted`.
StreamIncomplete.__module__ = "retry_core"


class StreamError(Exception):
    """A stream carried an SSE ``error`` event. ``status_code`` (200, the stream's) and ``body``
    (the event's data as JSON) are what the engine reads to classify it, as it reads an
    SDK's ``APIStatusError``: a transient type is retried, a permanent one is not."""

    def __init__(self, message: str, body: str) -> None:
        super().__init__(message)
        self.status_code = 200
        self.body = body

    def __reduce__(self) -> Any:
        return (StreamError, (str(self), self.body))


def _rebuild(message: str, api: Optional[str], reason: Optional[str], events: int) -> StreamIncomplete:
    return StreamIncomplete(message, api=api, reason=reason, events=events)


def check(api: str, reason: Optional[str], *, events: int = 0) -> None:
    """Raise :class:`StreamIncomplete` unless ``reason`` ends a stream of ``api`` properly
    (an unknown ``api`` is a ``ValueError``)."""
    if not isinstance(api, str):
        raise TypeError(f"api must be a str, not {type(api).__name__}")
    if reason is not None and not isinstance(reason, str):
        reason = str(getattr(reason, "value", reason))
    message = _native._stream_incomplete(api, reason)
    if message is not None:
        raise StreamIncomplete(message, api=api, reason=reason, events=events)


class _Watch:
    """Hands each item to the core's watch (``_native._StreamWatch``); at the end, raises
    :class:`StreamIncomplete` unless the stream ended properly. An error event raises
    :class:`StreamError`."""

    __slots__ = ("native",)

    def __init__(self, api: Optional[str]) -> None:
        self.native = _native._StreamWatch(api)  # an unknown API: the core's ValueError

    @property
    def api(self) -> Optional[str]:
        return self.native.api

    @property
    def events(self) -> int:
        return self.native.events

    def see(self, item: Any) -> None:
        error = self.native.see(item)
        if error is not None:
            raise StreamError(*error)

    def finish(self, events: Optional[int] = None) -> None:
        incomplete = self.native.finish()
        if incomplete is not None:
            message, api, reason = incomplete
            raise StreamIncomplete(message, api=api, reason=reason,
                                   events=self.native.events if events is None else events)


def checked(stream: Iterable[T], *, api: Optional[str] = None) -> Iterator[T]:
    """Yield every item of ``stream`` unchanged; when it ends, raise :class:`StreamIncomplete`
    if no item carried a stop reason that ends it properly. ``api`` names the stream's API when
    its items cannot tell (they usually can). Leaving the loop early raises nothing."""
    watch = _Watch(api)
    for item in stream:
        watch.see(item)
        yield item
    watch.finish()


async def achecked(stream: AsyncIterable[T], *, api: Optional[str] = None) -> AsyncIterator[T]:
    """The async twin of :func:`checked`, for ``AsyncStream`` and ``AsyncMessageStream``."""
    watch = _Watch(api)
    async for item in stream:
        watch.see(item)
        yield item
    watch.finish()


def check_final(answer: Any) -> Any:
    """Check an answer assembled from a stream (anthropic's ``stream.get_final_message()``,
    openai's ``stream.get_final_completion()`` or ``get_final_response()``): raise
    :class:`StreamIncomplete` if it has no proper stop reason; return it otherwise."""
    watch = _Watch(None)
    watch.native.see_final(answer)
    watch.finish(events=0)
    return answer
