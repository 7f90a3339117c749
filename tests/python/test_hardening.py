"""Hardening: many threads on shared native objects give exactly the single-threaded answers,
and bad input at every front door (wrong types, None, a 10 MB body, 100 000 levels of JSON,
invalid UTF-8, lone surrogates, 100 000 messages) is a clear TypeError / ValueError or a correct
answer, never a crash or a hang. (A panic inside the core: test_failure.py.)"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

import retry_core
from retry_core import (
    Failure,
    Fleet,
    RetryConfig,
    RetryPolicy,
    call_llm_with_retry,
    classify,
    format_error_message,
    is_tool_pairing_error,
    is_transient_error,
    prune_orphan_tool_calls,
    retry_after,
    scrub,
)
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance

from conftest import VECTORS, RunMachine

THREADS = 16
ITERATIONS = 2_000


class StatusError(Exception):
    def __init__(self, status, msg="", headers=None, body=None):
        super().__init__(msg or f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}
        self.body = body


def hammer(work: Callable[[int, int], Any], expected: Callable[[int, int], Any]) -> None:
    """Runs ``work(thread, i)`` THREADS x ITERATIONS times at once (all threads released
    together) and compares every answer with ``expected(thread, i)``, computed beforehand on one
    thread."""
    want = {(t, i): expected(t, i) for t in range(THREADS) for i in range(ITERATIONS)}
    barrier = threading.Barrier(THREADS)
    wrong: List[Any] = []
    errors: List[BaseException] = []

    def run(t: int) -> None:
        try:
            barrier.wait()
            for i in range(ITERATIONS):
                got = work(t, i)
                if got != want[(t, i)]:
                    wrong.append((t, i, got, want[(t, i)]))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not any(th.is_alive() for th in threads), "a thread hung"
    assert not errors, errors[:3]
    assert not wrong, f"{len(wrong)} answers differ, e.g. {wrong[:2]}"


def _vector_failures() -> List[Failure]:
    out = []
    for name in ("classify.json", "should_retry.json"):
        for case in json.loads((VECTORS / name).read_text())["cases"]:
            out.append(Failure(**case["failure"]))
    return out


def _live_exceptions() -> List[BaseException]:
    excs: List[BaseException] = [
        StatusError(429, "slow down", {"retry-after": "7"}, '{"error": {"type": "rate_limit_error"}}'),
        StatusError(529, body={"type": "error", "error": {"type": "overloaded_error"}}),
        ConnectionResetError(104, "Connection reset by peer"),
        TimeoutError("read timed out"),
        ValueError("max_tokens 1500 is too many"),
    ]
    try:
        try:
            raise StatusError(429, "You exceeded your current quota", body='{"error": {"code": "insufficient_quota"}}')
        except StatusError as cause:
            raise RuntimeError("LLM chat failed") from cause
    except RuntimeError as wrapped:
        excs.append(wrapped)
    return excs


def test_classify_from_many_threads_matches_one_thread():
    inputs: List[Any] = _vector_failures() + _live_exceptions()
    single = [classify(x, now=1_800_000_000).to_dict() for x in inputs]
    n = len(inputs)
    hammer(lambda t, i: classify(inputs[(t * 7 + i) % n], now=1_800_000_000).to_dict(),
           lambda t, i: single[(t * 7 + i) % n])


def test_pruning_from_many_threads_matches_one_thread():
    cases = json.loads((VECTORS / "orphans.json").read_text())["cases"]
    histories = [c["messages"] for c in cases]

    def answer(h: Any) -> Any:
        r = prune_orphan_tool_calls(h)
        return (json.dumps(r.messages, sort_keys=True), json.dumps(r.pruned, sort_keys=True), r.dangling_results, r.reminder)

    single = [answer(h) for h in histories]
    n = len(histories)
    hammer(lambda t, i: answer(histories[(t + i) % n]), lambda t, i: single[(t + i) % n])


def test_a_shared_fleet_from_many_threads_matches_one_thread():
    """Every thread retries a 503 on the same keys of one fleet, then succeeds: the decisions
    (seeded jitter) are the single-threaded ones, the budget ends where it began, and the
    metrics count every call exactly once."""
    # Failures whose retry costs what its success earns back (5 tokens): the budget never runs
    # dry however the threads interleave, so every decision is the single-threaded one.
    failures = [StatusError(503), StatusError(429, headers={"x-ratelimit-reset-requests": "1s"}), StatusError(529)]
    policy = RetryPolicy("default")

    def decide(fleet: Fleet, t: int, i: int) -> Any:
        r = RunMachine(policy, seed=i, fleet=fleet, key=f"k{t % 4}")
        assert r.start() == ("call", 0) and r.events == []
        d = r.on_failure(failures[i % 3])
        assert r.succeeded() == ("return",)
        return d.action, d.delay, d.classification.category, [e["type"] for e in d.events], r.events

    solo = Fleet(breaker=False, shared_pause=False)
    single = {(t, i): decide(solo, t, i) for t in range(4) for i in range(ITERATIONS)}
    shared = Fleet(breaker=False, shared_pause=False)
    hammer(lambda t, i: decide(shared, t, i), lambda t, i: single[(t % 4, i)])
    m = shared.metrics()
    for k in range(4):
        total = m[f"k{k}"]["total"]
        assert (total["calls"], total["successes"], total["retries"]) == (THREADS // 4 * ITERATIONS * 2,
                                                                          THREADS // 4 * ITERATIONS,
                                                                          THREADS // 4 * ITERATIONS)
        assert shared.tokens(f"k{k}") == 500.0


def test_one_run_is_not_shared_silently():
    """A run (the engine's ``Run``) is one logical call's state. Used from two threads at once it
    raises a clear RuntimeError (pyo3's borrow check) rather than corrupting its state."""
    r = RunMachine("default", fleet=Fleet(), key="k")
    errors: List[BaseException] = []

    def use() -> None:
        for _ in range(2000):
            try:
                r.on_failure(StatusError(503))
            except RuntimeError as e:
                errors.append(e)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert all(isinstance(e, RuntimeError) for e in errors)
    assert r.attempts <= 8000


# --- bad input at every front door ---------------------------------------------------------------

MB10 = "x" * (10 << 20)


def deep_json(levels: int = 100_000) -> str:
    return "[" * levels + "]" * levels


def deep_list(levels: int = 100_000) -> Any:
    v: Any = []
    for _ in range(levels):
        v = [v]
    return v


BAD_UTF8 = b"\xff\xfe\xed\xa0\x80 \xc3\x28 ok"
SURROGATE = "connection reset by peer \udcff\ud800"

CLEAR = (TypeError, ValueError)


def clear_or_answer(fn: Callable[[], Any], seconds: float = 5.0) -> Any:
    """``fn()``'s answer, or the TypeError / ValueError it raised; anything else fails, and so
    does taking longer than ``seconds``."""
    t0 = time.monotonic()
    try:
        out = fn()
    except CLEAR as e:
        out = e
    assert time.monotonic() - t0 < seconds, f"took {time.monotonic() - t0:.1f} s"
    return out


WRONG_TYPES: Dict[str, Callable[[], Any]] = {
    "classify(None)": lambda: classify(None),  # type: ignore[arg-type]
    "classify(str)": lambda: classify("boom"),  # type: ignore[arg-type]
    "classify(now=str)": lambda: classify(TimeoutError(), now="today"),  # type: ignore[arg-type]
    "classify(naive datetime)": lambda: classify(TimeoutError(), now=__import__("datetime").datetime(2026, 1, 1)),
    "is_transient_error(1)": lambda: is_transient_error(1),  # type: ignore[arg-type]
    "Failure(status=str)": lambda: Failure(status="500"),  # type: ignore[arg-type]
    "Failure(status=bool)": lambda: Failure(status=True),
    "Failure(status=10**30)": lambda: Failure(status=10**30),
    "Failure(status=-1)": lambda: Failure(status=-1),
    "Failure(headers=str)": lambda: Failure(headers="retry-after: 1"),  # type: ignore[arg-type]
    "Failure(headers=int keys)": lambda: Failure(headers={1: "x"}),  # type: ignore[dict-item]
    "Failure(headers=triples)": lambda: Failure(headers=[("a", "b", "c")]),  # type: ignore[list-item]
    "Failure(body=object)": lambda: Failure(body=object()),  # type: ignore[arg-type]
    "Failure(error_class=[1])": lambda: Failure(error_class=[1]),  # type: ignore[list-item]
    "Failure(message=bytes)": lambda: Failure(message=b"boom"),  # type: ignore[arg-type]
    "Failure(transport=1)": lambda: Failure(transport=1),  # type: ignore[arg-type]
    "Failure(transport=bogus)": lambda: Failure(transport="bogus"),
    "Failure.from_exception(str)": lambda: Failure.from_exception("x"),  # type: ignore[arg-type]
    "retry_after(str)": lambda: retry_after("retry-after: 3"),  # type: ignore[arg-type]
    "scrub(None)": lambda: scrub(None),  # type: ignore[arg-type]
    "scrub(bytes)": lambda: scrub(b"sk-proj-abc"),  # type: ignore[arg-type]
    "format_error_message(1)": lambda: format_error_message(1),  # type: ignore[arg-type]
    "prune(None)": lambda: prune_orphan_tool_calls(None),  # type: ignore[arg-type]
    "prune(str)": lambda: prune_orphan_tool_calls("[]"),
    "prune(dict)": lambda: prune_orphan_tool_calls({"role": "user"}),  # type: ignore[arg-type]
    "prune([None])": lambda: prune_orphan_tool_calls([None]),
    "prune([1])": lambda: prune_orphan_tool_calls([1]),
    "is_tool_pairing_error(None)": lambda: is_tool_pairing_error(None),  # type: ignore[arg-type]
    "RetryPolicy(None)": lambda: RetryPolicy(None),  # type: ignore[arg-type]
    "RetryPolicy(unknown)": lambda: RetryPolicy("nope"),
    "RetryPolicy(max_attempts=str)": lambda: RetryPolicy(max_attempts="3"),
    "RetryPolicy.from_config(None)": lambda: RetryPolicy.from_config(None),  # type: ignore[arg-type]
    "RetryPolicy.from_config(list)": lambda: RetryPolicy.from_config([1]),  # type: ignore[arg-type]
    "RetryPolicy.from_config(nan)": lambda: RetryPolicy.from_config({"deadline": float("nan")}),
    "RetryPolicy.swarm_sdk(None)": lambda: RetryPolicy.swarm_sdk(None),  # type: ignore[arg-type]
    "RetryPolicy.swarm_sdk(2**40)": lambda: RetryPolicy.swarm_sdk(2**40),
    "RetryConfig(nan).to_policy": lambda: RetryConfig(base_delay=float("nan")).to_policy(),
    "RetryConfig(str).delay_for_retry": lambda: RetryConfig(max_retries="2").delay_for_retry(0),  # type: ignore[arg-type]
    "Fleet(budget=str)": lambda: Fleet(budget="lots"),
    "Fleet(unknown)": lambda: Fleet(budgett={}),
    "Fleet(capacity=None)": lambda: Fleet(budget={"capacity": None}),
    "Fleet(max_pause_s=-1)": lambda: Fleet(max_pause_s=-1),
    "Fleet(redis_url=1)": lambda: Fleet(redis_url=1),
    "Fleet(redis_url=garbage)": lambda: Fleet(redis_url="http://not-redis"),
    "Fleet.tokens(None)": lambda: Fleet().tokens(None),  # type: ignore[arg-type]
    "Fleet.from_file(None)": lambda: Fleet.from_file(None),  # type: ignore[arg-type]
    "call(max_retries=str)": lambda: call_llm_with_retry(_fails, max_retries="3"),
    # (delay=None is the documented default now, CONTRACT §6: a wrong type is a string.)
    "call(delay=str)": lambda: call_llm_with_retry(_fails, delay="15"),
    "call(delay=-1)": lambda: call_llm_with_retry(_fails, delay=-1),
    "call(policy=1)": lambda: call_llm_with_retry(_fails, policy=1),
    "call(on_event=str)": lambda: call_llm_with_retry(_fails, on_event="print"),
    "call(messages=str)": lambda: call_llm_with_retry(_fails, messages="history"),
    "call(seed=str)": lambda: call_llm_with_retry(_fails, seed="1"),
    "call(seed=-1)": lambda: call_llm_with_retry(_fails, seed=-1),
    "call(fleet=dict)": lambda: call_llm_with_retry(_fails, fleet={}, key="k"),
    "call(fleet, key=None)": lambda: call_llm_with_retry(_fails, fleet=Fleet()),
    "call(fleet, key=1)": lambda: call_llm_with_retry(_fails, fleet=Fleet(), key=1),
    "call(bogus=1)": lambda: call_llm_with_retry(_fails, bogus=1),
    "call(None)": lambda: call_llm_with_retry(None),  # type: ignore[arg-type]
    "LLMExecutor(None)": lambda: LLMExecutor(None),  # type: ignore[arg-type]
    "LLMExecutor(retry_config=dict)": lambda: LLMExecutor(LLMModelWithInstance.from_instances([object()]), retry_config={}),  # type: ignore[arg-type]
    "LLMExecutor(max_validation_retries=-1)": lambda: LLMExecutor(LLMModelWithInstance.from_instances([object()]), max_validation_retries=-1),
    "LLMExecutor.run(None)": lambda: LLMExecutor(LLMModelWithInstance.from_instances([object()])).run(None),  # type: ignore[arg-type]
    "LLMExecutor.run(two params)": lambda: LLMExecutor(LLMModelWithInstance.from_instances([object()])).run(lambda a, b: 1),
}


def _fails() -> Any:
    raise StatusError(503)


@pytest.mark.parametrize("name", list(WRONG_TYPES))
def test_wrong_types_and_none_are_clear_errors(name, no_sleep):
    out = clear_or_answer(WRONG_TYPES[name])
    assert isinstance(out, CLEAR), f"{name} answered {out!r}"
    assert str(out), "the error says what is wrong"


def test_odd_but_harmless_input_gets_a_correct_answer():
    assert retry_after({}) is None
    assert retry_after([]) is None
    assert retry_after(None) is None  # type: ignore[arg-type]
    # Messages of shapes the engine does not know are left alone, as they are.
    for odd in ([{"role": 1, "content": None}], [{"role": "assistant", "tool_calls": "x"}], [{}]):
        r = prune_orphan_tool_calls(odd)
        assert r.messages[0] is odd[0] and r.pruned == []
    # A tool result with no id answers no call: it is dangling, and removed.
    assert prune_orphan_tool_calls([{"role": "tool"}]).dangling_results == 1


def test_a_10_mb_body_and_message():
    t0 = time.monotonic()
    f = Failure(status=500, body=MB10, message=MB10 + " rate limit exceeded", headers={"x": MB10})
    c = classify(f)
    assert c.category == "server_error"
    assert classify(StatusError(503, MB10, body=MB10.encode())).category == "server_error"
    events: List[Dict[str, Any]] = []
    with pytest.raises(StatusError):
        call_llm_with_retry(lambda: (_ for _ in ()).throw(StatusError(401, MB10)), on_event=events.append)
    assert len(events) == 1 and len(events[0]["error_message"]) >= 10 << 20
    assert len(format_error_message(f)) > 0
    assert scrub(MB10 + " sk-proj-abcdefghijklmnopqrstuvwx").endswith("[REDACTED]")
    history = [{"role": "user", "content": MB10}]
    assert prune_orphan_tool_calls(history).messages[0] is history[0]
    assert time.monotonic() - t0 < 20


def test_100_000_levels_of_json():
    text = deep_json()
    for f in (Failure(status=429, body=text), Failure(message=text), Failure(status=500, headers={"retry-after": text})):
        assert clear_or_answer(lambda: classify(f)).category in {"rate_limited", "unknown", "server_error"}
    assert isinstance(clear_or_answer(lambda: RetryPolicy.from_config(text)), ValueError)
    assert isinstance(clear_or_answer(lambda: RetryPolicy.from_config({"overrides": deep_list()})), ValueError)
    assert isinstance(clear_or_answer(lambda: Fleet(budget={"capacity": deep_list()})), ValueError)
    assert isinstance(clear_or_answer(lambda: Failure(body=deep_list())), ValueError)
    assert isinstance(clear_or_answer(lambda: prune_orphan_tool_calls([{"role": "user", "content": deep_list()}])), ValueError)
    # As a string, deep JSON is just text: pruning passes it through.
    history = [{"role": "user", "content": text}]
    assert prune_orphan_tool_calls(history).messages[0] is history[0]
    # A live exception whose parsed body is that deep: the reader cannot serialise it and reads
    # no body; the status still decides.
    e = StatusError(503)
    e.body = deep_list()
    assert classify(e).category == "server_error"


def test_invalid_utf8_bytes():
    f = Failure(status=503, body=BAD_UTF8, headers={"retry-after": b"\xff3"})
    assert f.body is not None and "\ufffd" in f.body
    assert classify(f).category == "server_error"
    assert classify(StatusError(429, headers=[(b"retry-after\xff", b"\xfe7")], body=BAD_UTF8)).category == "rate_limited"
    assert retry_after([("Retry-After", b"4")]) == 4.0  # type: ignore[list-item]
    assert isinstance(clear_or_answer(lambda: retry_after([(b"Retry-After", b"4")])), TypeError)  # type: ignore[list-item]
    assert prune_orphan_tool_calls([{"role": "user", "content": BAD_UTF8.decode("latin-1")}]).changed == 0


def test_lone_surrogates_everywhere():
    assert classify(OSError(SURROGATE)).category == "connection"
    f = Failure(message=SURROGATE, body=SURROGATE, headers={SURROGATE: SURROGATE}, error_class=[SURROGATE])
    assert "?" in f.message and classify(f).category == "connection"
    assert scrub(SURROGATE) == "connection reset by peer ??"
    assert is_tool_pairing_error(SURROGATE) is False
    assert format_error_message(OSError(SURROGATE))
    history = [
        {"role": "user", "content": SURROGATE},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c\udcff", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
        {"role": "user", "content": "next"},
    ]
    r = prune_orphan_tool_calls(history)
    assert r.messages[0] is history[0], "untouched messages keep their surrogates (the caller's object)"
    assert len(r.messages) == 2 and r.pruned[0]["name"] == "Read"
    events: List[Dict[str, Any]] = []
    with pytest.raises(StatusError):
        call_llm_with_retry(lambda: (_ for _ in ()).throw(StatusError(400, SURROGATE)), on_event=events.append)
    assert events[0]["error_message"] == "connection reset by peer ??"
    out = clear_or_answer(lambda: Fleet().tokens(SURROGATE))
    assert isinstance(out, (float, ValueError))
    assert isinstance(clear_or_answer(lambda: RetryPolicy(SURROGATE)), ValueError)


def test_a_history_of_100_000_messages(no_sleep):
    n = 100_000
    history: List[Dict[str, Any]] = []
    for i in range(n // 4):
        history.append({"role": "user", "content": f"step {i}"})
        history.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "Read", "arguments": json.dumps({"file_path": f"/f{i}"})}}]})
        if i % 1000:
            history.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
        else:
            history.append({"role": "tool", "tool_call_id": f"dangling{i}", "content": "?"})
        history.append({"role": "assistant", "content": f"done {i}"})
    t0 = time.monotonic()
    r = prune_orphan_tool_calls(history)
    took = time.monotonic() - t0
    assert len(r.pruned) == n // 4 // 1000 and r.dangling_results == n // 4 // 1000
    assert len(r.messages) == n - 2 * (n // 4 // 1000)
    assert r.messages[0] is history[0]
    assert took < 10, f"pruning 100 000 messages took {took:.1f} s"
    # Through the retry loop: a tool-pairing 400, pruned in place, then success.
    calls = {"n": 0}

    def fn() -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise StatusError(400, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: c0")
        return "ok"

    assert call_llm_with_retry(fn, messages=history) == "ok"
    assert len(history) == n - 2 * (n // 4 // 1000)
