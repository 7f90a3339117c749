# frozen_string_literal: true

require_relative "test_helper"

class PolicyTest < Minitest::Test
  def test_presets_by_string_and_symbol
    assert_equal %w[default swarm_sdk swarm_sdk_legacy forgeflare llm_executor], RetryCore::Policy::PRESETS
    RetryCore::Policy::PRESETS.each do |name|
      assert_equal name, RetryCore::Policy.preset(name).name
      assert_equal name, RetryCore::Policy.coerce(name.to_sym).name
    end
    assert_equal 5, RetryCore::Policy.preset(:forgeflare).max_attempts
    assert_equal 4, RetryCore::Policy.preset(:forgeflare).max_retries
    assert_equal 3, RetryCore::Policy.preset(:swarm_sdk).max_retries
  end

  def test_hash_configuration_with_symbols
    p = RetryCore::Policy.coerce(preset: :forgeflare, max_attempts: 3, jitter: :full)
    assert_equal 3, p.max_attempts
    assert_equal "full", p.to_h["jitter"]
    assert_equal p, RetryCore::Policy.from_config(p.to_config)
    assert_equal p, RetryCore::Policy.new(**p.to_h.transform_keys(&:to_sym))
    q = RetryCore::Policy.from_config("backoff" => { "kind" => "fixed", "delay" => 2 }, "max_retries" => 4)
    assert_equal "fixed", q.to_h.dig("backoff", "kind")
  end

  def test_swarm_sdk_numbers
    p = RetryCore::Policy.swarm_sdk(max_retries: 5, delay: 2)
    assert_equal 5, p.max_attempts
    assert_equal({ "kind" => "fixed", "delay" => 2.0 }, p.to_h["backoff"])
    assert_equal 1, RetryCore::Policy.swarm_sdk(max_retries: 0, delay: 1).max_attempts
  end

  def test_invalid_policies
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.preset(:nope) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.new(max_attempts: 0) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.new(bogus: 1) }
    assert_raises(ArgumentError) { RetryCore::Policy.new(backoff: { kind: "fixed", delay: -1 }) }
    assert_raises(ArgumentError) { RetryCore::Policy.swarm_sdk(max_retries: -1) }
    assert_raises(ArgumentError) { RetryCore::Policy.swarm_sdk(delay: -1) }
    assert_raises(TypeError) { RetryCore::Policy.swarm_sdk(max_retries: "3") }
    assert_raises(TypeError) { RetryCore::Policy.coerce(3) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.from_config("not json") }
  end
end
