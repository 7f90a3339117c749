# frozen_string_literal: true

module RetryCore
  # The sans-IO state machine of one logical call: feed it each failure, it says what to do
  # (+:retry+ after +delay+ seconds, +:recover_orphans+, +:recover_context+, +:give_up+ or
  # +:reraise+), with the events to emit. It never sleeps; {RetryCore.call_llm_with_retry} is
  # the loop that does.
  class Retrier
    # @param policy [Policy, String, Symbol, Hash, nil] default: the +default+ preset
    # @param seed [Integer, nil] fixes the jitter (tests, shared vectors)
    # @param context_hook [Boolean] the caller can compact its history on +:recover_context+
    # @param swarm_names [Boolean] name +llm_request_failed+'s +error_type+ as SwarmSDK does
    # @param fleet [Fleet, nil] share budget, breaker and pauses with every call of +key+
    # @param key [String, nil] the fleet key (provider and model); required with a fleet
    def self.new(policy = nil, seed: nil, context_hook: false, swarm_names: false, fleet: nil, key: nil)
      policy = policy.nil? ? Policy.preset("default") : Policy.coerce(policy)
      raise TypeError, "seed must be an Integer, not #{seed.class}" unless seed.nil? || seed.is_a?(Integer)
      raise InvalidArgumentError, "seed must be between 0 and 2**64 - 1, got #{seed}" if seed && !(0...2**64).cover?(seed)
      raise TypeError, "fleet: takes a RetryCore::Fleet, not #{fleet.class}" unless fleet.nil? || fleet.is_a?(Fleet)
      raise ArgumentError, "fleet: needs key: (the provider and model called)" if fleet && key.nil?
      raise ArgumentError, "key: without fleet: means nothing" if key && fleet.nil?

      _new(policy, seed, context_hook ? true : false, swarm_names ? true : false, fleet, key && Fleet.key!(key))
    end

    # Before each call, the first included (with a fleet; without one the answer is always
    # "go"): +wait+ seconds to sleep before asking again (a shared pause, an open circuit) or
    # nil, +reject+ (stop and re-raise the last error: the wait would overrun the deadline),
    # +probe+ (this call is the circuit's half-open probe) and the fleet's events.
    #
    # @param elapsed [Float] seconds since the first call began
    # @return [Hash] +{wait:, reject:, probe:, events:}+
    def before_attempt(elapsed: 0.0)
      wait, reject, probe, events = _before_attempt(seconds(elapsed))
      { wait: wait, reject: reject, probe: probe, events: events }
    end

    # After a call succeeded: refills the fleet's budget and closes a half-open circuit.
    # @return [Array<Hash>] the fleet's events (+circuit_closed+, ...)
    def on_success
      _on_success
    end

    # @param failure [Failure, Exception]
    # @param elapsed [Float] seconds since the first call began (for the policy's deadline)
    # @return [Decision]
    def on_failure(failure, elapsed: 0.0)
      _on_failure(Failure.coerce(failure), seconds(elapsed))
    end

    # After +:recover_orphans+: how many calls (and dangling results) were pruned.
    # @return [Decision]
    def on_orphans_pruned(pruned, failure, elapsed: 0.0)
      raise TypeError, "pruned must be an Integer, not #{pruned.class}" unless pruned.is_a?(Integer)
      raise InvalidArgumentError, "pruned must be >= 0, got #{pruned}" if pruned.negative?

      _on_orphans_pruned([pruned, 2**32].min, Failure.coerce(failure), seconds(elapsed))
    end

    # After +:recover_context+: whether the compaction hook changed the history.
    # @return [Decision]
    def on_context_compacted(compacted, failure, elapsed: 0.0)
      _on_context_compacted(compacted ? true : false, Failure.coerce(failure), seconds(elapsed))
    end

    private

    # Seconds as a Float; anything but a real number is a TypeError (the engine checks the range).
    def seconds(value)
      raise TypeError, "elapsed must be a number of seconds, not #{value.class}" unless value.is_a?(Numeric) && value.real?

      value.to_f
    end
  end

  # One answer of a {Retrier}.
  class Decision
    def retry?
      action == :retry
    end

    def give_up?
      action == :give_up
    end

    # @return [Hash]
    def to_h
      { action: action, delay: delay, reason: reason, attempt: attempt, max_retries: max_retries,
        retry_after_used: retry_after_used, category: classification.category, events: events }
    end

    def inspect
      "#<RetryCore::Decision #{action}#{delay ? " delay=#{delay}" : ""}#{reason ? " reason=#{reason}" : ""} " \
        "attempt=#{attempt} category=#{classification.category}>"
    end
  end
end
