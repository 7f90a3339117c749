# frozen_string_literal: true

require_relative "test_helper"
require "socket"
require "timeout"

# Two RetryCore::Fleet objects on one Redis (as two processes would have) share a pause and a
# budget; killing redis-server mid-test makes calls fall back to local state, with one
# fleet_backend_degraded event and no exception, and a restarted server is used again.
# Needs redis-server (scripts/setup.sh installs it); each test starts its own on a free port.
class FleetRedisTest < Minitest::Test
  include TestHelpers

  # A redis-server of this test's own: loopback, a free port, no persistence.
  class RedisServer
    attr_reader :port, :pid

    def self.available?
      ENV["PATH"].split(File::PATH_SEPARATOR).any? { |d| File.executable?(File.join(d, "redis-server")) }
    end

    def initialize(port = nil)
      @port = port || free_port
      @pid = Process.spawn("redis-server", "--port", @port.to_s, "--bind", "127.0.0.1", "--save", "",
                           "--appendonly", "no", out: File::NULL, err: File::NULL)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
      loop do
        TCPSocket.new("127.0.0.1", @port).close
        break
      rescue SystemCallError
        raise "redis-server did not start on port #{@port}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.02
      end
    end

    def url
      "redis://127.0.0.1:#{@port}/0"
    end

    def stop
      return unless @pid

      Process.kill("KILL", @pid)
      Timeout.timeout(5) { Process.wait(@pid) }
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      @pid = nil
    end

    private

    def free_port
      server = TCPServer.new("127.0.0.1", 0)
      server.addr[1]
    ensure
      server&.close
    end
  end

  FAST = { preset: "default", backoff: { kind: "fixed", delay: 0.05 }, jitter: "none" }.freeze

  def setup
    super
    skip "timing-dependent (a real Redis and real waits)" if GCStress.on?
    # make test installs it (scripts/setup.sh): without it this is a failure, not a skip.
    flunk "redis-server is not installed: apt-get install -y redis-server (scripts/setup.sh)" unless RedisServer.available?
    @redis = RedisServer.new
    @namespace = "retry-core-test-#{Process.pid}-#{name}"
  end

  def teardown
    @redis&.stop
    unstub_sleeps
    super
  end

  def fleet(**config)
    RetryCore::Fleet.new(redis_url: @redis.url, namespace: @namespace, **config)
  end

  def test_two_fleets_share_a_pause
    a = fleet(breaker: nil)
    b = fleet(breaker: nil)
    assert_equal %w[redis redis], [a.backend, b.backend]
    sleeps = record_sleeps(RetryCore, real: true)
    events = []
    calls = 0
    Timeout.timeout(10) do
      RetryCore.call_llm_with_retry(policy: FAST, fleet: a, key: "anthropic:sonnet", on_event: contract_events(events)) do
        calls += 1
        raise RubyLLM.error_for(429, "slow down", headers: { "retry-after-ms" => "500" }) if calls == 1

        :ok
      end
    end
    assert_equal %w[rate_limit_pause llm_retry_attempt], events.map { |e| e[:type] }
    # b never failed, yet it waits for the pause a stored in Redis: a fresh pause first.
    r = RetryCore::Run.new(FAST, fleet: a, keys: "anthropic:sonnet")
    r.failed(RubyLLM.error_for(429, "slow down", headers: { "retry-after-ms" => "400" }), 0.0)
    sleeps.clear
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    Timeout.timeout(10) { assert_equal :b_ok, RetryCore.call_llm_with_retry(policy: FAST, fleet: b, key: "anthropic:sonnet") { :b_ok } }
    waited = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    assert_operator sleeps.sum(&:last), :>, 0.25
    assert_operator waited, :>, 0.25
    assert_equal :c_ok, RetryCore.call_llm_with_retry(policy: FAST, fleet: b, key: "openai:gpt-4o") { :c_ok }
  end

  def test_two_fleets_share_a_budget
    a = fleet(budget: { capacity: 10, retry_cost: 5 }, breaker: nil)
    b = fleet(budget: { capacity: 10, retry_cost: 5 }, breaker: nil)
    record_sleeps(RetryCore)
    error = RubyLLM.error_for(500, "Internal server error")
    events = []
    # a spends 5, b spends 5: the shared bucket is empty and a's next retry is refused.
    [a, b].each do |f|
      r = RetryCore::Run.new(FAST, fleet: f, keys: "k")
      r.failed(error, 0.0)
      assert_equal :retry, r.decision.action
    end
    assert_equal 0.0, a.tokens("k")
    assert_equal 0.0, b.tokens("k")
    calls = 0
    assert_raises(RubyLLM::ServerError) do
      RetryCore.call_llm_with_retry(policy: FAST, fleet: a, key: "k", on_event: contract_events(events)) do
        calls += 1
        raise error
      end
    end
    assert_equal 1, calls
    assert_equal %w[retry_budget_exhausted llm_retry_exhausted], events.map { |e| e[:type] }
    # Successes through b earn tokens back for a.
    2.times { RetryCore.call_llm_with_retry(fleet: b, key: "k") { :ok } }
    assert_equal 2.0, a.tokens("k")
  end

  def test_killing_redis_falls_back_to_local_state_and_comes_back
    f = fleet(breaker: nil)
    record_sleeps(RetryCore)
    assert_equal :ok, RetryCore.call_llm_with_retry(fleet: f, key: "k") { :ok }
    port = @redis.port
    @redis.stop
    events = []
    calls = 0
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    value = Timeout.timeout(10) do
      RetryCore.call_llm_with_retry(policy: FAST, fleet: f, key: "k", on_event: events.method(:<<)) do
        calls += 1
        raise Errno::ECONNRESET if calls == 1

        :still_ok
      end
    end
    assert_equal [:still_ok, 2], [value, calls]
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 3, "a dead Redis costs no long waits"
    degraded = events.select { |e| e[:type] == "fleet_backend_degraded" }
    assert_equal 1, degraded.size, events.inspect
    assert_equal %w[redis in_process], degraded.first.values_at(:backend, :fallback)
    assert_includes events.map { |e| e[:type] }, "llm_retry_attempt"
    # Local state keeps working while Redis is away: the budget is the local one.
    assert_equal :again, RetryCore.call_llm_with_retry(fleet: f, key: "k") { :again }
    assert_kind_of Float, f.tokens("k")

    # Redis back on the same port: after the backend's 2 s back-off, the fleet uses it again.
    @redis = RedisServer.new(port)
    sleep 2.1
    events.clear
    assert_equal :back, RetryCore.call_llm_with_retry(fleet: f, key: "k", on_event: events.method(:<<)) { :back }
    assert_equal [{ type: "fleet_backend_recovered", backend: "redis" }], events
  end
end
