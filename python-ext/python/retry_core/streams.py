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
``STREAM_APIS`` here); this module only reads the reasons off the SDKs' objects:

- openai Chat Completions chunks (``choices[].finish_reason``), and the events of
  ``client.chat.completions.stream(...)`` (``type == "chunk"``);
- openai Responses events (``response.status`` of the last event that carries a response);
- anthropic raw events and ``MessageStream`` events (``message_delta.delta.stop_reason``);
- google-genai chunks (``candidates[].finish_reason``);
- the same shapes as plain dicts (SSE ``data`` decoded from JSON).
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, Optional, Tuple, TypeVar

from . import _native

__all__ = ["StreamIncomplete", "STREAM_APIS", "checked", "achecked", "check", "check_final"]

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


def _get(obj: Any, name: str, alt: Optional[str] = None) -> Any:
    """An attribute of an SDK object, or a key of a dict (``alt``: its camelCase wire name)."""
    if isinstance(obj, dict):
        value = obj.get(name)
        return obj.get(alt) if value is None and alt is not None else value
    return getattr(obj, name, None)


def _text(reason: Any) -> Optional[str]:
    """A reason as text: a str, an enum's value (google-genai's ``FinishReason``), or None."""
    if reason is None or isinstance(reason, str):
        return reason
    value = getattr(reason, "value", reason)
    return value if isinstance(value, str) else str(value)


class _Watch:
    """Reads each item's stop reason; at the end, says whether the stream ended properly. With
    several choices or candidates, every one must have ended."""

    __slots__ = ("api", "reasons", "events")

    def __init__(self, api: Optional[str]) -> None:
        if api is not None:
            _native._stream_incomplete(api, "stop")  # an unknown API: the core's ValueError
        self.api = api
        #: The last reason per choice or candidate index (one entry for single-answer APIs).
        self.reasons: Dict[int, Optional[str]] = {}
        self.events = 0

    def _saw(self, api: str, index: int, reason: Any) -> None:
        if self.api is None:
            self.api = api
        reason = _text(reason)
        if reason is not None or index not in self.reasons:
            self.reasons[index] = reason

    def see(self, item: Any) -> None:
        self.events += 1
        kind = _get(item, "type")
        if kind == "chunk" and _get(item, "chunk") is not None:  # ChatCompletionStream events
            item = _get(item, "chunk")
            kind = None
        if isinstance(kind, str):
            if kind == "message_start":
                self._saw("anthropic", 0, None)
                return
            if kind == "message_delta":
                self._saw("anthropic", 0, _get(_get(item, "delta"), "stop_reason"))
                return
            response = _get(item, "response")
            if kind.startswith("response.") and response is not None:
                self._saw("openai_responses", 0, _get(response, "status"))
                return
        choices = _get(item, "choices")
        if isinstance(choices, (list, tuple)):
            for i, choice in enumerate(choices):
                index = _get(choice, "index")
                self._saw("openai", index if isinstance(index, int) else i, _get(choice, "finish_reason"))
            return
        candidates = _get(item, "candidates")
        if isinstance(candidates, (list, tuple)):
            for i, cand in enumerate(candidates):
                index = _get(cand, "index")
                self._saw("gemini", index if isinstance(index, int) else i,
                          _get(cand, "finish_reason", "finishReason"))

    def finish(self) -> None:
        if self.api is None:
            raise StreamIncomplete(f"stream ended without a stop reason (no event named its API in {self.events})",
                                   events=self.events)
        if not self.reasons:
            check(self.api, None, events=self.events)
        for reason in self.reasons.values():
            check(self.api, reason, events=self.events)


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
    if _get(answer, "stop_reason") is not None or _get(answer, "type") == "message":
        check("anthropic", _text(_get(answer, "stop_reason")))
        return answer
    watch = _Watch(None)
    if _get(answer, "object") == "response":
        watch._saw("openai_responses", 0, _get(answer, "status"))
    else:
        watch.see(answer)
        watch.events = 0
    watch.finish()
    return answer
