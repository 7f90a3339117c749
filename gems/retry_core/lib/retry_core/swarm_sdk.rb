# frozen_string_literal: true

module RetryCore
  # A drop-in for SwarmSDK's +Agent::Chat#call_llm_with_retry+, decided by the engine.
  #
  #   require "retry_core"
  #   RetryCore::SwarmSDK.install!    # prepends ChatRetry into SwarmSDK::Agent::Chat
  #
  # Observable behaviour is SwarmSDK's: the same events with the same keys through
  # +SwarmSDK::LogStream.emit+ (plus the contract's +category+ and +status_code+), failures that
  # are not retried come back as a +RubyLLM::Message+ with role +:assistant+ and SwarmSDK's error
  # text, a 400 about orphan tool calls prunes +@llm_chat.messages+ once (through
  # +replace_messages+, with a reminder through +add_ephemeral_reminder+) without counting an
  # attempt, and exhaustion re-raises. Where the engine knows better than SwarmSDK's rescue
  # clauses, the engine decides (see the README).
  module SwarmSDK
    # Global defaults, as SwarmSDK's decision record proposes.
    class Configuration
      # @return [Integer] calls per LLM request (SwarmSDK counts every call): 3
      attr_accessor :default_max_retries
      # @return [Numeric] seconds between calls: 15
      attr_accessor :default_retry_delay
      # @return [Policy, String, Symbol, Hash, nil] a policy to use instead of SwarmSDK's
      #   fixed delay (per-agent +retry_config+ and explicit arguments then do not apply)
      attr_accessor :policy
      # @return [Boolean] leave RubyLLM's own retries on at install! (default: turn them off)
      attr_accessor :keep_ruby_llm_retries
      # @return [Fleet, Hash, nil] the fleet every agent's calls share unless its +retry_config+
      #   names another (or +fleet: false+); a Hash is a configuration ({Fleet.shared})
      attr_accessor :fleet
      # @return [String, nil] the fleet key of every agent that names none (default: the
      #   agent's provider and model, +"anthropic:claude-sonnet-4"+, or its model alone)
      attr_accessor :fleet_key

      def initialize
        @default_max_retries = ::RetryCore::Policy::SWARM_SDK_MAX_RETRIES
        @default_retry_delay = ::RetryCore::Policy::SWARM_SDK_DELAY
        @policy = nil
        @keep_ruby_llm_retries = false
        @fleet = nil
        @fleet_key = nil
      end
    end

    # The order of SwarmSDK's keys in each event; the contract's extra keys follow.
    EVENT_KEYS = {
      "llm_retry_attempt" => %i[attempt max_retries error_class error_message error_backtrace retry_delay],
      "llm_retry_exhausted" => %i[attempts error_class error_message error_backtrace],
      "llm_request_failed" => %i[error_type error_class error_message status_code retryable],
      "orphan_tool_calls_pruned" => %i[pruned_count original_error]
    }.freeze

    class << self
      # @return [Configuration]
      def configuration
        @configuration ||= Configuration.new
      end

      # @yieldparam config [Configuration]
      def configure
        yield configuration
        configuration
      end

      def reset_configuration!
        @configuration = Configuration.new
      end

      # Prepends {ChatRetry} into +SwarmSDK::Agent::Chat+ (or +target+) and, unless told to keep
      # them, turns RubyLLM's own retries off (+RubyLLM.config.max_retries = 0+) so that one
      # layer owns retries: stacked layers multiply (3 SwarmSDK calls x 4 RubyLLM requests = 12
      # requests). Says what it did in a +retry_layers_configured+ event. Idempotent.
      #
      # @param target [Module] the class to patch (default +SwarmSDK::Agent::Chat+)
      # @param keep_ruby_llm_retries [Boolean]
      # @param on_event [#call, nil] also receives the event
      # @return [Hash] the event
      def install!(target = nil, keep_ruby_llm_retries: configuration.keep_ruby_llm_retries, on_event: nil)
        target ||= begin
          ::SwarmSDK::Agent::Chat
        rescue NameError
          raise NameError, "SwarmSDK::Agent::Chat is not loaded: require \"swarm_sdk\" before " \
                           "RetryCore::SwarmSDK.install!, or pass the class to patch"
        end
        target.prepend(ChatRetry) unless target.ancestors.include?(ChatRetry)
        event = configure_ruby_llm(keep_ruby_llm_retries)
        ::SwarmSDK::LogStream.emit(**event) if defined?(::SwarmSDK::LogStream)
        on_event&.call(event)
        event
      end

      private

      def configure_ruby_llm(keep)
        config = ::RubyLLM.config if defined?(::RubyLLM) && ::RubyLLM.respond_to?(:config)
        unless config.respond_to?(:max_retries) && config.respond_to?(:max_retries=)
          return { type: "retry_layers_configured", ruby_llm_max_retries: nil, ruby_llm_retries: "absent",
                   note: "RubyLLM has no retry setting here: retry-core is the only retry layer" }
        end

        before = config.max_retries
        if keep || before.to_i.zero?
          return { type: "retry_layers_configured", ruby_llm_max_retries: before,
                   ruby_llm_retries: before.to_i.zero? ? "off" : "kept",
                   note: "each SwarmSDK attempt makes up to #{before.to_i + 1} requests: the layers multiply" }
        end

        config.max_retries = 0
        { type: "retry_layers_configured", ruby_llm_max_retries: 0, ruby_llm_retries: "disabled",
          previous_ruby_llm_max_retries: before,
          note: "RubyLLM's retries (#{before} per request) turned off so that retry-core owns retries; " \
                "stacked, they multiply (#{configuration.default_max_retries} x #{before.to_i + 1} requests)" }
      end
    end

    # Prepended into SwarmSDK's +Agent::Chat+. Expects what that class has: +@llm_chat+ (with
    # +messages+), +@agent_name+, +@agent_context+ (+swarm_id+, +parent_swarm_id+), +model_id+,
    # +replace_messages+, +add_ephemeral_reminder+ and +@context_manager+ (+clear_ephemeral+).
    module ChatRetry
      # The +retry_config+ keys that give an agent a fleet.
      AGENT_FLEET_KEYS = [:fleet, "fleet", :admission, "admission"].freeze

      # Per-agent settings: +{ max_retries:, retry_delay:, fleet:, key:, admission:,
      # max_tokens: }+ (the agent definition's +retry_config+, read at construction). +fleet+ is
      # a {Fleet}, a fleet configuration Hash ({Fleet.shared}: equal configurations share one
      # fleet) or +false+ (no fleet for this agent, whatever the global default); +key+ the
      # fleet key. +admission+ turns the fleet's admission on (a mode name or its settings, as
      # +Fleet.new(admission:)+ takes them) in the agent's fleet configuration, or in a fleet of
      # its own when none is configured; +max_tokens+ is the agent's +max_tokens+: with
      # admission on, each call is estimated from the chat's messages and it.
      attr_accessor :retry_config

      def initialize(*args, **kwargs, &block)
        super
        definition = kwargs[:definition]
        config = definition[:retry_config] || definition["retry_config"] if definition.respond_to?(:[])
        return unless config

        @retry_config = config
        # Checked now, not when the first call fails (a bad setting must not take the place
        # of the API's error during an outage).
        retry_core_check_config
      end

      private

      # SwarmSDK's +call_llm_with_retry+: returns the block's value, a +RubyLLM::Message+ with
      # the error text for a failure that is not retried, or re-raises when retries run out.
      # +max_retries+ and +delay+ default to the agent's +retry_config+, then to
      # {SwarmSDK.configuration}.
      def call_llm_with_retry(max_retries: nil, delay: nil, &block)
        # Arguments given here are checked before the first call (once per distinct pair).
        retry_core_check_args(max_retries, delay) unless max_retries.nil? && delay.nil?
        # Two reads decide the usual case (no fleet anywhere) before any method of ours runs.
        fleet = retry_core_fleet if @retry_config || ::RetryCore::SwarmSDK.configuration.fleet
        unless fleet
          begin
            return yield
          rescue StandardError => e
            error = e
          end
        end
        ::RetryCore::Retry.call(ChatDoor.new(self, *retry_core_policy(max_retries, delay), fleet,
                                             fleet && retry_core_estimate(fleet[0])), error, &block)
      end

      # @return [Array(Policy, Numeric)] the policy and the delay SwarmSDK would report
      def retry_core_policy(max_retries, delay)
        config = ::RetryCore::SwarmSDK.configuration
        return [::RetryCore::Policy.coerce(config.policy), nil] if config.policy && max_retries.nil? && delay.nil?

        agent = retry_core_agent_config
        max_retries ||= agent[:max_retries] || agent["max_retries"] || config.default_max_retries
        delay ||= agent[:retry_delay] || agent["retry_delay"] || config.default_retry_delay
        [::RetryCore::Policy.swarm_sdk(max_retries: max_retries, delay: delay), delay]
      end

      # Builds the policy that +max_retries+ / +delay+ mean, so that a bad value raises before
      # the first call; remembered, so a repeated pair costs one comparison.
      def retry_core_check_args(max_retries, delay)
        checked = @retry_core_checked_args
        return if checked && checked[0].eql?(max_retries) && checked[1].eql?(delay)

        retry_core_policy(max_retries, delay)
        @retry_core_checked_args = [max_retries, delay]
      end

      # The agent's +retry_config+, checked: a Hash whose retry settings make a policy, whose
      # fleet is a Fleet, a configuration Hash, false or nil, and whose key is a fleet key.
      def retry_core_check_config
        agent = retry_core_agent_config
        retry_core_policy(nil, nil)
        fleet = agent.key?(:fleet) ? agent[:fleet] : agent["fleet"]
        unless fleet.nil? || fleet == false || fleet.is_a?(Hash) || fleet.is_a?(::RetryCore::Fleet)
          raise TypeError, "retry_config fleet: takes a RetryCore::Fleet or a Hash, not #{fleet.class}"
        end

        key = agent[:key] || agent["key"]
        ::RetryCore::Fleet.key!(key) if key
        retry_core_check_admission(agent, fleet)
      end

      # +admission+ and +max_tokens+ of a +retry_config+, checked: admission goes into a fleet
      # configuration (a Fleet object has its own), the fleet it makes is built now (a bad mode
      # raises here), and +max_tokens+ is an estimate's.
      def retry_core_check_admission(agent, fleet)
        max_tokens = retry_core_setting(agent, :max_tokens)
        ::RetryCore::Retry.max_tokens(max_tokens) unless max_tokens.nil?
        admission = retry_core_setting(agent, :admission)
        return if admission.nil?
        if fleet.is_a?(::RetryCore::Fleet)
          raise ArgumentError, "retry_config admission: applies to a fleet configuration; a RetryCore::Fleet " \
                               "has its own (RetryCore::Fleet.new(admission: ...))"
        end

        ::RetryCore::Fleet.shared(retry_core_with_admission(fleet.is_a?(Hash) ? fleet : {}, admission)) unless fleet == false
      end

      def retry_core_setting(agent, name)
        agent.key?(name) ? agent[name] : agent[name.to_s]
      end

      # The fleet configuration +fleet+ with +admission+ in it (nil: as it is).
      def retry_core_with_admission(fleet, admission)
        return fleet if admission.nil?

        fleet.reject { |k, _| k.to_s == "admission" }.merge(admission: admission)
      end

      # Each attempt's cost for the fleet's admission (nil: admission off, or one request):
      # the chat's messages as JSON and the agent's +max_tokens+, estimated by the core.
      # Automatic, so a history that cannot be measured costs one request, never the call.
      def retry_core_estimate(fleet)
        return nil unless fleet._admission

        messages = @llm_chat.messages if @llm_chat.respond_to?(:messages)
        max_tokens = retry_core_setting(retry_core_agent_config, :max_tokens)
        estimate = { messages: messages.is_a?(Array) ? messages : nil, max_tokens: max_tokens }.compact
        estimate.empty? ? nil : ::RetryCore::Retry.cost(estimate, fleet)
      rescue StandardError
        nil
      end

      # The agent's +retry_config+ (a Hash, or nothing).
      def retry_core_agent_config
        config = @retry_config
        return {} if config.nil?
        raise TypeError, "retry_config must be a Hash, not #{config.class}" unless config.is_a?(Hash)

        config
      end

      # Prunes orphan tool calls from the conversation, as SwarmSDK's recovery does: clears
      # the failed call's ephemeral content, replaces the messages, adds the reminder.
      # A history that cannot be rebuilt (a message class that refuses the pruned copy) counts
      # as nothing pruned: the history stays as it was and the 400 that asked for the recovery
      # is what the caller gets, never an error of ours in its place.
      # @return [Integer] calls and dangling results removed
      def retry_core_prune_orphans
        @context_manager&.clear_ephemeral if @context_manager.respond_to?(:clear_ephemeral)
        messages = @llm_chat&.messages
        return 0 unless messages.is_a?(Array) && !messages.empty?

        result = begin
          ::RetryCore::Orphans.prune(messages)
        rescue ::RetryCore::Error, TypeError
          return 0
        end
        return 0 unless result.changed?

        replace_messages(result.messages)
        add_ephemeral_reminder(result.reminder) unless result.reminder.empty?
        result.count
      end

      # @return [Array(Fleet, String), nil] the agent's fleet and key, or nil (the usual case,
      #   decided with two reads)
      def retry_core_fleet
        agent = @retry_config
        global = ::RetryCore::SwarmSDK.configuration.fleet
        return nil if global.nil? && !(agent.is_a?(Hash) && AGENT_FLEET_KEYS.any? { |k| agent.key?(k) })

        agent = retry_core_agent_config
        fleet = if agent.key?(:fleet) then agent[:fleet]
                elsif agent.key?("fleet") then agent["fleet"]
                else global
                end
        admission = retry_core_setting(agent, :admission)
        fleet = {} if fleet.nil? && !admission.nil?
        return nil if fleet.nil? || fleet == false

        fleet = ::RetryCore::Fleet.shared(retry_core_with_admission(fleet, admission)) if fleet.is_a?(Hash)
        raise TypeError, "retry_config fleet: takes a RetryCore::Fleet or a Hash, not #{fleet.class}" unless fleet.is_a?(::RetryCore::Fleet)

        key = agent[:key] || agent["key"] || ::RetryCore::SwarmSDK.configuration.fleet_key || retry_core_fleet_key
        [fleet, ::RetryCore::Fleet.key!(key)]
      end

      # The agent's provider and model (+"anthropic:claude-sonnet-4"+), or its model alone.
      def retry_core_fleet_key
        model = @llm_chat.model if @llm_chat.respond_to?(:model)
        provider = model.provider if model.respond_to?(:provider)
        id = retry_core_model_id || "default"
        provider ? "#{provider}:#{id}" : id.to_s
      rescue StandardError
        retry_core_model_id.to_s
      end

      def retry_core_event(event, error, delay)
        type = event.delete(:type)
        data = { type: type, agent: @agent_name, swarm_id: @agent_context&.swarm_id,
                 parent_swarm_id: @agent_context&.parent_swarm_id, model: retry_core_model_id }
        if error && %w[llm_retry_attempt llm_retry_exhausted].include?(type)
          event[:error_backtrace] = error.backtrace
        end
        # SwarmSDK reports the delay it was given (15, not 15.0).
        event[:retry_delay] = delay if delay && event[:retry_delay] == delay
        ::RetryCore::SwarmSDK::EVENT_KEYS.fetch(type, []).each { |key| data[key] = event.delete(key) if event.key?(key) }
        data.merge!(event)
      end

      def retry_core_model_id
        model_id
      rescue StandardError
        nil
      end

      def retry_core_error_message(failure, classification)
        content = ::RetryCore._error_message(failure, classification)
        return { role: :assistant, content: content } unless defined?(::RubyLLM::Message)

        ::RubyLLM::Message.new(role: :assistant, content: content, model_id: retry_core_model_id)
      end
    end

    # Events of the run that SwarmSDK never emitted: logged, not sent to LogStream.
    RUN_ONLY_EVENTS = ::RetryCore::Run::EVENTS.map(&:freeze).freeze

    # How {ChatRetry#call_llm_with_retry} does each step of the run: SwarmSDK's events to
    # LogStream (its keys, its order), each event's line to {RetryCore.logger}, waits through
    # the chat's +sleep+, orphan recovery through +replace_messages+ and
    # +add_ephemeral_reminder+, a permanent failure returned as a +RubyLLM::Message+.
    # @api private
    class ChatDoor < ::RetryCore::Retry::Door
      def initialize(chat, policy, delay, fleet, cost = nil)
        super(policy, chat, nil, nil, fleet && fleet[0], fleet && fleet[1], nil, nil, nil, cost)
        @chat = chat
        @delay = delay
      end

      def swarm_names?
        true
      end

      # SwarmSDK says how its layers stack at install! (retry_layers_configured).
      def config
        estimated({ started_at: ::RetryCore::Testing.wall_clock - elapsed })
      end

      def emit(event, line, error)
        log(line) if line
        guarded { Notifications.instrument(event) }
        return if RUN_ONLY_EVENTS.include?(event[:type]) || !defined?(::SwarmSDK::LogStream)

        guarded { ::SwarmSDK::LogStream.emit(**@chat.__send__(:retry_core_event, event, error, @delay)) }
      end

      def prune(_error)
        @chat.__send__(:retry_core_prune_orphans)
      end

      # SwarmSDK returns a permanent failure as the assistant's reply; anything else re-raises.
      def give_up(error, run, reason)
        return super unless reason == :permanent && error

        reply = @chat.__send__(:retry_core_error_message, @failure, run.decision.classification)
        ::RetryCore::Retry.report(@errors)
        reply
      end
    end
  end
end
