# frozen_string_literal: true

require "json"

module RetryCore
  # A retry policy (CONTRACT §3). Build one from a preset name, from a configuration Hash (the
  # keys of the Rust crate's +RetryPolicy::from_config+: +preset+, +max_attempts+ or
  # +max_retries+, +backoff+, +jitter+, +honor_retry_after+, +retry_after_cap+, +deadline+,
  # +retry_unknown+, +overrides+, ...), or SwarmSDK's two numbers.
  #
  #   RetryCore::Policy.preset(:forgeflare)
  #   RetryCore::Policy.new(preset: "default", max_attempts: 3, jitter: "equal")
  #   RetryCore::Policy.swarm_sdk(max_retries: 3, delay: 15)
  class Policy
    # The preset names, the same in all three languages.
    # PRESETS = ["default", "swarm_sdk", "swarm_sdk_legacy", "forgeflare", "llm_executor"] (native)

    # @param config [Hash] a configuration map
    # @raise [RetryCore::InvalidPolicyError]
    def self.new(**config)
      from_config(config)
    end

    # @param name [String, Symbol] one of {PRESETS}
    # @raise [RetryCore::InvalidPolicyError] for an unknown name
    def self.preset(name)
      raise TypeError, "a preset name is a String or a Symbol, not #{name.class}" unless name.is_a?(String) || name.is_a?(Symbol)

      # Policies are immutable: each preset is built once (the success path of
      # call_llm_with_retry resolves its policy on every call).
      BUILT[name] || (BUILT[name] = _preset(name.to_s))
    end
    BUILT = {} # rubocop:disable Style/MutableConstant -- the cache above
    private_constant :BUILT

    # @param config [Hash, String] a configuration map, or its JSON text
    # @raise [RetryCore::InvalidPolicyError]
    def self.from_config(config)
      json = case config
             when String then config
             when Hash then Config.generate(config)
             else raise TypeError, "a policy configuration is a Hash or JSON text, not #{config.class}"
             end
      _from_config(json)
    end

    # SwarmSDK's +call_llm_with_retry(max_retries:, delay:)+: +max_retries+ counts every call
    # (3 means 3 calls), a fixed +delay+ in seconds.
    def self.swarm_sdk(max_retries: SWARM_SDK_MAX_RETRIES, delay: SWARM_SDK_DELAY)
      check_swarm_args(max_retries, delay)
      _swarm_sdk(max_retries.clamp(-1, 2**62), delay.to_f)
    end

    # The policy of a +call_llm_with_retry+ from its arguments: the core decides (+:default+
    # with nothing given, SwarmSDK's loop for +max_retries:+ / +delay:+ alone, an
    # InvalidArgumentError for both); Ruby only checks the types.
    # @api private
    def self._for_call_args(policy, max_retries, delay)
      # A preset alone (or nothing), the usual call, is cached by itself: an Array key costs an
      # allocation and a recursive hash and eql? at each call (about 4 000 instructions, callgrind).
      key = max_retries.nil? && delay.nil? ? policy : [policy, max_retries, delay]
      plain = (policy.nil? || policy.is_a?(Symbol)) && (max_retries.nil? || max_retries.is_a?(Integer)) &&
              (delay.nil? || delay.is_a?(Integer) || delay.is_a?(Float))
      cached = plain && FOR_CALL[key]
      return cached if cached

      check_swarm_args(max_retries, delay, optional: true)
      native = _for_call(policy.nil? ? nil : coerce(policy), max_retries&.clamp(-1, 2**62), delay&.to_f)
      FOR_CALL_LOCK.synchronize { FOR_CALL[key.freeze] = native if FOR_CALL.size < 64 } if plain
      native
    end
    # The core's answers for the usual arguments (nil or a preset Symbol, plain numbers).
    FOR_CALL = {} # rubocop:disable Style/MutableConstant
    FOR_CALL_LOCK = Mutex.new
    private_constant :FOR_CALL, :FOR_CALL_LOCK

    # @api private
    def self.check_swarm_args(max_retries, delay, optional: false)
      unless (optional && max_retries.nil?) || max_retries.is_a?(Integer)
        raise TypeError, "max_retries must be an Integer, not #{max_retries.class}"
      end
      return if (optional && delay.nil?) || (delay.is_a?(Numeric) && delay.real?)

      raise TypeError, "delay must be a number of seconds, not #{delay.class}"
    end
    private_class_method :check_swarm_args

    # A policy from any accepted form: a Policy, a preset name, or a configuration Hash.
    # @api private
    def self.coerce(value)
      case value
      when Policy then value
      when String, Symbol then preset(value)
      when Hash then from_config(value)
      else raise TypeError, "policy: takes a preset name, a Hash or a RetryCore::Policy, not #{value.class}"
      end
    end

    # @return [Hash] the full configuration (round-trips through {Policy.from_config})
    def to_h
      JSON.parse(to_config)
    end

    def ==(other)
      other.is_a?(Policy) && _eq(other)
    end

    def inspect
      "#<RetryCore::Policy #{name} max_attempts=#{max_attempts}>"
    end
  end

  # Configuration Hashes (of a policy, of a fleet) as the JSON text the engine reads.
  # @api private
  module Config
    # No configuration is nested deeper than this; deeper input is refused before it is walked.
    MAX_DEPTH = 32

    module_function

    # Symbols (as values or keys) become Strings, so that +jitter: :full+ works. Input that
    # cannot be a configuration (nested deeper than {MAX_DEPTH}, text that is not UTF-8, NaN)
    # is an InvalidPolicyError, not a JSON or stack error; a value JSON has no type for (an
    # Object, a Proc, a Rational) is a TypeError.
    def generate(config)
      JSON.generate(stringify(config, 0))
    rescue JSON::JSONError, EncodingError => e
      raise InvalidPolicyError, "not a valid configuration: #{RetryCore.scrub(e.message.lines.first.to_s.strip)}"
    end

    def stringify(value, depth)
      if depth > MAX_DEPTH && (value.is_a?(Hash) || value.is_a?(Array))
        raise InvalidPolicyError, "a configuration is never nested deeper than #{MAX_DEPTH} levels"
      end

      case value
      when Hash then value.to_h { |k, v| [key(k), stringify(v, depth + 1)] }
      when Array then value.map { |v| stringify(v, depth + 1) }
      when Symbol then value.to_s
      when String, Integer, Float, true, false, nil then value
      else raise TypeError, "a configuration value is a String, a number, true/false, nil, an Array or a Hash, not #{value.class}"
      end
    end

    def key(name)
      case name
      when String then name
      when Symbol then name.to_s
      else raise TypeError, "a configuration key is a String or a Symbol, not #{name.class}"
      end
    end
  end
end
