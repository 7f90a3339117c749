# frozen_string_literal: true

require_relative "test_helper"
require "net/http"
require "pathname"
require "tmpdir"
require "timeout"

# RetryCore::Fleet in one process: configuration, a pause shared by Ruby threads, the breaker
# opening and one probe closing it, the budget running dry, metrics, and the SwarmSDK adapter's
# per-agent and global fleets. Waits are real but short (fractions of a second), because the
# fleet's clock is the wall clock: a stubbed sleep would not move it. Under GC.stress (which
# would make every timing meaningless) only FleetStressTest below runs.
class FleetTest < Minitest::Test
  include TestHelpers

  # Fixed short waits, no jitter: `retry-after` still wins (the default preset honours it).
  FAST = { preset: "default", backoff: { kind: "fixed", delay: 0.05 }, jitter: "none" }.freeze

  def setup
    super
    skip "timing-dependent: FleetStressTest covers the fleet's bindings under GC.stress" if GCStress.on?
    RetryCore::SwarmSDK.reset_configuration!
    RetryCore::SwarmSDK.install!
  end

  def teardown
    reset_globals
    super
  end

  # --- configuration ---------------------------------------------------------------------

  def test_configuration_defaults_and_switches
    fleet = RetryCore::Fleet.new
    assert_equal "in_process", fleet.backend
    assert_equal 500.0, fleet.config.dig("budget", "capacity")
    assert_equal 5, fleet.config.dig("breaker", "consecutive_failures")
    assert_equal 500.0, fleet.tokens("openai:gpt-4o")
    assert_equal 500.0, fleet.tokens(:"openai:gpt-4o")
    off = RetryCore::Fleet.new(budget: false, breaker: nil, shared_pause: false)
    assert_nil off.config["budget"]
    assert_nil off.config["breaker"]
    assert_nil off.tokens("k")
    custom = RetryCore::Fleet.new(budget: { capacity: 20, retry_cost: 2 }, breaker: { open_s: 1 }, namespace: :swarm)
    assert_equal [20.0, 2.0, 1.0, "swarm"],
                 [custom.config.dig("budget", "capacity"), custom.config.dig("budget", "retry_cost"),
                  custom.config.dig("breaker", "open_s"), custom.config["namespace"]]
    assert_equal({}, fleet.metrics)
    assert_equal "#<RetryCore::Fleet backend=in_process>", fleet.inspect
  end

  def test_bad_configuration
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(bogus: 1) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(budget: { capacity: -1 }) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(breaker: { failure_rate: 2 }) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(max_pause_s: Float::NAN) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(budget: "lots") }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(redis_url: "not a url") }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.from_config("{") }
    assert_raises(TypeError) { RetryCore::Fleet.from_config(42) }
    assert_raises(TypeError) { RetryCore::Fleet.shared("x") }
    assert_raises(TypeError) { RetryCore::Fleet.new.tokens(nil) }
    assert_raises(ArgumentError) { RetryCore::Fleet.new.tokens("") }
    assert_raises(NoMethodError, TypeError) { RetryCore::Fleet.allocate.metrics }
  end

  def test_from_yaml_and_json_files
    Dir.mktmpdir do |dir|
      yaml = File.join(dir, "fleet.yml")
      File.write(yaml, <<~YAML)
        # the fleet section of a swarm's configuration
        fleet:
          budget:
            capacity: 50
          breaker:
            consecutive_failures: 3
            open_s: 2.5
          max_pause_s: 60
      YAML
      fleet = RetryCore::Fleet.from_file(yaml)
      assert_equal [50.0, 3, 2.5, 60.0], [fleet.config.dig("budget", "capacity"), fleet.config.dig("breaker", "consecutive_failures"),
                                          fleet.config.dig("breaker", "open_s"), fleet.config["max_pause_s"]]
      json = File.join(dir, "fleet.json")
      File.write(json, JSON.generate(budget: nil, shared_pause: false))
      fleet = RetryCore::Fleet.from_file(Pathname(json))
      assert_nil fleet.config["budget"]
      refute fleet.config["shared_pause"]

      File.write(yaml, "budget: [unclosed")
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.from_file(yaml) }
      File.write(yaml, "- a list\n- not a fleet\n")
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.from_file(yaml) }
      File.write(yaml, "budget: !ruby/object:Object {}\n")
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.from_file(yaml) }
      assert_raises(Errno::ENOENT) { RetryCore::Fleet.from_file(File.join(dir, "missing.yml")) }
      assert_raises(TypeError) { RetryCore::Fleet.from_file(42) }
    end
  end

  def test_shared_fleets_by_configuration
    a = RetryCore::Fleet.shared(budget: { capacity: 7 })
    assert_same a, RetryCore::Fleet.shared("budget" => { "capacity" => 7 })
    refute_same a, RetryCore::Fleet.shared(budget: { capacity: 8 })
  end

  def test_call_arguments
    fleet = RetryCore::Fleet.new
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(fleet: fleet) { 1 } }
    assert_raises(TypeError) { RetryCore.call_llm_with_retry(fleet: {}, key: "k") { 1 } }
    assert_raises(TypeError) { RetryCore.call_llm_with_retry(key: "k") { 1 } }
    assert_raises(TypeError) { RetryCore.call_llm_with_retry(fleet: fleet, key: 42) { 1 } }
    assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(fleet: fleet, key: "") { 1 } }
    assert_raises(ArgumentError) { RetryCore::Run.new(fleet: fleet) }
    assert_raises(TypeError) { RetryCore::Run.new(fleet: :fleet, keys: "k") }
    assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: :k) { :ok }
  end

  # --- behaviour -------------------------------------------------------------------------

  def rate_limited(ms)
    RubyLLM.error_for(429, "Rate limit reached", headers: { "retry-after-ms" => ms.to_s })
  end

  # A 429 with retry-after seen by one thread pauses the others: they wait instead of calling.
  def test_a_pause_is_shared_by_threads
    fleet = RetryCore::Fleet.new(breaker: nil)
    sleeps = record_sleeps(RetryCore, real: true)
    failed = Queue.new
    calls = Hash.new(0)
    events = Hash.new { |h, k| h[k] = [] }
    bounded do
      a = Thread.new do
        Thread.current[:name] = :a
        RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "anthropic:sonnet",
                                      on_event: ->(e) { events[:a] << e; failed << true if e[:type] == "rate_limit_pause" }) do
          calls[:a] += 1
          raise rate_limited(400) if calls[:a] == 1

          :a_done
        end
      end
      failed.pop
      b = Thread.new do
        Thread.current[:name] = :b
        RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "anthropic:sonnet", on_event: events[:b].method(:<<)) do
          calls[:b] += 1
          :b_done
        end
      end
      other = RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "openai:gpt-4o") { :not_paused }
      assert_equal :not_paused, other
      assert_equal %i[a_done b_done], [a.value, b.value]
    end
    assert_equal({ a: 2, b: 1 }, calls)
    assert_equal %w[rate_limit_pause llm_retry_attempt retry_wait_started retry_wait_finished], events[:a].map { |e| e[:type] }
    pause = events[:a].first
    assert_equal ["anthropic:sonnet", 0.4, "rate_limited"], pause.values_at(:key, :seconds, :category)
    assert_equal 0.4, events[:a][1][:retry_delay]
    assert_equal [0.4, "retry_after"], events[:a][2].values_at(:seconds, :reason)
    b_waits = sleeps.select { |who, _| who == :b }.map(&:last)
    refute_empty b_waits, "the second thread waited for the pause"
    assert_operator b_waits.sum, :>, 0.2
    assert_operator b_waits.sum, :<=, 0.41
    # The fleet's pause is a wait of the run: announced and closed (issue 13).
    assert_equal %w[retry_wait_started retry_wait_finished], events[:b].map { |e| e[:type] }.uniq
    assert_equal "fleet_pause", events[:b].first[:reason]
    assert_empty sleeps.select { |who, _| who.nil? }, "the other key was not paused"
  end

  # Three consecutive transient failures open the circuit; callers wait; after open_s one
  # probe goes through, and its success closes the circuit for everyone.
  def test_the_breaker_opens_and_a_probe_closes_it
    fleet = RetryCore::Fleet.new(budget: nil, breaker: { consecutive_failures: 3, open_s: 0.3 })
    sleeps = record_sleeps(RetryCore, real: true)
    events = Hash.new { |h, k| h[k] = [] }
    opened = Queue.new
    calls = 0
    bounded do
      a = Thread.new do
        Thread.current[:name] = :a
        RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "k",
                                      on_event: ->(e) { events[:a] << e; opened << true if e[:type] == "circuit_opened" }) do
          calls += 1
          raise RubyLLM.error_for(503, "Service Unavailable") if calls <= 3

          :recovered
        end
      end
      opened.pop
      b = Thread.new do
        Thread.current[:name] = :b
        RetryCore.call_llm_with_retry(policy: FAST, fleet: fleet, key: "k", on_event: events[:b].method(:<<)) { :b_done }
      end
      assert_equal %i[recovered b_done], [a.value, b.value]
    end
    assert_equal 4, calls
    # The run's wait events aside (issue 13), the fleet's and SwarmSDK's events as before.
    events.each_value { |list| list.reject! { |e| RetryCore::SwarmSDK::RUN_ONLY_EVENTS.include?(e[:type]) } }
    types = events[:a].map { |e| e[:type] }
    # Whichever thread asks first after open_s is the probe: its success closes the circuit.
    assert_equal %w[llm_retry_attempt llm_retry_attempt circuit_opened llm_retry_attempt], types.first(4)
    closed = (events[:a] + events[:b]).select { |e| e[:type] == "circuit_closed" }
    assert_equal [{ type: "circuit_closed", key: "k" }], closed
    assert_empty (events[:a] + events[:b]).map { |e| e[:type] } - %w[llm_retry_attempt circuit_opened circuit_closed]
    opened_event = events[:a][2]
    assert_equal ["k", "consecutive_failures", 3, 0.3], opened_event.values_at(:key, :reason, :failures, :open_s)
    a_gate = sleeps.select { |who, _| who == :a }.map(&:last).drop(3)
    assert_operator a_gate.sum, :>, 0.15, "the retry waited for the circuit to half-open"
    b_waits = sleeps.select { |who, _| who == :b }.map(&:last)
    assert_operator b_waits.sum, :>, 0.15, "a caller arriving while the circuit is open waits"
    totals = fleet.metrics.fetch("k").fetch("total")
    assert_equal [5, 2, 3, 3], totals.values_at(:calls, :successes, :failures, :retries)
  end

  def test_permanent_errors_never_open_the_circuit
    fleet = RetryCore::Fleet.new(breaker: { consecutive_failures: 2 })
    events = []
    5.times do
      assert_raises(RubyLLM::UnauthorizedError) do
        RetryCore.call_llm_with_retry(fleet: fleet, key: "k", on_event: events.method(:<<)) { raise RubyLLM.error_for(401, "bad key") }
      end
    end
    assert_equal ["llm_request_failed"] * 5, events.map { |e| e[:type] }
    assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: "k") { :ok }
  end

  # The budget is shared by every call of a key: when it runs dry, calls stop retrying.
  def test_the_budget_runs_dry_and_successes_earn_it_back
    fleet = RetryCore::Fleet.new(budget: { capacity: 10, retry_cost: 5, timeout_cost: 10 }, breaker: nil)
    sleeps = record_sleeps(RetryCore)
    events = []
    calls = 0
    error = RubyLLM.error_for(500, "Internal server error")
    raised = assert_raises(RubyLLM::ServerError) do
      RetryCore.call_llm_with_retry(max_retries: 10, delay: 0, fleet: fleet, key: "k", on_event: contract_events(events)) do
        calls += 1
        raise error
      end
    end
    assert_same error, raised
    assert_equal 3, calls, "two retries of 5 tokens, then the bucket is empty"
    assert_equal %w[llm_retry_attempt llm_retry_attempt retry_budget_exhausted llm_retry_exhausted], events.map { |e| e[:type] }
    assert_equal({ type: "retry_budget_exhausted", key: "k", tokens: 0.0, cost: 5.0, category: "server_error" }, events[2])
    assert_equal "budget_exhausted", events.last[:reason]
    assert_equal [0.0, 0.0], sleeps, "a backoff of 0 s still sleeps(0), as SwarmSDK's loop does"
    assert_equal 0.0, fleet.tokens("k")

    # Another caller of the key cannot retry either; a timeout costs more than what is left.
    events.clear
    calls = 0
    assert_raises(Net::ReadTimeout) do
      RetryCore.call_llm_with_retry(max_retries: 10, delay: 0, fleet: fleet, key: "k", on_event: events.method(:<<)) do
        calls += 1
        raise Net::ReadTimeout
      end
    end
    assert_equal 1, calls
    assert_equal({ type: "retry_budget_exhausted", key: "k", tokens: 0.0, cost: 10.0, category: "timeout" }, events.first)
    # Other keys keep their own budget; successes earn tokens back (1 each).
    assert_equal 10.0, fleet.tokens("other")
    3.times { RetryCore.call_llm_with_retry(fleet: fleet, key: "k") { :ok } }
    assert_equal 3.0, fleet.tokens("k")

    m = fleet.metrics.fetch("k")
    assert_equal({ calls: 7, successes: 3, failures: 4, retries: 2, waited_s: 0.0, gave_up: 2, wasted_calls: 4, wasted_s: 0.0 },
                 m["total"])
    assert_equal [3, 3, 3], m["server_error"].values_at(:calls, :failures, :wasted_calls)
    assert_equal [1, 1], m["timeout"].values_at(:calls, :gave_up)
    assert_equal 3, m["success"][:successes]
    fleet.reset_metrics
    assert_equal({}, fleet.metrics)
  end

  # Many threads on one fleet: nothing lost, nothing double-counted.
  def test_many_threads_share_one_fleet
    fleet = RetryCore::Fleet.new(breaker: nil)
    record_sleeps(RetryCore)
    threads = 8
    per_thread = 40
    bounded(30) do
      Array.new(threads) do |t|
        Thread.new do
          per_thread.times do |i|
            failed = false
            RetryCore.call_llm_with_retry(delay: 0, fleet: fleet, key: "k#{t % 2}") do
              if i.even? && !failed
                failed = true
                raise RubyLLM.error_for(503, "Service Unavailable")
              end
              :ok
            end
          end
        end
      end.each(&:join)
    end
    m = fleet.metrics
    total = m.values.sum { |cats| cats["total"][:calls] }
    successes = m.values.sum { |cats| cats["total"][:successes] }
    failures = m.values.sum { |cats| cats["total"][:failures] }
    assert_equal threads * per_thread, successes
    assert_equal threads * ((per_thread + 1) / 2), failures
    assert_equal successes + failures, total
    %w[k0 k1].each { |k| assert_equal 500.0, fleet.tokens(k), "each retry's 5 tokens earned back by its success" }
  end

  def test_a_run_with_a_fleet_by_hand
    fleet = RetryCore::Fleet.new(breaker: nil)
    r = RetryCore::Run.new(:default, config: { seed: 1 }, fleet: fleet, keys: "k")
    assert_equal [:call, 0], r.start
    assert_equal [], r.take_events
    assert_equal [:wait, 5.0, :retry_after], r.failed(rate_limited(5000), 0.0)
    d = r.decision
    assert_equal 5.0, d.delay
    assert_equal %w[rate_limit_pause llm_retry_attempt], d.events.map { |e| e[:type] }
    other = RetryCore::Run.new(:default, fleet: fleet, keys: "k")
    step = other.start
    assert_equal :wait, step[0]
    assert_in_delta 5.0, step[1], 0.5
    assert_equal :fleet_pause, step[2]
    assert_equal [:return], RetryCore::Run.new.succeeded(0.0)
    assert_equal [], RetryCore::Run.new.tap { |run| run.succeeded(0.0) }.take_events
  end

  # --- SwarmSDK ----------------------------------------------------------------------------

  def new_chat(definition = {})
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "claude-sonnet-4" }.merge(definition), agent_name: :backend)
    chat.setup_context(SwarmSDK::Agent::Context.new("swarm-1", nil))
    chat
  end

  def test_swarm_sdk_agents_share_a_fleet_from_their_retry_config
    emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = emitter
    config = { budget: { capacity: 5, retry_cost: 5 }, breaker: nil }
    a = new_chat(retry_config: { max_retries: 3, retry_delay: 0, fleet: config, key: "anthropic:claude-sonnet-4" })
    b = new_chat(retry_config: { "max_retries" => 3, "retry_delay" => 0, "fleet" => config, "key" => "anthropic:claude-sonnet-4" })
    record_sleeps(a)
    record_sleeps(b)
    calls = 0
    assert_equal "done", a.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(RubyLLM.error_for(503, "busy")) : "done" }
    assert_equal 2, calls
    # The same configuration is the same fleet: b finds the bucket a emptied (5 - 5 + 5 earned
    # back by a's successful retry = 5 - 5 again after b's first failure).
    calls = 0
    assert_raises(RubyLLM::ServiceUnavailableError) { b.send(:call_llm_with_retry) { calls += 1; raise RubyLLM.error_for(503, "busy") } }
    assert_equal 2, calls
    types = emitter.events.map { |e| e[:type] }
    assert_equal %w[llm_retry_attempt llm_retry_attempt retry_budget_exhausted llm_retry_exhausted], types
    exhausted = emitter.events[2]
    assert_equal [:backend, "swarm-1", "claude-sonnet-4", "anthropic:claude-sonnet-4"], exhausted.values_at(:agent, :swarm_id, :model, :key)
    assert_kind_of Array, emitter.events.last[:error_backtrace]
    fleet = RetryCore::Fleet.shared(config)
    assert_equal 2, fleet.metrics.dig("anthropic:claude-sonnet-4", "total", :retries)
  end

  def test_swarm_sdk_global_fleet_permanent_errors_and_orphans
    fleet = RetryCore::Fleet.new(breaker: { consecutive_failures: 1, open_s: 0.2 })
    RetryCore::SwarmSDK.configure do |c|
      c.fleet = fleet
      c.default_retry_delay = 0
    end
    emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = emitter
    chat = new_chat
    record_sleeps(chat, real: true)
    # A permanent error comes back as the assistant's message, as without a fleet.
    reply = chat.send(:call_llm_with_retry) { raise RubyLLM.error_for(401, "Invalid API key") }
    assert_equal :assistant, reply.role
    assert_includes reply.content, "Please check your API credentials."
    # Orphan recovery still prunes once, for free.
    chat.add_message(RubyLLM::Message.new(role: :user, content: "go"))
    chat.add_message(RubyLLM::Message.new(role: :assistant, content: "",
                                          tool_calls: { "t1" => RubyLLM::ToolCall.new(id: "t1", name: "Read", arguments: {}) }))
    calls = 0
    tool_error = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1"
    bounded do
      assert_equal "ok", chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(RubyLLM.error_for(400, tool_error)) : "ok" }
    end
    assert_equal [%i[user], 2], [chat.llm_chat.messages.map(&:role), calls]
    # The key is the agent's model; one transient failure opens its circuit, and the retry
    # waits for the probe, which closes it.
    emitter.events.clear
    calls = 0
    bounded do
      assert_equal "ok", chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(Errno::ECONNRESET) : "ok" }
    end
    assert_equal %w[circuit_opened llm_retry_attempt circuit_closed], emitter.events.map { |e| e[:type] }
    assert_equal ["claude-sonnet-4"] * 2, [emitter.events.first[:key], emitter.events.last[:key]]
    refute emitter.events.first.key?(:error_backtrace)

    # fleet: false opts one agent out of the global fleet.
    solo = new_chat(retry_config: { fleet: false, retry_delay: 0 })
    record_sleeps(solo)
    before = fleet.metrics.dig("claude-sonnet-4", "total", :calls)
    assert_equal "ok", solo.send(:call_llm_with_retry) { "ok" }
    assert_equal before, fleet.metrics.dig("claude-sonnet-4", "total", :calls)
    RetryCore::SwarmSDK.configuration.fleet_key = "anthropic:default"
    assert_equal "ok", chat.send(:call_llm_with_retry) { "ok" }
    assert_equal 1, fleet.metrics.dig("anthropic:default", "total", :calls)
    assert_raises(TypeError) { new_chat(retry_config: { fleet: "nope" }).send(:call_llm_with_retry) { 1 } }
  end
end

# Every entry point of the fleet's binding under GC.stress (rake test:stress): a fleet's
# configuration, metrics and tokens, a retrier with a fleet (gate, failure, success, events),
# and both retry loops with a fleet. No timing is asserted; nothing waits.
class FleetStressTest < Minitest::Test
  include TestHelpers
  include GCStress

  def teardown
    reset_globals
    super
  end

  def test_fleet_bindings
    fleet = RetryCore::Fleet.new(budget: { capacity: 10 }, breaker: { consecutive_failures: 2, open_s: 0 }, namespace: "stress")
    assert_equal 10.0, fleet.config.dig("budget", "capacity")
    assert_equal 10.0, fleet.tokens("k")
    r = RetryCore::Run.new(:forgeflare, config: { seed: 3 }, fleet: fleet, keys: "k")
    assert_equal [:call, 0], r.start
    r.failed(RubyLLM.error_for(429, "slow down", headers: { "retry-after" => "0" }), 0.0)
    assert_equal :retry, r.decision.action
    assert_equal :wait, r.failed(RubyLLM.error_for(503, "busy"), 0.0)[0]
    assert_equal %w[circuit_opened llm_retry_attempt], r.decision.events.map { |e| e[:type] }
    r.take_events
    # The circuit opened for 0 s: the next call is its half-open probe, and its success closes it.
    assert_equal [:call, 0], r.resume(0.1)
    assert_equal [:return], r.succeeded(0.2)
    assert_includes r.take_events, { type: "circuit_closed", key: "k" }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(budget: { capacity: -1 }) }
    m = fleet.metrics
    assert_equal [3, 1], m.dig("k", "total").values_at(:calls, :successes)
  end

  def test_retry_loops_with_a_fleet
    fleet = RetryCore::Fleet.new(breaker: nil)
    record_sleeps(RetryCore)
    events = []
    calls = 0
    value = RetryCore.call_llm_with_retry(delay: 0, fleet: fleet, key: "k", on_event: contract_events(events)) do
      (calls += 1) < 3 ? raise(Errno::ECONNRESET) : :ok
    end
    assert_equal [:ok, 3], [value, calls]
    assert_equal %w[llm_retry_attempt llm_retry_attempt], events.map { |e| e[:type] }

    RetryCore::SwarmSDK.install!
    emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = emitter
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m", retry_config: { fleet: fleet, key: "k", retry_delay: 0 } })
    record_sleeps(chat)
    reply = chat.send(:call_llm_with_retry) { raise RubyLLM.error_for(401, "bad key sk-proj-abcdefghijklmnop") }
    assert_includes reply.content, "[REDACTED]"
    assert_equal ["llm_request_failed"], emitter.events.map { |e| e[:type] }
    assert_equal 4, fleet.metrics.dig("k", "total", :calls)
  end
end
