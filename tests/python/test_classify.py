"""`is_transient_error` is right where a substring check is wrong, and `classify` exposes the
contract's attributes."""

from __future__ import annotations

import datetime

import pytest

import retry_core
from retry_core import Failure, classify, is_transient_error
from retry_core.llm_executor import is_transient_error as executor_is_transient


class LLMChatError(Exception):
    pass


def _wrapped(cause: BaseException, text: str) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as c:
            raise LLMChatError(text) from c
    except LLMChatError as e:
        return e


def test_max_tokens_1500_is_not_a_500():
    e = _wrapped(ValueError("max_tokens 1500 exceeds the model limit"),
                 "LLM failed: max_tokens 1500 exceeds the model limit")
    assert "500" in str(e)  # PlanExe's substring check says transient
    assert is_transient_error(e) is False
    assert executor_is_transient(e) is False


def test_insufficient_quota_429_is_not_transient():
    e = Exception("Error code: 429 - {'error': {'code': 'insufficient_quota', "
                  "'message': 'You exceeded your current quota, please check your plan and billing details.'}}")
    assert "429" in str(e) and "rate" not in str(e)
    c = classify(e)
    assert (c.category, c.transient) == ("payment_required", False)


def test_connection_error_class_decides_whatever_the_text():
    openai = pytest.importorskip("openai")
    try:
        import httpx2 as httpx_for_openai  # openai 3.x is built on httpx2
    except ImportError:
        import httpx as httpx_for_openai

    e = openai.APIConnectionError(message="Something went wrong.",
                                  request=httpx_for_openai.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    assert "connect" not in str(e).lower()
    assert is_transient_error(e) is True
    assert classify(e).category == "connection"


@pytest.mark.parametrize(
    "exc,transient",
    [
        (TimeoutError(), True),
        (ConnectionRefusedError(111, "Connection refused"), True),
        (RuntimeError("we connected to the database fine, then the schema was wrong"), False),
        (RuntimeError("Error code: 503 - upstream"), True),
        (RuntimeError("HTTP 401 Unauthorized"), False),
        (TypeError("unsupported operand"), False),
        (KeyboardInterrupt(), False),
    ],
)
def test_is_transient_error_table(exc, transient):
    assert is_transient_error(exc) is transient


def test_classification_attributes_and_now():
    http_date = "Sun, 22 Nov 2026 12:00:30 GMT"
    now = datetime.datetime(2026, 11, 22, 12, 0, 0, tzinfo=datetime.timezone.utc)
    c = classify(Failure(status=429, headers={"retry-after": http_date}, message="slow"), now=now)
    assert c.retry_after == 30.0 and c.retry_after_source == "header"
    assert c.error_type == "RateLimit" and c.status == 429 and c.evidence == "status"
    assert c.error_class == "transient" and c.api_error is False
    d = c.to_dict()
    assert d["category"] == "rate_limited" and d["retry_after"] == 30.0
    assert c == classify(Failure(status=429, headers={"retry-after": http_date}, message="slow"), now=now)
    assert "rate_limited" in repr(c)
    with pytest.raises(ValueError):
        classify(Failure(message="x"), now=datetime.datetime(2026, 1, 1))
    with pytest.raises(ValueError):
        classify(Failure(message="x"), now=float("nan"))


def test_categories_presets_scrub_and_error_text():
    names = [c[0] for c in retry_core.CATEGORIES]
    assert names[0] == "rate_limited" and "cancelled" in names and len(names) == 22
    assert set(retry_core.PRESETS) == {"default", "swarm_sdk", "swarm_sdk_legacy", "forgeflare", "llm_executor"}
    scrubbed = retry_core.scrub("Authorization: Bearer abcdefghijkl")
    assert "abcdefghijkl" not in scrubbed and "[REDACTED]" in scrubbed
    text = retry_core.format_error_message(Failure(status=401, message="Incorrect API key provided: sk-proj-abcdefghijklmnop",
                                                   error_class=["openai.AuthenticationError"]))
    assert "**Status Code:** 401" in text and "sk-proj" not in text and "credentials" in text
    assert retry_core.retry_after({"retry-after": "garbage"}) is None
    assert retry_core.is_tool_pairing_error("tool_use ids were found without tool_result blocks")


@pytest.mark.parametrize(
    "text,category",
    [
        ("503 Service Temporarily Unavailable", "server_error"),
        ("The engine is currently over capacity. Please try again later.", "overloaded"),
        ("Something went wrong, please try again later", "server_error"),
        ("Invalid API key. Please try again later", "unauthorized"),
    ],
)
def test_texts_planexe_retried_still_transient_where_they_should_be(text, category):
    c = classify(RuntimeError(text))
    assert c.category == category
    assert c.transient is (category != "unauthorized")


# Issue 20: waits the body or the words state are the retry_after, with their source.
def test_gemini_retry_info_in_the_body_is_the_wait():
    body = ('{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and '
            'billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/'
            'google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-'
            'FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}')
    c = retry_core.classify(retry_core.Failure(status=429, body=body, message="429 RESOURCE_EXHAUSTED"))
    assert (c.category, c.transient, c.retry_after, c.retry_after_source) == ("rate_limited", True, 36.0, "body")


def test_openai_wait_in_words():
    msg = ("Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-x on "
           "tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 6.5s.', "
           "'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}")
    c = retry_core.classify(retry_core.Failure(status=429, message=msg))
    assert (c.category, c.retry_after, c.retry_after_source) == ("rate_limited", 6.5, "message")


def test_chinese_wait_in_words():
    c = retry_core.classify(retry_core.Failure(status=429, message="请求过于频繁，请20秒后重试"))
    assert (c.category, c.retry_after, c.retry_after_source) == ("rate_limited", 20.0, "message")
