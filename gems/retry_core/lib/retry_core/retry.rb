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
      _scrub(text)
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
    # With no +policy+, +max_retries+ or +delay+, the +:default+ preset decides (CONTRACT §6):
    # a 429's retry-after is honoured, permanent errors cost one call. +max_retries:+ and/or
    # +delay:+ alone mean SwarmSDK's +call_llm_with_retry(max_retries: 3, delay: 15)+ with those
    # values: +max_retries+ counts every call, the delay is fixed. +policy+ takes a preset name
    # (+:default+, +:swarm_sdk+, +:swarm_sdk_legacy+, +:forgeflare+, +:llm_executor+), a
    # configuration Hash or a {Policy}, which carries its own limits: giving +max_retries+ or
    # +delay+ as well is an +ArgumentError+.
    #
    # With a +fleet+ (and the +key+ of the provider and model called), every call first asks
    # the fleet whether it may go: it waits out a shared pause or an open circuit, stops
    # retrying when the fleet's budget is spent, and reports successes so that the budget
    # refills and a half-open circuit closes. See {Fleet}.
    #
    # Waits go through +Kernel#sleep+, so Ctrl-C, +Thread#raise+, +Timeout.timeout+ and Fiber
    # schedulers work in the middle of a wait, and other threads run during it.
    #
    # An +on_event+ that raises a +StandardError+ never replaces the block's value or its error,
    # and does not stop the retries: its errors are attached to the error re-raised (as
    # +@retry_core_errors+, an Array), or given as a warning when the call succeeds. An
    # +Interrupt+ it raises propagates.
    #
    # @param on_event [#call, nil] receives each event as a Hash with Symbol keys (+type:+ first)
    # @param fleet [Fleet, nil] shared budget, breaker and pauses
    # @param key [String, nil] the fleet's key for this call, e.g. +"anthropic:claude-sonnet-4"+
    # @yieldreturn [Object] the call's result
    # @return [Object] the block's value
    def call_llm_with_retry(max_retries: nil, delay: nil, policy: nil, on_event: nil, fleet: nil, key: nil, &block)
      raise ArgumentError, "call_llm_with_retry needs a block" unless block

      # Every option is checked, and the policy built, before the first call: a misspelt
      # policy fails now, not in place of the API's error during an outage.
      policy = resolve_call_policy(policy, max_retries, delay)
      raise TypeError, "on_event must respond to #call, not #{on_event.class}" unless on_event.nil? || on_event.respond_to?(:call)

      if fleet || key
        raise TypeError, "fleet: takes a RetryCore::Fleet, not #{fleet.class}" unless fleet.is_a?(Fleet)
        raise ArgumentError, "fleet: needs key: (the provider and model called, e.g. \"openai:gpt-4o\")" if key.nil?

        retrier = Retrier._new(policy, nil, false, false, fleet, Fleet.key!(key))
        emit = on_event && ->(events, _error) { events.each { |event| on_event.call(event) } }
        return Retry.with_fleet(retrier, emit, self, &block)
      end

      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      retrier = nil
      hook_errors = nil
      while true # rubocop:disable Style/InfiniteLoop -- `loop` would rescue StopIteration
        begin
          value = yield
          Retry.report(hook_errors) if hook_errors
          return value
        rescue StandardError => e
          retrier ||= Retrier._new(policy, nil, false, false, nil, nil)
          failure = Failure.from_exception(e)
          elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
          decision = retrier._on_failure(failure, elapsed)
          case decision.action
          when :recover_orphans then decision = retrier._on_orphans_pruned(0, failure, elapsed)
          when :recover_context then decision = retrier._on_context_compacted(false, failure, elapsed)
          end
          hook_errors = Retry.deliver(decision.events, hook_errors) { |event| on_event.call(event) } if on_event
          unless decision.action == :retry
            Retry.attach(e, hook_errors)
            raise
          end

          sleep(decision.delay)
        end
      end
    end

    # The policy of a call_llm_with_retry: +:default+ with nothing given, SwarmSDK's semantics
    # for +max_retries:+ / +delay:+ alone, the policy itself otherwise (never both).
    def resolve_call_policy(policy, max_retries, delay)
      if policy.nil?
        return Policy.coerce(:default) if max_retries.nil? && delay.nil?

        max_retries = 3 if max_retries.nil?
        delay = 15 if delay.nil?
        raise TypeError, "max_retries must be an Integer, not #{max_retries.class}" unless max_retries.is_a?(Integer)
        raise TypeError, "delay must be a number of seconds, not #{delay.class}" unless delay.is_a?(Numeric) && delay.real?

        return Policy.swarm_sdk(max_retries: max_retries, delay: delay)
      end
      unless max_retries.nil? && delay.nil?
        raise ArgumentError, "give max_retries: and delay: or a policy:, not both (a policy carries its own)"
      end

      Policy.coerce(policy)
    end
    private :resolve_call_policy

    # Prunes orphan tool calls (calls without results) and dangling tool results from a history
    # of RubyLLM-like messages (+role+, +content+, +tool_calls+ as a Hash of id => call,
    # +tool_call_id+) and/or Hashes (OpenAI / RubyLLM shape, or Anthropic content blocks).
    # Changed messages are rebuilt with their own class's constructor from their readers (role,
    # content even when nil, model_id or model, tokens, raw, thinking, ...; RubyLLM 1.9 to 1.16
    # and its main branch), their remaining tool calls in the form they had.
    #
    # @param messages [Array]
    # @return [Pruned]
    # @raise [InvalidArgumentError] when a message's class refuses the rebuilt copy (the Array
    #   given is left as it was)
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
      when Numeric
        raise TypeError, "now must be a Time or a Unix time, not #{now.class}" unless now.real?

        now.to_f
      else raise TypeError, "now must be a Time or a Unix time, not #{now.class}"
      end
    end
  end

  # The retry loop with a fleet (core +driver/blocking.rs+ is the reference): ask the fleet
  # before every call, wait as it says, report successes.
  # @api private
  module Retry
    # Hands each event to the block (the caller's hook: +on_event+, SwarmSDK's LogStream). A
    # +StandardError+ the hook raises is kept in +errors+ (returned; created when needed) and
    # never raised: a broken hook must not replace the call's value or its error, nor stop the
    # retries. Anything else (+Interrupt+) propagates.
    def self.deliver(events, errors = nil)
      events.each do |event|
        yield event
      rescue StandardError => e
        (errors ||= []) << e
      end
      errors
    end

    # Attaches the hook's errors to the user's error, as +@retry_core_errors+ (an Array, added
    # to what is there), so that they are not lost; the error itself is left as it is.
    def self.attach(error, errors)
      return error if errors.nil? || errors.empty? || error.frozen?

      before = error.instance_variable_get(:@retry_core_errors)
      error.instance_variable_set(:@retry_core_errors, (before.is_a?(Array) ? before : []) + errors)
      error
    rescue StandardError
      error
    end

    # The call succeeded but a hook raised: a warning (scrubbed), since there is no error to
    # attach them to.
    def self.report(errors)
      return if errors.nil? || errors.empty?

      first = errors.first
      Kernel.warn("retry_core: an event hook raised #{errors.size} time(s), ignored; first: " \
                  "#{first.class}: #{RetryCore.scrub(first.message.to_s)}", category: nil)
    rescue StandardError
      nil
    end

    # Calls the block through +retrier+ (which has a fleet). +emit+ takes each batch of events
    # and the error they are about (nil for the fleet's own); +sleeper+ is the object whose
    # +sleep+ waits (the caller's, so that tests and schedulers that replace it are honoured).
    # With +recover+, a +:recover_orphans+ decision calls it for the number of calls pruned;
    # +on_give_up+ turns a permanent failure into a value (SwarmSDK returns a message).
    def self.with_fleet(retrier, emit, sleeper, recover: nil, on_give_up: nil)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      last = nil
      hook_errors = nil
      while true # rubocop:disable Style/InfiniteLoop -- `loop` would rescue StopIteration
        wait, reject, _probe, events = retrier._before_attempt(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
        hook_errors = deliver(events, hook_errors) { |event| emit.call([event], nil) } if emit && !events.empty?
        # A retry whose wait would overrun the policy's deadline: surface the last error.
        raise attach(last, hook_errors) if reject && last

        if wait
          sleeper.__send__(:sleep, wait) if wait.positive?
          next
        end
        begin
          value = yield
        rescue StandardError => e
          failure = Failure.from_exception(e)
          elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
          decision = retrier._on_failure(failure, elapsed)
          recovered = false
          case decision.action
          when :recover_orphans
            decision = retrier._on_orphans_pruned(recover ? recover.call : 0, failure, elapsed)
            recovered = decision.action == :retry
          when :recover_context
            decision = retrier._on_context_compacted(false, failure, elapsed)
          end
          hook_errors = deliver(decision.events, hook_errors) { |event| emit.call([event], e) } if emit
          case decision.action
          when :retry
            last = e
            sleeper.__send__(:sleep, decision.delay) unless recovered
            next
          when :give_up
            unless on_give_up && decision.reason == :permanent
              attach(e, hook_errors)
              raise
            end

            value = on_give_up.call(failure, decision)
            report(hook_errors)
            return value
          else
            attach(e, hook_errors)
            raise
          end
        end
        events = retrier._on_success
        hook_errors = deliver(events, hook_errors) { |event| emit.call([event], nil) } if emit && !events.empty?
        report(hook_errors)
        return value
      end
    end
  end
end
