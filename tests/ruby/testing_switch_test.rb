# frozen_string_literal: true

require_relative "test_helper"

# The testing switch (RetryCore.testing!, core testing.rs): waits become steps of a virtual
# clock the fleets share, the jitter seed is fixed, the decisions are recorded; a stubbed sleep
# beside a fleet fails fast naming the switch; a fleet's repeated gate checks log at DEBUG.
class TestingSwitchTest < Minitest::Test
  include TestHelpers

  def teardown
    reset_globals
    super
  end

  # Any real sleep fails the test: under the switch, none may happen.
  def forbid_real_sleep
    RetryCore.define_singleton_method(:sleep) { |s| raise "slept #{s} s for real" }
    (@stubbed_sleep ||= []) << RetryCore
  end

  def scripted(*answers)
    calls = 0
    fn = lambda do
      calls += 1
      answer = answers[calls - 1]
      raise answer if answer.is_a?(Exception)

      answer
    end
    [fn, -> { calls }]
  end

  def rate_limited(seconds)
    RubyLLM.error_for(429, "Rate limit reached", headers: { "retry-after" => seconds.to_s })
  end

  def busy
    RubyLLM.error_for(503, "Service Unavailable")
  end

  def test_a_429_503_success_run_with_a_fleet_spends_virtual_time_only
    forbid_real_sleep
    RetryCore.testing!(seed: 3) do |rec|
      fn, calls = scripted(rate_limited(20), busy, "ok")
      assert_equal "ok", RetryCore.call_llm_with_retry(fleet: RetryCore::Fleet.new, key: "openai:gpt-4o") { fn.call }
      assert_equal 3, calls.call
      assert_equal [20.0, :retry_after], rec.waits[0]
      assert_equal %i[retry_after backoff], rec.waits.map(&:last), "the fleet's pause ended on the virtual clock"
      assert_in_delta rec.waits.sum(&:first), rec.elapsed, 1e-6
      assert_equal %w[rate_limited server_error], rec.decisions.map { |e| e[:category].to_s }
    end
    assert_nil RetryCore::Testing._now, "real time again after the block"
  end

  def test_a_second_caller_waits_for_the_pause_in_virtual_time
    forbid_real_sleep
    RetryCore.testing! do |rec|
      fleet = RetryCore::Fleet.new(breaker: false)
      fn, = scripted(rate_limited(30))
      assert_raises(RubyLLM::RateLimitError) { RetryCore.call_llm_with_retry(max_retries: 1, fleet: fleet, key: "k") { fn.call } }
      before = rec.elapsed
      assert_equal "ok", RetryCore.call_llm_with_retry(fleet: fleet, key: "k") { "ok" }
      assert_includes rec.waits.map(&:last), :fleet_pause
      assert_in_delta 30.0, rec.elapsed - before, 0.1
    end
  end

  def test_the_seed_fixes_the_jitter
    backoffs = lambda do |seed|
      RetryCore.testing!(seed: seed) do |rec|
        fn, = scripted(busy, busy, busy, "ok")
        RetryCore.call_llm_with_retry { fn.call }
        rec.waits
      end
    end
    first = backoffs.call(5)
    assert_equal 3, first.size
    assert_equal first, backoffs.call(5)
    refute_equal first, backoffs.call(6)
  end

  def test_a_bad_seed_is_refused
    [-1, 2**64, "1", nil].each { |bad| assert_raises(ArgumentError) { RetryCore.testing!(seed: bad) } }
    refute RetryCore::Testing._now
  end

  def test_a_stubbed_sleep_with_a_fleet_fails_fast_naming_the_switch
    record_sleeps(RetryCore) # the usual stub: RetryCore.sleep answers at once
    # A circuit that opens at the first failure: its open period is waited out at the gate.
    fleet = RetryCore::Fleet.new(breaker: { consecutive_failures: 1 })
    fn, calls = scripted(busy, "never reached")
    error = assert_raises(RetryCore::InvalidStateError) do
      bounded { RetryCore.call_llm_with_retry(fleet: fleet, key: "openai:gpt-4o") { fn.call } }
    end
    assert_includes error.message, "RetryCore.testing!"
    assert_includes error.message, "RetryCore::Testing::Minitest"
    assert_kind_of RubyLLM::ServiceUnavailableError, error.cause, "the user's error stays attached"
    assert_equal 1, calls.call, "no call while the fleet held the key back"
  end

  # The issue's 4 s outage with 10 waiting threads, shortened to 1.5 s of real time (the
  # threads must wait side by side, which virtual time does not make them do).
  def test_ten_threads_through_an_outage_log_one_line_per_caller_per_wait
    lines = []
    lock = Mutex.new
    logger = Object.new
    %i[debug info warn error].each do |level|
      logger.define_singleton_method(level) { |text| lock.synchronize { lines << [Thread.current.object_id, level, text] } }
    end
    fleet = RetryCore::Fleet.new
    ends = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 1.5
    fn = lambda do
      lock.synchronize { lines << [Thread.current.object_id, :call, nil] }
      Kernel.sleep(0.02) # a call takes time: the others find the breaker's probe out meanwhile
      raise busy if Process.clock_gettime(Process::CLOCK_MONOTONIC) < ends

      "ok"
    end
    policy = { preset: "default", backoff: { kind: "fixed", delay: 0.2 }, jitter: "none", max_attempts: 50 }
    threads = Array.new(10) do
      Thread.new { RetryCore.call_llm_with_retry(policy: policy, fleet: fleet, key: "k", logger: logger) { fn.call } }
    end
    assert_equal ["ok"] * 10, bounded { threads.map(&:value) }
    holds = lines.select { |_, _, text| text&.include?("the fleet holds") }
    assert holds.any? { |_, level, _| level == :debug }, "the gate asked again: its repeats at DEBUG"
    # Per caller, between two of its calls (one wait), at most one line at the default level.
    lines.group_by(&:first).each_value do |mine|
      shown = 0
      mine.each do |_, level, text|
        if level == :call
          shown = 0
        elsif level == :warn && text.include?("the fleet holds")
          shown += 1
          assert_operator shown, :<=, 1, "a second line for the same wait"
        end
      end
    end
  end
end

# The minitest helper: the switch around each test, its recorder as `retry_core`.
class TestingSwitchMinitestHelperTest < Minitest::Test
  include RetryCore::Testing::Minitest

  def test_the_switch_is_on_with_a_recorder
    assert_kind_of RetryCore::Testing::Recorder, retry_core
    assert_equal 0.0, retry_core.elapsed
    retry_core.advance(2.5)
    assert_equal 2.5, retry_core.elapsed
    assert_raises(ArgumentError) { retry_core.advance(-1) }
    calls = 0
    RetryCore.call_llm_with_retry do
      calls += 1
      raise RubyLLM.error_for(503, "busy") if calls == 1

      "ok"
    end
    assert_equal 503, retry_core.of(:llm_retry_attempt).first[:status_code]
  end
end
