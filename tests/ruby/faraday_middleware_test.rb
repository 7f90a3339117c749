# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"
require "faraday"
require "retry_core/faraday"

# RetryCore::FaradayMiddleware on the installed Faraday (Debian's ruby-faraday 1.x; the
# Faraday::Middleware API is the same in 2.x) with its net_http adapter, against the fault
# lab. The lab's log counts the requests; the engine's sleeps are recorded, not slept.
class FaradayMiddlewareTest < Minitest::Test
  include TestHelpers

  PATH = "/v1/chat/completions"

  def setup
    super
    skip "timing-dependent (real sockets)" if GCStress.on?
    @lab = RetryLab::Server.start
    @sleeps = record_sleeps(RetryCore)
  end

  def teardown
    @lab&.stop
    reset_globals
    super
  end

  def conn(**options)
    Faraday.new(url: @lab.url, proxy: nil) do |f|
      f.use RetryCore::FaradayMiddleware, **options
      f.adapter :net_http
    end
  end

  def body(stream)
    JSON.generate(model: "gpt-4o", stream: stream, messages: [{ role: "user", content: "hi" }])
  end

  def post(connection, stream: false, path: PATH, &block)
    bounded do
      connection.post(path, body(stream), "content-type" => "application/json",
                                          "authorization" => "Bearer sk-test-lab-0000aaaa", &block)
    end
  end

  def lab_calls
    @lab.log.map { |e| [e["fault"], e["status"]] }
  end

  def hello(n)
    "Hello from retry-lab! This is reply number #{n}."
  end

  def test_retries_a_429_on_a_post_by_its_retry_after
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 3 }])
    seen = []
    response = post(conn(policy: :default, on_event: ->(e) { seen << e }))
    assert_equal 200, response.status
    assert_equal hello(2), JSON.parse(response.body).dig("choices", 0, "message", "content")
    assert_equal [["rate_limit", 429], ["ok", 200]], lab_calls
    assert_equal [3.0], @sleeps, "the 429's retry-after, honoured"
    attempt = seen.find { |e| e[:type] == "llm_retry_attempt" }
    assert_equal ["rate_limited", 429], [attempt[:category], attempt[:status_code]]
  end

  def test_survives_429_503_and_an_sse_error_before_the_first_byte_while_streaming
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 3 }, { fault: "status", status: 503 },
                        { fault: "sse_error", prelude: false }])
    chunks = []
    response = post(conn(policy: :default), stream: true) do |req|
      req.options.on_data = proc { |chunk, _size| chunks << chunk }
    end
    assert_equal 200, response.status
    assert_equal [["rate_limit", 429], ["status", 503], ["sse_error", 200], ["ok", 200]], lab_calls
    text = chunks.join
    assert_includes text, "chatcmpl-lab4", "the fourth answer's stream"
    assert text.end_with?("data: [DONE]\n\n"), "the whole stream"
    refute_includes text, "\"error\"", "no byte of a retried attempt reached the block"
    assert_equal 3, @sleeps.size
    assert_equal 3.0, @sleeps.first
  end

  def test_an_anthropic_error_event_before_the_first_byte_is_retried
    @lab.script(steps: [{ fault: "sse_error", prelude: false }])
    chunks = []
    post(conn(policy: :default), stream: true, path: "/v1/messages") do |req|
      req.options.on_data = proc { |chunk, _size| chunks << chunk }
    end
    assert_equal [["sse_error", 200], ["ok", 200]], lab_calls
    text = chunks.join
    assert text.start_with?("event: message_start"), text[0, 80]
    assert_includes text, "event: message_stop"
    refute_includes text, "event: error"
  end

  def test_a_buffered_sse_error_before_the_first_byte_is_retried
    @lab.script(steps: [{ fault: "sse_error", prelude: false }])
    response = post(conn(policy: :default), stream: true)
    assert_equal 200, response.status
    assert_equal [["sse_error", 200], ["ok", 200]], lab_calls
    refute_includes response.body, "\"error\""
  end

  def test_an_sse_error_after_bytes_went_out_is_never_retried
    @lab.script(steps: [{ fault: "sse_error", after_chunks: 2 }])
    chunks = []
    post(conn(policy: :default), stream: true) { |req| req.options.on_data = proc { |c, _| chunks << c } }
    assert_equal [["sse_error", 200]], lab_calls
    assert_includes chunks.join, "\"error\""
    assert_empty @sleeps
  end

  def test_a_401_is_one_request_and_the_caller_gets_the_answer
    @lab.script(steps: [{ fault: "unauthorized" }])
    response = post(conn(policy: :default))
    assert_equal 401, response.status
    assert_equal "invalid_api_key", JSON.parse(response.body).dig("error", "code")
    assert_equal [["unauthorized", 401]], lab_calls
    assert_empty @sleeps
    assert_equal :unauthorized, response.env[:retry_core][:decision].classification.category
  end

  def test_give_up_hands_back_the_last_answer_with_the_verdict
    @lab.script(then: { fault: "status", status: 503, message: "still down" })
    response = post(conn(max_retries: 3, delay: 0.5))
    assert_equal 503, response.status
    assert_includes response.body, "still down"
    assert_equal [["status", 503]] * 3, lab_calls
    assert_equal [0.5, 0.5], @sleeps
    assert_equal :give_up, response.env[:retry_core][:decision].action
    assert_match(/gave up after 3 attempts/, response.env[:retry_core][:note])
  end

  def test_a_connection_refused_is_read_and_retried
    # A port nothing listens on: Faraday::ConnectionFailed, read as a connection failure.
    port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    c = Faraday.new(url: "http://127.0.0.1:#{port}", proxy: nil) do |f|
      f.use RetryCore::FaradayMiddleware, max_retries: 2, delay: 0.25
      f.adapter :net_http
    end
    assert_raises(Faraday::ConnectionFailed) { bounded { c.post(PATH, body(false)) } }
    assert_equal [0.25], @sleeps
  end

  def test_options_are_checked_when_the_connection_is_built
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::FaradayMiddleware.new(nil, policy: :defualt) }
    error = assert_raises(ArgumentError) { RetryCore::FaradayMiddleware.new(nil, messages: []) }
    assert_match(/messages/, error.message)
    assert_raises(ArgumentError) { RetryCore::FaradayMiddleware.new(nil, max_body: 0) }
  end
end
