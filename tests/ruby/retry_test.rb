# frozen_string_literal: true

require_relative "test_helper"
require "timeout"

# RetryCore.call_llm_with_retry: the loop in Ruby, the decisions in Rust.
class RetryTest < Minitest::Test
  include TestHelpers

  # RubyLLM 1.13+'s default (3 retries per request): the run reports the stacked layers.
  # Other tests (SwarmSDK's install!) turn it off; each test here starts from the default.
  def setup
    super
    @ruby_llm_retries = RubyLLM.config.max_retries
    RubyLLM.config.max_retries = 3
  end

  def teardown
    RubyLLM.config.max_retries = @ruby_llm_retries
    unstub_sleeps
    super
  end

  def flaky(failures)
    calls = 0
    lambda do
      calls += 1
      raise failures[calls - 1] if calls <= failures.size

      [:ok, calls]
    end
  end

  def test_success_path_returns_the_value_without_sleeping
    sleeps = record_sleeps(RetryCore)
    assert_equal :value, RetryCore.call_llm_with_retry { :value }
    assert_empty sleeps
  end

  # CONTRACT §6: with no policy, max_retries or delay, the default preset decides; a 429's
  # retry-after of 1 s costs 1 s (SwarmSDK's fixed 15 s used to cost 15).
  def test_no_policy_means_the_default_preset_and_honours_retry_after
    sleeps = record_sleeps(RetryCore)
    error = RubyLLM.error_for(429, "Rate limit reached", headers: { "retry-after" => "1" })
    call = flaky([error])
    assert_equal [:ok, 2], RetryCore.call_llm_with_retry { call.call }
    assert_equal [1.0], sleeps
  end

  def test_a_misspelt_policy_fails_before_the_first_call
    calls = 0
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore.call_llm_with_retry(policy: :defualt) { calls += 1 } }
    assert_equal 0, calls, "the API was never called"
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(policy: :default, delay: 1) { calls += 1 } }
    assert_equal 0, calls
  end

  def test_transient_errors_are_retried_with_the_fixed_delay
    sleeps = record_sleeps(RetryCore)
    events = []
    call = flaky([RubyLLM.error_for(500, "Internal server error"), Faraday::ConnectionFailed.new("Connection refused")])
    # max_retries: alone means SwarmSDK's semantics (a fixed 15 s delay); CONTRACT §6.
    assert_equal [:ok, 3], RetryCore.call_llm_with_retry(max_retries: 3, on_event: events.method(:<<)) { call.call }
    assert_equal [15.0, 15.0], sleeps
    # RubyLLM (1.13+) retries each request itself: the run says once that the layers multiply;
    # each wait is announced and closed (issue 13).
    assert_equal %w[retry_layers_stacked llm_retry_attempt retry_wait_started retry_wait_finished
                    llm_retry_attempt retry_wait_started retry_wait_finished], events.map { |e| e[:type] }
    assert_equal({ type: "retry_wait_started", seconds: 15.0, reason: "backoff", attempt: 1 },
                 events[2].except(:ends_at))
    first = events[1]
    assert_equal({ type: "llm_retry_attempt", category: "server_error", status_code: 500,
                   error_class: "RubyLLM::ServerError", error_message: "Internal server error", attempt: 1,
                   max_retries: 3, retry_delay: 15.0, retry_after: nil }, first)
    assert_equal "connection", events[4][:category]
  end

  def test_exhaustion_reraises_the_original_error
    sleeps = record_sleeps(RetryCore)
    events = []
    error = RubyLLM.error_for(503, "Service Unavailable")
    calls = 0
    raised = assert_raises(RubyLLM::ServiceUnavailableError) do
      RetryCore.call_llm_with_retry(max_retries: 2, delay: 1, on_event: events.method(:<<)) do
        calls += 1
        raise error
      end
    end
    assert_same error, raised
    assert_equal 2, calls
    assert_equal [1.0], sleeps
    assert_equal %w[retry_layers_stacked llm_retry_attempt retry_wait_started retry_wait_finished llm_retry_exhausted],
                 events.map { |e| e[:type] }
    assert_equal 2, events.last[:attempts]
    assert_equal "exhausted", events.last[:reason]
  end

  def test_permanent_errors_are_reraised_at_once
    sleeps = record_sleeps(RetryCore)
    [RubyLLM.error_for(401, "Invalid API key"), RubyLLM.error_for(400, "Invalid request"),
     RubyLLM.error_for(429, "You exceeded your current quota: insufficient_quota"),
     ArgumentError.new("wrong number of arguments")].each do |error|
      events = []
      calls = 0
      assert_raises(error.class) do
        RetryCore.call_llm_with_retry(on_event: events.method(:<<)) do
          calls += 1
          raise error
        end
      end
      assert_equal 1, calls, error.message
      assert_equal %w[retry_layers_stacked llm_request_failed], events.map { |e| e[:type] }
      assert_equal false, events.last[:retryable]
    end
    assert_empty sleeps
  end

  def test_policies_by_name_hash_and_object
    sleeps = record_sleeps(RetryCore)
    call = flaky([RubyLLM.error_for(503, "busy")] * 4)
    assert_equal [:ok, 5], RetryCore.call_llm_with_retry(policy: :forgeflare) { call.call }
    assert_equal [2.0, 4.0, 8.0, 16.0], sleeps
    sleeps.clear
    call = flaky([RubyLLM.error_for(503, "busy")] * 2)
    RetryCore.call_llm_with_retry(policy: { preset: "llm_executor", max_retries: 2 }) { call.call }
    assert_equal [1.0, 2.0], sleeps
    sleeps.clear
    call = flaky([Errno::ECONNRESET.new])
    RetryCore.call_llm_with_retry(policy: RetryCore::Policy.preset(:default)) { call.call }
    assert_equal 1, sleeps.size
    assert_operator sleeps.first, :<, 1.0 # full jitter over 1 s
  end

  def test_retry_after_is_honoured_by_policies_that_say_so
    sleeps = record_sleeps(RetryCore)
    call = flaky([RubyLLM.error_for(429, "slow down", headers: { "retry-after" => "3" })])
    RetryCore.call_llm_with_retry(policy: :forgeflare) { call.call }
    assert_equal [3.0], sleeps
  end

  def test_cancellation_is_never_rescued
    calls = 0
    assert_raises(Interrupt) do
      RetryCore.call_llm_with_retry(delay: 0) do
        calls += 1
        raise Interrupt
      end
    end
    assert_equal 1, calls
  end

  def test_bad_arguments
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry }
    assert_raises(TypeError) { RetryCore.call_llm_with_retry(max_retries: "3") { 1 } }
    assert_raises(TypeError) { RetryCore.call_llm_with_retry(delay: "15") { 1 } }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore.call_llm_with_retry(policy: :nope) { raise "x" } }
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(policy: :forgeflare, max_retries: 5) { 1 } }
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(policy: :forgeflare, delay: 2) { 1 } }
  end

  # --- waits go through Kernel#sleep: interruptible, GVL released ---

  def sleeping_call(delay: 15)
    RetryCore.call_llm_with_retry(delay: delay) { raise RubyLLM.error_for(500, "Internal server error") }
  end

  def wait_until_sleeping(thread)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.01 until thread.status == "sleep" || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    assert_equal "sleep", thread.status
  end

  def test_thread_raise_interrupts_a_15_second_wait
    stop = Class.new(StandardError)
    thread = Thread.new { sleeping_call }
    thread.report_on_exception = false
    wait_until_sleeping(thread)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    thread.raise(stop, "stop now")
    assert_raises(stop) { thread.join }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 2.0
  end

  def test_interrupt_signal_interrupts_a_wait
    thread = Thread.new { sleeping_call }
    thread.report_on_exception = false
    wait_until_sleeping(thread)
    thread.raise(Interrupt)
    assert_raises(Interrupt) { thread.join }
  end

  def test_timeout_interrupts_a_wait_and_other_threads_run_meanwhile
    ticks = 0
    ticker = Thread.new { loop { ticks += 1; sleep 0.01 } }
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_raises(Timeout::Error) { Timeout.timeout(0.5) { sleeping_call } }
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    ticker.kill
    assert_operator elapsed, :<, 3.0
    assert_operator ticks, :>=, 10, "other threads should run during the wait"
  end

  def test_ctrl_c_in_a_child_process
    skip "fork unavailable" unless Process.respond_to?(:fork)

    reader, writer = IO.pipe
    pid = fork do
      reader.close
      $stderr.reopen(File::NULL)
      # A suite started in the background (`make test &`, nohup) inherits SIGINT ignored.
      trap("INT", "DEFAULT")
      writer.puts "ready"
      writer.flush
      begin
        sleeping_call
      rescue Interrupt
        writer.puts "interrupted"
      end
      writer.close
      exit!(0)
    end
    writer.close
    assert_equal "ready", reader.gets&.strip
    sleep 0.3
    Process.kill("INT", pid)
    result = Timeout.timeout(5) { reader.gets&.strip }
    Process.wait(pid)
    assert_equal "interrupted", result
  end

  # The success path allocates nothing: not a Proc of the block (`block_given?`, not the block
  # read), nor an Array to look the policy up by when a preset alone, or nothing, is given.
  def test_the_success_path_allocates_nothing
    value = Object.new
    doors = { "nothing" => -> { RetryCore.call_llm_with_retry { value } },
              "a preset" => -> { RetryCore.call_llm_with_retry(policy: :swarm_sdk) { value } } }
    doors.each do |given, door|
      door.call # what the first call sets up once
      allocated = Array.new(6) do
        before = GC.stat(:total_allocated_objects)
        door.call
        GC.stat(:total_allocated_objects) - before
      end
      # The first count also holds what reading the counter first allocates (1 on Ruby 3.1).
      assert_equal [0] * 5, allocated.drop(1), "objects allocated by each call given #{given}"
      assert_same value, door.call
    end
  end

  def test_a_call_without_a_block_is_an_argument_error
    error = assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(policy: :default) }
    assert_match(/needs a block/, error.message)
  end
end
