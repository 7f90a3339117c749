# frozen_string_literal: true

module RetryCore
  # The failure record (CONTRACT §1): a language-neutral description of one failed call.
  # Every field is optional except the message.
  #
  #   RetryCore::Failure.new(status: 429, headers: { "retry-after" => "7" }, message: "Rate limit")
  #   RetryCore::Failure.from_exception(error)   # RubyLLM, Faraday, Net::HTTP, Errno, ...
  class Failure
    # @param status [Integer, nil] HTTP status (100..599)
    # @param headers [Hash, nil] response headers (names case-insensitive; Array values are joined)
    # @param body [String, Hash, Array, nil] raw body, or a parsed JSON body
    # @param error_class [Array<String>, Class, String, nil] the class chain, most specific first
    # @param message [String] the exception's message
    # @param transport [Symbol, String, nil] +:timeout+, +:connect+, +:stream_transient+,
    #   +:stream_parse+, +:json+ or +:other+
    # @raise [TypeError, RetryCore::InvalidArgumentError] on bad input
    def self.new(status: nil, headers: nil, body: nil, error_class: nil, message: "", transport: nil)
      _new(status, headers, body, error_class, message, transport)
    end

    # The record of a live exception: its class chain and those of its causes (concatenated,
    # outermost first), the status, headers and body of the first exception along the +#cause+
    # chain that has a response (RubyLLM's +error.response+, Faraday's response Hash, the
    # Net::HTTPResponse of Net::HTTP's +res.value+ errors, +response_status+ / +status_code+ /
    # +status+), and the outer message. An +Interrupt+ (any non-StandardError) raised while the
    # exception is read is passed on.
    #
    # @param error [Exception]
    # @return [Failure]
    def self.from_exception(error)
      _from_exception(error)
    end

    # @param json [String] a failure record as JSON (the shared vectors' shape)
    # @raise [RetryCore::InvalidJsonError]
    def self.from_json(json)
      raise TypeError, "expected a String of JSON, got #{json.class}" unless json.is_a?(String)

      _from_json(json)
    end

    # @param hash [Hash] a failure record as a Hash (String or Symbol keys)
    def self.from_h(hash)
      raise TypeError, "expected a Hash, got #{hash.class}" unless hash.is_a?(Hash)

      h = hash.transform_keys(&:to_sym)
      unknown = h.keys - %i[status headers body error_class message transport]
      raise InvalidArgumentError, "unknown failure keys: #{unknown.join(", ")}" unless unknown.empty?

      new(**h.merge(message: h[:message] || ""))
    end

    # A failure, given a failure or an exception.
    # @api private
    def self.coerce(value)
      case value
      when Failure then value
      when Exception then from_exception(value)
      when Hash then from_h(value)
      else raise TypeError, "expected an Exception or a RetryCore::Failure, got #{value.class}"
      end
    end

    # @return [Hash] the record (Symbol keys)
    def to_h
      { status: status, headers: headers, body: body, error_class: error_class, message: message,
        transport: transport }
    end

    def to_json(*_args)
      _to_json
    end

    def ==(other)
      other.is_a?(Failure) && to_h == other.to_h
    end
    alias eql? ==

    def hash
      to_h.hash
    end

    # The message is shown with its secrets scrubbed (an inspect ends up in logs and in
    # exception texts); #message itself is the record's, unchanged.
    def inspect
      "#<RetryCore::Failure status=#{status.inspect} error_class=#{error_class.first.inspect} " \
        "message=#{RetryCore.scrub(message).inspect}>"
    end
  end
end
