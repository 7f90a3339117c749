# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"

# Real HTTP through the fault lab (lab/README.md): each test starts `retry-lab` on a free
# loopback port, scripts its faults, drives Net::HTTP calls through RetryCore.call_llm_with_retry
# and through ChatRetry (a SwarmSDK-like chat whose LLM call is a real request), and counts the
# calls in the lab's own log. Long waits (SwarmSDK's 15 s) are stubbed and recorded; the read
# timeout and the fleet's pause are real (fractions of a second). The lab is always stopped.
class LabTest < Minitest::Test
  include TestHelpers

  # The SwarmSDK chat double, with a turn that calls the lab.
  class LabChat < SwarmSDK::Agent::Chat
    include RetryLab::AgentTurn
  end

  def setup
    super
    skip "timing-dependent (real sockets and timeouts)" if GCStress.on?
    # `rake test` builds the lab first: a missing binary is a failure, not a skip.
    @lab = RetryLab::Server.start
    RubyLLM.reset_config!
    install_swarm_sdk
  end

  def teardown
    @lab&.stop
    reset_globals
    super
  end

  def bounded(seconds = 15, &block)
    super
  end

  def client(**options)
    RetryLab::Client.new(@lab, **options)
  end

  def chat(provider: :anthropic, read_timeout: 5, definition: {})
    c = LabChat.new(definition: { model: provider == :anthropic ? "claude-sonnet-4" : "gpt-4o" }.merge(definition), agent_name: :backend)
    c.setup_context(SwarmSDK::Agent::Context.new("swarm-1", nil))
    c.client = client(provider: provider, read_timeout: read_timeout)
    c
  end

  # [[fault, status], ...] of the lab's log: what the server saw and answered.
  def lab_calls
    @lab.log.map { |e| [e["fault"], e["status"]] }
  end

  def events
    @emitter.events.map { |e| e.reject { |k, _| %i[timestamp error_backtrace].include?(k) } }
  end

  def hello(n)
    "Hello from retry-lab! This is reply number #{n}."
  end

  # --- RetryCore.call_llm_with_retry -------------------------------------------------------

  def test_429_with_retry_after_is_waited_out
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 3 }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client
    reply = bounded { RetryCore.call_llm_with_retry(policy: :forgeflare, on_event: contract_events(seen)) { c.complete([{ role: "user", content: "hi" }]) } }
    assert_equal hello(2), reply
    assert_equal [3.0], sleeps, "forgeflare honours retry-after over its 2 s backoff"
    assert_equal [["rate_limit", 429], ["ok", 200]], lab_calls
    assert_equal [{ type: "llm_retry_attempt", category: "rate_limited", status_code: 429, error_class: "RubyLLM::RateLimitError",
                    attempt: 1, max_retries: 4, retry_delay: 3.0, retry_after: 3.0 }],
                 seen.map { |e| e.except(:error_message) }
    assert_match(/would exceed the rate limit for your organization/, seen.first[:error_message])
  end

  # A plain Net::HTTP client that raises what `res.value` raises: Net::HTTPClientException for
  # a 4xx, Net::HTTPFatalError for a 5xx, whose #response is the Net::HTTPResponse.
  def net_http_complete
    http = Net::HTTP.new(@lab.host, @lab.port, nil)
    http.open_timeout = http.read_timeout = 5
    request = Net::HTTP::Post.new("/v1/messages")
    request["content-type"] = "application/json"
    request["x-api-key"] = "sk-ant-api03-test-key-0000"
    request["anthropic-version"] = "2023-06-01"
    request.body = JSON.generate(model: "claude-sonnet-4", max_tokens: 64, messages: [{ role: "user", content: "hi" }])
    response = http.request(request)
    response.value
    JSON.parse(response.body).dig("content", 0, "text")
  end

  def test_net_http_429_retry_after_7_is_waited_out
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 7 }, { fault: "unavailable" }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    reply = bounded { RetryCore.call_llm_with_retry(policy: :default, on_event: contract_events(seen)) { net_http_complete } }
    assert_equal hello(3), reply
    assert_equal 7.0, sleeps.first, "the server's retry-after, read from the Net::HTTPResponse"
    assert_equal 2, sleeps.size
    assert_equal [["rate_limit", 429], ["unavailable", 503], ["ok", 200]], lab_calls
    # Net::HTTPServerException on net-http 0.2, Net::HTTPClientException from 0.3: one class.
    assert_equal [["rate_limited", 429, Net::HTTPClientException.name, 7.0], ["server_error", 503, "Net::HTTPFatalError", nil]],
                 seen.map { |e| e.values_at(:category, :status_code, :error_class, :retry_after) }
  end

  def test_net_http_exception_carries_status_headers_and_body
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 7 }])
    error = assert_raises(Net::HTTPClientException) { bounded { net_http_complete } }
    failure = RetryCore::Failure.from_exception(error)
    assert_equal 429, failure.status
    assert_equal "7", failure.headers["retry-after"]
    assert_match(/rate_limit_error/, failure.body)
    c = RetryCore.classify(error)
    assert_equal [:rate_limited, 7.0, "RateLimit"], [c.category, c.retry_after, c.error_type]
  end

  # Real Faraday (Debian's ruby-faraday 1.x) with its raise_error middleware: 429 raises
  # Faraday::ClientError (1.x has no TooManyRequestsError) whose #response is a Hash.
  def test_faraday_429_retry_after_7_is_waited_out
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 7 }, { fault: "overloaded" }])
    connection = Faraday.new(url: @lab.url, proxy: nil) do |f|
      f.options.timeout = 5
      f.response :raise_error
      f.adapter :net_http
    end
    body = JSON.generate(model: "claude-sonnet-4", max_tokens: 64, messages: [{ role: "user", content: "hi" }])
    headers = { "content-type" => "application/json", "x-api-key" => "sk-ant-api03-test-key-0000", "anthropic-version" => "2023-06-01" }
    sleeps = record_sleeps(RetryCore)
    seen = []
    reply = bounded do
      RetryCore.call_llm_with_retry(policy: :default, on_event: contract_events(seen)) do
        JSON.parse(connection.post("/v1/messages", body, headers).body).dig("content", 0, "text")
      end
    end
    assert_equal hello(3), reply
    assert_equal 7.0, sleeps.first
    assert_equal [["rate_limit", 429], ["overloaded", 529], ["ok", 200]], lab_calls
    assert_equal [["rate_limited", 429, "Faraday::ClientError", 7.0], ["overloaded", 529, "Faraday::ServerError", nil]],
                 seen.map { |e| e.values_at(:category, :status_code, :error_class, :retry_after) }
    @lab.script(steps: [{ fault: "rate_limit", retry_after: 7 }])
    error = assert_raises(Faraday::ClientError) { connection.post("/v1/messages", body, headers) }
    failure = RetryCore::Failure.from_exception(error)
    assert_equal [429, "7"], [failure.status, failure.headers["retry-after"]]
    refute_includes failure.to_json, "sk-ant-api03-test-key", "the request Hash in error.response is never read"
  end

  def test_503_then_ok_on_the_openai_path
    @lab.script(steps: [{ fault: "unavailable" }, { fault: "status", status: 502 }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client(provider: :openai, api_key: "sk-proj-test-key-000000000000")
    reply = bounded { RetryCore.call_llm_with_retry(max_retries: 3, on_event: contract_events(seen)) { c.complete([{ role: "user", content: "hi" }]) } }
    assert_equal hello(3), reply
    assert_equal [15.0, 15.0], sleeps, "SwarmSDK's fixed 15 s, twice"
    assert_equal [["unavailable", 503], ["status", 502], ["ok", 200]], lab_calls
    assert_equal [["server_error", 503, "RubyLLM::ServiceUnavailableError"], ["server_error", 502, "RubyLLM::ServiceUnavailableError"]],
                 seen.map { |e| e.values_at(:category, :status_code, :error_class) }
  end

  def test_exhaustion_reraises_the_last_error
    @lab.script(then: { fault: "html", status: 524 })
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client
    error = assert_raises(RubyLLM::Error) do
      bounded { RetryCore.call_llm_with_retry(max_retries: 3, delay: 2, on_event: contract_events(seen)) { c.complete([{ role: "user", content: "hi" }]) } }
    end
    assert_equal 524, error.response.status
    assert_equal [2.0, 2.0], sleeps
    assert_equal [["html", 524]] * 3, lab_calls
    assert_equal %w[llm_retry_attempt llm_retry_attempt llm_retry_exhausted], seen.map { |e| e[:type] }
    assert_equal ["server_error", 3, "exhausted"], seen.last.values_at(:category, :attempts, :reason)
  end

  def test_401_is_reraised_at_once
    @lab.script(steps: [{ fault: "unauthorized" }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client
    assert_raises(RubyLLM::UnauthorizedError) { bounded { RetryCore.call_llm_with_retry(on_event: contract_events(seen)) { c.complete([]) } } }
    assert_empty sleeps
    assert_equal [["unauthorized", 401]], lab_calls
    assert_equal [["llm_request_failed", "unauthorized", 401, false]], seen.map { |e| e.values_at(:type, :category, :status_code, :retryable) }
  end

  def test_a_stall_past_the_read_timeout_is_retried
    @lab.script(steps: [{ fault: "stall", seconds: 3 }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client(read_timeout: 0.4)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    reply = bounded { RetryCore.call_llm_with_retry(delay: 15, on_event: contract_events(seen)) { c.complete([{ role: "user", content: "hi" }]) } }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 2.5, "the client gave up after its read timeout"
    assert_equal hello(2), reply
    assert_equal [15.0], sleeps
    assert_equal %w[stall ok], lab_calls.map(&:first)
    assert_equal [["timeout", nil, "Net::ReadTimeout"]], seen.map { |e| e.values_at(:category, :status_code, :error_class) }
  end

  def test_a_reset_connection_is_retried
    @lab.script(steps: [{ fault: "reset" }, { fault: "reset", graceful: true }])
    sleeps = record_sleeps(RetryCore)
    seen = []
    c = client
    reply = bounded { RetryCore.call_llm_with_retry(policy: :forgeflare, on_event: contract_events(seen)) { c.complete([{ role: "user", content: "hi" }]) } }
    assert_equal hello(3), reply
    assert_equal [2.0, 4.0], sleeps
    assert_equal [["reset", nil], ["reset", nil], ["ok", 200]], lab_calls
    assert_equal [%w[connection Errno::ECONNRESET], %w[connection EOFError]], seen.map { |e| e.values_at(:category, :error_class) }
  end

  # --- ChatRetry (SwarmSDK) ------------------------------------------------------------------

  def test_chat_529_overloaded_waits_swarm_sdks_delay
    @lab.script(steps: [{ fault: "overloaded" }])
    agent = chat
    sleeps = record_sleeps(agent)
    reply = bounded { agent.ask("Summarise the repository.") }
    assert_equal hello(2), reply.content
    assert_equal [15], sleeps
    assert_equal [["overloaded", 529], ["ok", 200]], lab_calls
    assert_equal [{ type: "llm_retry_attempt", agent: :backend, swarm_id: "swarm-1", model: "claude-sonnet-4", attempt: 1,
                    max_retries: 3, error_class: "RubyLLM::OverloadedError", error_message: "Overloaded", retry_delay: 15,
                    category: "overloaded", status_code: 529 }], events
  end

  def test_chat_401_comes_back_as_an_assistant_message
    @lab.script(steps: [{ fault: "unauthorized" }])
    agent = chat
    sleeps = record_sleeps(agent)
    reply = bounded { agent.ask("hello") }
    assert_instance_of RubyLLM::Message, reply
    assert_equal :assistant, reply.role
    assert_equal "claude-sonnet-4", reply.model_id
    assert_includes reply.content, "**Error Type:** UnauthorizedError"
    assert_includes reply.content, "**Status Code:** 401"
    assert_includes reply.content, "invalid x-api-key"
    assert_includes reply.content, "Please check your API credentials."
    assert_empty sleeps
    assert_equal [["unauthorized", 401]], lab_calls
    assert_equal [["llm_request_failed", "Unauthorized", "unauthorized", 401, false]],
                 events.map { |e| e.values_at(:type, :error_type, :category, :status_code, :retryable) }
    assert_equal %i[user assistant], agent.llm_chat.messages.map(&:role)
  end

  def test_chat_tool_pairing_400_prunes_the_orphan_and_retries_at_once
    @lab.script(steps: [{ fault: "tool_pairing" }])
    agent = chat
    sleeps = record_sleeps(agent)
    agent.add_message(RubyLLM::Message.new(role: :user, content: "Read the file."))
    agent.add_message(RubyLLM::Message.new(
                        role: :assistant, content: "", model_id: "claude-sonnet-4",
                        tool_calls: { "toolu_1" => RubyLLM::ToolCall.new(id: "toolu_1", name: "Read", arguments: { "file_path" => "/important/file.rb" }) }
                      ))
    reply = bounded { agent.ask("Well?") }
    assert_equal hello(2), reply.content
    assert_empty sleeps, "the recovery retries at once"
    assert_equal [["tool_pairing", 400], ["ok", 200]], lab_calls
    first, second = agent.client.requests
    assert(first["messages"].any? { |m| m["tool_calls"] }, "the first request carried the orphan")
    refute(second["messages"].any? { |m| m["tool_calls"] }, "the retry no longer does")
    assert_equal %w[user user], second["messages"].map { |m| m["role"] }
    assert_equal [["orphan_tool_calls_pruned", 1]], events.map { |e| e.values_at(:type, :pruned_count) }
    assert_match(/tool_use. ids were found without/, events.first[:original_error])
    reminder, = agent.context_manager.ephemeral.first
    assert_includes reminder, '- Read(file_path: "/important/file.rb")'
  end

  def test_chat_stall_and_reset_then_exhaustion
    @lab.script(steps: [{ fault: "stall", seconds: 3 }, { fault: "reset" }], then: { fault: "server_error" })
    agent = chat(read_timeout: 0.4)
    sleeps = record_sleeps(agent)
    error = assert_raises(RubyLLM::ServerError) { bounded { agent.ask("hi") } }
    assert_equal 500, error.response.status
    assert_equal [15, 15], sleeps
    assert_equal %w[stall reset server_error], lab_calls.map(&:first)
    assert_equal [%w[llm_retry_attempt timeout], %w[llm_retry_attempt connection], %w[llm_retry_exhausted server_error]],
                 events.map { |e| e.values_at(:type, :category) }
  end

  # A fleet through the lab: one agent's 429 with retry-after pauses the other agent, whose
  # request reaches the server only after the pause (the lab's own clock says so).
  def test_a_fleet_pause_reaches_the_other_agent
    @lab.script(steps: [{ fault: "rate_limit", retry_after_ms: 400 }])
    fleet = RetryCore::Fleet.new(breaker: nil)
    RetryCore::SwarmSDK.configure do |c|
      c.fleet = fleet
      c.policy = { preset: "default", jitter: "none" }
    end
    a = chat
    b = chat
    record_sleeps(a, real: true)
    record_sleeps(b, real: true)
    paused = Queue.new
    SwarmSDK::LogStream.emitter = Class.new(SwarmSDK::CollectingEmitter) do
      define_method(:emit) do |entry|
        super(entry)
        paused << true if entry[:type] == "rate_limit_pause"
      end
    end.new
    bounded do
      ta = Thread.new { a.ask("first") }
      paused.pop
      tb = Thread.new { b.ask("second") }
      assert_equal [hello(2), hello(3)].sort, [ta.value.content, tb.value.content].sort
    end
    log = @lab.log
    assert_equal [429, 200, 200], log.map { |e| e["status"] }
    assert_operator log[1]["ms"] - log[0]["ms"], :>=, 380, "nobody called during the pause"
    assert_operator log[2]["ms"] - log[0]["ms"], :>=, 380
    types = SwarmSDK::LogStream.emitter.events.map { |e| e[:type] }
    assert_equal %w[rate_limit_pause llm_retry_attempt], types
    assert_equal 2, fleet.metrics.dig("claude-sonnet-4", "total", :successes)
  end
end
