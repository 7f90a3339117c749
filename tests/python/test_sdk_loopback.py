"""Real SDK exceptions from real HTTP responses: the openai, anthropic and httpx packages talk
to a loopback server (their own retries off) and every exception they raise is classified
right. One HTTP request per call proves the SDK's own retries are off."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

import retry_core
from retry_core import call_llm_with_retry, acall_llm_with_retry, classify
from retry_core.integrations import anthropic_client, async_openai_client, openai_client, without_sdk_retries

from conftest import Reply, without_waits

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")

OPENAI_OK = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
}
ANTHROPIC_OK = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
    "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def oa_error(message, type_, code=None):
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def an_error(type_, message):
    return {"type": "error", "error": {"type": type_, "message": message}}


def call_openai(server, timeout=5.0):
    client = openai_client(api_key="sk-test-abcdefghijklmnopqrstuvwxyz", base_url=server.url + "/v1", timeout=timeout)
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])


def call_anthropic(server, timeout=5.0):
    client = anthropic_client(api_key="sk-ant-test-abcdefghijklmnop", base_url=server.url, timeout=timeout)
    return client.messages.create(model="claude-x", max_tokens=16, messages=[{"role": "user", "content": "hi"}])


OPENAI_CASES = [
    ("rate_limit_retry_after", Reply(429, oa_error("Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM).", "tokens", "rate_limit_exceeded"), {"retry-after": "7"}),
     "RateLimitError", "rate_limited", True, 7.0),
    ("insufficient_quota", Reply(429, oa_error("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", "insufficient_quota")),
     "RateLimitError", "payment_required", False, None),
    ("server_error", Reply(500, oa_error("The server had an error while processing your request.", "server_error")),
     "InternalServerError", "server_error", True, None),
    ("bad_gateway_html", Reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
     "InternalServerError", "server_error", True, None),
    ("invalid_api_key", Reply(401, oa_error("Incorrect API key provided: sk-test-****wxyz.", "invalid_request_error", "invalid_api_key")),
     "AuthenticationError", "unauthorized", False, None),
    ("context_length", Reply(400, oa_error("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "invalid_request_error", "context_length_exceeded")),
     "BadRequestError", "context_overflow", False, None),
    ("tool_pairing", Reply(400, oa_error("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1", "invalid_request_error")),
     "BadRequestError", "orphan_tool_calls", False, None),
    ("model_not_found", Reply(404, oa_error("The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found")),
     "NotFoundError", "not_found", False, None),
    ("unprocessable", Reply(422, oa_error("Unprocessable request.", "invalid_request_error")),
     "UnprocessableEntityError", "unprocessable", False, None),
    ("retry_after_ms", Reply(503, oa_error("Service Unavailable", "server_error"), {"retry-after-ms": "1500"}),
     "InternalServerError", "server_error", True, 1.5),
]


@pytest.mark.parametrize("name,reply,cls,category,transient,retry_after", OPENAI_CASES, ids=[c[0] for c in OPENAI_CASES])
def test_openai_status_errors(loopback, name, reply, cls, category, transient, retry_after):
    loopback.reply(reply)
    with pytest.raises(openai.APIStatusError) as info:
        call_openai(loopback)
    e = info.value
    assert type(e).__name__ == cls
    c = classify(e)
    assert (c.category, c.transient, c.status) == (category, transient, reply.status)
    assert c.retry_after == retry_after
    assert len(loopback.requests) == 1, "the SDK's own retries must be off"


def test_openai_x_should_retry_header_wins(loopback):
    loopback.reply(Reply(400, oa_error("Try again later.", "invalid_request_error"), {"x-should-retry": "true"}))
    with pytest.raises(openai.BadRequestError) as info:
        call_openai(loopback)
    assert classify(info.value).transient is True


def test_openai_connection_reset(loopback):
    loopback.reply(Reply(kind="reset"))
    with pytest.raises(openai.APIConnectionError) as info:
        call_openai(loopback)
    c = classify(info.value)
    assert (c.category, c.transient) == ("connection", True)


def test_openai_timeout(loopback):
    loopback.reply(Reply(200, OPENAI_OK, hang=1.0))
    with pytest.raises(openai.APITimeoutError) as info:
        call_openai(loopback, timeout=0.2)
    c = classify(info.value)
    assert (c.category, c.transient) == ("timeout", True)


def test_openai_wrapped_in_planexe_llm_chat_error(loopback):
    class LLMChatError(Exception):
        def __init__(self, cause):
            super().__init__(f"LLM chat failed (error_id=abc): {cause}")

    loopback.reply(Reply(429, oa_error("You exceeded your current quota.", "insufficient_quota", "insufficient_quota")))
    try:
        try:
            call_openai(loopback)
        except openai.APIError as cause:
            raise LLMChatError(cause) from cause
    except LLMChatError as e:
        c = classify(e)
        assert retry_core.is_transient_error(e) is False
    assert (c.category, c.status) == ("payment_required", 429)


ANTHROPIC_CASES = [
    ("overloaded", Reply(529, an_error("overloaded_error", "Overloaded")), "overloaded", True, None),
    ("rate_limit", Reply(429, an_error("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), {"retry-after": "12"}),
     "rate_limited", True, 12.0),
    ("tool_pairing", Reply(400, an_error("invalid_request_error", "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01")),
     "orphan_tool_calls", False, None),
    ("prompt_too_long", Reply(400, an_error("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")),
     "context_overflow", False, None),
    ("credit_balance", Reply(400, an_error("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")),
     "payment_required", False, None),
    ("authentication", Reply(401, an_error("authentication_error", "invalid x-api-key")), "unauthorized", False, None),
    ("permission", Reply(403, an_error("permission_error", "Your API key does not have permission to use the specified resource.")), "forbidden", False, None),
    ("api_error", Reply(500, an_error("api_error", "Internal server error")), "server_error", True, None),
    ("request_too_large", Reply(413, an_error("request_too_large", "Request exceeds the maximum allowed number of bytes.")), "context_overflow", False, None),
]


@pytest.mark.parametrize("name,reply,category,transient,retry_after", ANTHROPIC_CASES, ids=[c[0] for c in ANTHROPIC_CASES])
def test_anthropic_status_errors(loopback, name, reply, category, transient, retry_after):
    loopback.reply(reply)
    with pytest.raises(anthropic.APIStatusError) as info:
        call_anthropic(loopback)
    c = classify(info.value)
    assert (c.category, c.transient, c.status) == (category, transient, reply.status)
    assert c.retry_after == retry_after
    assert len(loopback.requests) == 1


def test_anthropic_connection_reset_and_timeout(loopback):
    loopback.reply(Reply(kind="reset"))
    with pytest.raises(anthropic.APIConnectionError) as info:
        call_anthropic(loopback)
    assert classify(info.value).category == "connection"
    loopback.reply(Reply(200, ANTHROPIC_OK, hang=1.0))
    with pytest.raises(anthropic.APITimeoutError) as info:
        call_anthropic(loopback, timeout=0.2)
    assert classify(info.value).category == "timeout"


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_httpx_exceptions(loopback):
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        with pytest.raises(httpx.ConnectError) as info:
            client.get(f"http://127.0.0.1:{_closed_port()}/")
        assert classify(info.value).category == "connection"

        loopback.reply(Reply(200, "{}", hang=1.0))
        with pytest.raises(httpx.ReadTimeout) as info:
            client.get(loopback.url + "/", timeout=0.2)
        assert classify(info.value).category == "timeout"

        loopback.reply(Reply(kind="drop"))
        with pytest.raises(httpx.RemoteProtocolError) as info:
            client.get(loopback.url + "/")
        assert (classify(info.value).category, classify(info.value).transient) == ("connection", True)

        loopback.reply(Reply(429, {"error": {"message": "slow down"}}, {"retry-after": "3"}))
        with pytest.raises(httpx.HTTPStatusError) as info:
            client.get(loopback.url + "/").raise_for_status()
        c = classify(info.value)
        assert (c.category, c.status, c.retry_after) == ("rate_limited", 429, 3.0)

        loopback.reply(Reply(502, "<html>Bad Gateway</html>", content_type="text/html"))
        with pytest.raises(httpx.HTTPStatusError) as info:
            client.get(loopback.url + "/").raise_for_status()
        assert classify(info.value).category == "server_error"


def test_classification_evidence_for_sdk_errors_is_status_not_text(loopback):
    # "max_tokens 1500" in a 400's message is not a 500.
    loopback.reply(Reply(400, oa_error("max_tokens 1500 is too large: the model supports at most 1024 output tokens.", "invalid_request_error")))
    with pytest.raises(openai.BadRequestError) as info:
        call_openai(loopback)
    c = classify(info.value)
    assert (c.category, c.transient, c.evidence) == ("bad_request", False, "status")


def test_call_llm_with_retry_counts_true_http_attempts(loopback, no_sleep):
    loopback.reply(Reply(500, oa_error("boom", "server_error")), Reply(500, oa_error("boom", "server_error")), Reply(200, OPENAI_OK))
    events = []
    out = call_llm_with_retry(lambda: call_openai(loopback), max_retries=3, delay=2.0, on_event=events.append)
    assert out.choices[0].message.content == "hello"
    assert len(loopback.requests) == 3
    assert [e["attempt"] for e in without_waits(events)] == [1, 2]
    assert no_sleep == [2.0, 2.0]


def test_stacked_retry_layers_multiply(loopback, no_sleep):
    """3 outer attempts over an SDK client with its default 2 retries: 9 HTTP requests. With the
    integration's client (retries off): 3."""
    loopback.reply(Reply(500, oa_error("boom", "server_error")))
    stacked = openai.OpenAI(api_key="sk-test-abcdefghijklmnop", base_url=loopback.url + "/v1")
    assert stacked.max_retries == 2

    def call():
        return stacked.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])

    with pytest.raises(openai.InternalServerError):
        call_llm_with_retry(call, max_retries=3, delay=0.0)
    assert len(loopback.requests) == 9

    loopback.reply(Reply(500, oa_error("boom", "server_error")))
    single = without_sdk_retries(stacked)
    assert single.max_retries == 0
    with pytest.raises(openai.InternalServerError) as info:
        call_llm_with_retry(lambda: single.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]),
                            max_retries=3, delay=0.0)
    assert len(loopback.requests) == 3
    assert info.value.retry_classification.category == "server_error"


def test_async_openai_through_acall(loopback, no_sleep):
    loopback.reply(Reply(429, oa_error("Rate limit reached", "requests", "rate_limit_exceeded"), {"retry-after": "1"}), Reply(200, OPENAI_OK))

    async def main():
        client = async_openai_client(api_key="sk-test-abcdefghijklmnop", base_url=loopback.url + "/v1")
        try:
            return await acall_llm_with_retry(
                lambda: client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]),
                policy="forgeflare",
            )
        finally:
            await client.close()

    out = asyncio.run(main())
    assert out.choices[0].message.content == "hello"
    assert len(loopback.requests) == 2
    assert no_sleep == [1.0]


def test_integrations_refuse_stacked_retries():
    with pytest.raises(ValueError, match="multiply"):
        openai_client(api_key="sk-x", max_retries=2)
    assert openai_client(api_key="sk-x").max_retries == 0
    assert anthropic_client(api_key="sk-x").max_retries == 0
    with pytest.raises(TypeError):
        without_sdk_retries(object())

    class LlamaLike:
        max_retries = 3

    assert without_sdk_retries(LlamaLike()).max_retries == 0


def test_events_never_leak_keys(loopback, no_sleep):
    loopback.reply(Reply(401, oa_error("Incorrect API key provided: sk-test-abcdefghijklmnopqrstuvwxyz.", "invalid_request_error", "invalid_api_key")))
    events = []
    with pytest.raises(openai.AuthenticationError) as info:
        call_llm_with_retry(lambda: call_openai(loopback), on_event=events.append)
    assert "abcdefghijklmnop" not in json.dumps(events)
    assert [e["type"] for e in events] == ["llm_request_failed"]
    assert events[0]["error_type"] == "Unauthorized" and events[0]["status_code"] == 401
    assert "abcdefghijklmnop" not in info.value.retry_decision.note


def test_openai_stream_cut_short(loopback):
    """A stream cut short: whatever the SDK version raises (openai 3.x wraps the transport error in
    APIConnectionError; older versions let httpx's own exception through), it is a transient
    connection failure."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
             "choices": [{"index": 0, "delta": {"content": "hel"}, "finish_reason": None}]}
    loopback.reply(Reply(200, f"data: {json.dumps(chunk)}\n\n", kind="truncate", content_type="text/event-stream"))
    client = openai_client(api_key="sk-test-abcdefghijklmnop", base_url=loopback.url + "/v1")
    with pytest.raises(Exception) as info:
        for _ in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
            pass
    c = classify(info.value)
    assert (c.category, c.transient) == ("connection", True)


def test_httpx2_exceptions_are_classified_by_class(loopback):
    httpx2 = pytest.importorskip("httpx2")  # what openai 3.x and anthropic 2.x are built on
    with httpx2.Client(trust_env=False, timeout=2.0) as client:
        with pytest.raises(httpx2.ConnectError) as info:
            client.get(f"http://127.0.0.1:{_closed_port()}/")
        c = classify(info.value)
        assert (c.category, c.evidence) == ("connection", "error_class")
        loopback.reply(Reply(200, "{}", hang=1.0))
        with pytest.raises(httpx2.ReadTimeout) as info:
            client.get(loopback.url + "/", timeout=0.2)
        assert classify(info.value).category == "timeout"
