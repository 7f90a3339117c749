# frozen_string_literal: true

require_relative "test_helper"

# Observability against Debian's ActiveSupport (ruby-activesupport): subscribers of
# ActiveSupport::Notifications receive our events under the core's names; fleet metrics as
# Prometheus text. Sleeps are stubbed on RetryCore (no fleet pause is involved).
class ObservabilityTest < Minitest::Test
  include TestHelpers

  def setup
    super
    require "active_support"
    require "active_support/notifications"
    @subscriptions = []
  end

  def teardown
    @subscriptions.each { |s| ActiveSupport::Notifications.unsubscribe(s) }
    unstub_sleeps
    super
  end

  def subscribe(pattern)
    seen = []
    @subscriptions << ActiveSupport::Notifications.subscribe(pattern) do |name, _start, _finish, _id, payload|
      seen << [name, payload]
    end
    seen
  end

  def flaky(failures, status: 503)
    calls = 0
    lambda do
      calls += 1
      raise RubyLLM.error_for(status, status == 503 ? "Service Unavailable" : "invalid x-api-key") if calls <= failures

      [:ok, calls]
    end
  end

  def test_subscribers_receive_retries_and_waits_by_their_names
    record_sleeps(RetryCore)
    seen = subscribe(/\.retry_core\z/)
    call = flaky(2)
    assert_equal [:ok, 3], RetryCore.call_llm_with_retry(policy: :default) { call.call }
    names = seen.map(&:first)
    assert_equal %w[retry.retry_core wait.retry_core wait_finished.retry_core] * 2,
                 names.reject { |n| n == "layers_stacked.retry_core" }
    retries = seen.select { |n, _| n == "retry.retry_core" }.map(&:last)
    assert_equal [1, 2], retries.map { |p| p[:attempt] }
    category = RetryCore.classify(RubyLLM.error_for(503, "Service Unavailable")).category.to_s
    retries.each do |p|
      assert_equal "llm_retry_attempt", p[:type]
      assert_equal category, p[:category].to_s
      assert_equal 503, p[:status_code]
    end
  end

  def test_a_give_up_is_one_notification
    give_ups = subscribe("give_up.retry_core")
    call = flaky(9, status: 401)
    assert_raises(StandardError) { RetryCore.call_llm_with_retry(policy: :default) { call.call } }
    assert_equal 1, give_ups.size
    assert_equal "llm_request_failed", give_ups[0][1][:type]
    assert_equal false, give_ups[0][1][:retryable]
  end

  def test_the_fleets_circuit_is_a_notification
    record_sleeps(RetryCore)
    circuit = subscribe("circuit.retry_core")
    fleet = RetryCore::Fleet.new(breaker: { consecutive_failures: 2 }, budget: false)
    call = flaky(9)
    assert_raises(StandardError) do
      RetryCore.call_llm_with_retry(max_retries: 2, fleet: fleet, key: "openai:gpt-4o") { call.call }
    end
    assert_equal "circuit_opened", circuit.dig(0, 1, :type)
    assert_equal "openai:gpt-4o", circuit.dig(0, 1, :key)
  end

  def test_a_subscriber_that_raises_never_replaces_the_users_error_or_result
    record_sleeps(RetryCore)
    @subscriptions << ActiveSupport::Notifications.subscribe("retry.retry_core") { raise "subscriber bug" }
    call = flaky(1)
    assert_equal [:ok, 2], RetryCore.call_llm_with_retry(policy: :default) { call.call }
  end

  def test_the_payload_is_a_copy_and_names_come_from_the_core
    record_sleeps(RetryCore)
    seen = []
    @subscriptions << ActiveSupport::Notifications.subscribe("retry.retry_core") do |*, payload|
      payload[:category] = "changed"
      seen << payload
    end
    events = []
    call = flaky(1)
    RetryCore.call_llm_with_retry(policy: :default, on_event: events.method(:<<)) { call.call }
    refute_equal "changed", events.find { |e| e[:type] == "llm_retry_attempt" }[:category]
    assert_equal 1, seen.size
    RetryCore::Notifications::NAMES.each_value { |name| assert_match(/\A[a-z_]+\.retry_core\z/, name) }
    assert_includes RetryCore::Notifications::ALL, "circuit.retry_core"
    assert_nil RetryCore::Notifications.name_of({ type: "no_such_event" })
  end

  def test_nobody_listening_means_nothing_is_instrumented
    refute RetryCore::Notifications.instrument({ type: "llm_retry_attempt" })
    seen = subscribe("retry.retry_core")
    assert RetryCore::Notifications.instrument({ type: "llm_retry_attempt" })
    assert_equal 1, seen.size
  end

  def test_fleet_metrics_as_prometheus_text
    record_sleeps(RetryCore)
    fleet = RetryCore::Fleet.new(budget: false, breaker: false)
    key = "team \"a\"\\openai:gpt-4o\nline"
    call = flaky(2)
    RetryCore.call_llm_with_retry(policy: :default, fleet: fleet, key: key) { call.call }
    text = fleet.prometheus_text
    category = RetryCore.classify(RubyLLM.error_for(503, "x")).category.to_s
    escaped = 'team \\"a\\"\\\\openai:gpt-4o\\nline'
    assert_includes text, "# TYPE retry_core_retries_total counter\n"
    assert_includes text, %(retry_core_retries_total{key="#{escaped}",category="#{category}"} 2\n)
    assert_includes text, %(retry_core_successes_total{key="#{escaped}",category="success"} 1\n)
    assert_includes text, "retry_core_metrics_keys_omitted 0\n"
    assert_raises(ArgumentError) { fleet.prometheus_text(max_keys: -1) }
    assert_includes fleet.prometheus_text(max_keys: 0), "retry_core_metrics_keys_omitted 1\n"
  end
end
