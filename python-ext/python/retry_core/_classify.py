"""``classify`` and friends: the engine's verdict on one failure."""

from __future__ import annotations

import datetime
from typing import Optional, Tuple, Union

from . import _native
from ._failure import Failure, HeadersLike, _utf8, record_of

__all__ = ["classify", "is_transient_error", "retry_after", "scrub", "format_error_message", "CATEGORIES"]

Classification = _native.Classification

#: ``(name, transient by nature, friendly error type)`` for every category, in contract order.
CATEGORIES: Tuple[Tuple[str, bool, str], ...] = tuple(_native.CATEGORIES)


def _epoch(now: Union[float, datetime.datetime, None]) -> Optional[float]:
    if now is None or isinstance(now, float):
        return now
    if isinstance(now, datetime.datetime):
        if now.tzinfo is None:
            raise ValueError("now must be timezone-aware")
        return now.timestamp()
    if isinstance(now, int) and not isinstance(now, bool):
        return float(now)
    raise TypeError(f"now must be a datetime or epoch seconds, not {type(now).__name__}")


def classify(
    exc_or_failure: Union[BaseException, Failure],
    *,
    now: Union[float, datetime.datetime, None] = None,
) -> "_native.Classification":
    """Classify a live exception (wrapped causes looked through) or a :class:`Failure`.

    ``now`` pins the clock for date-valued headers (HTTP-date ``retry-after``, Anthropic reset
    timestamps). The result has ``category``, ``transient``, ``retry_after``, ``error_type``,
    ``status`` (CONTRACT §2) and ``evidence``, ``api_error``, ``retry_after_source``,
    ``error_class``.

    >>> from retry_core import classify
    >>> classify(ConnectionResetError("peer went away")).category
    'connection'
    >>> classify(RuntimeError("max_tokens 1500 is too many for this model")).transient
    False
    """
    return _native._classify(record_of(exc_or_failure), _epoch(now))


def is_transient_error(error: Union[BaseException, Failure]) -> bool:
    """Whether ``error`` is worth retrying: a drop-in for PlanExe's substring check that looks at
    the status, the provider's error code, the class chain and only last at the text.

    >>> from retry_core import is_transient_error
    >>> is_transient_error(TimeoutError())
    True
    >>> is_transient_error(ValueError("max_tokens 1500 exceeds the limit"))
    False
    """
    return bool(classify(error).transient)


def retry_after(headers: HeadersLike, *, now: Union[float, datetime.datetime, None] = None) -> Optional[float]:
    """Seconds the headers ask to wait (``retry-after-ms``, ``retry-after`` as seconds or an
    HTTP-date, then provider reset hints), or None.

    >>> from retry_core import retry_after
    >>> retry_after({"Retry-After-Ms": "1500"})
    1.5
    """
    pairs = Failure(headers=headers)._record.headers
    epoch = _epoch(now)
    if epoch is None:
        epoch = datetime.datetime.now(datetime.timezone.utc).timestamp()
    found = _native._retry_after(pairs, epoch)
    return None if found is None else found[0]


def scrub(text: str) -> str:
    """``text`` with API keys and bearer tokens replaced by ``[REDACTED]``.

    >>> from retry_core import scrub
    >>> scrub("Incorrect API key provided: sk-proj-abcdefghijklmnop")
    'Incorrect API key provided: [REDACTED]'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return _native._scrub(_utf8(text))


def format_error_message(exc_or_failure: Union[BaseException, Failure]) -> str:
    """SwarmSDK's user-facing text for a failure that will not be retried (secrets scrubbed,
    request bodies never included)."""
    record = record_of(exc_or_failure)
    return _native._error_message(record, _native._classify(record, None))
