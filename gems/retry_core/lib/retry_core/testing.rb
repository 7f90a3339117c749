# frozen_string_literal: true

module RetryCore
  # The testing switch: +RetryCore.testing!+ turns every wait of retry-core into a step of a
  # virtual clock that the fleets share, fixes the jitter seed of every call given none, and
  # records what the calls decided. The clock, the seed and the record live in the core (core
  # +testing.rs+); this module flips the switch and reads the record.
  #
  #   recorder = RetryCore.testing!(seed: 0)   # on until RetryCore.live!
  #   RetryCore.testing! { |rec| ... }         # on for the block
  #
  # Stubbing +sleep+ instead leaves a fleet on the real clock, whose gate answers "wait" again
  # and again: the core notices and raises {InvalidStateError} naming this switch. Process-wide,
  # like a fleet: every thread's calls wait on the one virtual clock; switches nest.
  module Testing
    DECISIONS = %w[llm_retry_attempt llm_retry_exhausted llm_request_failed].freeze

    # What the calls did while the switch was on: a view of the core's record (every thread's
    # calls are in it, at most the last 100,000 events).
    class Recorder
      # @return [Integer] the jitter seed of every call given none
      attr_reader :seed

      def initialize(seed)
        @seed = seed
      end

      # @return [Array<Hash>] every event since the switch went on, as +on_event+ gets them
      def events
        Testing._events
      end

      # @return [Array<Hash>] the events of one type (+"llm_retry_attempt"+, ...)
      def of(type)
        type = type.to_s
        events.select { |e| e[:type] == type }
      end

      # @return [Array<Hash>] the events that decided about a failed call
      def decisions
        events.select { |e| DECISIONS.include?(e[:type]) }
      end

      # @return [Array<Array(Float, Symbol)>] each wait's seconds and reason (+:backoff+,
      #   +:retry_after+, +:fleet_pause+, +:circuit_open+, +:admission+)
      def waits
        of(:retry_wait_started).map { |e| [e[:seconds], e[:reason].to_sym] }
      end

      # @return [Float] virtual seconds since the switch went on
      def elapsed
        Testing._elapsed || 0.0
      end

      # @return [Float] the virtual wall clock (Unix seconds) the fleets read
      def now
        Testing._now || 0.0
      end

      # Lets +seconds+ of virtual time pass (a pause or an open circuit may end).
      def advance(seconds)
        raise ArgumentError, "seconds must be a number >= 0, got #{seconds.inspect}" unless seconds.is_a?(Numeric) && seconds.real? && seconds >= 0

        Testing._sleep(seconds.to_f)
        nil
      end

      def inspect
        "#<RetryCore::Testing::Recorder seed=#{seed} elapsed=#{elapsed} events=#{events.size}>"
      end
    end

    # A front door's wait: a step of the virtual clock when the switch is on (true), else false
    # (the door sleeps for real).
    def self.sleep(seconds)
      _sleep(seconds.to_f)
    end

    # Monotonic seconds: virtual while the switch is on.
    def self.monotonic
      _now || Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # Unix seconds: virtual while the switch is on.
    def self.wall_clock
      _now || Process.clock_gettime(Process::CLOCK_REALTIME)
    end

    # Minitest: +include RetryCore::Testing::Minitest+ in a test class turns the switch on
    # around each test; +retry_core+ is its {Recorder}. Override +retry_core_seed+ to change
    # the seed (0).
    module Minitest
      # @return [Recorder]
      attr_reader :retry_core

      def retry_core_seed
        0
      end

      def setup
        super
        @retry_core = RetryCore.testing!(seed: retry_core_seed)
      end

      def teardown
        RetryCore.live! if @retry_core
        @retry_core = nil
        super
      end
    end
  end

  class << self
    # Turns the testing switch on (see {Testing}). With a block: on for the block only, which
    # gets the {Testing::Recorder}; its value is returned. Without: on until {live!}.
    # @param seed [Integer] the jitter seed of every call given none
    # @return [Testing::Recorder, Object]
    def testing!(seed: 0)
      raise ArgumentError, "seed must be an Integer in 0...2**64, got #{seed.inspect}" unless seed.is_a?(Integer) && seed >= 0 && seed < 2**64

      Testing._on(seed)
      recorder = Testing::Recorder.new(seed)
      return recorder unless block_given?

      begin
        yield recorder
      ensure
        Testing._off
      end
    end

    # Turns one level of the testing switch off: real time again when none is left.
    def live!
      Testing._off
      nil
    end
  end
end
