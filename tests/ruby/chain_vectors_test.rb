# frozen_string_literal: true

require_relative "test_helper"

# tests/vectors/chains.json through the Ruby front door: each chain raised for real, as Faraday
# and RubyLLM raise them (the innermost first; each outer error raised inside the `rescue` of
# the one it wraps, so Ruby links them by `#cause`; a link's response is Faraday's Hash of
# status, headers and body), then classified. cargo and pytest replay the same file: one merge
# rule, in the core, for every language.
class ChainVectorsTest < Minitest::Test
  include TestHelpers

  def teardown
    unstub_sleeps
  end
  CASES = JSON.parse(File.read(File.join(VECTORS_DIR, "chains.json")))["cases"]

  # Neutral class names (they carry no evidence: the rule under test is the merge).
  module ChainVectors
    class LinkError < StandardError
      attr_reader :response

      def initialize(message, response)
        super(message)
        @response = response
      end
    end
  end

  def chain_class(name)
    return ChainVectors.const_get(name, false) if ChainVectors.const_defined?(name, false)

    ChainVectors.const_set(name, Class.new(ChainVectors::LinkError))
  end

  def link_error(link)
    response = nil
    if link.key?("status") || link.key?("headers") || link.key?("body")
      response = { status: link["status"], headers: link["headers"] || {}, body: link["body"] }.compact
    end
    chain_class(link["class"]).new(link["message"], response)
  end

  # Raises the innermost link, then each outer one inside the rescue of the one before.
  def raise_chain(links)
    head, *rest = links
    return link_error(head) if rest.empty?

    begin
      raise raise_chain(rest)
    rescue ChainVectors::LinkError
      raise link_error(head)
    end
  rescue ChainVectors::LinkError => e
    e
  end

  CASES.each do |c|
    define_method("test_chain_#{c["name"]}") do
      error = raise_chain(c["links"])
      assert_equal c["links"].size > 1, !error.cause.nil?, "linked by #cause"
      got = RetryCore.classify(error)
      expect = c["expect"]
      assert_equal expect["category"], got.category.to_s
      assert_equal expect["transient"], got.transient?
      if expect["retry_after"].nil?
        assert_nil got.retry_after
      else
        assert_in_delta expect["retry_after"], got.retry_after, 1e-9
      end
      if expect["status"].nil?
        assert_nil got.status
      else
        assert_equal expect["status"], got.status
      end
    end
  end

  # Each attempt's error stands alone: the front door retries outside its rescue clause, so a
  # later attempt's error never gains an earlier one as its #cause (a 503 after a 429 would
  # otherwise read as the 429, and a crash print two backtraces of one failure).
  def test_attempts_do_not_chain_to_earlier_attempts
    errors = [
      ChainVectors::LinkError.new("Too Many Requests", { status: 429, headers: { "retry-after" => "0" } }),
      ChainVectors::LinkError.new("Service Unavailable", { status: 503 })
    ]
    record_sleeps(RetryCore)
    seen = []
    raised = assert_raises(ChainVectors::LinkError) do
      RetryCore.call_llm_with_retry(max_retries: 2, delay: 0, on_event: contract_events(seen)) { raise errors.shift || "unreachable" }
    end
    assert_equal "Service Unavailable", raised.message
    assert_nil raised.cause
    assert_equal [["rate_limited", 429], ["server_error", 503]],
                 seen.map { |e| [e[:category].to_s, e[:status_code]] }
  end
end
