# frozen_string_literal: true

require "json"

module RetryCore
  # A stream ended without its finish or stop reason (or with one that reports a failure): half
  # an answer. The engine classifies it as +stream_interrupted+ (its class name is in the core's
  # table, core/src/stream_end.rs), so +call_llm_with_retry+ asks for the whole stream again.
  class StreamIncomplete < StandardError
    # @return [String, nil] the stream's API (+openai+, +anthropic+, ...), nil when nothing told
    attr_reader :api
    # @return [String, nil] the last reason the stream carried, nil when none came
    attr_reader :reason
    # @return [Integer] how many events or chunks it delivered before it ended
    attr_reader :events

    def initialize(message = "stream ended without a stop reason", api: nil, reason: nil, events: 0)
      super(message)
      @api = api
      @reason = reason
      @events = events
    end
  end

  # A stream carried an SSE +error+ event (Anthropic's +event: error+, OpenAI's or Gemini's
  # +{"error": ...}+ data): the engine classifies it by its payload (+error.type+, CONTRACT §6),
  # as it classifies any answer's body, so +overloaded_error+ is retried and
  # +invalid_request_error+ or +authentication_error+ is not. +#response+ is the shape
  # {Failure.from_exception} reads: the stream's 200 status and the event's data as the body.
  class StreamError < StandardError
    # @return [Hash] +{status: 200, headers: {}, body: data}+
    attr_reader :response
    # @return [String] the event's data
    attr_reader :data

    def initialize(message, data)
      super(message)
      @data = data
      @response = { status: 200, headers: {}, body: data }.freeze
    end
  end

  # Honest streams: helpers that read the stop reasons a stream carries and raise
  # {StreamIncomplete} at its end when none came. Which reasons end a stream is the core's table
  # ({APIS}); these only read them off the payloads.
  #
  #   text = RetryCore.call_llm_with_retry(policy: :default) do
  #     out = +""
  #     http.request(post) do |response|
  #       RetryCore::Streams.each_event(response.enum_for(:read_body)) do |data|
  #         out << data.dig("choices", 0, "delta", "content").to_s
  #       end
  #     end
  #     out
  #   end
  module Streams
    # +{"openai" => [field, [reasons that end a stream], [reasons that report a failure]], ...}+
    APIS = RetryCore::STREAM_APIS.transform_values { |row| row.map(&:freeze).freeze }.freeze

    module_function

    # Raises {StreamIncomplete} unless +reason+ ends a stream of +api+ properly (+"any"+ when
    # the provider is not known). An unknown +api+ is a {RetryCore::InvalidArgumentError}.
    # @return [nil]
    def check!(api, reason, events: 0)
      reason = reason.to_s unless reason.nil?
      message = RetryCore._stream_incomplete(api.to_s, reason)
      raise StreamIncomplete.new(message, api: api.to_s, reason: reason, events: events) if message

      nil
    end

    # Checks a streamed RubyLLM reply (the Message +chat.ask(...) { |chunk| ... }+ returns):
    # RubyLLM keeps the provider's last +finish_reason+ on it (its StreamAccumulator, RubyLLM
    # main after 1.16.0). RubyLLM 1.9 to 1.16 drop the reason: a clear error says so, since
    # no check is possible there (read the SSE with {each_event} instead).
    # @return [Object] the message
    def ruby_llm!(message, api: "any")
      unless message.respond_to?(:finish_reason)
        raise RetryCore::InvalidArgumentError,
              "#{message.class} has no finish_reason (RubyLLM 1.16 and older drop it): " \
              "read the stream with RetryCore::Streams.each_event, or use a RubyLLM that keeps it"
      end

      check!(api, message.finish_reason)
      message
    end

    # Yields each SSE event's decoded +data+ (a Hash; +[DONE]+ and comments are skipped) and the
    # event's name, from +chunks+ (anything with +each+ yielding Strings: +response.read_body+,
    # Faraday's +on_data+ chunks collected, an Array). An +error+ event raises {StreamError},
    # classified by the engine from its payload. At the end, raises {StreamIncomplete} unless a
    # stop reason ended the stream. Breaking out of the block raises nothing.
    # @return [Integer] the number of events
    def each_event(chunks, api: nil)
      watch = Watch.new(api)
      parser = SSE.new
      emit = lambda do |name, data|
        next if data == "[DONE]"

        payload = JSON.parse(data) # bad data: JSON::ParserError, as the caller's own parse would
        watch.see_data(name, data)
        yield payload, name if block_given?
      end
      chunks.each { |chunk| parser.feed(chunk, &emit) }
      parser.finish(&emit)
      watch.finish!
      watch.events
    end

    # Reads the stop reasons off decoded payloads (Hashes, as JSON.parse gives them), raw SSE
    # data, or chunks that answer +finish_reason+ (RubyLLM's). Which field of which event
    # carries the reason, and how several choices combine, is the core's rule
    # (core/src/stream_end.rs, +Watch+); this class only hands the events over.
    class Watch
      def initialize(api = nil)
        @native = RetryCore::StreamWatch._new(api&.to_s) # an unknown API raises
      end

      # @return [String, nil] the stream's API, once an event (or the caller) named it
      def api
        @native.api
      end

      # @return [Integer] the events seen
      def events
        @native.events
      end

      # One decoded event (a Hash), or a chunk that answers +finish_reason+. An error event
      # raises {StreamError}.
      def see(item)
        return @native._saw("any", 0, item.finish_reason) if !item.is_a?(Hash) && item.respond_to?(:finish_reason)

        message, data = @native._see(item)
        raise StreamError.new(message, data) if message

        nil
      end

      # One SSE event's raw data (JSON text) and its event name: the core parses it. An error
      # event raises {StreamError}.
      def see_data(name, data)
        message = @native._see_data(name, data)
        raise StreamError.new(message, data) if message

        nil
      end

      # Raises {StreamIncomplete} unless the stream ended properly.
      def finish!
        message, api, reason = @native._finish
        raise StreamIncomplete.new(message, api: api, reason: reason, events: events) if message

        nil
      end
    end

    # A server-sent events parser (the WHATWG rules this needs): lines end in LF, CRLF or CR;
    # +data:+ lines join with "\n"; a blank line ends an event; +:+ starts a comment. Bytes are
    # buffered until a line ends, so a UTF-8 character split across chunks is whole when it is
    # read, and a CR at a chunk's end waits for a possible LF.
    class SSE
      # The longest line kept waiting for its end: a server that never ends one cannot grow memory.
      MAX_LINE = 1 << 20

      def initialize
        @buffer = +"".b
        @data = []
        @name = nil
      end

      # Feeds bytes; yields +(event_name, data)+ for each complete event.
      def feed(chunk, &block)
        @buffer << chunk.b
        while (i = @buffer.index(/\r\n|\n|\r/n))
          eol = @buffer[i] == "\r" && @buffer[i + 1] == "\n" ? 2 : 1
          break if @buffer[i] == "\r" && i + 1 == @buffer.bytesize # a CR that may precede an LF

          line = @buffer.byteslice(0, i).force_encoding(Encoding::UTF_8)
          @buffer = @buffer.byteslice(i + eol, @buffer.bytesize) || +"".b
          take_line(line.valid_encoding? ? line : line.scrub, &block)
        end
        raise StreamIncomplete, "an SSE line longer than #{MAX_LINE} bytes" if @buffer.bytesize > MAX_LINE
      end

      # The stream's end: a last event not followed by a blank line is dispatched too.
      def finish(&block)
        take_line(@buffer.force_encoding(Encoding::UTF_8).scrub, &block) unless @buffer.empty?
        @buffer = +"".b
        dispatch(&block)
      end

      private

      def take_line(text, &block)
        return dispatch(&block) if text.empty?
        return if text.start_with?(":")

        field, value = text.split(":", 2)
        value = value.to_s.delete_prefix(" ")
        case field
        when "data" then @data << value
        when "event" then @name = value
        end
      end

      def dispatch
        yield @name || "message", @data.join("\n") unless @data.empty?
        @data = []
        @name = nil
      end
    end
  end
end
