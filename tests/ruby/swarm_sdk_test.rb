# frozen_string_literal: true

require_relative "test_helper"
require "net/http"

# RetryCore::SwarmSDK::ChatRetry against SwarmSDK's own call_llm_with_retry (ReferenceChat):
# the eleven cases of SwarmSDK's decision record 004, each run through both and compared
# (results, calls, sleeps, events and their keys), then the places where the engine decides
# differently on purpose, configuration, install! and interrupts.
class SwarmSDKTest < Minitest::Test
  include TestHelpers

  # Keys the contract adds to SwarmSDK's events.
  CONTRACT_EXTRAS = %i[category status_code retry_after reason].freeze

  def setup
    super
    RubyLLM.reset_config!
    @install_event = install_swarm_sdk
  end

  def teardown
    SwarmSDK::LogStream.emitter = nil
    RetryCore::SwarmSDK.reset_configuration!
    super
  end

  def new_chat(klass = SwarmSDK::Agent::Chat, name: :backend, definition: {})
    chat = klass.new(definition: { model: "claude-sonnet-4" }.merge(definition), agent_name: name)
    chat.setup_context(SwarmSDK::Agent::Context.new("swarm-1", "parent-0"))
    chat
  end

  # The outcome of one call_llm_with_retry: what it returned or raised, how many calls the
  # block saw, the sleeps, the LogStream events (timestamps dropped) and the chat.
  Outcome = Struct.new(:result, :error, :calls, :sleeps, :events, :chat, keyword_init: true)

  # Runs `call_llm_with_retry` on a fresh chat of `klass`; `failures` is a lambda building the
  # errors to raise, one per call, before the call that succeeds.
  def run_on(klass, failures, history: [], **kwargs)
    chat = new_chat(klass)
    history.each { |m| chat.add_message(m) }
    sleeps = record_sleeps(chat)
    emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = emitter
    errors = failures.call
    calls = 0
    result = error = nil
    begin
      result = chat.send(:call_llm_with_retry, **kwargs) do
        calls += 1
        raise errors[calls - 1] if calls <= errors.size

        RubyLLM::Message.new(role: :assistant, content: "done", model_id: "claude-sonnet-4")
      end
    rescue StandardError => e
      error = e
    end
    events = emitter.events.map { |e| e.reject { |k, _| k == :timestamp } }
    Outcome.new(result: result, error: error, calls: calls, sleeps: sleeps, events: events, chat: chat)
  end

  # Runs a scenario through SwarmSDK's method and ours; asserts they agree; returns ours.
  def both(failures, history: [], **kwargs)
    theirs = run_on(ReferenceChat, failures, history: history.map(&:dup), **kwargs)
    ours = run_on(SwarmSDK::Agent::Chat, failures, history: history.map(&:dup), **kwargs)
    assert_equal theirs.calls, ours.calls, "calls"
    assert_equal theirs.sleeps, ours.sleeps, "sleeps"
    assert_equal [theirs.error.class, theirs.error&.message], [ours.error.class, ours.error&.message], "raised"
    assert_instance_of theirs.result.class, ours.result
    if theirs.result.is_a?(RubyLLM::Message)
      assert_equal [theirs.result.role, theirs.result.content, theirs.result.model_id],
                   [ours.result.role, ours.result.content, ours.result.model_id]
    end
    assert_same_events(theirs.events, ours.events)
    assert_equal theirs.chat.llm_chat.messages.map { |m| [m.role, m.content, m.tool_calls&.keys] },
                 ours.chat.llm_chat.messages.map { |m| [m.role, m.content, m.tool_calls&.keys] }
    assert_equal theirs.chat.context_manager.ephemeral, ours.chat.context_manager.ephemeral
    ours
  end

  # Same events, same SwarmSDK keys in the same order with the same values; ours may add the
  # contract's keys.
  def assert_same_events(theirs, ours)
    assert_equal theirs.map { |e| e[:type] }, ours.map { |e| e[:type] }
    theirs.zip(ours).each do |t, o|
      assert_equal t.keys, o.keys.select { |k| t.key?(k) }, "key order of #{t[:type]}"
      assert_empty o.keys - t.keys - CONTRACT_EXTRAS, "unexpected keys in #{o[:type]}"
      t.each do |k, v|
        if k == :error_backtrace
          assert_kind_of Array, o[k]
        else
          assert_equal v, o[k], "#{t[:type]} #{k}"
        end
      end
    end
  end

  def orphan_history
    [
      RubyLLM::Message.new(role: :user, content: "read it"),
      RubyLLM::Message.new(role: :assistant, content: "", model_id: "claude-sonnet-4", input_tokens: 50, output_tokens: 9,
                           tool_calls: { "toolu_1" => RubyLLM::ToolCall.new(id: "toolu_1", name: "Read",
                                                                            arguments: { "file_path" => "/important/file.rb" }) }),
      RubyLLM::Message.new(role: :user, content: "well?")
    ]
  end

  TOOL_ERROR = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. " \
               "Each `tool_use` block must have a corresponding `tool_result` block in the next message."

  # 1. 400 with orphan tool calls: pruned once, retried at once, the attempt not counted.
  def test_01_bad_request_with_orphan_tool_calls_recovers
    ours = both(-> { [RubyLLM.error_for(400, TOOL_ERROR)] }, history: orphan_history, max_retries: 1)
    assert_equal "done", ours.result.content
    assert_equal 2, ours.calls
    assert_empty ours.sleeps
    assert_equal ["orphan_tool_calls_pruned"], ours.events.map { |e| e[:type] }
    assert_equal 1, ours.events.first[:pruned_count]
    assert_equal %i[user user], ours.chat.llm_chat.messages.map(&:role)
    reminder, = ours.chat.context_manager.ephemeral.first
    assert_includes reminder, '- Read(file_path: "/important/file.rb")'
    assert_equal 1, ours.chat.context_manager.cleared
  end

  # 2. 400 without orphan tool calls: the error comes back as a message at once.
  def test_02_bad_request_without_orphans_fails_at_once
    ours = both(-> { [RubyLLM.error_for(400, "Invalid request - please check your input")] })
    assert_equal 1, ours.calls
    assert_equal :assistant, ours.result.role
    assert_includes ours.result.content, "**Error Type:** BadRequestError"
    assert_includes ours.result.content, "The request format may be invalid."
    assert_equal "BadRequest", ours.events.first[:error_type]
    # A tool-pairing 400 with nothing to prune: recovery is tried, then the same failure.
    clean = [RubyLLM::Message.new(role: :user, content: "hi")]
    ours = both(-> { [RubyLLM.error_for(400, TOOL_ERROR)] }, history: clean)
    assert_equal ["llm_request_failed"], ours.events.map { |e| e[:type] }
    assert_equal "BadRequest", ours.events.first[:error_type]
    # A second tool-pairing 400 after a recovery is not recovered again.
    ours = both(-> { [RubyLLM.error_for(400, TOOL_ERROR), RubyLLM.error_for(400, TOOL_ERROR)] }, history: orphan_history)
    assert_equal %w[orphan_tool_calls_pruned llm_request_failed], ours.events.map { |e| e[:type] }
  end

  # 3. 401: at once, with SwarmSDK's text.
  def test_03_unauthorized_fails_at_once
    ours = both(-> { [RubyLLM.error_for(401, "Invalid API key - check your credentials")] })
    assert_equal 1, ours.calls
    assert_includes ours.result.content, "Unauthorized"
    assert_includes ours.result.content, "API credentials"
    assert_equal({ type: "llm_request_failed", agent: :backend, swarm_id: "swarm-1", parent_swarm_id: "parent-0",
                   model: "claude-sonnet-4", error_type: "Unauthorized", error_class: "RubyLLM::UnauthorizedError",
                   error_message: "Invalid API key - check your credentials", status_code: 401, retryable: false,
                   category: "unauthorized" }, ours.events.first)
  end

  # 4. 422 (a plain RubyLLM::Error): at once.
  def test_04_unprocessable_entity_fails_at_once
    ours = both(-> { [RubyLLM.error_for(422, "Invalid value for 'temperature'")] })
    assert_equal "UnprocessableEntity", ours.events.first[:error_type]
    assert_equal "RubyLLM::Error", ours.events.first[:error_class]
  end

  # 5. 403: at once.
  def test_05_forbidden_fails_at_once
    ours = both(-> { [RubyLLM.error_for(403, "Forbidden - you do not have permission to access this resource")] })
    assert_includes ours.result.content, "You may not have permission to access this resource."
    assert_equal "Forbidden", ours.events.first[:error_type]
    both(-> { [RubyLLM.error_for(402, "Payment required - please top up your account")] })
  end

  # 6. 500 until exhaustion: 3 calls, 2 waits of 15 s, then the original error.
  def test_06_server_error_retries_until_exhausted
    error = RubyLLM.error_for(500, "API server error - please try again")
    ours = both(-> { [error, error, error] })
    assert_same error, ours.error
    assert_equal 3, ours.calls
    assert_equal [15, 15], ours.sleeps
    assert_equal %w[llm_retry_attempt llm_retry_attempt llm_retry_exhausted], ours.events.map { |e| e[:type] }
    attempt = ours.events.first
    assert_equal [1, 3, 15, "server_error", 500], attempt.values_at(:attempt, :max_retries, :retry_delay, :category, :status_code)
    assert_instance_of Integer, attempt[:retry_delay], "SwarmSDK reports the delay it was given"
    assert_equal 3, ours.events.last[:attempts]
  end

  # 7. 429: retried with delays.
  def test_07_rate_limit_retries_with_delays
    ours = both(-> { [RubyLLM.error_for(429, "Rate limit exceeded - please wait a moment")] * 2 })
    assert_equal "done", ours.result.content
    assert_equal [15, 15], ours.sleeps
    both(-> { [RubyLLM.error_for(529, "Service overloaded")] }, delay: 2)
    both(-> { [RubyLLM.error_for(503, "API server unavailable")] }, max_retries: 5, delay: 0.5)
  end

  # 8. Network timeouts and connection failures: retried with delays.
  def test_08_network_timeout_retries
    ours = both(-> { [Faraday::TimeoutError.new, Net::ReadTimeout.new, Faraday::ConnectionFailed.new("Connection refused")] },
                max_retries: 4)
    assert_equal 4, ours.calls
    assert_equal %w[timeout timeout connection], ours.events.map { |e| e[:category] }
  end

  # 9. 418: an unknown client error fails at once.
  def test_09_unknown_client_error_fails_at_once
    ours = both(-> { [RubyLLM.error_for(418, "I'm a teapot")] })
    assert_equal "ClientError", ours.events.first[:error_type]
    assert_includes ours.result.content, "Please review the error and try again."
  end

  # 10. Delegation: a child's failure reaches the parent as an assistant message.
  def test_10_delegation_error_flows_to_the_parent
    [ReferenceChat, SwarmSDK::Agent::Chat].each do |klass|
      @emitter = SwarmSDK::CollectingEmitter.new
      SwarmSDK::LogStream.emitter = @emitter
      parent = new_chat(klass, name: :lead)
      child = new_chat(klass, name: :backend)
      record_sleeps(parent)
      answer = parent.send(:call_llm_with_retry) do
        reply = child.send(:call_llm_with_retry) { raise RubyLLM.error_for(401, "Invalid API key") }
        RubyLLM::Message.new(role: :assistant, content: "backend says: #{reply.content}")
      end
      assert_includes answer.content, "backend says: I encountered an error"
      assert_includes answer.content, "Please check your API credentials."
      assert_equal [[:backend, "llm_request_failed"]], @emitter.events.map { |e| [e[:agent], e[:type]] }
    end
  end

  # 11. Event emission: the right events for each scenario, with the agent context.
  def test_11_event_emission
    scenarios = {
      -> { [RubyLLM.error_for(401, "x")] } => %w[llm_request_failed],
      -> { [Errno::ECONNRESET.new] } => %w[llm_retry_attempt],
      -> { [RubyLLM.error_for(500, "x")] * 3 } => %w[llm_retry_attempt llm_retry_attempt llm_retry_exhausted]
    }
    scenarios.each do |failures, types|
      ours = both(failures)
      assert_equal types, ours.events.map { |e| e[:type] }
      ours.events.each do |e|
        assert_equal [:backend, "swarm-1", "parent-0", "claude-sonnet-4"], e.values_at(:agent, :swarm_id, :parent_swarm_id, :model)
        assert e.key?(:category)
      end
    end
    ours = both(-> { [RubyLLM.error_for(400, TOOL_ERROR)] }, history: orphan_history)
    assert_equal %i[type agent swarm_id parent_swarm_id model pruned_count original_error], ours.events.first.keys
  end

  def test_programming_errors_fail_at_once_with_their_class_name
    ours = both(-> { [NoMethodError.new("undefined method `content' for nil:NilClass")] })
    assert_equal "NoMethodError", ours.events.first[:error_type]
    both(-> { [ArgumentError.new("unknown keyword: :temprature")] })
  end

  # --- where the engine decides differently from SwarmSDK's rescue clauses ---

  def test_gateway_timeout_as_plain_ruby_llm_error_is_retried
    theirs = run_on(ReferenceChat, -> { [RubyLLM.error_for(504, "Gateway Timeout")] })
    assert_equal "UnknownAPIError", theirs.events.first[:error_type]
    %w[504 520].each do |status|
      ours = run_on(SwarmSDK::Agent::Chat, -> { [RubyLLM.error_for(status.to_i, "upstream error")] })
      assert_equal "done", ours.result.content
      assert_equal [15], ours.sleeps
      assert_equal "server_error", ours.events.first[:category]
    end
  end

  def test_insufficient_quota_is_not_retried
    quota = lambda {
      [RubyLLM.error_for(429, "You exceeded your current quota, please check your plan and billing details.",
                         body: { "error" => { "type" => "insufficient_quota", "code" => "insufficient_quota" } })]
    }
    assert_equal 2, run_on(ReferenceChat, quota).calls
    ours = run_on(SwarmSDK::Agent::Chat, quota)
    assert_equal 1, ours.calls
    assert_equal "PaymentRequired", ours.events.first[:error_type]
    assert_includes ours.result.content, "Please check your account billing status."
  end

  def test_configuration_errors_are_not_retried
    config = -> { [RubyLLM::ConfigurationError.new("openai provider is not configured")] * 3 }
    assert_equal 3, run_on(ReferenceChat, config).calls
    ours = run_on(SwarmSDK::Agent::Chat, config)
    assert_equal 1, ours.calls
    assert_equal "RubyLLM::ConfigurationError", ours.events.first[:error_type]
  end

  def test_secrets_never_reach_events_or_texts
    leak = -> { [RubyLLM.error_for(401, "Incorrect API key provided: sk-proj-abcdefghijklmnop1234")] }
    ours = run_on(SwarmSDK::Agent::Chat, leak)
    refute_includes ours.events.first[:error_message], "abcdefghijklmnop1234"
    refute_includes ours.result.content, "abcdefghijklmnop1234"
  end

  def test_cancellation_propagates_without_events
    chat = new_chat
    assert_raises(Interrupt) { chat.send(:call_llm_with_retry) { raise Interrupt } }
    assert_empty @emitter.events
  end

  # --- configuration ---

  def test_per_agent_retry_config_and_global_defaults
    chat = new_chat(definition: { retry_config: { max_retries: 2, retry_delay: 1 } })
    assert_equal({ max_retries: 2, retry_delay: 1 }, chat.retry_config)
    sleeps = record_sleeps(chat)
    calls = 0
    assert_raises(RubyLLM::ServerError) { chat.send(:call_llm_with_retry) { calls += 1; raise RubyLLM.error_for(500, "x") } }
    assert_equal [2, [1]], [calls, sleeps]

    RetryCore::SwarmSDK.configure do |c|
      c.default_max_retries = 4
      c.default_retry_delay = 3
    end
    chat = new_chat
    sleeps = record_sleeps(chat)
    calls = 0
    @emitter.events.clear
    assert_raises(RubyLLM::ServerError) { chat.send(:call_llm_with_retry) { calls += 1; raise RubyLLM.error_for(500, "x") } }
    assert_equal [4, [3, 3, 3]], [calls, sleeps]
    assert_equal [3, 4], @emitter.events.first.values_at(:retry_delay, :max_retries)

    # Explicit arguments win.
    calls = 0
    sleeps.clear
    assert_raises(RubyLLM::ServerError) do
      chat.send(:call_llm_with_retry, max_retries: 1, delay: 9) { calls += 1; raise RubyLLM.error_for(500, "x") }
    end
    assert_equal [1, []], [calls, sleeps]
  end

  def test_a_global_policy
    RetryCore::SwarmSDK.configure { |c| c.policy = :forgeflare }
    chat = new_chat
    sleeps = record_sleeps(chat)
    calls = 0
    assert_raises(RubyLLM::ServerError) { chat.send(:call_llm_with_retry) { calls += 1; raise RubyLLM.error_for(500, "x") } }
    assert_equal [5, [2.0, 4.0, 8.0, 16.0]], [calls, sleeps]
  end

  # --- install! ---

  def test_install_turns_ruby_llm_retries_off_once_and_says_so
    assert_equal 0, RubyLLM.config.max_retries
    assert_equal "disabled", @install_event[:ruby_llm_retries]
    assert_equal 3, @install_event[:previous_ruby_llm_max_retries]
    assert_match(/multiply/, @install_event[:note])
    assert_equal 1, SwarmSDK::Agent::Chat.ancestors.count(RetryCore::SwarmSDK::ChatRetry)
    RetryCore::SwarmSDK.install!
    assert_equal 1, SwarmSDK::Agent::Chat.ancestors.count(RetryCore::SwarmSDK::ChatRetry)
    refute_includes ReferenceChat.ancestors, RetryCore::SwarmSDK::ChatRetry

    RubyLLM.config.max_retries = 3
    seen = []
    event = RetryCore::SwarmSDK.install!(keep_ruby_llm_retries: true, on_event: seen.method(:<<))
    assert_equal 3, RubyLLM.config.max_retries
    assert_equal "kept", event[:ruby_llm_retries]
    assert_equal [event], seen
    assert_equal %w[retry_layers_configured retry_layers_configured], @emitter.events.map { |e| e[:type] }
  end

  # --- interrupts in the middle of SwarmSDK's 15 s wait ---

  def test_thread_raise_during_a_wait
    chat = new_chat
    stop = Class.new(StandardError)
    thread = Thread.new { chat.send(:call_llm_with_retry) { raise RubyLLM.error_for(503, "busy") } }
    thread.report_on_exception = false
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.01 until thread.status == "sleep" || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    assert_equal "sleep", thread.status
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    thread.raise(stop)
    assert_raises(stop) { thread.join }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 2.0
    assert_equal ["llm_retry_attempt"], @emitter.events.map { |e| e[:type] }
  end
end
