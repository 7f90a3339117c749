"""OpenTelemetry span events for retry-core's decisions.

When the application uses OpenTelemetry (``opentelemetry.trace`` is imported), every event of a call (a retry, a wait, a give-up, the
fleet's circuit and pauses...) becomes an event of the *current* span: the span of the logical
operation. We open no span of our own by default, because OpenTelemetry's GenAI conventions
have one span cover the whole operation, retries included, and have no retry attribute: the
retries are events of that span. (An HTTP instrumentation below the SDK still makes one client
span per request, with ``http.request.resend_count``.) :func:`call_span` opens such a span for
code that has none.

The names are the core's (``core/src/observe/names.rs``): span events ``retry_core.retry``,
``retry_core.give_up``, ``retry_core.wait``...; attributes ``error.type`` (the category),
``http.response.status_code``, ``http.request.resend_count``, ``gen_ai.request.model``,
``exception.type``, ``exception.message`` (scrubbed), and ours under ``retry_core.*``.

Cost: nothing is built on a call that succeeds at once (it has no events), and with no
recording span an event costs one ``get_current_span().is_recording()``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

from . import _native

__all__ = ["call_span", "otel_attributes", "otel_name", "record"]

_NAMES: Dict[str, Any] = _native._observe_names()
_KINDS: Dict[str, Tuple[str, str, str]] = _NAMES["kinds"]
_ATTRIBUTES: Dict[str, str] = _NAMES["attributes"]
_PREFIX: str = _NAMES["prefix"]
_EVENT_TYPE: str = _NAMES["event_type"]

# The OpenTelemetry API's trace module, looked up by the first `call_span` (False: not installed).
_trace: Any = None


def _otel() -> Any:
    global _trace
    if _trace is None:
        try:
            from opentelemetry import trace
        except ImportError:
            _trace = False
        else:
            _trace = trace
    return _trace


def otel_name(event: Mapping[str, Any]) -> str:
    """The span event name of a retry-core event (``retry_core.retry``, ...)."""
    kind = _KINDS.get(event.get("type", ""))
    return kind[0] if kind else _PREFIX + str(event.get("type", "event"))


def otel_attributes(event: Mapping[str, Any]) -> Dict[str, Any]:
    """The event's OpenTelemetry attributes: ``retry_core.event`` (its type), then each key
    that has a value, named by the core's table. Attribute values are str, bool, int or float:
    anything else is written as JSON."""
    out: Dict[str, Any] = {_EVENT_TYPE: event.get("type")}
    for key, value in event.items():
        if key == "type" or value is None:
            continue
        if not isinstance(value, (str, bool, int, float)):
            value = json.dumps(value, default=str)
        out[_ATTRIBUTES.get(key) or _PREFIX + key] = value
    return out


def record(event: Mapping[str, Any]) -> None:
    """Adds ``event`` to the current span, if the application uses OpenTelemetry and the span
    records. The front doors call it for every event; call it yourself for events you receive
    elsewhere.

    It never imports OpenTelemetry itself: a span can record only once the application has
    imported ``opentelemetry.trace`` (to set a tracer provider, or through an instrumentation),
    and an import started on a call's path would be a hazard: a fork while another thread is in
    it leaves the child waiting forever on that import's lock (and the import is slow)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return
    span = trace.get_current_span()
    if span.is_recording():
        span.add_event(otel_name(event), otel_attributes(event))


@contextlib.contextmanager
def call_span(key: Optional[str] = None, model: Optional[str] = None, name: str = "retry_core.call") -> Iterator[Any]:
    """A span around one logical call, for code that has no span of its own: the call's
    retries become its events. ``key`` shaped ``provider:model`` (a fleet key) sets
    ``gen_ai.provider.name`` (and the deprecated ``gen_ai.system``) and ``gen_ai.request.model``;
    ``model`` overrides the latter. Without OpenTelemetry it yields None and does nothing."""
    trace = _otel()
    if trace is False:
        yield None
        return
    attributes: Dict[str, Any] = {}
    if key:
        attributes[_ATTRIBUTES["key"]] = key
        provider, sep, key_model = key.partition(":")
        if sep and provider:
            attributes["gen_ai.provider.name"] = provider
            attributes["gen_ai.system"] = provider
            model = model or key_model or None
    if model:
        attributes[_ATTRIBUTES["model"]] = model
    tracer = trace.get_tracer("retry_core", _native.__version__)
    with tracer.start_as_current_span(name, attributes=attributes) as span:
        yield span
