# frozen_string_literal: true

require_relative "test_helper"
require "net/http"

# From a live exception to the failure record, and bad input.
class FailureTest < Minitest::Test
  include TestHelpers
  include GCStress

  def test_ruby_llm_error_status_body_headers_and_chain
    error = RubyLLM.error_for(429, "Rate limit reached", headers: { "Retry-After" => "7" })
    f = RetryCore::Failure.from_exception(error)
    assert_equal 429, f.status
    assert_equal({ "retry-after" => "7" }, f.headers)
    assert_equal({ "error" => { "message" => "Rate limit reached" } }, JSON.parse(f.body))
    assert_equal %w[RubyLLM::RateLimitError RubyLLM::Error StandardError Exception], f.error_class
    assert_equal "Rate limit reached", f.message
    c = RetryCore.classify(error)
    assert_equal :rate_limited, c.category
    assert c.transient?
    assert_equal 7.0, c.retry_after
  end

  def test_ruby_llm_error_without_response
    error = RubyLLM::Error.new(nil, "something odd")
    f = RetryCore::Failure.from_exception(error)
    assert_nil f.status
    c = RetryCore.classify(error)
    assert_equal :unknown, c.category
    assert c.api_error?
    assert_equal "UnknownAPIError", c.error_type
  end

  def test_faraday_error_response_hash
    error = Faraday::ServerError.new(nil, { status: 503, headers: { "retry-after" => "2" }, body: "<html>Service Unavailable</html>" })
    f = RetryCore::Failure.from_exception(error)
    assert_equal 503, f.status
    assert_equal "<html>Service Unavailable</html>", f.body
    assert_equal "2", f.headers["retry-after"]
    assert_equal :server_error, RetryCore.classify(error).category
  end

  # What `res.value` raises, built as Net::HTTP builds it: #response is a Net::HTTPResponse
  # whose #code is a String and whose headers are read through Net::HTTPHeader.
  def net_http_error(klass, response_class, code, headers = {}, body = nil)
    response = response_class.new("1.1", code, "Reason")
    headers.each { |k, v| response[k] = v }
    response.instance_variable_set(:@read, true)
    response.instance_variable_set(:@body, body)
    klass.new("#{code} \"Reason\"", response)
  end

  def test_net_http_exceptions_status_headers_body
    error = net_http_error(Net::HTTPClientException, Net::HTTPTooManyRequests, "429", { "Retry-After" => "7" }, '{"error":{"type":"rate_limit_error"}}')
    f = RetryCore::Failure.from_exception(error)
    assert_equal 429, f.status
    assert_equal({ "retry-after" => "7" }, f.headers)
    assert_equal '{"error":{"type":"rate_limit_error"}}', f.body
    # net-http 0.2 (Debian's Ruby 3.1) names the class Net::HTTPServerException, 0.3+ names it
    # Net::HTTPClientException: both names are one class, so ask the class its name.
    assert_equal Net::HTTPClientException.name, f.error_class.first
    c = RetryCore.classify(error)
    assert_equal [:rate_limited, 7.0], [c.category, c.retry_after]

    error = net_http_error(Net::HTTPFatalError, Net::HTTPServiceUnavailable, "503")
    assert_equal [503, :server_error], [RetryCore::Failure.from_exception(error).status, RetryCore.classify(error).category]
    error = net_http_error(Net::HTTPClientException, Net::HTTPUnauthorized, "401")
    assert_equal :unauthorized, RetryCore.classify(error).category
    # A response whose code is not a status: the class rows stand in.
    error = net_http_error(Net::HTTPFatalError, Net::HTTPUnknownResponse, "5xx")
    assert_nil RetryCore::Failure.from_exception(error).status
    assert_equal :server_error, RetryCore.classify(error).category
  end

  # Rows of the class table for Ruby-side classes (core/src/classify/tables.rs cites each
  # source), by name: CancelledError and ToolCallParseError exist only on RubyLLM's main branch.
  def test_ruby_class_rows
    {
      %w[RubyLLM::CancelledError StandardError Exception] => :cancelled,
      %w[RubyLLM::ToolCallParseError RubyLLM::Error StandardError Exception] => :invalid_response,
      %w[RubyLLM::PromptNotFoundError StandardError Exception] => :configuration,
      %w[RubyLLM::InvalidToolChoiceError StandardError Exception] => :programming,
      %w[RubyLLM::ContextLengthExceededError RubyLLM::Error StandardError Exception] => :context_overflow,
      %w[Net::HTTPFatalError Net::ProtoFatalError Net::ProtocolError StandardError Exception] => :server_error,
      %w[Net::HTTPClientException Net::ProtoServerError Net::ProtocolError StandardError Exception] => :client_error,
      %w[Net::HTTPServerException Net::ProtoServerError Net::ProtocolError StandardError Exception] => :client_error,
      %w[Net::HTTPRetriableError Net::ProtoRetriableError Net::ProtocolError StandardError Exception] => :configuration,
      %w[JSON::Schema::ValidationError StandardError Exception] => :validation
    }.each do |chain, category|
      assert_equal category, RetryCore.classify(RetryCore::Failure.new(error_class: chain, message: "x")).category, chain.first
    end
    # Real Net::HTTP classes give the chains above.
    assert_equal %w[Net::HTTPFatalError Net::ProtoFatalError Net::ProtocolError StandardError Exception],
                 RetryCore::Failure.new(error_class: Net::HTTPFatalError).error_class
  end

  # An exception whose own methods raise: a StandardError is "no answer", an Interrupt is
  # passed on (never swallowed while the record is read).
  class RaisingResponseError < StandardError
    def initialize(raised)
      @raised = raised
      super("boom")
    end

    def response
      raise @raised
    end
  end

  def test_errors_raised_while_reading_an_exception
    f = RetryCore::Failure.from_exception(RaisingResponseError.new(RuntimeError.new("no response here")))
    assert_nil f.status
    assert_equal "boom", f.message
    assert_raises(Interrupt) { RetryCore::Failure.from_exception(RaisingResponseError.new(Interrupt.new)) }
    assert_raises(Interrupt) { RetryCore.classify(RaisingResponseError.new(Interrupt.new)) }
  end

  def test_network_errors
    assert_equal :timeout, RetryCore.classify(Faraday::TimeoutError.new).category
    assert_equal :connection, RetryCore.classify(Faraday::ConnectionFailed.new("Failed to open TCP connection")).category
    assert_equal :connection, RetryCore.classify(Errno::ECONNRESET.new).category
    assert_equal :timeout, RetryCore.classify(Net::ReadTimeout.new).category
    assert_equal :configuration, RetryCore.classify(RubyLLM::ConfigurationError.new("openai provider is not configured")).category
    assert_equal :programming, RetryCore.classify(NoMethodError.new("undefined method `x' for nil")).category
  end

  def test_cause_chain_is_looked_through
    inner = RubyLLM.error_for(429, "Rate limit reached")
    wrapper = Class.new(StandardError) { def self.name = "MyApp::LLMFailed" }
    error = begin
      begin
        raise inner
      rescue StandardError
        raise wrapper, "the model call failed"
      end
    rescue StandardError => e
      e
    end
    f = RetryCore::Failure.from_exception(error)
    assert_equal 429, f.status
    assert_equal "MyApp::LLMFailed", f.error_class.first
    assert_includes f.error_class, "RubyLLM::RateLimitError"
    assert_equal "the model call failed", f.message
    assert_equal :rate_limited, RetryCore.classify(error).category
  end

  def test_anonymous_classes_and_odd_responses
    odd = Class.new(StandardError) do
      def response = Object.new
      def status = "429"
    end
    f = RetryCore::Failure.from_exception(odd.new("Too Many Requests"))
    assert_equal 429, f.status
    raising = Class.new(StandardError) { def response = raise("boom") }
    f = RetryCore::Failure.from_exception(raising.new("x"))
    assert_nil f.status
  end

  def test_new_and_round_trips
    f = RetryCore::Failure.new(status: 503, headers: { "X-Should-Retry" => "false", "Multi" => %w[a b] },
                               body: { "error" => { "type" => "api_error" } }, error_class: RubyLLM::ServerError,
                               message: "Service Unavailable", transport: :timeout)
    assert_equal "false", f.headers["x-should-retry"]
    assert_equal "a, b", f.headers["multi"]
    assert_equal %w[RubyLLM::ServerError RubyLLM::Error StandardError Exception], f.error_class
    assert_equal :timeout, f.transport
    assert_equal f, RetryCore::Failure.from_json(f.to_json)
    assert_equal f, RetryCore::Failure.from_h(f.to_h)
    refute RetryCore.classify(f).transient?
  end

  def test_bad_input_raises_type_and_argument_errors
    assert_raises(TypeError) { RetryCore::Failure.new(status: "429") }
    assert_raises(TypeError) { RetryCore::Failure.new(headers: 3) }
    assert_raises(TypeError) { RetryCore::Failure.new(error_class: [1]) }
    e = assert_raises(ArgumentError) { RetryCore::Failure.new(status: 70_000) }
    assert_kind_of RetryCore::Error, e
    assert_equal "invalid_argument", e.code
    assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Failure.new(transport: :carrier_pigeon) }
    e = assert_raises(RetryCore::Error) { RetryCore::Failure.from_json("{not json") }
    assert_equal "invalid_json", e.code
    assert_raises(RetryCore::InvalidJsonError) { RetryCore::Failure.from_json('{"message": "x", "bogus": 1}') }
    assert_raises(TypeError) { RetryCore::Failure.from_exception("not an exception") }
    assert_raises(TypeError) { RetryCore.classify(42) }
    assert_raises(NoMethodError, TypeError) { RetryCore::Failure.allocate.status }
  end

  def test_secrets_are_scrubbed_from_texts
    error = RubyLLM.error_for(401, "Incorrect API key provided: sk-proj-abcdefghijklmnop1234")
    text = RetryCore.error_message(error)
    refute_includes text, "abcdefghijklmnop1234"
    assert_includes text, "[REDACTED]"
    assert_includes text, "**Error Type:** UnauthorizedError"
    assert_includes text, "**Status Code:** 401"
    assert_equal "Bearer [REDACTED]", RetryCore.scrub("Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig")
  end

  def test_exception_classes
    assert RetryCore::Error < StandardError
    assert RetryCore::InternalError < RetryCore::Error
    assert RetryCore::InvalidStateError < RetryCore::Error
    assert RetryCore::InvalidPolicyError < ArgumentError
    assert_kind_of RetryCore::Error, RetryCore::InvalidPolicyError.new("x")
    assert RetryCore::Error === RetryCore::InvalidJsonError.new("x") # rubocop:disable Style/CaseEquality
    assert_equal "internal", RetryCore::InternalError.new.code
  end
end
