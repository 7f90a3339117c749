"""retry_core.httpx: the retrying transport under the real openai and anthropic SDKs (their
own retries off), sync and async, against the fault lab. The lab's log counts the HTTP
requests: one per attempt. Waits are recorded, not slept (``no_sleep``).

The SDKs' ``http_client`` is a client of the library they are built on (``httpx2`` for openai
3.x and anthropic 2.x, ``httpx`` before); the plain-client tests use ``httpx``: the same
transport serves both."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Dict, List

import pytest

from conftest import without_waits

httpx = pytest.importorskip("httpx")
openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

import retry_core.httpx as rh  # noqa: E402

#: The HTTP library the installed SDKs take as ``http_client``.
SDK_HTTP = sys.modules.get("httpx2") or httpx
from test_lab import AN_KEY, MSGS, OA_KEY, REPLY  # noqa: E402

#: The issue's script: a 429 with its retry-after, a 503, then an SSE error before any byte of
#: the stream; the fourth request succeeds.
SCRIPT = {"steps": [{"fault": "rate_limit", "retry_after": 3}, {"fault": "status", "status": 503},
                    {"fault": "sse_error", "prelude": False}]}


def sdk(provider: str, lab: Any, mode: str, **options: Any) -> Any:
    """The provider's SDK client on an httpx client whose transport retries."""
    if mode == "sync":
        http = SDK_HTTP.Client(transport=rh.RetryTransport(**options), timeout=5)
        if provider == "openai":
            return openai.OpenAI(api_key=OA_KEY, base_url=lab.url + "/v1", http_client=http, max_retries=0)
        return anthropic.Anthropic(api_key=AN_KEY, base_url=lab.url, http_client=http, max_retries=0)
    http = SDK_HTTP.AsyncClient(transport=rh.AsyncRetryTransport(**options), timeout=5)
    if provider == "openai":
        return openai.AsyncOpenAI(api_key=OA_KEY, base_url=lab.url + "/v1", http_client=http, max_retries=0)
    return anthropic.AsyncAnthropic(api_key=AN_KEY, base_url=lab.url, http_client=http, max_retries=0)


def complete(provider: str, client: Any, stream: bool) -> str:
    if provider == "openai":
        if stream:
            chunks = client.chat.completions.create(model="gpt-4o", messages=MSGS, stream=True)
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        return client.chat.completions.create(model="gpt-4o", messages=MSGS).choices[0].message.content
    if stream:
        with client.messages.stream(model="claude-x", max_tokens=64, messages=MSGS) as s:
            return "".join(s.text_stream)
    return client.messages.create(model="claude-x", max_tokens=64, messages=MSGS).content[0].text


async def acomplete(provider: str, client: Any, stream: bool) -> str:
    try:
        if provider == "openai":
            if stream:
                chunks = await client.chat.completions.create(model="gpt-4o", messages=MSGS, stream=True)
                return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
            r = await client.chat.completions.create(model="gpt-4o", messages=MSGS)
            return r.choices[0].message.content
        if stream:
            async with client.messages.stream(model="claude-x", max_tokens=64, messages=MSGS) as s:
                return "".join([t async for t in s.text_stream])
        r = await client.messages.create(model="claude-x", max_tokens=64, messages=MSGS)
        return r.content[0].text
    finally:
        await client.close()


def call(provider: str, lab: Any, mode: str, stream: bool = True, **options: Any) -> str:
    client = sdk(provider, lab, mode, **options)
    if mode == "sync":
        with client:
            return complete(provider, client, stream)
    return asyncio.run(acomplete(provider, client, stream))


both = pytest.mark.parametrize("provider", ["openai", "anthropic"])
modes = pytest.mark.parametrize("mode", ["sync", "async"])


@both
@modes
def test_survives_429_503_and_an_sse_error_before_the_first_byte(lab, no_sleep, provider, mode):
    lab.script(SCRIPT)
    events: List[Dict[str, Any]] = []
    assert call(provider, lab, mode, policy="default", seed=1, on_event=events.append) == REPLY.format(4)
    log = lab.log()
    assert [(e["fault"], e["status"], e["stream"]) for e in log] == [
        ("rate_limit", 429, True), ("status", 503, True), ("sse_error", 200, True), ("ok", 200, True)]
    attempts = without_waits(events)
    assert [(e["type"], e["category"], e["status_code"]) for e in attempts] == [
        ("llm_retry_attempt", "rate_limited", 429),
        ("llm_retry_attempt", "server_error", 503),
        ("llm_retry_attempt", "stream_interrupted", 200)]
    assert no_sleep[0] == 3.0  # the 429's retry-after, honoured
    assert len(no_sleep) == 3


@both
@modes
def test_plain_answers_429_then_503(lab, no_sleep, provider, mode):
    lab.script({"steps": SCRIPT["steps"][:2]})
    assert call(provider, lab, mode, stream=False, policy="default") == REPLY.format(3)
    assert [(e["status"], e["stream"]) for e in lab.log()] == [(429, False), (503, False), (200, False)]


@both
@modes
def test_an_sse_error_after_bytes_went_out_is_never_retried(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "sse_error", "after_chunks": 2}]})
    error = openai.APIError if provider == "openai" else anthropic.APIStatusError
    with pytest.raises((error, anthropic.APIError) if provider == "anthropic" else error):
        call(provider, lab, mode, policy="default")
    assert [e["fault"] for e in lab.log()] == ["sse_error"]
    assert no_sleep == []


@both
@modes
def test_a_401_reaches_the_sdk_unchanged_after_one_request(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "unauthorized"}]})
    with pytest.raises((openai.AuthenticationError, anthropic.AuthenticationError)) as info:
        call(provider, lab, mode, stream=False, policy="default")
    assert info.value.status_code == 401
    assert lab.statuses() == [401]
    assert no_sleep == []


@both
@modes
def test_give_up_hands_the_sdk_the_last_answer(lab, no_sleep, provider, mode):
    lab.script({"then": {"fault": "status", "status": 503, "message": "still down"}})
    with pytest.raises((openai.InternalServerError, anthropic.InternalServerError)) as info:
        call(provider, lab, mode, stream=False, max_retries=3, delay=0.5)
    # The SDK read the whole body of the last answer: its message is the provider's.
    assert info.value.status_code == 503
    assert "still down" in str(info.value)
    assert lab.statuses() == [503, 503, 503]
    assert no_sleep == [0.5, 0.5]


def test_sdk_retries_left_on_multiply_the_requests(lab, no_sleep):
    """Why the SDK's retries must be off: the SDK retries outside http_client, and each of its
    attempts runs the transport's whole run again."""
    lab.script({"then": {"fault": "status", "status": 503}})
    http = SDK_HTTP.Client(transport=rh.RetryTransport(max_retries=2, delay=0.1), timeout=5)
    client = openai.OpenAI(api_key=OA_KEY, base_url=lab.url + "/v1", http_client=http, max_retries=1)
    with client, pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="gpt-4o", messages=MSGS)
    assert lab.statuses() == [503] * 4


def test_a_streamed_request_body_is_sent_once(lab, no_sleep):
    lab.script({"steps": [{"fault": "status", "status": 503}]})

    def body():
        yield b'{"model": "gpt-4o", "messages": []}'

    with httpx.Client(transport=rh.RetryTransport(policy="default")) as http:
        r = http.post(lab.url + "/v1/chat/completions", content=body(), headers={"content-type": "application/json"})
    assert r.status_code == 503
    assert lab.statuses() == [503]


def test_a_long_error_body_reaches_the_caller_whole(lab, no_sleep):
    """The engine reads max_body bytes; the caller gets every byte."""
    text = "x" * 5000
    lab.script({"then": {"fault": "status", "status": 400, "body": {"error": {"message": text}}}})
    with httpx.Client(transport=rh.RetryTransport(policy="default", max_body=100)) as http:
        r = http.post(lab.url + "/v1/chat/completions", json={"model": "m"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == text
    assert lab.statuses() == [400]


def test_options_are_checked_when_the_transport_is_built():
    with pytest.raises(TypeError, match="messages"):
        rh.RetryTransport(messages=[])
    with pytest.raises(TypeError, match="unexpected keyword argument 'polcy'"):
        rh.AsyncRetryTransport(polcy="default")
    with pytest.raises(retry_core_errors()):
        rh.RetryTransport(policy="defualt")
    with pytest.raises(ValueError, match="max_body"):
        rh.RetryTransport(max_body=0)


def retry_core_errors() -> Any:
    import retry_core

    return retry_core.RetryCoreError


@pytest.mark.parametrize("admission", [None, {"mode": "static", "limits": {"requests": 1000}, "window_s": 60}],
                         ids=["plain", "admission"])
def test_a_fleet_counts_a_first_time_success(lab, admission):
    """The success path through a fleet (the door's own, `_door`): the fleet hears of the call,
    with admission on too, sync and async (a transport that kept its own copy of the door once
    called the fleet's bookkeeping with the wrong arguments)."""
    import asyncio

    import retry_core

    fleet = retry_core.Fleet(admission=admission) if admission else retry_core.Fleet()
    lab.script({})
    key = "openai:gpt-4o"
    with httpx.Client(transport=rh.RetryTransport(fleet=fleet, key=key)) as http:
        assert http.post(lab.url + "/v1/chat/completions", json={"model": "gpt-4o"}).status_code == 200

    async def once() -> int:
        async with httpx.AsyncClient(transport=rh.AsyncRetryTransport(fleet=fleet, key=key)) as http:
            return (await http.post(lab.url + "/v1/chat/completions", json={"model": "gpt-4o"})).status_code

    assert asyncio.run(once()) == 200
    counters = fleet.metrics()[key]["total"]
    assert counters["calls"] == 2 and counters["successes"] == 2, counters


def test_a_fleet_pauses_the_key(lab):
    """A 429 with a retry-after pauses the fleet's key (its shared pause), waited out for real:
    the fleet reads the real clock."""
    import retry_core

    fleet = retry_core.Fleet()
    lab.script({"steps": [{"fault": "rate_limit", "retry_after": 0.2}]})
    events: List[Dict[str, Any]] = []
    with httpx.Client(transport=rh.RetryTransport(policy="default", fleet=fleet, key="openai:gpt-4o",
                                                  on_event=events.append)) as http:
        r = http.post(lab.url + "/v1/chat/completions", json={"model": "gpt-4o"})
    assert r.status_code == 200
    assert lab.statuses() == [429, 200]
    assert any(e["type"] == "rate_limit_pause" for e in events), [e["type"] for e in events]


@both
@modes
def test_a_stream_that_stalls_after_its_first_event_is_not_retried(lab, no_sleep, provider, mode):
    """The lab sends the stream's prelude (OpenAI's role chunk, Anthropic's message_start), then
    stalls past the read timeout: the first event had reached the SDK, so the SDK's own timeout
    error stands and the lab saw one request."""
    lab.script({"steps": [{"fault": "stall", "seconds": 3, "after_chunks": 0}]})
    client = sdk(provider, lab, mode, policy="default").with_options(timeout=0.5)
    # anthropic's stream helper lets the HTTP library's ReadTimeout through as it is.
    with pytest.raises((openai.APITimeoutError, anthropic.APITimeoutError, SDK_HTTP.ReadTimeout)):
        if mode == "sync":
            with client:
                complete(provider, client, True)
        else:
            asyncio.run(acomplete(provider, client, True))
    assert [e["fault"] for e in lab.log()] == ["stall"]
    assert no_sleep == []
