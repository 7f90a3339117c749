# frozen_string_literal: true

require_relative "test_helper"
require "stringio"

# The plain front door as an interpreter of the core's Run (issue 13): progress during long
# waits, the WARN line at a wait's start, messages pruned for real, a gate refusal that gives up.
class RunFrontDoorTest < Minitest::Test
  include TestHelpers

  def teardown
    @stubbed_sleep&.each { |o| o.singleton_class.send(:remove_method, :sleep) if o.singleton_class.method_defined?(:sleep, false) || o.singleton_class.private_method_defined?(:sleep, false) }
    super
  end

  def busy
    RubyLLM.error_for(503, "Service Unavailable")
  end

  def test_on_progress_during_a_30_s_wait
    sleeps = record_sleeps(RetryCore)
    progress = []
    calls = 0
    value = RetryCore.call_llm_with_retry(max_retries: 2, delay: 30, on_progress: progress.method(:<<)) do
      (calls += 1) == 1 ? raise(busy) : :ok
    end
    assert_equal :ok, value
    assert_equal [1.0] * 30, sleeps, "slices of at most 1 s through the caller's sleep"
    assert_equal 30, progress.size
    # After each slice, as in Python: a countdown that ends at 0.
    assert_equal({ remaining: 29.0, seconds: 30.0, reason: :backoff, model: nil }, progress.first)
    assert_equal (0..29).to_a.reverse.map(&:to_f), progress.map { |p| p[:remaining] }
    # Without a hook, one sleep per wait.
    sleeps.clear
    calls = 0
    RetryCore.call_llm_with_retry(max_retries: 2, delay: 30) { (calls += 1) == 1 ? raise(busy) : :ok }
    assert_equal [30.0], sleeps
  end

  def test_a_warn_line_at_the_start_of_a_30_s_wait_by_default
    io = StringIO.new
    before = RetryCore.logger
    RetryCore.logger = nil
    stderr = $stderr
    $stderr = io
    seen_at_sleep = nil
    RetryCore.define_singleton_method(:sleep) { |_s| seen_at_sleep = io.string.dup }
    @stubbed_sleep = [RetryCore]
    calls = 0
    RetryCore.call_llm_with_retry(max_retries: 2, delay: 30) { (calls += 1) == 1 ? raise(busy) : :ok }
    assert_kind_of ::Logger, RetryCore.logger
    assert_equal ::Logger::WARN, RetryCore.logger.level
    assert_match(/WARN -- : retry-core: server_error \(ServiceUnavailableError, status 503\), attempt 1\/2 failed; retrying in 30 s$/,
                 seen_at_sleep, "the line is written before the wait begins")
    # The wait's line (alone or after the stacked-retries warning, which depends on RubyLLM's
    # max_retries as earlier tests left it) carries one prefix.
    wait_line = io.string.lines.grep(/retrying in 30 s/)
    assert_equal 1, wait_line.size
    assert_equal 1, wait_line.first.scan(/retry.core:/).size, "one prefix, not the logger's progname as well"
    refute_match(/retry_wait/, io.string)
  ensure
    $stderr = stderr
    RetryCore.logger = before
  end

  def test_a_given_logger_gets_the_core_lines_at_their_levels
    record_sleeps(RetryCore)
    io = StringIO.new
    logger = Logger.new(io, level: Logger::INFO)
    messages = [{ role: "user", content: "hi" },
                { role: "assistant", content: nil, tool_calls: [{ id: "c1", type: "function", function: { name: "Read", arguments: "{}" } }] }]
    calls = 0
    RetryCore.call_llm_with_retry(messages: messages, logger: logger) do
      (calls += 1) == 1 ? raise(RubyLLM.error_for(400, "tool_use ids were found without tool_result blocks")) : :ok
    end
    assert_match(/INFO -- .*retry-core: pruned 1 orphan tool call; retrying at once/, io.string)
  end

  def test_messages_are_pruned_in_place_with_the_real_count
    sleeps = record_sleeps(RetryCore)
    messages = [
      { role: "user", content: "read two files" },
      { role: "assistant", content: nil, tool_calls: [{ id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"/a.rb"}' } },
                                                       { id: "call_2", type: "function", function: { name: "Read", arguments: '{"file_path":"/b.rb"}' } }] }
    ]
    original = messages
    events = []
    results = []
    sent = []
    calls = 0
    value = RetryCore.call_llm_with_retry(messages: messages, on_event: events.method(:<<), on_orphans: results.method(:<<)) do
      sent << messages.size
      (calls += 1) == 1 ? raise(RubyLLM.error_for(400, "messages.1: tool_use ids were found without tool_result blocks immediately after")) : :ok
    end
    assert_equal :ok, value
    assert_same original, messages, "pruned in place"
    assert_equal [2, 1], sent, "the retry sends the pruned history"
    assert_equal [{ role: "user", content: "read two files" }], messages
    pruned = events.find { |e| e[:type] == "orphan_tool_calls_pruned" }
    assert_equal 2, pruned[:pruned_count], "the real count, not 0"
    assert_equal 1, results.size
    assert_match(/Read\(file_path: "\/a.rb"\)/, results.first.reminder)
    assert_empty sleeps, "a pruned history is retried at once"
  end

  def test_a_gate_refusal_gives_up_with_circuit_open
    record_sleeps(RetryCore)
    fleet = RetryCore::Fleet.new(budget: nil, breaker: { consecutive_failures: 2, open_s: 5 })
    policy = RetryCore::Policy.from_config({ "preset" => "default", "jitter" => "none", "deadline" => 2.0 })
    events = []
    calls = 0
    error = busy
    raised = assert_raises(RubyLLM::ServiceUnavailableError) do
      RetryCore.call_llm_with_retry(policy: policy, fleet: fleet, key: "p:m", on_event: events.method(:<<)) do
        calls += 1
        raise error
      end
    end
    assert_same error, raised, "the user's error, not a replacement"
    assert_equal 2, calls
    last = events.last
    assert_equal ["llm_retry_exhausted", "circuit_open"], last.values_at(:type, :reason)
    assert_equal :give_up, raised.retry_decision.action
    assert_equal :circuit_open, raised.retry_decision.reason
    assert_equal :server_error, raised.retry_classification.category
    assert_match(/\Aretry-core: server_error \(transient, status 503\)/, raised.retry_note)
  end

  def test_the_verdict_is_attached_on_exhaustion_too
    record_sleeps(RetryCore)
    raised = assert_raises(RubyLLM::ServiceUnavailableError) { RetryCore.call_llm_with_retry(max_retries: 2, delay: 1) { raise busy } }
    assert_equal :exhausted, raised.retry_decision.reason
    assert_kind_of String, raised.retry_note
  end

  # RubyLLM 1.13+ retries each request itself (3 by default): the run says so once per run,
  # in one WARN line; with RubyLLM's retries off, nothing.
  def test_stacked_retry_layers_are_reported_once
    record_sleeps(RetryCore)
    saved = RubyLLM.config.max_retries
    io = StringIO.new
    [[3, 1], [0, 0]].each do |client, expected|
      RubyLLM.config.max_retries = client
      io.truncate(0)
      io.rewind
      events = []
      calls = 0
      RetryCore.call_llm_with_retry(policy: :forgeflare, on_event: events.method(:<<), logger: Logger.new(io)) do
        (calls += 1) < 3 ? raise(busy) : :ok
      end
      stacked = events.select { |e| e[:type] == "retry_layers_stacked" }
      assert_equal expected, stacked.size
      assert_equal expected, io.string.scan("the client retries each request itself").size
      next if expected.zero?

      assert_equal({ type: "retry_layers_stacked", client_retries: 3, attempts: 5, requests: 20, source: "configured" }, stacked.first)
    end
  ensure
    RubyLLM.config.max_retries = saved
  end
end
