"""Observability against the real libraries: OpenTelemetry's SDK (its in-memory exporter sees
our span events) and prometheus_client (its parser reads our text; the collector registers)."""

from __future__ import annotations

import time
from typing import Any, Dict, List

import pytest

import retry_core
from retry_core import Fleet, observability

trace = pytest.importorskip("opentelemetry.trace")
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def provider() -> Any:
    # The global provider can be set once per process: this module's, exporting to memory.
    p = TracerProvider()
    p.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(p)
    return p


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch) -> None:
    EXPORTER.clear()
    # No fleet pause is involved below: patching the sleep is safe here.
    monkeypatch.setattr(time, "sleep", lambda s: None)


class StatusError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status


def flaky(failures: int, status: int = 503) -> Any:
    calls: List[int] = []

    def fn() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise StatusError(status, "Service Unavailable" if status == 503 else "invalid x-api-key")
        return "ok"

    fn.calls = calls  # type: ignore[attr-defined]
    return fn


def events_of(name: str) -> List[Any]:
    spans = [s for s in EXPORTER.get_finished_spans() if s.name == name]
    assert len(spans) == 1, [s.name for s in EXPORTER.get_finished_spans()]
    return list(spans[0].events)


def test_retries_are_events_of_the_current_span() -> None:
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("chat gpt-4o"):
        assert retry_core.call_llm_with_retry(flaky(2), policy="default") == "ok"
    events = events_of("chat gpt-4o")
    names = [e.name for e in events]
    assert names == ["retry_core.retry", "retry_core.wait", "retry_core.wait_finished"] * 2
    category = retry_core.classify(StatusError(503, "Service Unavailable")).category
    retries = [e.attributes for e in events if e.name == "retry_core.retry"]
    assert [r["http.request.resend_count"] for r in retries] == [1, 2]
    for r in retries:
        assert r["retry_core.event"] == "llm_retry_attempt"
        assert r["error.type"] == category
        assert r["http.response.status_code"] == 503
        assert r["exception.type"].endswith("StatusError")
        assert r["retry_core.retry_delay"] > 0
        # Nulls are left out (attributes cannot be None).
        assert "retry_core.retry_after" not in r
    wait = next(e.attributes for e in events if e.name == "retry_core.wait")
    assert wait["retry_core.reason"] == "backoff"


def test_a_give_up_is_an_event_with_its_error_type() -> None:
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("op"):
        with pytest.raises(StatusError):
            retry_core.call_llm_with_retry(flaky(5, status=401), policy="default")
    (event,) = events_of("op")
    assert event.name == "retry_core.give_up"
    assert event.attributes["retry_core.event"] == "llm_request_failed"
    assert event.attributes["error.type"] == retry_core.classify(StatusError(401, "invalid x-api-key")).category
    assert event.attributes["retry_core.retryable"] is False


def test_the_fleets_events_reach_the_span_too() -> None:
    fleet = Fleet(breaker={"consecutive_failures": 2}, budget=False)
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("op"):
        with pytest.raises(StatusError):
            retry_core.call_llm_with_retry(flaky(99), max_retries=2, fleet=fleet, key="openai:gpt-4o")
    events = events_of("op")
    circuit = [e for e in events if e.name == "retry_core.circuit"]
    assert circuit and circuit[0].attributes["retry_core.event"] == "circuit_opened"
    assert circuit[0].attributes["retry_core.key"] == "openai:gpt-4o"


def test_a_success_at_once_adds_nothing_and_no_span_means_no_work() -> None:
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("quiet"):
        assert retry_core.call_llm_with_retry(lambda: "ok") == "ok"
    assert events_of("quiet") == []
    EXPORTER.clear()
    # Outside any span the current span does not record: the events go nowhere, quietly.
    assert retry_core.call_llm_with_retry(flaky(1), policy="default") == "ok"
    assert EXPORTER.get_finished_spans() == ()


def test_call_span_names_the_provider_and_model_by_the_conventions() -> None:
    with observability.call_span(key="anthropic:claude-sonnet-4"):
        retry_core.call_llm_with_retry(flaky(1), policy="default")
    (span,) = EXPORTER.get_finished_spans()
    assert span.name == "retry_core.call"
    assert span.attributes["gen_ai.provider.name"] == "anthropic"
    assert span.attributes["gen_ai.system"] == "anthropic"
    assert span.attributes["gen_ai.request.model"] == "claude-sonnet-4"
    assert span.attributes["retry_core.key"] == "anthropic:claude-sonnet-4"
    assert [e.name for e in span.events][0] == "retry_core.retry"


def test_every_event_kind_has_a_name_from_the_core() -> None:
    names = retry_core._native._observe_names()
    for event_type, (span_event, notification, weight) in names["kinds"].items():
        assert span_event.startswith("retry_core.") and notification.endswith(".retry_core")
        assert weight in {"warn", "info", "debug"}
        assert observability.otel_name({"type": event_type}) == span_event
    attrs = observability.otel_attributes({"type": "admission_wait", "key": "k", "seconds": 1.5, "x": [1]})
    assert attrs == {"retry_core.event": "admission_wait", "retry_core.key": "k", "retry_core.seconds": 1.5,
                     "retry_core.x": "[1]"}


# ---- Prometheus -------------------------------------------------------------------------------

prometheus_client = pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402


def samples(text: str) -> Dict[Any, float]:
    out: Dict[Any, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_prometheus_client_parses_our_text_with_awkward_keys() -> None:
    fleet = Fleet(budget=False, breaker=False)
    key = 'team "a"\\openai:gpt-4o\nsecond line'
    assert retry_core.call_llm_with_retry(flaky(2), policy="default", fleet=fleet, key=key) == "ok"
    text = fleet.prometheus_text()
    assert "# HELP retry_core_retries_total " in text and "# TYPE retry_core_retries_total counter" in text
    got = samples(text)
    category = retry_core.classify(StatusError(503, "x")).category
    assert got[("retry_core_retries_total", (("category", category), ("key", key)))] == 2
    assert got[("retry_core_failures_total", (("category", category), ("key", key)))] == 2
    assert got[("retry_core_successes_total", (("category", "success"), ("key", key)))] == 1
    assert got[("retry_core_metrics_keys_omitted", ())] == 0
    # The counters are the same as metrics() says.
    m = fleet.metrics()[key][category]
    assert got[("retry_core_retry_delay_seconds_total", (("category", category), ("key", key)))] == pytest.approx(m["waited_s"])


def test_the_number_of_keys_is_bounded() -> None:
    fleet = Fleet(budget=False, breaker=False)
    for i in range(12):
        for _ in range(i):
            retry_core.call_llm_with_retry(lambda: "ok", fleet=fleet, key=f"k{i:02}")
    got = samples(fleet.prometheus_text(max_keys=3))
    keys = {dict(labels).get("key") for (_, labels) in got} - {None}
    assert keys == {"k11", "k10", "k09"}
    assert got[("retry_core_metrics_keys_omitted", ())] == 8  # k00 made no call, so it has no counters
    with pytest.raises(ValueError):
        fleet.prometheus_text(max_keys=-1)


def test_the_collector_registers_and_serves_the_fleet() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from retry_core.prometheus import FleetCollector

    fleet = Fleet(budget=False, breaker=False)
    registry = CollectorRegistry()
    FleetCollector(fleet, registry=registry)
    retry_core.call_llm_with_retry(flaky(1), policy="default", fleet=fleet, key="openai:gpt-4o")
    category = retry_core.classify(StatusError(503, "x")).category
    assert registry.get_sample_value("retry_core_retries_total", {"key": "openai:gpt-4o", "category": category}) == 1
    assert registry.get_sample_value("retry_core_calls_total", {"key": "openai:gpt-4o", "category": "success"}) == 1
    assert b"retry_core_retries_total{" in generate_latest(registry)
    with pytest.raises(TypeError):
        FleetCollector("not a fleet")  # type: ignore[arg-type]


def test_the_success_path_never_reaches_the_exporter(monkeypatch: pytest.MonkeyPatch) -> None:
    # The door's success path (with and without a fleet) builds no event, so OpenTelemetry is
    # never asked: the cost of observability on a success is nil.
    from retry_core import _retry

    seen: List[Any] = []
    monkeypatch.setattr(_retry, "_span_event", seen.append)
    fleet = Fleet()
    for _ in range(3):
        assert retry_core.call_llm_with_retry(lambda: "ok") == "ok"
        assert retry_core.call_llm_with_retry(lambda: "ok", fleet=fleet, key="openai:gpt-4o") == "ok"
    assert seen == []
    # The hook is the one the failure path uses: one retry reaches it.
    retry_core.call_llm_with_retry(flaky(1), policy="default")
    assert [e["type"] for e in seen][:1] == ["llm_retry_attempt"]


def test_a_call_path_never_imports_opentelemetry():
    # An import on a call's path is a fork hazard: another thread's import, cut by a fork, leaves
    # the child waiting forever on that module's lock (the 100-forked-children chaos test hung so
    # while OpenTelemetry was imported at the first event). A program that has not imported
    # OpenTelemetry has no recording span, so retries and events must not import it.
    import subprocess
    import sys

    code = (
        "import sys, retry_core\n"
        "class Busy(Exception):\n"
        "    status_code = 503\n"
        "n = []\n"
        "def fn():\n"
        "    n.append(1)\n"
        "    if len(n) == 1:\n"
        "        raise Busy('busy')\n"
        "    return 'ok'\n"
        "events = []\n"
        "assert retry_core.call_llm_with_retry(fn, max_retries=3, delay=0.0, on_event=events.append) == 'ok'\n"
        "assert events, 'the retry made no event'\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
