"""The reference reader: how a live exception becomes the failure record's fields, in plain
Python. This was ``retry_core/_failure.py`` before the reader moved into Rust
(``python-ext/src/failure.rs``, ten times faster); ``test_failure_reader.py`` checks that the
native reader gives exactly the same fields for every exception shape the suite knows.
"""

from __future__ import annotations

import typing

import json
import weakref
from typing import Any, List, Optional, Tuple

#: How many wrapped exceptions are looked through at most.
MAX_CHAIN = 16

_AIOHTTP_PARSER_ERROR = "aiohttp.http_exceptions.HttpProcessingError"

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


def _item(d: Any, key: str) -> Any:
    try:
        return dict.get(d, key)
    except Exception:  # a key whose __eq__ raises
        return None


def _aws_meta(response: Any, key: str) -> Any:
    # botocore's ClientError.response is a dict: {"Error": {...}, "ResponseMetadata": {...}}.
    if isinstance(response, dict):
        meta = _item(response, "ResponseMetadata")
        if isinstance(meta, dict):
            return _item(meta, key)
    return None


def _parsed_body(e: BaseException, response: Any) -> Optional[str]:
    parsed = _item(response, "Error") if isinstance(response, dict) else None
    if not isinstance(parsed, dict):
        parsed = _attr(e, "details")  # google-genai: the whole response JSON
    if isinstance(parsed, dict):
        try:
            return json.dumps(parsed, default=str)
        except Exception:
            return None
    return None


def _link(e: BaseException) -> Tuple[Any, ...]:
    """One exception's own fields, nothing looked up in its causes: the core merges the links."""
    response = _attr(e, "response")
    status = (
        _status(_attr(e, "status_code"))
        or _status(_attr(e, "status"))
        or (_status(_attr(response, "status_code")) if response is not None else None)
        or (_status(_attr(response, "status")) if response is not None else None)
        or _status(_aws_meta(response, "HTTPStatusCode"))
        # urllib HTTPError, google-api-core, google-genai; not aiohttp's parser errors, whose
        # `code` is what aiohttp's server would answer (400), not a received status.
        or (None if _AIOHTTP_PARSER_ERROR in class_names(type(e)) else _status(_attr(e, "code")))
    )
    # litellm's `response` is a stand-in; the provider's headers are kept apart.
    headers = _header_items(_attr(e, "litellm_response_headers"))
    if headers is None and response is not None:
        headers = _header_items(_attr(response, "headers"))
    if headers is None:
        headers = _header_items(_attr(e, "headers"))
    if headers is None:
        headers = _header_items(_aws_meta(response, "HTTPHeaders"))
    body = _body_of(e, response)
    if body is None:
        body = _parsed_body(e, response)
    if body is not None:
        body = _utf8(body)
    return list(class_names(type(e))), status, headers, body, _utf8(_message(e)), _client_retries(e, response)


def links(exc: BaseException) -> List[Tuple[Any, ...]]:
    """The chain's links, outermost first, as ``FailureRecord._from_links`` takes them."""
    return [_link(e) for e in _chain(exc)]


def _client_retries(e: BaseException, response: Any) -> Optional[int]:
    """The openai and anthropic SDKs' ``x-stainless-retry-count`` request header: the retries the
    client made before it raised (``exc.request``, else ``exc.response.request``)."""
    request = _attr(e, "request")
    if request is None and response is not None:
        request = _attr(response, "request")
    if request is None:
        return None
    try:
        value = request.headers.get("x-stainless-retry-count")
        if not isinstance(value, str):
            return None
        n = int(value.strip())
    except Exception:
        return None
    return n if 0 <= n < 2**32 else None



def record(exc: BaseException) -> Any:
    """The record the core merges from the links this reader read."""
    from retry_core import _native

    return _native.FailureRecord._from_links(links(exc))
