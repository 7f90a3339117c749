# frozen_string_literal: true

require_relative "test_helper"

# Chaos (issue 14), interrupts are never swallowed, from Ruby; tests/python/test_chaos_signals.py
# is the twin. An Interrupt or a SignalException raised while the binding reads the exception
# (#message, #cause, #response, the response's status, headers and body, a header's name or
# value, a body's text, the class's name or ancestors) propagates out of
# RetryCore.call_llm_with_retry (with and without a fleet), SwarmSDK's ChatRetry,
# RetryCore.classify and RetryCore.error_message, and nothing is called after it. A
# StandardError raised by those same methods counts as "absent": the failure is still decided.
class ChaosSignalsTest < Minitest::Test
  include TestHelpers
  include SwarmSDKInstalled

  # An object whose every listed method raises `error` (a class, instantiated on each call).
  def self.raising(error, *methods)
    obj = Object.new
    methods.each { |m| obj.define_singleton_method(m) { |*| raise error, "raised from ##{m}" } }
    obj
  end

  # A 503 whose reading raises at one place. `make` builds the exception for a raised class.
  def self.places(error)
    {
      "message" => lambda {
        e = StandardError.new("x")
        e.define_singleton_method(:message) { raise error, "message" }
        e
      },
      "cause" => lambda {
        e = StandardError.new("busy")
        e.define_singleton_method(:cause) { raise error, "cause" }
        e
      },
      "response" => lambda {
        e = StandardError.new("busy")
        e.define_singleton_method(:response) { raise error, "response" }
        e
      },
      "response.status" => -> { with_response(raising(error, :status)) },
      "response.headers" => -> { with_response(status_and(503, raising(error, :headers))) },
      "response.body" => -> { with_response(status_and(503, raising(error, :body))) },
      "headers#to_h" => -> { with_response({ status: 503, headers: raising(error, :to_h), body: "busy" }) },
      "header value#to_s" => -> { with_response({ status: 503, headers: { "retry-after" => raising(error, :to_s) }, body: "busy" }) },
      "header name#to_s" => -> { with_response({ status: 503, headers: { raising(error, :to_s) => "1" }, body: "busy" }) },
      "header list item#to_s" => -> { with_response({ status: 503, headers: { "x" => ["a", raising(error, :to_s)] }, body: "busy" }) },
      "body#to_s" => -> { with_response({ status: 503, headers: {}, body: raising(error, :to_s) }) },
      "JSON body value#to_s" => -> { with_response({ status: 503, headers: {}, body: { "error" => raising(error, :to_s) } }) },
      "message#to_s" => lambda {
        e = StandardError.new("x")
        msg = raising(error, :to_s)
        e.define_singleton_method(:message) { msg }
        e
      },
      "class name" => lambda {
        klass = Class.new(StandardError)
        klass.define_singleton_method(:name) { raise error, "name" }
        klass.new("busy")
      },
      "class ancestors" => lambda {
        klass = Class.new(StandardError)
        klass.define_singleton_method(:ancestors) { raise error, "ancestors" }
        klass.new("busy")
      },
      "the cause's response" => lambda {
        inner = StandardError.new("inner")
        inner.define_singleton_method(:response) { raise error, "response" }
        outer = StandardError.new("outer")
        outer.define_singleton_method(:cause) { inner }
        outer
      }
    }
  end

  def self.with_response(response)
    e = StandardError.new("busy")
    e.define_singleton_method(:response) { response }
    e
  end

  def self.status_and(status, obj)
    obj.define_singleton_method(:status) { status }
    obj
  end

  FAST = { preset: "default", max_retries: 5, backoff: { kind: "fixed", delay: 0 }, jitter: "none" }.freeze
  SIGNALS = { "Interrupt" => Interrupt, "SignalException" => Class.new(SignalException) { def initialize(msg = nil) = super("TERM") } }.freeze

  def front_doors
    fleet = RetryCore::Fleet.new(breaker: nil)
    {
      "call_llm_with_retry" => ->(make, calls) { RetryCore.call_llm_with_retry(policy: FAST) { calls << 1; raise make.call } },
      "call_llm_with_retry(fleet:)" => lambda { |make, calls|
        RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "k") { calls << 1; raise make.call }
      },
      "ChatRetry" => lambda { |make, calls|
        chat = SwarmSDK::Agent::Chat.new(definition: { model: "m", retry_config: { max_retries: 5, retry_delay: 0 } }, agent_name: :a)
        chat.define_singleton_method(:sleep) { |_| nil }
        chat.send(:call_llm_with_retry) { calls << 1; raise make.call }
      },
      "classify" => ->(make, calls) { calls << 1; RetryCore.classify(make.call) },
      "error_message" => ->(make, calls) { calls << 1; RetryCore.error_message(make.call) },
      "Failure.from_exception" => ->(make, calls) { calls << 1; RetryCore::Failure.from_exception(make.call) }
    }
  end

  def test_a_signal_raised_while_the_exception_is_read_propagates_and_nothing_runs_after_it
    failures = []
    checked = 0
    SIGNALS.each do |signal_name, signal|
      self.class.places(signal).each do |place, make|
        front_doors.each do |door, run|
          calls = []
          begin
            bounded(5) { run.call(make, calls) }
            failures << "#{signal_name} at #{place} through #{door}: swallowed (returned normally)"
          rescue signal
            failures << "#{signal_name} at #{place} through #{door}: #{calls.size} calls" unless calls.size == 1
          rescue Exception => e # rubocop:disable Lint/RescueException -- anything else is the finding
            failures << "#{signal_name} at #{place} through #{door}: #{e.class} instead"
          end
          checked += 1
        end
      end
    end
    assert_operator checked, :>=, 2 * 16 * 6
    assert_empty failures, "#{failures.size} of #{checked}:\n#{failures.join("\n")}"
  end

  # The same methods raising a StandardError: the exception is still read (what could be read)
  # and decided. The caller gets the block's value or the very exception the block raised,
  # never one raised while reading it.
  def test_a_standard_error_raised_while_the_exception_is_read_counts_as_absent
    failures = []
    self.class.places(RuntimeError).each do |place, make|
      calls = 0
      raised = nil
      begin
        value = RetryCore.call_llm_with_retry(policy: FAST) { (calls += 1) == 1 ? raise(raised = make.call) : :ok }
        failures << "#{place}: #{value.inspect}" unless value == :ok
      rescue Exception => e # rubocop:disable Lint/RescueException -- the finding
        failures << "#{place}: #{e.class} in place of the block's error" unless e.equal?(raised)
      end
      assert_kind_of RetryCore::Classification, RetryCore.classify(make.call), place
    end
    assert_empty failures, failures.join("\n")
  end
end
