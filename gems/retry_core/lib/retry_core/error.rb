# frozen_string_literal: true

module RetryCore
  # The base class of every error retry-core raises itself (never of the errors it retries:
  # those are re-raised untouched). Each error has a stable snake_case {#code}, the same in the
  # Rust crate and the Python package.
  #
  # Errors about bad input are also +ArgumentError+s (so +rescue ArgumentError+ catches them),
  # while +rescue RetryCore::Error+ and +is_a?(RetryCore::Error)+ still see them: see {BadInput}.
  class Error < StandardError
    CODE = "error"

    # Messages can quote the input (an unknown key, a bad value): secrets are scrubbed from
    # every one, as from every other text the engine produces.
    def initialize(message = nil)
      super(RetryCore::Error.scrubbed(message))
    end

    # @api private
    def self.scrubbed(message)
      return message unless message.is_a?(String) && RetryCore.respond_to?(:_scrub)

      RetryCore._scrub(message)
    end

    # @return [String] the stable error code (+invalid_policy+, +internal+, ...)
    def code
      self.class::CODE
    end

    # +rescue RetryCore::Error+ also catches the ArgumentError-based bad-input errors.
    def self.===(other)
      super || (equal?(Error) && other.is_a?(BadInput))
    end
  end

  # Mixed into the bad-input errors: they subclass +ArgumentError+ and still count as
  # {RetryCore::Error}.
  module BadInput
    def initialize(message = nil)
      super(RetryCore::Error.scrubbed(message))
    end

    def is_a?(klass)
      klass.equal?(RetryCore::Error) || super
    end
    alias kind_of? is_a?

    def code
      self.class::CODE
    end
  end

  # A value of the right type but the wrong shape (a status of 70000, a message that is not
  # a message). Wrong types raise Ruby's own +TypeError+.
  class InvalidArgumentError < ArgumentError
    include BadInput
    CODE = "invalid_argument"
  end

  # A policy that cannot mean anything (a negative delay, an unknown preset or key).
  class InvalidPolicyError < ArgumentError
    include BadInput
    CODE = "invalid_policy"
  end

  # Text that should be JSON and is not.
  class InvalidJsonError < ArgumentError
    include BadInput
    CODE = "invalid_json"
  end

  # A call out of order (a recovery reported that nobody asked for, a retrier used from two
  # places at once).
  class InvalidStateError < Error
    CODE = "invalid_state"
  end

  # A bug in retry-core: a Rust panic caught at the boundary. Please report it.
  class InternalError < Error
    CODE = "internal"
  end
end
