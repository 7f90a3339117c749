# frozen_string_literal: true

require "json"

module RetryCore
  # Fleet resilience: what one agent's retries do to everyone else. One fleet is shared by
  # every call of a process (or, with +redis_url:+, of every process that uses the same Redis)
  # and keyed by provider and model:
  #
  # - a retry budget per key (AWS SDK standard mode): retries spend tokens, successes earn them
  #   back; an empty bucket stops retries (+retry_budget_exhausted+) instead of multiplying load;
  # - a circuit breaker per key: after consecutive transient failures (or a failure rate) it
  #   opens (+circuit_opened+) and callers wait instead of calling; one probe then goes through
  #   and its success closes it for everyone (+circuit_closed+);
  # - a shared pause: a 429/529 with +retry-after+ pauses every caller of the key
  #   (+rate_limit_pause+);
  # - with Redis, if the server goes away, calls fall back to local state at once
  #   (+fleet_backend_degraded+) and go back when it answers (+fleet_backend_recovered+).
  #
  #   fleet = RetryCore::Fleet.new(budget: { capacity: 500 }, breaker: { open_s: 5 })
  #   RetryCore.call_llm_with_retry(policy: :default, fleet: fleet, key: "anthropic:claude-sonnet-4") { chat.complete }
  #   fleet.metrics  # => {"anthropic:claude-sonnet-4" => {"total" => {calls: 1, successes: 1, ...}, ...}}
  #
  # The keywords are those of the Rust crate's +FleetConfig+: +budget:+ (+capacity+,
  # +retry_cost+, +timeout_cost+, +success_refund+), +breaker:+ (+consecutive_failures+,
  # +failure_rate+, +min_calls+, +window_s+, +open_s+, +max_open_s+, +probe_timeout_s+), +shared_pause:+,
  # +max_pause_s:+, +redis_url:+, +namespace:+, +redis_timeout_s:+ (0.25: each Redis operation,
  # every read of its replies included), +key_idle_ttl_s:+ (600: a key unused that long is
  # forgotten, never while its pause or open circuit lasts) and +max_keys:+ (100_000 keys held
  # at most, the least recently used forgotten first). An absent section keeps its defaults;
  # +nil+ or +false+ switches the mechanism off.
  #
  # +admission:+ paces calls under the provider's rate limits instead of retrying after the
  # 429: +:headers+ learns them from every response's rate-limit headers (OpenAI, Azure,
  # Anthropic, the IETF +RateLimit+ drafts), +:adaptive+ from throttles alone (the AWS SDKs'
  # CUBIC), and <tt>{ mode: :static, limits: { requests:, tokens:, input_tokens:,
  # output_tokens: }, window_s: 60 }</tt> takes them by hand; +:off+, +nil+ or +false+ (the
  # default) costs nothing. Calls wait their turn, spread evenly through the window
  # (+admission_wait+, +limits_learned+; +metrics+ gains an +admission+ entry per key). Each
  # call counts as one request of no tokens unless given an estimate
  # (+RetryCore.call_llm_with_retry(estimate: ...)+, or SwarmSDK's per-agent +max_tokens:+).
  class Fleet
    # Sections that +nil+ / +false+ switch off.
    SECTIONS = %w[budget breaker].freeze

    # @param config [Hash] the configuration (Symbol or String keys)
    # @raise [RetryCore::InvalidPolicyError] for an unknown key or a bad value
    # @raise [TypeError] for a value of the wrong type
    def self.new(**config)
      from_config(config)
    end

    # A fleet from a YAML (+.yml+, +.yaml+) or JSON file. The document is the configuration
    # itself, or a Hash whose +fleet+ key holds it (a section of a larger file).
    #
    # @param path [String, Pathname]
    # @raise [RetryCore::InvalidPolicyError] when the file is not a valid configuration
    def self.from_file(path)
      path = path.to_path if path.respond_to?(:to_path)
      raise TypeError, "path must be a String or a Pathname, not #{path.class}" unless path.is_a?(String)
      raise ArgumentError, "path must be in an ASCII-compatible encoding, not #{path.encoding}" unless path.encoding.ascii_compatible?

      require "psych"
      text = File.read(path)
      doc = begin
        if File.extname(path).casecmp?(".json")
          JSON.parse(text)
        else
          Psych.safe_load(text, permitted_classes: [Symbol], aliases: false, filename: path)
        end
      rescue JSON::ParserError, Psych::Exception => e
        raise InvalidPolicyError, "#{path} is not a fleet configuration: #{RetryCore.scrub(e.message.lines.first.to_s.strip)}"
      end
      doc = doc["fleet"] || doc[:fleet] if doc.is_a?(Hash) && doc.size == 1 && (doc.key?("fleet") || doc.key?(:fleet))
      raise InvalidPolicyError, "#{path} must hold a Hash (a fleet configuration), not #{doc.class}" unless doc.is_a?(Hash)

      from_config(doc)
    end

    # @param config [Hash, String] a configuration Hash, or its JSON text
    def self.from_config(config)
      json = case config
             when String then config
             when Hash then Config.generate(off_switches(config))
             else raise TypeError, "a fleet configuration is a Hash or JSON text, not #{config.class}"
             end
      _new(json)
    end

    # One fleet per distinct configuration, for the whole process: agent definitions that give
    # a fleet as a Hash (YAML cannot hold a Fleet object) share one fleet when their
    # configurations are equal.
    #
    # @param config [Hash]
    # @return [Fleet]
    def self.shared(config)
      raise TypeError, "a fleet configuration is a Hash, not #{config.class}" unless config.is_a?(Hash)

      json = Config.generate(off_switches(config))
      SHARED_LOCK.synchronize { SHARED[json] ||= _new(json) }
    end

    SHARED = {} # rubocop:disable Style/MutableConstant -- the registry of shared fleets
    SHARED_LOCK = Mutex.new
    private_constant :SHARED, :SHARED_LOCK

    def self.off_switches(config)
      config.to_h { |k, v| [k, (k.is_a?(String) || k.is_a?(Symbol)) && SECTIONS.include?(k.to_s) && v == false ? nil : v] }
    end
    private_class_method :off_switches

    # @return [Hash] the configuration with every default filled in (String keys)
    def config
      JSON.parse(_config_json)
    end

    # The retry budget's tokens left for +key+ (nil when the fleet has no budget).
    # @param key [String, Symbol]
    # @return [Float, nil]
    def tokens(key)
      _tokens(Fleet.key!(key))
    end

    # A key as the engine takes it: a non-empty String (a Symbol is accepted).
    # @api private
    def self.key!(key)
      key = key.to_s if key.is_a?(Symbol)
      raise TypeError, "a fleet key is a String such as \"openai:gpt-4o\", not #{key.class}" unless key.is_a?(String)
      raise InvalidArgumentError, "a fleet key must not be empty" if key.empty?

      key
    end

    def inspect
      "#<RetryCore::Fleet backend=#{backend}>"
    end
  end

  # Fork safety for Redis fleets: +fork+ copies only the forking thread, so a lock that another
  # thread holds at that moment (it was talking to Redis, without the GVL) would stay held for
  # ever in the child. +Process._fork+ (Ruby 3.1+, called by every +fork+) first waits, holding
  # the GVL, until no such call is under way (each is bounded by the backend's timeouts).
  # @api private
  module ForkSafety
    def _fork
      RetryCore::Fleet._before_fork
      super
    end
  end

  Process.singleton_class.prepend(ForkSafety) if Process.respond_to?(:_fork)
end
