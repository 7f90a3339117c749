# frozen_string_literal: true

require_relative "test_helper"

# Issue 20: waits the body or the words state are the retry_after, with their source, through
# the public front door (the same three cases as core/src/classify/mod.rs and
# tests/python/test_classify.py).
class StatedWaitsTest < Minitest::Test
  include TestHelpers

  GEMINI_BODY = '{"error":{"code":429,"message":"You exceeded your current quota, please check your plan ' \
                'and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/' \
                'google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-' \
                'FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}'

  def test_gemini_retry_info_in_the_body_is_the_wait
    c = RetryCore.classify(RetryCore::Failure.new(status: 429, body: GEMINI_BODY, message: "429 RESOURCE_EXHAUSTED"))
    assert_equal [:rate_limited, true, 36.0, :body], [c.category, c.transient?, c.retry_after, c.retry_after_source]
  end

  def test_openai_wait_in_words
    msg = "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-x on " \
          "tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 6.5s.', " \
          "'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}"
    c = RetryCore.classify(RetryCore::Failure.new(status: 429, message: msg))
    assert_equal [:rate_limited, 6.5, :message], [c.category, c.retry_after, c.retry_after_source]
  end

  def test_chinese_wait_in_words
    c = RetryCore.classify(RetryCore::Failure.new(status: 429, message: "请求过于频繁，请20秒后重试"))
    assert_equal [:rate_limited, 20.0, :message], [c.category, c.retry_after, c.retry_after_source]
  end
end
