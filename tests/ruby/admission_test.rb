# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"

# Admission through the Ruby front doors, against the fault lab's enforced rate limits (one
# second's quota, `period_s: 1`, so each burst takes a second or two of real waiting):
# RetryCore.call_llm_with_retry(estimate:) with a Fleet whose admission is static keeps
# concurrent Net::HTTP calls under the limit (no 429 in the lab's log, admission_wait events),
# SwarmSDK agents turn it on from their retry_config, the usage an answer reports settles its
# reservation, and a bad estimate: fails before the first call.
class AdmissionTest < Minitest::Test
  include TestHelpers

  class LabChat < SwarmSDK::Agent::Chat
    include RetryLab::AgentTurn
  end

  KEY = "openai:gpt-4o"
  # 10 calls at once overrun 5 requests a second; tokens (about 120 a call, 40 once the
  # answer's unused output is given back) are limited too.
  LIMITS = { requests: 5, tokens: 1000 }.freeze
  CALLS = 10
  MESSAGES = [{ role: "user", content: "Say hello to the rate limiter, please." }].freeze
  MAX_TOKENS = 100

  def setup
    super
    skip "timing-dependent (real sockets and waits)" if GCStress.on?
    @lab = RetryLab::Server.start
    @lab.script(rate_limits: LIMITS.merge(period_s: 1), reply_tokens: 20)
  end

  def teardown
    @lab&.stop
    reset_globals
    super
  end

  def static_fleet
    RetryCore::Fleet.new(admission: { mode: :static, limits: LIMITS, window_s: 1 })
  end

  # One chat completion over Net::HTTP: the parsed body (its "usage" included), or the error;
  # with +raw+, the Net::HTTPResponse itself (its headers and body).
  def complete(raw: false)
    request = Net::HTTP::Post.new("/v1/chat/completions")
    request["content-type"] = "application/json"
    request["authorization"] = "Bearer sk-test-lab-openai-0000aaaa"
    request.body = JSON.generate(model: "gpt-4o", max_tokens: MAX_TOKENS, messages: MESSAGES)
    http = Net::HTTP.new(@lab.host, @lab.port, nil)
    http.open_timeout = 2
    http.read_timeout = 5
    response = http.request(request)
    raise RetryLab.error_for(response, :openai) unless response.is_a?(Net::HTTPSuccess)

    raw ? response : JSON.parse(response.body)
  end

  # CALLS threads at once; returns their values (or errors) and every event.
  def burst(fleet, **options)
    events = Queue.new
    threads = Array.new(CALLS) do
      Thread.new do
        RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, on_event: ->(e) { events << e }, **options) { complete }
      rescue StandardError => e
        e
      end
    end
    values = bounded(20) { threads.map(&:value) }
    [values, Array.new(events.size) { events.pop }]
  end

  def statuses
    @lab.log.map { |e| e["status"] }
  end

  def test_the_lab_limit_binds_without_admission
    values, events = burst(RetryCore::Fleet.new, max_retries: 1)
    assert_includes statuses, 429
    assert(values.any?(RubyLLM::RateLimitError))
    assert_empty(events.select { |e| e[:type] == "admission_wait" })
  end

  def test_static_admission_keeps_concurrent_calls_under_the_limit
    values, events = burst(static_fleet, estimate: { messages: MESSAGES, max_tokens: MAX_TOKENS })
    assert_equal [200] * CALLS, statuses
    assert(values.all? { |v| v.is_a?(Hash) && v.dig("choices", 0, "message", "content") })
    waits = events.select { |e| e[:type] == "admission_wait" }
    refute_empty waits
    assert(waits.all? { |e| e[:key] == KEY })
    assert(events.any? { |e| e[:type] == "retry_wait_started" && e[:reason] == "admission" })
  end

  def test_swarm_sdk_agents_turn_admission_on_from_their_retry_config
    install_swarm_sdk
    config = { admission: { mode: "static", limits: LIMITS, window_s: 1 }, max_tokens: 256 }
    chats = Array.new(6) do
      c = LabChat.new(definition: { model: "gpt-4o", retry_config: config }, agent_name: :backend)
      c.setup_context(SwarmSDK::Agent::Context.new("swarm-1", nil))
      c.client = RetryLab::Client.new(@lab, provider: :openai)
      c
    end
    replies = bounded(20) { chats.map { |c| Thread.new { c.ask("hi") } }.map(&:value) }
    assert_equal [200] * 6, statuses
    assert(replies.all? { |r| r.content.start_with?("Hello from retry-lab!") })
    waits = @emitter.events.select { |e| e[:type] == "admission_wait" }
    refute_empty waits
    assert(waits.all? { |e| e[:agent] == :backend })
  end

  def test_swarm_sdk_retry_config_admission_is_checked_at_construction
    install_swarm_sdk
    assert_raises(RetryCore::InvalidPolicyError) do
      LabChat.new(definition: { model: "gpt-4o", retry_config: { admission: "sometimes" } })
    end
    assert_raises(TypeError) { LabChat.new(definition: { model: "gpt-4o", retry_config: { max_tokens: "256" } }) }
    assert_raises(ArgumentError) do
      LabChat.new(definition: { model: "gpt-4o", retry_config: { fleet: RetryCore::Fleet.new, admission: "headers" } })
    end
  end

  # --- settling against the usage an answer reports -----------------------------------------

  # Two calls on a fleet of 1000 tokens a second, each estimated at 900: the second waits for
  # the first's slot (0.9 s) unless the first answer's usage gave back what it did not use.
  def admission_waits(answer)
    fleet = RetryCore::Fleet.new(admission: { mode: :static, limits: { tokens: 1000 }, window_s: 1 })
    events = []
    2.times do
      RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, estimate: { max_tokens: 900 }, on_event: events.method(:<<)) { answer }
    end
    events.select { |e| e[:type] == "admission_wait" }
  end

  Usage = Struct.new(:input_tokens, :output_tokens)
  Reply = Struct.new(:usage)
  TokenMessage = Struct.new(:content, :input_tokens, :output_tokens, :cache_creation_tokens)

  def test_the_usage_an_answer_reports_gives_back_what_it_did_not_use
    [{ "usage" => { "prompt_tokens" => 5, "completion_tokens" => 5 } },
     { usage: { input_tokens: 5, output_tokens: 5 } },
     Reply.new(Usage.new(5, 5)),
     TokenMessage.new("hi", 5, 5, nil)].each do |answer|
      assert(admission_waits(answer).all? { |w| w[:seconds] < 0.1 }, answer.inspect)
    end
  end

  def test_ruby_llm_cache_writes_count_as_input
    # RubyLLM's input_tokens leave out Anthropic's cache writes, which count toward its ITPM.
    assert_equal [805.0, 2.0], RetryCore._usage(RetryCore::Retry.usage_of(TokenMessage.new("hi", 5, 2, 800)))
    assert_operator admission_waits(TokenMessage.new("hi", 5, 5, 800)).first[:seconds], :>, 0.5
  end

  # The usage is read where the answer keeps it: String or Symbol keys, reader methods; a
  # returned response's body after the value's own usage; nothing from what cannot be read.
  def test_the_usage_is_read_from_hashes_objects_and_bodies
    read = ->(value) { RetryCore._usage(RetryCore::Retry.settlement(value)[0]) }
    assert_equal [5.0, 7.0], read.call({ "usage" => { "prompt_tokens" => 5, "completion_tokens" => 7 } })
    assert_equal [5.0, 7.0], read.call({ usage: { input_tokens: 5, output_tokens: 7 } })
    assert_equal [5.0, nil], read.call(Reply.new(Usage.new(5, nil)))
    assert_nil read.call({ usage: { input_tokens: Float::NAN, output_tokens: 7 } })
    assert_nil read.call({ usage: { prompt_tokens: "5" } })
    assert_nil read.call("no usage here")
    body = JSON.generate(usage: { prompt_tokens: 3, completion_tokens: 4 })
    response = Struct.new(:headers, :body).new({ "x-ratelimit-limit-requests" => "5" }, body)
    assert_equal [3.0, 4.0], read.call(response)
    raising = Object.new
    def raising.usage = raise("no usage today")
    assert_nil read.call(raising)
  end

  def test_an_answer_without_usage_counts_as_spent
    waits = admission_waits("no usage here")
    assert_equal 1, waits.size
    assert_operator waits[0][:seconds], :>, 0.5
  end

  # A first attempt admitted at once (the success path's slot, no run) that fails: the run
  # built then takes over its slot and settles it as spent, so the retry waits for the tokens
  # that attempt held.
  def test_a_first_attempt_that_fails_on_its_slot_is_settled_by_the_run
    fleet = RetryCore::Fleet.new(admission: { mode: :static, limits: { tokens: 1000 }, window_s: 1 })
    events = []
    calls = 0
    value = RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, estimate: { max_tokens: 900 }, max_retries: 3,
                                          delay: 0.01, on_event: events.method(:<<)) do
      calls += 1
      raise Errno::ECONNRESET if calls == 1

      { usage: { prompt_tokens: 5, completion_tokens: 5 } }
    end
    assert_equal [2, 5], [calls, value[:usage][:prompt_tokens]]
    waits = events.select { |e| e[:type] == "admission_wait" }
    assert_equal 1, waits.size
    assert_operator waits[0][:seconds], :>, 0.5
    assert_equal 1, fleet.metrics[KEY]["total"][:successes]
  end

  # With admission on and nothing to wait for, a success goes without a run: its slot is
  # settled by the fleet, and nothing is emitted.
  def test_an_admitted_success_emits_nothing_and_is_counted
    fleet = RetryCore::Fleet.new(admission: { mode: :static, limits: { requests: 1e9, tokens: 1e12 } })
    events = []
    3.times do
      assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, on_event: events.method(:<<)) { :ok }
    end
    assert_empty events
    assert_equal 3, fleet.metrics[KEY]["total"][:successes]
  end

  # --- a bad estimate fails before the first call -------------------------------------------

  def test_a_bad_estimate_fails_before_the_call
    calls = 0
    { "100" => TypeError, 1.5 => TypeError, true => TypeError, -1 => RetryCore::InvalidArgumentError,
      10**13 => RetryCore::InvalidArgumentError, {} => ArgumentError, { tokens: 3 } => ArgumentError,
      { messages: "hi" } => TypeError, { max_tokens: -1 } => ArgumentError, { max_tokens: "5" } => TypeError,
      { max_tokens: 2**64 } => ArgumentError }.each do |bad, error|
      e = assert_raises(error, bad.inspect) do
        RetryCore.call_llm_with_retry(fleet: static_fleet, key: KEY, estimate: bad) { calls += 1 }
      end
      assert_match(/estimate/, e.message)
    end
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(estimate: 100) { calls += 1 } }
    assert_equal 0, calls
  end

  def test_with_admission_off_an_estimate_changes_nothing
    fleet = RetryCore::Fleet.new
    events = []
    3.times do
      assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, estimate: { messages: MESSAGES, max_tokens: 9 },
                                                      on_event: events.method(:<<)) { :ok }
    end
    assert_empty events
    assert_equal 3, fleet.metrics[KEY]["total"][:successes]
  end

  # --- a response's headers teach the :headers mode ----------------------------------------

  def learned(raw)
    events = []
    value = RetryCore.call_llm_with_retry(fleet: RetryCore::Fleet.new(admission: :headers), key: KEY,
                                          estimate: { messages: MESSAGES, max_tokens: MAX_TOKENS },
                                          on_event: events.method(:<<)) { complete(raw: raw) }
    [value, events.select { |e| e[:type] == "limits_learned" }.to_h { |e| [e[:dimension], e[:limit]] }]
  end

  def test_the_headers_mode_learns_the_lab_limits_from_a_returned_response
    response, limits = learned(true)
    assert_kind_of Net::HTTPSuccess, response
    assert_equal({ "requests" => 5.0, "tokens" => 1000.0 }, limits)
    # A parsed body keeps no headers: nothing to learn from a success.
    _, limits = learned(false)
    assert_empty limits
  end

  def test_a_returned_response_settles_with_the_usage_of_its_body
    fleet = RetryCore::Fleet.new(admission: { mode: :static, limits: { tokens: 1000 }, window_s: 1 })
    events = []
    2.times do
      RetryCore.call_llm_with_retry(fleet: fleet, key: KEY, estimate: { max_tokens: 900 }, on_event: events.method(:<<)) do
        complete(raw: true)
      end
    end
    # The lab's answer used about 40 tokens of the 900 reserved: the second call barely waits.
    assert(events.select { |e| e[:type] == "admission_wait" }.all? { |w| w[:seconds] < 0.2 })
  end
end
