"""The failure record (CONTRACT §1), and how one is read off a live exception.

This module translates; it never decides. It walks the exception chain (``__cause__``, then
``__context__`` unless suppressed with ``raise ... from None``), collects each exception's class
and ancestors as ``module.QualName`` (outermost first, then the causes), and takes the status,
headers and body from the first exception in the chain that carries them. Classification happens
in Rust.
"""

from __future__ import annotations

import json
import weakref
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native

__all__ = ["Failure", "failure_of", "record_of"]

#: How many wrapped exceptions are looked through at most.
MAX_CHAIN = 16

HeadersLike = Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]

# MRO names per exception type, computed once per class.
_NAMES: "weakref.WeakKeyDictionary[type, Tuple[str, ...]]" = weakref.WeakKeyDictionary()


def class_names(tp: type) -> Tuple[str, ...]:
    """``tp``'s class and its ancestors as ``module.QualName``, ``builtins.`` stripped,
    without ``BaseException`` and ``object``."""
    names = _NAMES.get(tp)
    if names is None:
        out: List[str] = []
        for k in tp.__mro__:
            if k is BaseException or k is object:
                continue
            module = getattr(k, "__module__", None)
            qualname = getattr(k, "__qualname__", k.__name__)
            out.append(qualname if module in (None, "builtins") else f"{module}.{qualname}")
        names = tuple(out)
        try:
            _NAMES[tp] = names
        except TypeError:  # a type that refuses weak references: just do not cache it
            pass
    return names


def _utf8(s: str) -> str:
    """``s``, with lone surrogates (``surrogateescape``-decoded bytes) replaced, so that any
    Python text can cross into Rust."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace").decode("utf-8")


def _text(v: Any) -> Optional[str]:
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).decode("utf-8", errors="replace")
    return None


def _header_items(h: Any) -> Optional[List[Tuple[str, str]]]:
    """Header pairs from a mapping (httpx.Headers, requests' CaseInsensitiveDict, dict,
    email.message.Message) or an iterable of pairs."""
    if h is None:
        return None
    out: List[Tuple[str, str]] = []
    try:
        raw = getattr(h, "raw", None)
        if isinstance(raw, list):  # httpx / httpx2: (bytes, bytes) pairs as received
            for k, v in raw:
                if isinstance(k, bytes) and isinstance(v, bytes):
                    out.append((k.decode("latin-1"), v.decode("latin-1")))
            return out
        if hasattr(h, "multi_items"):  # httpx: repeated headers stay separate
            items = h.multi_items()
        elif hasattr(h, "items"):
            items = h.items()
        else:
            items = h
        for k, v in items:
            name = k if isinstance(k, str) else _text(k)
            value = v if isinstance(v, str) else _text(v)
            if name is not None and value is not None:
                out.append((_utf8(name), _utf8(value)))
        return out
    except Exception:
        return None


def _status(v: Any) -> Optional[int]:
    if isinstance(v, int) and not isinstance(v, bool) and 100 <= v <= 999:
        return int(v)
    return None


def _attr(obj: Any, name: str) -> Any:
    # Properties of some clients raise on access (httpx's RequestError.request without a
    # request): a failure to read is "absent", never an error of ours.
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__


def _chain(exc: BaseException) -> List[BaseException]:
    out: List[BaseException] = []
    seen = set()
    cur: Optional[BaseException] = exc
    while cur is not None and len(out) < MAX_CHAIN and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        nxt = cur.__cause__
        if nxt is None and not cur.__suppress_context__:
            nxt = cur.__context__
        cur = nxt
    return out


def _body_of(e: BaseException, response: Any) -> Optional[str]:
    body = _attr(e, "body")
    text = _text(body)
    if text is not None:
        return text
    # The raw response text beats a re-serialised parsed body (openai and anthropic keep
    # only the inner error object in `.body`).
    if response is not None:
        text = _text(_attr(response, "text"))
        if text is None:
            text = _text(_attr(response, "content"))
        if text is not None:
            return text
    if body is not None:
        try:
            return json.dumps(body, default=str)
        except Exception:
            return None
    return None


def _fields(exc: BaseException) -> Tuple[Any, ...]:
    chain = _chain(exc)
    status: Optional[int] = None
    headers: Optional[List[Tuple[str, str]]] = None
    body: Optional[str] = None
    error_class: List[str] = []
    message = _message(exc)
    for e in chain:
        error_class.extend(class_names(type(e)))
        if not message:
            message = _message(e)
        if status is not None and headers is not None and body is not None:
            continue
        response = _attr(e, "response")
        if status is None:
            status = (
                _status(_attr(e, "status_code"))
                or _status(_attr(e, "status"))
                or (_status(_attr(response, "status_code")) if response is not None else None)
                or (_status(_attr(response, "status")) if response is not None else None)
            )
        if headers is None:
            headers = _header_items(_attr(response, "headers")) if response is not None else None
            if headers is None:
                headers = _header_items(_attr(e, "headers"))
        if body is None:
            body = _body_of(e, response)
    if body is not None:
        body = _utf8(body)
    return status, headers, body, error_class, _utf8(message)


def record_of(obj: Any) -> "_native.FailureRecord":
    """The native record of an exception or a :class:`Failure` (the fast path of ``classify``:
    no Python ``Failure`` is built for an exception)."""
    if isinstance(obj, BaseException):
        status, headers, body, error_class, message = _fields(obj)
        return _native.FailureRecord(status, headers, body, error_class, message, None)
    if isinstance(obj, Failure):
        return obj._record
    raise TypeError(f"expected an exception or a retry_core.Failure, got {type(obj).__name__}")


class Failure:
    """A language-neutral description of one failed call (CONTRACT §1).

    Every field is optional except ``message``. ``headers`` may be any mapping or an iterable
    of ``(name, value)`` pairs (names are case-insensitive); ``body`` may be text, bytes or a
    parsed JSON value; ``error_class`` lists the exception's class and its ancestors, most
    specific first; ``transport`` is one of ``timeout``, ``connect``, ``stream_transient``,
    ``stream_parse``, ``json``, ``other``.

    >>> from retry_core import Failure, classify
    >>> classify(Failure(status=429, headers={"Retry-After": "7"}, message="slow down")).retry_after
    7.0
    """

    __slots__ = ("status", "headers", "body", "error_class", "message", "transport", "_record")

    status: Optional[int]
    headers: Dict[str, str]
    body: Optional[str]
    error_class: Tuple[str, ...]
    message: str
    transport: Optional[str]

    def __init__(
        self,
        status: Optional[int] = None,
        headers: Optional[HeadersLike] = None,
        body: Union[str, bytes, Mapping[str, Any], Sequence[Any], None] = None,
        error_class: Optional[Sequence[str]] = None,
        message: str = "",
        transport: Optional[str] = None,
    ) -> None:
        if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
            raise TypeError(f"status must be an int or None, not {type(status).__name__}")
        pairs = []
        if headers is not None:
            if isinstance(headers, (str, bytes)):
                raise TypeError("headers must be a mapping or an iterable of (name, value) pairs")
            items = headers.items() if hasattr(headers, "items") else headers
            for pair in items:  # type: ignore[union-attr]
                try:
                    k, v = pair
                except (TypeError, ValueError):
                    raise TypeError("headers must be a mapping or an iterable of (name, value) pairs") from None
                if not isinstance(k, str):
                    raise TypeError(f"header names must be str, not {type(k).__name__}")
                if v is None:
                    continue
                value = _text(v) if isinstance(v, (bytes, bytearray)) else str(v)
                pairs.append((_utf8(k), _utf8(value or "")))
        if body is not None and not isinstance(body, str):
            text = _text(body)
            if text is None:
                try:
                    text = json.dumps(body)
                except (TypeError, ValueError) as e:
                    raise TypeError(f"body must be str, bytes or JSON-serialisable: {e}") from None
            body = text
        if body is not None:
            body = _utf8(body)
        if error_class is None:
            chain: Tuple[str, ...] = ()
        elif isinstance(error_class, str):
            chain = (error_class,)
        else:
            chain = tuple(error_class)
            if not all(isinstance(c, str) for c in chain):
                raise TypeError("error_class must be a sequence of str")
        if message is None:
            message = ""
        if not isinstance(message, str):
            raise TypeError(f"message must be str, not {type(message).__name__}")
        message = _utf8(message)
        chain = tuple(_utf8(c) for c in chain)
        if transport is not None and not isinstance(transport, str):
            raise TypeError(f"transport must be str or None, not {type(transport).__name__}")
        self._record = _native.FailureRecord(status, pairs, body, list(chain), message, transport)
        self.status = status
        self.headers = {}
        for k, v in pairs:
            self.headers.setdefault(k.strip().lower(), v)
        self.body = body
        self.error_class = chain
        self.message = message
        self.transport = transport

    @classmethod
    def from_exception(cls, exc: BaseException) -> "Failure":
        """The failure record of a live exception, looking through wrapped causes."""
        if not isinstance(exc, BaseException):
            raise TypeError(f"expected an exception, got {type(exc).__name__}")
        status, headers, body, error_class, message = _fields(exc)
        return cls(status, headers, body, error_class, message)

    def to_dict(self) -> Dict[str, Any]:
        """The record in the shared vectors' shape."""
        return {
            "status": self.status,
            "headers": dict(self.headers),
            "body": self.body,
            "error_class": list(self.error_class),
            "message": self.message,
            "transport": self.transport,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Failure):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = []
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.error_class:
            parts.append(f"error_class={self.error_class[0]!r}")
        parts.append(f"message={_native._scrub(self.message)[:200]!r}")
        if self.transport is not None:
            parts.append(f"transport={self.transport!r}")
        return f"Failure({', '.join(parts)})"


def failure_of(obj: Union[BaseException, Failure]) -> Failure:
    """A :class:`Failure` for an exception or a failure record."""
    if isinstance(obj, Failure):
        return obj
    if isinstance(obj, BaseException):
        return Failure.from_exception(obj)
    raise TypeError(f"expected an exception or a retry_core.Failure, got {type(obj).__name__}")
