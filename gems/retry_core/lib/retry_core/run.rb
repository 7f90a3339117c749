# frozen_string_literal: true

require "json"

module RetryCore
  # One whole logical call as the core's step machine (core +run.rs+): the loop every front
  # door runs. Each input answers the next step, an Array:
  #
  #   [:call, model]  [:wait, seconds, reason]  [:skip, model, seconds]  [:prune_orphans]
  #   [:compact_context]  [:return]  [:give_up, reason]  [:reraise]
  #
  # The events emitted meanwhile wait in {#take_events}. It never sleeps nor calls:
  # {RetryCore.call_llm_with_retry} is the interpreter that does.
  #
  #   run = RetryCore::Run.new(:forgeflare, config: { seed: 1 })
  #   run.start                     # => [:call, 0]
  #   run.failed(error, 0.0)        # => [:wait, 2.0, :backoff]
  #   run.resume(2.0)               # => [:call, 0]
  #   run.succeeded(2.5)            # => [:return]
  class Run
    # @param policy [Policy, String, Symbol, Hash, nil] default: the +default+ preset
    # @param config [Hash, String, nil] the run's configuration (core +RunConfig+: +models+,
    #   +larger_window_on_overflow+, +max_validation_retries+, +context_hook+, +max_gate_wait+,
    #   +seed+, +client_max_retries+, +started_at+), or its JSON text
    # @param fleet [Fleet, nil]
    # @param keys [Array<String>, String, nil] the fleet key of each model (one for all)
    def self.new(policy = nil, config: nil, fleet: nil, keys: nil)
      policy = policy.nil? ? Policy.preset("default") : Policy.coerce(policy)
      # A Hash goes through the same checks as a policy's or a fleet's configuration (depth,
      # encoding, value types): bad input is an InvalidPolicyError or a TypeError, never JSON's.
      config = Config.generate(config) if config.is_a?(Hash)
      raise TypeError, "config must be a Hash or JSON text, not #{config.class}" unless config.nil? || config.is_a?(String)
      raise TypeError, "fleet: takes a RetryCore::Fleet, not #{fleet.class}" unless fleet.nil? || fleet.is_a?(Fleet)

      keys = keys.nil? ? [] : Array(keys).map { |k| Fleet.key!(k) }
      raise ArgumentError, "fleet: needs keys: (the provider and model called)" if fleet && keys.empty?

      _new(policy, config, fleet, fleet && keys, false)
    end

    # @return [Array] the first step
    def start(elapsed = 0.0)
      take(_start(seconds(elapsed)))
    end

    def succeeded(elapsed)
      take(_succeeded(seconds(elapsed), nil, nil))
    end

    # @param failure [Failure, Exception, Hash]
    def failed(failure, elapsed)
      take(_failed(Failure.coerce(failure), seconds(elapsed)))
    end

    # After a +:wait+ or a +:skip+.
    def resume(elapsed)
      take(_resume(seconds(elapsed)))
    end

    # After +:prune_orphans+: how many calls (and dangling results) went.
    def pruned(count, elapsed)
      raise TypeError, "pruned must be an Integer, not #{count.class}" unless count.is_a?(Integer)

      take(_pruned(count, seconds(elapsed)))
    end

    # After +:compact_context+: whether the history changed.
    def compacted(changed, elapsed)
      take(_compacted(changed ? true : false, seconds(elapsed)))
    end

    # The events since the last call (Hashes, Symbol keys, +type:+ first).
    # @return [Array<Hash>]
    def take_events
      events = @events || []
      @events = nil
      @log_lines = nil
      events
    end

    # The core's log line of each event not yet taken: +[level, text]+ (+:warn+ / +:info+) or
    # nil when the event is not logged.
    # @return [Array<Array(Symbol, String), nil>]
    def log_lines
      @log_lines || []
    end

    def inspect
      "#<RetryCore::Run model=#{model} attempts=#{attempts}>"
    end

    private

    def take(reply)
      step, events, lines = reply
      (@events ||= []).concat(events)
      (@log_lines ||= []).concat(lines)
      step
    end

    def seconds(value)
      raise TypeError, "elapsed must be a number of seconds, not #{value.class}" unless value.is_a?(Numeric) && value.real?

      value.to_f
    end
  end

  # The decision of a run's last failure ({Run#decision}): +action+ (+:retry+, +:prune_orphans+,
  # +:compact_context+, +:give_up+, +:reraise+), +delay+, +reason+, +attempt+, +classification+, +events+.
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
