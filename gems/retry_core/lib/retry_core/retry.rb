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
    # the last attempt). Cancellation (+Interrupt+, +SignalException+) is never rescued. The
    # loop is the core's ({Run}): this method only does what each step says.
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
    # the fleet whether it may go: it waits out a shared pause or an open circuit, gives up
    # (+circuit_open+, with an +llm_retry_exhausted+ event) when the fleet's wait would overrun
    # the policy's deadline or its budget is spent, and reports successes. See {Fleet}.
    #
    # Waits go through +Kernel#sleep+, so Ctrl-C, +Thread#raise+, +Timeout.timeout+ and Fiber
    # schedulers work in the middle of a wait, and other threads run during it. Each event's
    # log line (the core's, one per event: retries at WARN) goes to +logger+.
    #
    # An +on_event+ (or +on_orphans+, +on_progress+, a logger) that raises a +StandardError+
    # never replaces the block's value or its error, and does not stop the retries: its errors
    # are attached to the error re-raised (as +@retry_core_errors+, an Array), or given as a
    # warning when the call succeeds. An +Interrupt+ it raises propagates. The error re-raised
    # after a give-up carries the engine's verdict: +retry_decision+, +retry_classification+ and
    # +retry_note+ (see {GaveUp}).
    #
    # @param on_event [#call, nil] receives each event as a Hash with Symbol keys (+type:+ first)
    # @param fleet [Fleet, nil] shared budget, breaker and pauses
    # @param key [String, nil] the fleet's key for this call, e.g. +"anthropic:claude-sonnet-4"+
    # @param messages [Array, nil] the history the next call sends: on a tool-pairing 400 it is
    #   pruned in place once (a free retry, CONTRACT §5)
    # @param on_orphans [#call, nil] called with the {Pruned} result (nil without +messages+:
    #   it then prunes the history itself and returns how many calls it removed)
    # @param on_progress [#call, nil] during a wait longer than 1 s, called about once a second
    #   with +{remaining:, seconds:, reason:, model:}+ (the wait then sleeps in slices of 1 s)
    # @param logger [#warn, nil] default {RetryCore.logger}
    # @param estimate [Integer, Hash, nil] with a fleet whose admission is on
    #   (+Fleet.new(admission: ...)+), what each attempt costs against the provider's limits:
    #   its tokens, or +{messages: [...], max_tokens: n}+ (the messages' JSON size and
    #   +max_tokens+, estimated by the core). Without it an attempt costs one request. Each
    #   attempt waits for its slot (reason +:admission+, an +admission_wait+ event); after a
    #   success the usage the block's value reports (+#usage+, +[:usage]+, RubyLLM's
    #   +input_tokens+ / +output_tokens+, a returned response's body) settles it, and a returned
    #   response's headers teach the +:headers+ mode. A bad estimate raises before the first call.
    # @yieldreturn [Object] the call's result
    # @return [Object] the block's value
    def call_llm_with_retry(max_retries: nil, delay: nil, policy: nil, on_event: nil, fleet: nil, key: nil,
                            messages: nil, on_orphans: nil, on_progress: nil, logger: nil, estimate: nil, &block)
      # block_given?, not the block itself: reading `block` makes it a Proc at every call.
      raise ArgumentError, "call_llm_with_retry needs a block" unless block_given?

      # Every option is checked, and the policy built, before the first call: a misspelt
      # policy fails now, not in place of the API's error during an outage.
      policy = Policy._for_call_args(policy, max_retries, delay)
      check_hook(:on_event, on_event) unless on_event.nil?
      check_hook(:on_orphans, on_orphans) unless on_orphans.nil?
      check_hook(:on_progress, on_progress) unless on_progress.nil?
      raise TypeError, "messages must be an Array, not #{messages.class}" unless messages.nil? || messages.is_a?(Array)

      if fleet || key
        raise TypeError, "fleet: takes a RetryCore::Fleet, not #{fleet.class}" unless fleet.is_a?(Fleet)
        raise ArgumentError, "fleet: needs key: (the provider and model called, e.g. \"openai:gpt-4o\")" if key.nil?

        key = Fleet.key!(key) unless key.is_a?(String) && !key.empty? # the usual key as it is, no call
      end
      # One native call when the fleet is there (checked above); without one, Retry.cost's error.
      cost = fleet ? fleet._cost(estimate) : Retry.cost(estimate, fleet) unless estimate.nil?
      if fleet
        # The fleet's gate (core Fleet::admits_freely_with): true, the key is free; a slot,
        # admission placed this call now and it holds that slot; nil, a paused key, an open
        # circuit, a remote fleet or a slot later than now: the whole run, whose first step
        # asks the gate.
        slot = fleet._admits_freely_with(key, cost)
        if slot.nil?
          return Retry.call(Retry::Door.new(policy, self, on_event, logger, fleet, key, messages, on_orphans,
                                            on_progress, cost), &block)
        end
      end

      # Otherwise the first call needs no run and no door: the success path allocates nothing
      # (the policy is a cached preset or the caller's); a fleet is told of the success, and
      # with admission on the slot is settled against the usage the value reports.
      failed = false
      begin
        value = yield
      rescue StandardError => e
        error = e
        failed = true
      end
      unless failed
        if fleet
          pending = if true == slot # rubocop:disable Style/YodaCondition -- TrueClass#== is the cheap one
                      fleet._succeeded(key)
                    else
                      usage, headers = Retry.settlement(value)
                      fleet._succeeded_with(key, slot, usage, headers)
                    end
          if pending
            Retry::Door.new(policy, self, on_event, logger, fleet, key, messages, on_orphans, on_progress)
                       .emitted(pending)
          end
        end
        return value
      end
      # Retried outside the rescue: an attempt's error must not gain the first one as its
      # #cause (Ruby links an error raised inside a rescue clause to the one rescued). The run
      # settles the first attempt's slot with its failure.
      Retry.call(Retry::Door.new(policy, self, on_event, logger, fleet, key, messages, on_orphans, on_progress, cost,
                                 true == slot ? nil : slot), error, &block)
    end

    def check_hook(name, hook)
      raise TypeError, "#{name} must respond to #call, not #{hook.class}" unless hook.respond_to?(:call)
    end
    private :check_hook

    # The logger of the front doors' lines (one per event, the core's text): by default a
    # +::Logger+ to +$stderr+ (the +$stderr+ of the moment) at +WARN+, so that retries show.
    # @return [#warn, #info]
    def logger
      @logger ||= begin
        require "logger"
        # No progname: every line already starts with the core's one "retry-core:".
        ::Logger.new(Retry::Stderr.new, level: ::Logger::WARN)
      end
    end

    # @param logger [#warn, #info, nil] nil: back to the default
    attr_writer :logger


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

  # The verdict of the engine, on the error re-raised after a give-up: extended onto it (the
  # error itself, its class and message, are left as they are).
  module GaveUp
    # @return [Decision, nil] the last decision (nil: no call failed before the give-up)
    attr_reader :retry_decision
    # @return [Classification, nil]
    attr_reader :retry_classification
    # @return [String, nil] e.g. "retry-core: rate_limited (transient, status 429); gave up after 3 attempts (limit reached)"
    attr_reader :retry_note
  end

  # The one retry loop of the Ruby front doors, an interpreter of the core's {Run} (core
  # +driver/blocking.rs+ is the reference): it does what each step says, through a door
  # ({Door}, or SwarmSDK's) that knows how this front door sleeps, emits, prunes and ends.
  # @api private
  module Retry
    # Calls the block until the run says stop. +error+: the first call already failed (a
    # front door without a fleet makes it before building the run).
    def self.call(door, error = nil)
      run = door.run
      step = error ? door.failed(run, error) : door.answer(run._start(0.0), nil)
      value = nil
      while true # rubocop:disable Style/InfiniteLoop -- `loop` would rescue StopIteration
        case step[0]
        when :call
          begin
            value = yield
          rescue StandardError => e
            step = door.failed(run, error = e)
            next
          end
          step = door.answer(run._succeeded(door.elapsed, *door.settlement(value)), nil)
        when :wait
          door.wait(step[1], step[2])
          step = door.answer(run._resume(door.elapsed), error)
        when :skip then step = door.answer(run._resume(door.elapsed), error)
        when :prune_orphans then step = door.answer(run._pruned(door.prune(error), door.elapsed), error)
        when :compact_context then step = door.answer(run._compacted(false, door.elapsed), error)
        when :return then return door.returned(value)
        when :give_up then return door.give_up(error, run, step[1])
        # A stubbed sleep beside a fleet on the real clock: the misuse error naming the
        # testing switch, the user's last error (if a call failed) as its cause.
        when :stalled then raise InvalidStateError.new(Testing._stalled_message), cause: error
        else raise door.attach(error)
        end
      end
    ensure
      # Ended by what the loop does not rescue (Timeout.timeout, Interrupt, Thread#kill): a
      # half-open probe's slot is freed now, not at the next GC.
      run&._abandon
    end

    # +estimate:+ checked and handed to the core, which computes the attempt's cost (core
    # +Fleet::estimate+: the request's bytes and its +max_tokens+). Raises before the first call.
    # Read natively (+Fleet#_cost+, ruby-ext/src/estimate.rs): it runs before every call given
    # an estimate, and the messages are measured without writing them as JSON.
    # @return [Array(Float, Float)] input and output tokens
    def self.cost(estimate, fleet)
      raise ArgumentError, "estimate: needs fleet: (a RetryCore::Fleet with admission on)" unless fleet.is_a?(Fleet)

      fleet._cost(estimate)
    end

    # The size of +messages+ (an Array) as JSON (what the request sends), for those
    # +Fleet#_cost+ leaves to Ruby: messages that are objects, or hold what only the generator
    # writes. Counted natively where it can be (+RetryCore._json_size+).
    def self.request_bytes(messages)
      # Objects (RubyLLM's Message) count as their Hash; plain values as they are.
      plain = messages.map { |m| m.is_a?(Hash) || m.is_a?(Array) || !m.respond_to?(:to_h) ? m : m.to_h }
      RetryCore._json_size(plain) || JSON.generate(plain).bytesize
    rescue JSON::GeneratorError, EncodingError, NoMethodError => e
      raise TypeError, "estimate: messages: must be JSON-serializable: #{e.message}"
    end

    def self.max_tokens(value)
      return 0 if value.nil?
      raise TypeError, "estimate: max_tokens: must be an Integer, not #{value.class}" unless value.is_a?(Integer)
      raise ArgumentError, "estimate: max_tokens: must be in 0...2**64, got #{value}" unless value >= 0 && value < 2**64

      value
    end

    # What the core settles a success with when the fleet's admission is on: where the value
    # reports its usage (read natively, by the core's rule: +usage.rs+), and a response's
    # headers. A returned response's body is tried after the value's own usage. Never raises.
    # @return [Array] usage (an object, a body, an Array of both to try in order, or nil) and
    #   headers (or nil)
    def self.settlement(value)
      return [usage_of(value), nil] if value.is_a?(Hash) # a parsed body is no response: one call less

      response = response_of(value)
      return [usage_of(value), nil] if response.nil?

      [[usage_of(value), body_of(response)], headers_of(response)]
    end

    # Where an answer reports its usage: +value.usage+ / +value[:usage]+ (an OpenAI or
    # Anthropic body or object), or RubyLLM's Message itself (+input_tokens+ / +output_tokens+,
    # +cache_creation_tokens+), or nil. Never raises.
    def self.usage_of(value)
      if value.is_a?(Hash) then value[:usage] || value["usage"]
      elsif value.respond_to?(:usage) then value.usage
      elsif value.respond_to?(:input_tokens) || value.respond_to?(:output_tokens) then value
      end
    rescue StandardError # an answer we cannot read settles as spent, never costs the caller it
      nil
    end

    # The response a call returned, for its headers (the +:headers+ admission mode learns from
    # them) and body: a Net::HTTPResponse, a Faraday::Response, or RubyLLM's Message's +#raw+.
    def self.response_of(value)
      return nil if value.is_a?(Hash) || value.is_a?(String)
      return value if value.respond_to?(:each_header) || (value.respond_to?(:headers) && value.respond_to?(:body))

      raw = value.raw if value.respond_to?(:raw)
      raw if raw.respond_to?(:headers)
    rescue StandardError
      nil
    end

    # A response's header object (the core reads any: a Hash, Faraday's, Net::HTTP's +to_hash+).
    def self.headers_of(response)
      return nil if response.nil?

      response.respond_to?(:each_header) ? response.to_hash : response.headers
    rescue StandardError
      nil
    end

    # A response's body text, where the core finds the usage.
    def self.body_of(response)
      body = response.body if response.respond_to?(:body)
      body.is_a?(String) ? body : nil
    rescue StandardError
      nil
    end

    # +$stderr+ as it is when a line is written (tests and daemons reassign it).
    class Stderr
      def write(*args)
        $stderr.write(*args)
      end

      def close; end
    end

    # How the plain front door ({RetryCore.call_llm_with_retry}) does each step.
    class Door
      # +slot+: the admission slot the first attempt went on (Fleet#_admits_freely_with), when
      # that attempt failed: the run settles it.
      def initialize(policy, sleeper, on_event, logger, fleet, key, messages, on_orphans, on_progress, cost = nil,
                     slot = nil)
        @started = Testing.monotonic
        @policy = policy
        @sleeper = sleeper
        @on_event = on_event
        @logger = logger
        @fleet = fleet
        @keys = key && [key]
        @messages = messages
        @on_orphans = on_orphans
        @on_progress = on_progress
        @cost = cost
        @slot = slot
        @errors = nil
      end

      # Seconds since the first call began.
      def elapsed
        Testing.monotonic - @started
      end

      def run
        @run ||= if @slot
                   Run._new_holding(@policy, JSON.generate(config), @fleet, @keys, swarm_names?, @slot)
                 else
                   Run._new(@policy, JSON.generate(config), @fleet, @keys, swarm_names?)
                 end
      end

      def swarm_names?
        false
      end

      # The run's configuration (nil: the defaults).
      def config
        config = { started_at: Testing.wall_clock - elapsed }
        client = Retry.ruby_llm_retries
        config[:client_max_retries] = [client, 1000].min if client.positive?
        estimated(config)
      end

      # +config+ with the attempt's estimated cost, when there is one.
      def estimated(config)
        config[:estimate] = { input_tokens: @cost[0], output_tokens: @cost[1] } if @cost
        config
      end

      # What the core settles a success with when the fleet's admission is on: the usage
      # +value+ reports (as JSON, or a response's body) and a response's headers.
      def settlement(value)
        return NO_SETTLEMENT unless @fleet&._admission

        Retry.settlement(value)
      end
      NO_SETTLEMENT = [nil, nil].freeze

      # The user's error failed the call: the run's answer. Should the engine itself fail
      # (a bug), the user's error is re-raised with that failure attached, never replaced.
      def failed(run, error)
        @failure = Failure.from_exception(error)
        answer(run._failed(@failure, elapsed), error)
      rescue StandardError => e
        hook_error(e)
        raise attach(error)
      end

      # Emits events and their lines that came without a step (a fleet's success path).
      def emitted((events, lines))
        events.each_with_index { |event, i| emit(event, lines[i], nil) }
        Retry.report(@errors) # a hook's own errors, as after a run's success
      end

      # Emits the events of a run's answer and logs their lines; returns the step.
      def answer(reply, error)
        step, events, lines = reply
        events.each_with_index { |event, i| emit(event, lines[i], error) }
        step
      end

      def emit(event, line, _error)
        log(line) if line
        guarded { Notifications.instrument(event) }
        guarded { @on_event.call(event) } if @on_event
        @wait_model = event[:model] if event[:type] == "retry_wait_started"
      end

      def log(line)
        guarded { (@logger || RetryCore.logger).public_send(line[0], line[1]) }
      end

      # Runs a hook of the caller's: a StandardError it raises is kept for the end.
      def guarded
        yield
      rescue StandardError => e
        hook_error(e)
      end

      def hook_error(error)
        (@errors ||= []) << error
        nil
      end

      # Sleeps +seconds+ through the caller's +sleep+: at once, or in slices of 1 s with
      # +on_progress+ told after each (the last with +remaining: 0.0+), as in Python.
      def wait(seconds, reason)
        return nap(seconds) unless @on_progress && seconds > 1.0

        remaining = seconds
        while remaining.positive?
          slice = [remaining, 1.0].min
          nap(slice)
          remaining = [remaining - slice, 0.0].max
          progress = { remaining: remaining, seconds: seconds, reason: reason, model: @wait_model }
          guarded { @on_progress.call(progress) }
        end
      end

      # One sleep through the caller's +sleep+, or a step of the virtual clock under the
      # testing switch ({RetryCore.testing!}).
      def nap(seconds)
        Testing.sleep(seconds) || @sleeper.__send__(:sleep, seconds)
      end

      # Prunes +messages+ in place; returns how many calls (and dangling results) went.
      def prune(_error)
        if @messages
          result = Orphans.prune(@messages)
          @messages.replace(result.messages) if result.changed?
          guarded { @on_orphans.call(result) } if @on_orphans
          result.count
        elsif @on_orphans
          n = guarded { @on_orphans.call(nil) }
          n.is_a?(Integer) ? n : !!n # an Integer or a truth: the core reads it (run::HookAnswer)
        else
          0
        end
      rescue RetryCore::Error, TypeError => e
        hook_error(e)
        0
      end

      def returned(value)
        Retry.report(@errors)
        value
      end

      # The run gave up: the user's error, with the verdict attached, re-raised.
      def give_up(error, run, _reason)
        raise RetryCore::InvalidStateError, "the fleet held every model back: no call was made" if error.nil?

        Retry.verdict(error, run)
        raise attach(error)
      end

      def attach(error)
        Retry.attach(error, @errors)
      end
    end

    # RubyLLM's own retries per request when it is loaded (1.13+ defaults to 3), else 0.
    def self.ruby_llm_retries
      return 0 unless defined?(::RubyLLM) && ::RubyLLM.respond_to?(:config)

      config = ::RubyLLM.config
      config.respond_to?(:max_retries) ? config.max_retries.to_i : 0
    rescue StandardError
      0
    end

    # Attaches the run's decision, classification and note to +error+ ({GaveUp}).
    def self.verdict(error, run)
      return error if error.frozen?

      decision = run.decision
      error.instance_variable_set(:@retry_decision, decision)
      error.instance_variable_set(:@retry_classification, decision&.classification)
      error.instance_variable_set(:@retry_note, run.note)
      error.extend(GaveUp)
    rescue StandardError
      error
    end

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
  end
end
