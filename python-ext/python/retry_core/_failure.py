"""The failure record (CONTRACT §1), and how one is read off a live exception.

This module translates; it never decides. Reading an exception happens in Rust
(``FailureRecord._from_exception``, ``python-ext/src/failure.rs``): it walks the exception chain
(``__cause__``, then ``__context__`` unless suppressed with ``raise ... from None``, at most 16
deep), collects each exception's class and ancestors as ``module.QualName`` (outermost first,
then the causes; cached per class), and takes the status, headers and body from the first
exception in the chain that carries them. Classification happens in Rust too.

Where each comes from, first found wins:

- status: ``status_code``, ``status``, ``response.status_code``, ``response.status``,
  ``response["ResponseMetadata"]["HTTPStatusCode"]`` (botocore's ``ClientError``, whose
  ``response`` is a dict), then ``code`` (``urllib.error.HTTPError``, google-api-core's classes,
  google-genai's ``APIError``; not aiohttp's parser errors, whose ``code`` is the status
  aiohttp's server would answer); only an ``int`` from 100 to 999 counts.
- headers: litellm's ``litellm_response_headers`` (its ``response`` is a stand-in without the
  provider's headers), ``response.headers``, ``headers`` (aiohttp's ``ClientResponseError``, urllib's
  ``HTTPError``, cohere, mistralai), ``response["ResponseMetadata"]["HTTPHeaders"]`` (botocore).
- body: ``body`` as text, the response's ``text`` / ``content`` (requests, httpx; an httpx
  response not read yet is skipped), ``body`` parsed and re-serialised, botocore's
  ``response["Error"]`` (``{"Code", "Message"}``) or a dict ``details`` (google-genai's response
  JSON), as JSON. Nothing is ever read off a socket: ``urllib.error.HTTPError``'s body stays
  unread for the caller (its status and headers suffice), as does an unread streamed response.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import InvalidArgumentError

__all__ = ["Failure", "failure_of", "record_of"]

#: How many wrapped exceptions are looked through at most.
MAX_CHAIN: int = _native.MAX_CHAIN

HeadersLike = Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]


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


def record_of(obj: Any) -> "_native.FailureRecord":
    """The native record of an exception or a :class:`Failure` (the fast path of ``classify``:
    no Python ``Failure`` is built for an exception)."""
    if isinstance(obj, BaseException):
        return _native.FailureRecord._from_exception(obj)
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
        if status is not None and not 100 <= status <= 999:
            # Checked here too: an int too large for the native side would be an OverflowError.
            raise InvalidArgumentError(f"status must be an HTTP status (100-999), got {status}")
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
                except RecursionError:
                    raise ValueError("body is nested too deeply to serialise") from None
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
        record = _native.FailureRecord._from_exception(exc)
        self = cls.__new__(cls)
        self._record = record
        self.status = record.status
        self.headers = {}
        for k, v in record.headers:  # names already trimmed and lower-cased
            self.headers.setdefault(k, v)
        self.body = record.body
        self.error_class = tuple(record.error_class)
        self.message = record.message
        self.transport = None
        return self

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
