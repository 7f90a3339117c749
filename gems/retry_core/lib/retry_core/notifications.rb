# frozen_string_literal: true

module RetryCore
  # ActiveSupport::Notifications events for retry-core's decisions, when ActiveSupport is
  # loaded: +retry.retry_core+, +give_up.retry_core+, +wait.retry_core+, +circuit.retry_core+,
  # ... (the +event.library+ names ActiveSupport's own and Faraday's +request.faraday+ follow).
  # The payload is the event Hash the +on_event:+ hook receives (Symbol keys, +type:+ first: a
  # circuit's +type+ says whether it opened or closed). Without ActiveSupport, each event's line
  # goes to {RetryCore.logger} as before (it does with ActiveSupport too).
  #
  # The names are the core's (core/src/observe/names.rs), as are the OpenTelemetry names the
  # Python package uses. A call that succeeds at once has no events; with no subscriber of a
  # name, an event costs one +listening?+ check.
  #
  #   ActiveSupport::Notifications.subscribe("retry.retry_core") do |name, _start, _finish, _id, payload|
  #     Rails.logger.info("#{name}: #{payload[:category]} attempt #{payload[:attempt]}")
  #   end
  module Notifications
    TABLE = Native._observe_names
    private_constant :TABLE

    # The notification name of each event type: {"llm_retry_attempt" => "retry.retry_core", ...}
    NAMES = TABLE.fetch("kinds").to_h { |type, row| [type.freeze, row[1].freeze] }.freeze
    # Every name we may instrument, once each.
    ALL = NAMES.values.uniq.freeze

    class << self
      # The notification name of +event+ (a Hash with +:type+), or nil for an unknown type.
      def name_of(event)
        NAMES[event[:type].to_s]
      end

      # Instruments +event+ through ActiveSupport::Notifications when it is loaded and someone
      # listens to its name; returns whether it did. The payload is a copy: a subscriber that
      # changes it changes nothing of ours.
      def instrument(event)
        return false unless defined?(::ActiveSupport::Notifications)

        name = name_of(event)
        return false unless name && ::ActiveSupport::Notifications.notifier.listening?(name)

        ::ActiveSupport::Notifications.instrument(name, event.dup)
        true
      end
    end
  end

  class Fleet
    # {#metrics} as Prometheus text (exposition format 0.0.4), for a +/metrics+ page:
    # +retry_core_calls_total+, +retry_core_retries_total+,
    # +retry_core_retry_delay_seconds_total+, +retry_core_gave_up_total+... labelled by +key+
    # and +category+, with HELP and TYPE lines. At most +max_keys+ keys (the busiest) are
    # written; +retry_core_metrics_keys_omitted+ counts the rest. Names and rendering are the
    # core's (core/src/observe/prometheus.rs).
    #
    # @param max_keys [Integer] the bound on keys written (default 1000)
    # @return [String]
    def prometheus_text(max_keys: Native::PROMETHEUS_DEFAULT_MAX_KEYS)
      unless max_keys.is_a?(Integer) && max_keys >= 0
        raise ArgumentError, "max_keys must be an Integer >= 0, not #{max_keys.inspect}"
      end

      _prometheus_text(max_keys)
    end
  end
end
