"""Retries at the transport: :class:`RetryTransport` and :class:`AsyncRetryTransport` wrap an
httpx transport, so that every request an ``httpx.Client`` (or an SDK built on one, such as
``openai.OpenAI(http_client=...)`` or ``anthropic.Anthropic(http_client=...)``) sends is retried
as the engine decides, before the client or the SDK sees the answer.

Each request is one logical call of the engine's run (``_native.Run``, the loop of
:func:`retry_core.call_llm_with_retry`); this module only translates:

- an answer with a status of 400 or more is a failure: its status, headers and body (read up
  to ``max_body`` bytes) go to the engine; an exception of the wrapped transport (a refused
  connection, a read timeout) is read as any exception is;
- a streamed success (``text/event-stream``) is held until its first event has arrived: an
  SSE ``error`` event there (Anthropic's ``event: error``, OpenAI's ``data: {"error": ...}``) is
  a failure of the attempt, since no byte of it has reached the caller; once the answer is
  returned, the caller reads the stream and nothing in it is retried;
- a failure the engine retries is closed (its connection goes back to the pool or is dropped)
  and the request is sent again with the same body; when the engine gives up or the failure is
  permanent, the caller gets the last answer itself, unchanged (status, headers, whole body),
  and the SDK raises its own error for it.

A request whose body is a stream (an iterator or a file handed to ``content=``) cannot be sent
twice: it is passed through once, unretried. The SDKs send bytes.

The same transports serve ``httpx`` and its fork ``httpx2`` (the HTTP client of openai 3.x and
anthropic 2.x, whose ``http_client=`` must be an ``httpx2.Client``): each request is answered
with the classes of the library that made it.
"""

from __future__ import annotations

import functools
import sys
import threading
from types import ModuleType
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional, Tuple

try:
    import httpx
except ImportError:  # only httpx2 installed
    import httpx2 as httpx  # type: ignore[no-redef]

from . import _native
from ._retry import _adoor, _CallOptions, _door, _Options

__all__ = ["RetryTransport", "AsyncRetryTransport", "ResponseFailure"]

#: The bytes of a failed answer's body read for the engine, and of a stream held back before
#: its first event; what lies beyond stays unread for the caller.
DEFAULT_MAX_BODY = 64 * 1024

# The call options that mean something per request. `messages`, `on_orphans` and
# `on_context_overflow` act on the conversation, which only the caller can change: a transport
# resends the same bytes.
_TRANSPORT_OPTIONS = frozenset(_CallOptions.__annotations__) - {"messages", "on_orphans", "on_context_overflow"}


class ResponseFailure(Exception):
    """One failed answer as the engine reads it (``status_code``, ``headers``, ``body``); never
    raised to the caller, who gets the answer itself when the engine gives up."""

    def __init__(self, message: str, status_code: int, headers: List[Tuple[str, str]], body: Optional[str],
                 response: httpx.Response) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.headers = headers
        self.body = body
        self._answer = response


def _options(name: str, options: Any) -> _Options:
    for option in options:
        if option not in _TRANSPORT_OPTIONS:
            raise TypeError(f"{name}() got an unexpected keyword argument {option!r}"
                            + (" (a transport resends the same request: the conversation is the caller's)"
                               if option in _CallOptions.__annotations__ else ""))
    return _Options(name, options)


def _check_max_body(max_body: Any) -> int:
    if not isinstance(max_body, int) or isinstance(max_body, bool) or max_body < 1:
        raise ValueError(f"max_body must be a positive int (bytes), got {max_body!r}")
    return max_body


def _lib(request: Any) -> ModuleType:
    """The library that made ``request``: ``httpx`` or ``httpx2``."""
    return sys.modules[type(request).__module__.partition(".")[0]]


def _replayable(request: Any) -> bool:
    """Whether the request's body can be sent again: bytes (what ``json=``, ``data=`` and
    ``content=b"..."`` give), or a streamed body the caller has already read."""
    return isinstance(request.stream, _lib(request).ByteStream) or hasattr(request, "_content")


def _is_event_stream(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "")
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    # A compressed stream would have to be decoded to be read here: it is passed on unread.
    return kind.split(";", 1)[0].strip().lower() == "text/event-stream" and encoding in ("", "identity")


def _headers(response: httpx.Response) -> List[Tuple[str, str]]:
    return [(k, v) for k, v in response.headers.multi_items()]


def _body_text(response: Any, raw: bytes) -> str:
    """The body's text as the caller would read it (decompressed, in its charset)."""
    try:
        text: str = type(response)(response.status_code, headers=response.headers, content=raw).text
        return text
    except Exception:  # a body cut at max_body may not decompress: the bytes as they are
        return raw.decode("utf-8", "replace")


def _first_event_ended(buf: bytes) -> bool:
    """Whether the stream's first SSE event has arrived whole (core ``middleware::first_event``)."""
    return _native._sse_first_event(buf)[0] is not None


def _error_event(buf: bytes) -> Optional[str]:
    """The data of the stream's first event when it is an error event (Anthropic's
    ``event: error``, OpenAI's ``data: {"error": ...}``), else None: the core's rule."""
    return _native._sse_first_event(buf)[1]


def _status_failure(response: httpx.Response, raw: bytes, answer: httpx.Response) -> ResponseFailure:
    message = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    return ResponseFailure(message, response.status_code, _headers(response), _body_text(response, raw), answer)


def _event_failure(response: httpx.Response, payload: str, answer: httpx.Response) -> ResponseFailure:
    return ResponseFailure("stream error event before the first byte", response.status_code,
                           _headers(response), payload, answer)


# --- the answer handed on: what was read, then the rest of the wire ----------------------------


class _Replay:
    """What was read, then the rest of the wire (a sync stream of the request's library)."""

    def __init__(self, head: bytes, rest: Optional[Iterator[bytes]], stream: Any) -> None:
        self._head, self._rest, self._stream = head, rest, stream

    def __iter__(self) -> Iterator[bytes]:
        if self._head:
            yield self._head
        if self._rest is not None:
            yield from self._rest

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if callable(close):
            close()


class _AsyncReplay:
    """The async twin of :class:`_Replay`."""

    def __init__(self, head: bytes, rest: Optional[AsyncIterator[bytes]], stream: Any) -> None:
        self._head, self._rest, self._stream = head, rest, stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._head:
            yield self._head
        if self._rest is not None:
            async for chunk in self._rest:
                yield chunk

    async def aclose(self) -> None:
        aclose = getattr(self._stream, "aclose", None)
        if callable(aclose):
            await aclose()


_REPLAYS: Dict[Tuple[str, bool], type] = {}


def _replay_class(lib: ModuleType, is_async: bool) -> type:
    """:class:`_Replay` (or its async twin) as a byte stream of ``lib``: a response checks its
    stream's class."""
    key = (lib.__name__, is_async)
    cls = _REPLAYS.get(key)
    if cls is None:
        base = lib.AsyncByteStream if is_async else lib.SyncByteStream
        mixin = _AsyncReplay if is_async else _Replay
        cls = _REPLAYS.setdefault(key, type(mixin.__name__, (mixin, base), {}))
    return cls


def _answer(response: Any, head: bytes, rest: Any, is_async: bool) -> Any:
    stream = _replay_class(_lib(response), is_async)(head, rest, response.stream)
    return type(response)(response.status_code, headers=response.headers, stream=stream,
                          extensions=response.extensions)


def _read_head(chunks: Iterator[bytes], limit: int, until_event: bool) -> Tuple[bytes, bool]:
    """Reads up to ``limit`` bytes (or, for a stream, its first event); returns them and
    whether the body ended."""
    buf = bytearray()
    for chunk in chunks:
        buf += chunk
        if len(buf) >= limit or (until_event and _first_event_ended(bytes(buf))):
            return bytes(buf), False
    return bytes(buf), True


async def _aread_head(chunks: AsyncIterator[bytes], limit: int, until_event: bool) -> Tuple[bytes, bool]:
    buf = bytearray()
    async for chunk in chunks:
        buf += chunk
        if len(buf) >= limit or (until_event and _first_event_ended(bytes(buf))):
            return bytes(buf), False
    return bytes(buf), True


class _Attempts:
    """One request's attempts: each sends it through the wrapped transport and returns the
    answer, or raises :class:`ResponseFailure`; the failure before it is closed first."""

    __slots__ = ("inner", "request", "limit", "failed")

    def __init__(self, inner: Any, request: httpx.Request, limit: int) -> None:
        self.inner, self.request, self.limit = inner, request, limit
        self.failed: Optional[httpx.Response] = None

    def discard(self) -> None:
        failed, self.failed = self.failed, None
        if failed is not None:
            failed.close()

    async def adiscard(self) -> None:
        failed, self.failed = self.failed, None
        if failed is not None:
            await failed.aclose()

    # An httpx or an httpx2 response, as the request's library makes them.
    def __call__(self) -> httpx.Response:
        self.discard()
        response: httpx.Response = self.inner.handle_request(self.request)
        is_error, is_stream = response.status_code >= 400, _is_event_stream(response)
        if not (is_error or is_stream):
            return response
        chunks: Iterator[bytes] = iter(response.stream)  # type: ignore[arg-type]  # a sync transport's stream
        try:
            head, ended = _read_head(chunks, self.limit, not is_error)
        except BaseException:
            response.close()
            raise
        answer: httpx.Response = _answer(response, head, None if ended else chunks, False)
        if is_error:
            self.failed = answer
            raise _status_failure(response, head, answer)
        payload = _error_event(head)
        if payload is None:
            return answer
        self.failed = answer
        raise _event_failure(response, payload, answer)

    async def acall(self) -> httpx.Response:
        await self.adiscard()
        response: httpx.Response = await self.inner.handle_async_request(self.request)
        is_error, is_stream = response.status_code >= 400, _is_event_stream(response)
        if not (is_error or is_stream):
            return response
        chunks: AsyncIterator[bytes] = response.stream.__aiter__()  # type: ignore[union-attr]  # an async transport's
        try:
            head, ended = await _aread_head(chunks, self.limit, not is_error)
        except BaseException:
            await response.aclose()
            raise
        answer: httpx.Response = _answer(response, head, None if ended else chunks, True)
        if is_error:
            self.failed = answer
            raise _status_failure(response, head, answer)
        payload = _error_event(head)
        if payload is None:
            return answer
        self.failed = answer
        raise _event_failure(response, payload, answer)


class RetryTransport(httpx.BaseTransport):
    """An httpx transport that retries what the engine says to retry.

    ``transport``: the transport to wrap (default: the ``HTTPTransport()`` of the library
    the requests come from, ``httpx`` or ``httpx2``). The keyword
    options are :func:`retry_core.call_llm_with_retry`'s that act per request: ``policy``,
    ``max_retries``, ``delay``, ``seed``, ``on_event``, ``on_progress``, ``fleet`` and ``key``,
    ``estimate``; checked here, once. ``max_body``: how many bytes of a failed answer are read
    for the engine (the rest stays for the caller).

    Turn the SDK's own retries off (``max_retries=0``): an SDK retries outside its
    ``http_client``, so each of its retries would run this transport's whole run again.

    >>> import httpx, retry_core.httpx
    >>> client = httpx.Client(transport=retry_core.httpx.RetryTransport(policy="default"))
    >>> client.close()
    """

    def __init__(self, transport: Optional[httpx.BaseTransport] = None, *, max_body: int = DEFAULT_MAX_BODY,
                 **options: Any) -> None:
        self._opts = _options("RetryTransport", options)
        self._limit = _check_max_body(max_body)
        self._inner = transport
        self._lock = threading.Lock()

    def _transport(self, request: Any) -> Any:
        """The wrapped transport; by default the ``HTTPTransport`` of the request's library,
        made at the first request."""
        inner = self._inner
        if inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = _lib(request).HTTPTransport()
                inner = self._inner
        return inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        inner = self._transport(request)
        if not _replayable(request):
            return inner.handle_request(request)  # type: ignore[no-any-return]
        attempts = _Attempts(inner, request, self._limit)
        try:
            # Through call_llm_with_retry's own door: a free key is called at once; a failure
            # builds the run.
            return _door(attempts, self._opts)
        except ResponseFailure as failure:
            # Given up, or not to be retried: the caller gets the answer itself.
            attempts.failed = None
            return failure._answer
        finally:
            attempts.discard()

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of :class:`RetryTransport` (waits through ``asyncio.sleep``); wraps
    the ``AsyncHTTPTransport()`` of the requests' library by default."""

    def __init__(self, transport: Optional[httpx.AsyncBaseTransport] = None, *, max_body: int = DEFAULT_MAX_BODY,
                 **options: Any) -> None:
        self._opts = _options("AsyncRetryTransport", options)
        self._limit = _check_max_body(max_body)
        self._inner = transport
        self._lock = threading.Lock()

    def _transport(self, request: Any) -> Any:
        inner = self._inner
        if inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = _lib(request).AsyncHTTPTransport()
                inner = self._inner
        return inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        inner = self._transport(request)
        if not _replayable(request):
            return await inner.handle_async_request(request)  # type: ignore[no-any-return]
        attempts = _Attempts(inner, request, self._limit)
        call = functools.partial(_Attempts.acall, attempts)
        try:
            return await _adoor(call, self._opts)
        except ResponseFailure as failure:
            attempts.failed = None
            return failure._answer
        finally:
            await attempts.adiscard()

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
