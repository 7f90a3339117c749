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
    def self.new(policy = nil, seed: nil, context_hook: false, swarm_names: false)
      policy = policy.nil? ? Policy.preset("default") : Policy.coerce(policy)
      _new(policy, seed, context_hook ? true : false, swarm_names ? true : false)
    end

    # @param failure [Failure, Exception]
    # @param elapsed [Float] seconds since the first call began (for the policy's deadline)
    # @return [Decision]
    def on_failure(failure, elapsed: 0.0)
      _on_failure(Failure.coerce(failure), elapsed.to_f)
    end

    # After +:recover_orphans+: how many calls (and dangling results) were pruned.
    # @return [Decision]
    def on_orphans_pruned(pruned, failure, elapsed: 0.0)
      _on_orphans_pruned(pruned, Failure.coerce(failure), elapsed.to_f)
    end

    # After +:recover_context+: whether the compaction hook changed the history.
    # @return [Decision]
    def on_context_compacted(compacted, failure, elapsed: 0.0)
      _on_context_compacted(compacted ? true : false, Failure.coerce(failure), elapsed.to_f)
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
