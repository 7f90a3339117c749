# frozen_string_literal: true

require_relative "test_helper"

# Chaos (issue 14), the user's outcome always wins, from Ruby; tests/python/test_chaos_errors.py
# is the twin. An on_event hook (or SwarmSDK's LogStream) that raises never replaces the block's
# value or the block's own error: the hook's errors are attached to the user's error
# (`@retry_core_errors`, an Array) and the retries go on. An Interrupt raised by a hook is not
# an error of the hook's: it propagates. Bad options are rejected before the first call.
class ChaosErrorsTest < Minitest::Test
  include TestHelpers
  include SwarmSDKInstalled

  class Busy < StandardError
    def response = { status: 503, headers: {}, body: "busy" }
  end

  class Denied < StandardError
    def response = { status: 401, headers: {}, body: "invalid api key" }
  end

  class HookBug < StandardError; end

  FAST = { preset: "default", max_retries: 3, backoff: { kind: "fixed", delay: 0 }, jitter: "none" }.freeze

  def raising_hook(seen = [])
    lambda do |event|
      seen << event[:type]
      raise HookBug, "the hook broke on #{event[:type]}"
    end
  end

  def fleets
    { "no fleet" => {}, "fleet" => { fleet: RetryCore::Fleet.new(breaker: { consecutive_failures: 1, open_s: 0 }), key: "k" } }
  end

  def test_a_raising_on_event_never_replaces_the_blocks_value
    fleets.each do |label, opts|
      seen = []
      calls = 0
      value = nil
      _, err = capture_io do
        value = RetryCore.call_llm_with_retry(policy: FAST, on_event: raising_hook(seen), **opts) do
          (calls += 1) < 3 ? raise(Busy, "busy") : :the_value
        end
      end
      assert_equal [:the_value, 3], [value, calls], label
      assert_includes seen, "llm_retry_attempt", label
      # No error to attach them to: a warning says the hook raised.
      assert_match(/retry_core: an event hook raised .*HookBug/, err, label)
    end
  end

  def test_a_raising_on_event_never_replaces_the_users_error
    fleets.each do |label, opts|
      [[Denied, 1], [Busy, 3]].each do |klass, expected_calls|
        calls = 0
        raised = nil
        error = assert_raises(klass, label) do
          RetryCore.call_llm_with_retry(policy: FAST, on_event: raising_hook, **opts) do
            calls += 1
            raise(raised = klass.new("nope"))
          end
        end
        assert_same raised, error, label
        assert_equal expected_calls, calls, "#{label} #{klass}"
        hook_errors = error.instance_variable_get(:@retry_core_errors)
        assert_kind_of Array, hook_errors, "#{label} #{klass}: the hook's errors are attached"
        refute_empty hook_errors
        assert(hook_errors.all?(HookBug), hook_errors.inspect)
      end
    end
  end

  def test_an_interrupt_raised_by_on_event_propagates_and_stops_the_retries
    fleets.each do |label, opts|
      calls = 0
      assert_raises(Interrupt, label) do
        RetryCore.call_llm_with_retry(policy: FAST, on_event: ->(_) { raise Interrupt }, **opts) do
          calls += 1
          raise Busy, "busy"
        end
      end
      assert_equal 1, calls, label
    end
  end

  # SwarmSDK's LogStream is ChatRetry's hook: when it raises, the reply or the error is still
  # the call's own.
  def test_a_raising_log_stream_never_replaces_chat_retrys_outcome
    SwarmSDK::LogStream.emitter = Object.new.tap { |o| o.define_singleton_method(:emit) { |_| raise HookBug, "log" } }
    [{}, { fleet: { breaker: nil }, key: "k" }].each do |extra|
      chat = SwarmSDK::Agent::Chat.new(definition: { model: "m", retry_config: { retry_delay: 0, **extra } }, agent_name: :a)
      chat.define_singleton_method(:sleep) { |_| nil }
      calls = 0
      reply = nil
      capture_io { reply = chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(Busy, "busy") : :reply } }
      assert_equal [:reply, 2], [reply, calls], extra.inspect
      # A 401 is not retried: SwarmSDK's error message comes back, not the LogStream's error.
      capture_io { reply = chat.send(:call_llm_with_retry) { raise Denied, "invalid api key" } }
      assert_equal :assistant, reply.role, extra.inspect
      # Exhaustion re-raises the call's own error.
      raised = nil
      error = assert_raises(Busy) { chat.send(:call_llm_with_retry) { raise(raised = Busy.new("busy")) } }
      assert_same raised, error
      assert(error.instance_variable_get(:@retry_core_errors).all?(HookBug))
    end
  end

  def test_bad_options_are_rejected_before_the_first_call
    fleet = RetryCore::Fleet.new
    bad = {
      "policy misspelt" => { policy: :defualt },
      "policy of a wrong type" => { policy: 42 },
      "policy and max_retries" => { policy: :default, max_retries: 2 },
      "max_retries a String" => { max_retries: "3" },
      "max_retries negative" => { max_retries: -1 },
      "max_retries huge" => { max_retries: 2**70 },
      "delay a String" => { delay: "15" },
      "delay negative" => { delay: -1 },
      "delay NaN" => { delay: Float::NAN },
      "delay infinite" => { delay: Float::INFINITY },
      "delay complex" => { delay: Complex(1, 1) },
      "on_event not callable" => { on_event: 42 },
      "fleet not a Fleet" => { fleet: "redis://x", key: "k" },
      "fleet without key" => { fleet: fleet },
      "key without fleet" => { key: "k" },
      "key empty" => { fleet: fleet, key: "" },
      "key of a wrong type" => { fleet: fleet, key: 42 }
    }
    bad.each do |label, options|
      called = false
      assert_raises(ArgumentError, TypeError, RetryCore::Error, label) do
        RetryCore.call_llm_with_retry(**options) { called = true }
      end
      refute called, "#{label}: the block ran before the options were checked"
    end
  end

  # SwarmSDK's ChatRetry: bad arguments, or a bad retry_config (checked when the agent is
  # built), never reach the first call.
  def test_chat_retry_rejects_bad_settings_before_the_first_call
    {
      "max_retries a String" => [{ max_retries: "3" }, nil],
      "max_retries negative" => [{ max_retries: -1 }, nil],
      "delay NaN" => [{ delay: Float::NAN }, nil],
      "delay a String" => [{ delay: "15" }, nil],
      "retry_config not a Hash" => [{}, "3 retries"],
      "retry_config max_retries" => [{}, { max_retries: "x" }],
      "retry_config retry_delay" => [{}, { retry_delay: -5 }],
      "retry_config fleet" => [{}, { fleet: 42 }],
      "retry_config key" => [{}, { fleet: { breaker: nil }, key: "" }]
    }.each do |label, (args, retry_config)|
      called = false
      assert_raises(ArgumentError, TypeError, RetryCore::Error, label) do
        definition = { model: "m" }
        definition[:retry_config] = retry_config if retry_config
        chat = SwarmSDK::Agent::Chat.new(definition: definition, agent_name: :a)
        chat.define_singleton_method(:sleep) { |_| nil }
        chat.send(:call_llm_with_retry, **args) { called = true }
      end
      refute called, "#{label}: the block ran before the settings were checked"
    end
    # Good explicit arguments, given again and again, are checked once and change nothing.
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m" }, agent_name: :a)
    3.times { assert_equal :ok, chat.send(:call_llm_with_retry, max_retries: 2, delay: 0) { :ok } }
  end
end
