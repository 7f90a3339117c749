# frozen_string_literal: true

module RetryCore
  class << self
    # Classifies an exception (or a {Failure}) the way every retry-core binding does.
    #
    #   RetryCore.classify(error).category  # => :rate_limited
    #
    # @param error [Exception, Failure]
    # @return [Classification]
    def classify(error)
      _classify(Failure.coerce(error))
    end

    # Like {classify} with a fixed clock for date-valued headers.
    # @param now [Time, Numeric] the current time
    def classify_at(error, now)
      _classify_at(Failure.coerce(error), unix_time(now))
    end

    # Whether the error is worth retrying (the two-valued view).
    def transient?(error)
      classify(error).transient?
    end

    # The server's requested wait, from response headers: +retry-after-ms+, +retry-after+
    # (seconds or an HTTP-date), then provider reset hints.
    # @return [Float, nil] seconds
    def retry_after(headers, now: Time.now)
      raise TypeError, "headers must be a Hash, not #{headers.class}" unless headers.is_a?(Hash)

      seconds, = _retry_after(headers, unix_time(now))
      seconds
    end

    # A text with API keys and bearer tokens replaced by +[REDACTED]+.
    def scrub(text)
      _scrub(text.to_s)
    end

    # SwarmSDK's error text for a failure that is not retried (secrets scrubbed).
    # @param error [Exception, Failure]
    def error_message(error)
      failure = Failure.coerce(error)
      _error_message(failure, _classify(failure))
    end

    # Calls the block, retrying it as the policy says, and returns its value; re-raises the
    # original error when the policy gives up (a permanent error at once, a transient one after
    # the last attempt). Cancellation (+Interrupt+, +SignalException+) is never rescued.
    #
    # With no +policy+, this is SwarmSDK's +call_llm_with_retry(max_retries: 3, delay: 15)+:
    # +max_retries+ counts every call, the delay is fixed. +policy+ takes a preset name
    # (+:default+, +:swarm_sdk+, +:swarm_sdk_legacy+, +:forgeflare+, +:llm_executor+), a
    # configuration Hash or a {Policy}, which carries its own limits: giving +max_retries+ or
    # +delay+ as well is an +ArgumentError+.
    #
    # Waits go through +Kernel#sleep+, so Ctrl-C, +Thread#raise+, +Timeout.timeout+ and Fiber
    # schedulers work in the middle of a wait, and other threads run during it.
    #
    # @param on_event [#call, nil] receives each event as a Hash with Symbol keys (+type:+ first)
    # @yieldreturn [Object] the call's result
    # @return [Object] the block's value
    def call_llm_with_retry(max_retries: 3, delay: 15, policy: nil, on_event: nil)
      raise ArgumentError, "call_llm_with_retry needs a block" unless block_given?

      if policy.nil?
        raise TypeError, "max_retries must be an Integer, not #{max_retries.class}" unless max_retries.is_a?(Integer)
        raise TypeError, "delay must be a number of seconds, not #{delay.class}" unless delay.is_a?(Numeric)
      elsif max_retries != 3 || delay != 15
        raise ArgumentError, "give max_retries: and delay: or a policy:, not both (a policy carries its own)"
      end
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      retrier = nil
      while true # rubocop:disable Style/InfiniteLoop -- `loop` would rescue StopIteration
        begin
          return yield
        rescue StandardError => e
          retrier ||= Retrier._new(
            policy.nil? ? Policy.swarm_sdk(max_retries: max_retries, delay: delay) : Policy.coerce(policy),
            nil, false, false
          )
          failure = Failure.from_exception(e)
          elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
          decision = retrier._on_failure(failure, elapsed)
          case decision.action
          when :recover_orphans then decision = retrier._on_orphans_pruned(0, failure, elapsed)
          when :recover_context then decision = retrier._on_context_compacted(false, failure, elapsed)
          end
          decision.events.each { |event| on_event.call(event) } if on_event
          raise unless decision.action == :retry

          sleep(decision.delay)
        end
      end
    end

    # Prunes orphan tool calls (calls without results) and dangling tool results from a history
    # of RubyLLM-like messages (+role+, +content+, +tool_calls+ as a Hash of id => call,
    # +tool_call_id+) and/or Hashes (OpenAI / RubyLLM shape, or Anthropic content blocks).
    # Changed messages are rebuilt with their own class, keeping model and token counts.
    #
    # @param messages [Array]
    # @return [Pruned]
    def prune_orphan_tool_calls(messages)
      Orphans.prune(messages)
    end

    # The system reminder for a list of pruned calls (+{name:, arguments:}+ Hashes).
    def orphan_reminder(pruned)
      raise TypeError, "pruned must be an Array, not #{pruned.class}" unless pruned.is_a?(Array)

      _orphan_reminder(pruned)
    end

    private

    def unix_time(now)
      case now
      when Time then now.to_r.to_f
      when Numeric then now.to_f
      else raise TypeError, "now must be a Time or a Unix time, not #{now.class}"
      end
    end
  end
end
