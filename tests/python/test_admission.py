"""Admission through the Python front doors: ``Fleet(admission=...)`` with ``estimate=`` keeps
concurrent calls of the real openai SDK under the fault lab's enforced rate limits (no 429 in
the lab's log, ``admission_wait`` events), the usage an answer reports settles its reservation,
and a bad ``estimate=`` fails before the first call. The lab's limits hold one second's quota
(``period_s: 1``), so every test runs in a second or two of real waiting."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterator, List

import pytest

from retry_core import Fleet, _retry, acall_llm_with_retry, call_llm_with_retry
from retry_core.integrations import async_openai_client, openai_client
from test_lab import OA_KEY, Lab

openai = pytest.importorskip("openai")

KEY = "openai:gpt-4o"
MSGS = [{"role": "user", "content": "Say hello to the rate limiter, please."}]
MAX_TOKENS = 100
CALLS = 10
# One second's quota: 10 calls at once overrun 5 requests; their tokens (about 120 each, input
# plus max_tokens, 40 once the answer's unused output is given back) are limited too.
LIMITS = {"requests": 5, "tokens": 1000}


@pytest.fixture
def lab() -> Iterator[Lab]:
    lab = Lab()
    try:
        lab.script({"rate_limits": dict(LIMITS, period_s=1), "reply_tokens": 20})
        yield lab
    finally:
        lab.stop()


def static_fleet() -> Fleet:
    return Fleet(admission={"mode": "static", "limits": LIMITS, "window_s": 1})


def estimate() -> Dict[str, Any]:
    return {"messages": MSGS, "max_tokens": MAX_TOKENS}


def calls_in_threads(lab: Lab, fleet: Fleet, events: List[Dict[str, Any]], **options: Any) -> List[Any]:
    client = openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)
    lock = threading.Lock()

    def on_event(e: Dict[str, Any]) -> None:
        with lock:
            events.append(e)

    def one(_: int) -> Any:
        try:
            return call_llm_with_retry(
                lambda: client.chat.completions.create(model="gpt-4o", messages=MSGS, max_tokens=MAX_TOKENS),
                fleet=fleet, key=KEY, on_event=on_event, **options)
        except Exception as e:
            return e

    with ThreadPoolExecutor(CALLS) as pool:
        return list(pool.map(one, range(CALLS)))


def test_the_lab_limit_binds_without_admission(lab: Lab) -> None:
    # The control: the same burst with admission off meets the lab's 429s (one call each).
    events: List[Dict[str, Any]] = []
    out = calls_in_threads(lab, Fleet(), events, max_retries=1)
    assert 429 in lab.statuses()
    assert any(isinstance(o, openai.RateLimitError) for o in out)
    assert not [e for e in events if e["type"] == "admission_wait"]


def test_static_admission_keeps_concurrent_sdk_calls_under_the_limit(lab: Lab) -> None:
    events: List[Dict[str, Any]] = []
    out = calls_in_threads(lab, static_fleet(), events, estimate=estimate())
    statuses = lab.statuses()
    assert statuses.count(429) == 0, statuses
    assert statuses == [200] * CALLS
    assert all(o.choices[0].message.content for o in out)
    waits = [e for e in events if e["type"] == "admission_wait"]
    assert waits and all(e["key"] == KEY for e in waits), events
    assert any(e["type"] == "retry_wait_started" and e["reason"] == "admission" for e in events)


def test_static_admission_async(lab: Lab) -> None:
    client = async_openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)
    fleet = static_fleet()
    events: List[Dict[str, Any]] = []

    async def main() -> List[Any]:
        return await asyncio.gather(*[
            acall_llm_with_retry(
                lambda: client.chat.completions.create(model="gpt-4o", messages=MSGS, max_tokens=MAX_TOKENS),
                fleet=fleet, key=KEY, on_event=events.append, estimate=estimate())
            for _ in range(CALLS)])

    out = asyncio.run(main())
    assert lab.statuses() == [200] * CALLS
    assert len(out) == CALLS
    assert [e for e in events if e["type"] == "admission_wait"]


# --- settling against the usage an answer reports ----------------------------------------------

class Usage:
    """An SDK response's usage object (attributes, as openai's and anthropic's models have)."""

    def __init__(self, **fields: int) -> None:
        self.__dict__.update(fields)


class Answer:
    def __init__(self, usage: Any) -> None:
        self.usage = usage


def admission_waits(answer: Any) -> List[Dict[str, Any]]:
    """Two calls on a fleet of 1000 tokens a second, each estimated at 900: the second waits
    for the first's slot (0.9 s) unless the first answer's usage gave back what it did not use
    (then at most the 10 tokens used: 0.01 s)."""
    fleet = Fleet(admission={"mode": "static", "limits": {"tokens": 1000}, "window_s": 1})
    events: List[Dict[str, Any]] = []
    for _ in range(2):
        call_llm_with_retry(lambda: answer, fleet=fleet, key=KEY, estimate={"max_tokens": 900},
                            on_event=events.append)
    return [e for e in events if e["type"] == "admission_wait"]


@pytest.mark.parametrize("answer", [
    {"usage": {"prompt_tokens": 5, "completion_tokens": 5}},            # a dict body (OpenAI)
    Answer(Usage(input_tokens=5, output_tokens=5)),                      # an object (Anthropic)
    Answer({"prompt_tokens": 5, "completion_tokens": 5}),
], ids=["dict", "object", "object-dict"])
def test_the_usage_an_answer_reports_gives_back_what_it_did_not_use(answer: Any) -> None:
    assert all(w["seconds"] < 0.1 for w in admission_waits(answer))


def test_the_usage_of_a_real_sdk_response_is_read() -> None:
    from openai.types import CompletionUsage
    waits = admission_waits(Answer(CompletionUsage(prompt_tokens=5, completion_tokens=5, total_tokens=10)))
    assert all(w["seconds"] < 0.1 for w in waits)


def test_an_answer_without_usage_counts_as_spent() -> None:
    waits = admission_waits("no usage here")
    assert len(waits) == 1 and waits[0]["seconds"] > 0.5


# --- a bad estimate fails before the first call ------------------------------------------------

@pytest.mark.parametrize("bad,error", [
    ("100", TypeError),
    (True, TypeError),
    (1.5, TypeError),
    (-1, ValueError),
    (10**13, ValueError),
    ({}, ValueError),
    ({"tokens": 3}, ValueError),
    ({"messages": "hi"}, TypeError),
    ({"messages": [object()]}, TypeError),
    ({"max_tokens": -1}, ValueError),
    ({"max_tokens": "512"}, TypeError),
    ({"max_tokens": 2**64}, ValueError),
])
def test_a_bad_estimate_fails_before_the_call(bad: Any, error: type) -> None:
    calls: List[int] = []
    with pytest.raises(error, match="estimate"):
        call_llm_with_retry(lambda: calls.append(1), fleet=static_fleet(), key=KEY, estimate=bad)
    with pytest.raises(error, match="estimate"):
        asyncio.run(acall_llm_with_retry(lambda: asyncio.sleep(0, calls.append(1)), fleet=static_fleet(), key=KEY,
                                         estimate=bad))
    assert calls == []


def test_an_estimate_needs_a_fleet() -> None:
    with pytest.raises(TypeError, match="estimate= needs fleet="):
        call_llm_with_retry(lambda: 1, estimate=100)


def test_with_admission_off_an_estimate_changes_nothing() -> None:
    fleet = Fleet()
    events: List[Dict[str, Any]] = []
    for _ in range(3):
        assert call_llm_with_retry(lambda: "ok", fleet=fleet, key=KEY, estimate=estimate(),
                                   on_event=events.append) == "ok"
    assert events == []
    assert fleet.metrics()[KEY]["total"]["successes"] == 3


# --- a raw response's headers teach the "headers" mode -----------------------------------------

def test_the_headers_mode_learns_the_lab_limits_from_a_raw_response(lab: Lab) -> None:
    client = openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)

    def learned(fn: Any) -> Dict[str, Any]:
        events: List[Dict[str, Any]] = []
        out = call_llm_with_retry(fn, fleet=Fleet(admission="headers"), key=KEY, estimate=estimate(),
                                  on_event=events.append)
        return {"out": out, "limits": {e["dimension"]: e["limit"] for e in events if e["type"] == "limits_learned"}}

    raw = learned(lambda: client.chat.completions.with_raw_response.create(
        model="gpt-4o", messages=MSGS, max_tokens=MAX_TOKENS))
    assert raw["out"].parse().choices[0].message.content
    assert raw["limits"] == {"requests": LIMITS["requests"], "tokens": LIMITS["tokens"]}
    # A parsed answer keeps no headers: nothing to learn from a success.
    parsed = learned(lambda: client.chat.completions.create(model="gpt-4o", messages=MSGS, max_tokens=MAX_TOKENS))
    assert parsed["limits"] == {}


@pytest.mark.parametrize("messages", [
    [],
    [{}],
    [{"role": "user", "content": "Say hello in five words."}],
    [{"role": "user", "content": 'quotes " and \\ back\nslash\t\r\b\f \x00\x1f \x7f'}],
    [{"role": "user", "content": "héllo 你好 🎉 — ok"}, {"role": "assistant", "content": None}],
    [{"role": "tool", "content": [{"type": "text", "text": "x", "n": -12345678901234567890, "ok": True, "no": False}]}],
    ({"role": "user", "content": ("a", "b")},),
    [{"role": "user", "content": "x", "score": 0.1}],
    [{"role": "user", "content": "lone \ud800 surrogate"}],
    [{1: "int key"}],
])
def test_the_estimates_byte_count_is_the_compact_jsons(messages: Any) -> None:
    # The size the core estimates from is the compact UTF-8 JSON's, whether counted natively or
    # by the serializer (floats, non-str keys and lone surrogates are left to the serializer).
    fleet = Fleet(admission={"mode": "static", "limits": {"requests": 600}})
    want = len(json.dumps(messages, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace"))
    got = fleet._inner._json_size(messages)
    assert got is None or got == want
    cost = fleet._inner._estimate(None, want, 0)
    assert _retry._estimate_cost({"messages": messages}, fleet) == cost


@pytest.mark.parametrize("messages", [
    [],
    [{"role": "user", "content": "Say hello in five words."}],
    [{"role": "user", "content": 'quotes " and \\ back\nslash\t\r\b\f \x00\x1f \x7f'}],
    [{"role": "user", "content": "héllo 你好 🎉 — ok \u2028"}, {"role": "assistant", "content": None}],
    [{"n": [0, 9, 10, 99, 100, -1, -9, -10, 2**63 - 1, -2**63, 2**63, -2**100, True, False, None]}],
    ({"role": "user", "content": ("a", ["b", {"c": []}])},),
])
def test_plain_messages_are_counted_without_the_serializer(messages: Any) -> None:
    # Dicts of str keys, lists, tuples, str, int, bool and None: counted natively, to the byte.
    fleet = Fleet(admission={"mode": "static", "limits": {"requests": 600}})
    want = len(json.dumps(messages, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    assert fleet._inner._json_size(messages) == want
