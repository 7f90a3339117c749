# frozen_string_literal: true

require "faraday"
require "retry_core"

module RetryCore
  # A Faraday middleware that retries each request as the core's run decides
  # ({RetryCore.call_llm_with_retry}'s loop: no loop of its own). POST is retried like any
  # method (every LLM call is a POST), and +Retry-After+ is honoured within the policy: a wait
  # the policy cannot afford gives up with the answer, it is not cut short.
  #
  #   conn = Faraday.new(url: "https://api.openai.com") do |f|
  #     f.request :json
  #     f.use RetryCore::FaradayMiddleware, policy: :default
  #     f.adapter Faraday.default_adapter
  #   end
  #
  # - An answer with a status of 400 or more is a failure: its status, headers and body (the
  #   first +max_body+ bytes) go to the engine. An adapter's exception (a refused connection,
  #   a timeout, a +Faraday::Error+ of a +raise_error+ middleware placed after this one) is
  #   read as any exception is.
  # - A failure the engine retries is dropped and the request is sent again with the same body.
  #   When the engine gives up, or the failure is not one to retry, the caller gets the last
  #   answer itself (or its exception), with the verdict on +env[:retry_core]+ (+decision+,
  #   +note+).
  # - A request whose body is an IO (a streamed upload) cannot be sent twice: it is sent once.
  # - A request streamed with +on_data+ is held until its first SSE event: an +error+ event there
  #   fails the attempt (no byte has reached the caller's block); once a byte has gone to the
  #   block, nothing in the stream is retried.
  #
  # Options: +policy+, +max_retries+, +delay+, +on_event+, +fleet+ and +key+, +on_progress+,
  # +logger+ (those of {RetryCore.call_llm_with_retry} that act per request, checked when the
  # connection is built), and +max_body+. Works with Faraday 1.x and 2.x.
  class FaradayMiddleware < ::Faraday::Middleware
    # Bytes of a failed answer's body read for the engine.
    DEFAULT_MAX_BODY = 64 * 1024
    OPTIONS = %i[policy max_retries delay on_event fleet key on_progress logger].freeze

    # One failed answer as the engine reads it (Faraday::Error's +#response+ Hash shape); never
    # raised to the caller, who gets the answer itself (+#answer+) when the engine gives up.
    class ResponseFailure < StandardError
      attr_reader :response, :answer, :gate

      def initialize(message, response, answer, gate)
        super(message)
        @response = response
        @answer = answer
        @gate = gate
      end
    end

    def initialize(app = nil, options = nil, **kwargs)
      super(app)
      options = (options || {}).transform_keys(&:to_sym).merge(kwargs)
      max_body = options.delete(:max_body) || DEFAULT_MAX_BODY
      unless max_body.is_a?(Integer) && max_body.positive?
        raise ArgumentError, "max_body: must be a positive Integer (bytes), got #{max_body.inspect}"
      end

      unknown = options.keys - OPTIONS
      raise ArgumentError, "unknown option(s) for RetryCore::FaradayMiddleware: #{unknown.join(", ")}" unless unknown.empty?

      # Checked now, once: a misspelt preset fails when the connection is built.
      policy = Policy._for_call_args(options.delete(:policy), options.delete(:max_retries), options.delete(:delay))
      @options = options.merge(policy: policy)
      @max_body = max_body
    end

    def call(env)
      body = env.body
      return @app.call(env) if body.respond_to?(:read)

      on_data = env.request.respond_to?(:on_data) ? env.request.on_data : nil
      begin
        RetryCore.call_llm_with_retry(**@options) do
          env.body = body
          attempt(env, on_data)
        end
      rescue ResponseFailure => e
        env[:retry_core] = { decision: e.respond_to?(:retry_decision) ? e.retry_decision : nil,
                             note: e.respond_to?(:retry_note) ? e.retry_note : nil }
        e.gate&.release
        e.answer
      ensure
        env.request.on_data = on_data if on_data
      end
    end

    private

    def attempt(env, on_data)
      gate = on_data && FirstEvent.new(on_data, @max_body)
      env.request.on_data = gate.to_proc if gate
      response = @app.call(env)
      return response if gate&.passed? # a byte went to the caller's block: never retried

      raise failure(response, gate, gate ? gate.held : response.body) if response.status.to_i >= 400

      payload = gate ? gate.error : buffered_stream_error(response)
      raise failure(response, gate, payload, "stream error event before the first byte") if payload

      gate&.release
      response
    end

    # The first event's error payload of an SSE answer Faraday buffered whole, or nil.
    def buffered_stream_error(response)
      type = response.headers["content-type"].to_s
      body = response.body
      return nil unless body.is_a?(String) && type.downcase.start_with?("text/event-stream")

      FirstEvent.error_payload(body.byteslice(0, @max_body))
    end

    def failure(response, gate, body, message = "HTTP #{response.status}")
      body = body.byteslice(0, @max_body) if body.is_a?(String)
      ResponseFailure.new(message, { status: response.status, headers: response.headers, body: body }, response, gate)
    end

    # Holds a streamed answer's bytes (+on_data+) until its first SSE event has arrived (or
    # +limit+ bytes), then hands them and every later chunk to the caller's block; an +error+
    # event first is kept as +#error+ and nothing is handed on (the attempt fails). Faraday 1.x
    # gives the block (chunk, size), 2.x (chunk, size, env); the caller's block gets what its
    # arity takes.
    class FirstEvent
      attr_reader :held, :error

      def initialize(block, limit)
        @block = block
        @limit = limit
        @held = +""
        @size = nil
        @env = nil
        @passed = false
        @error = nil
      end

      def passed?
        @passed
      end

      def to_proc
        method(:call).to_proc
      end

      def call(chunk, size = nil, env = nil)
        return forward(chunk, size, env) if @passed

        @held << chunk
        @size = size
        @env ||= env
        return if @error || (@held.bytesize < @limit && !FirstEvent.event_end(@held))

        @error = FirstEvent.error_payload(@held)
        release unless @error
      end

      # What is held goes to the block, and from now on every chunk as it comes.
      def release
        return if @passed

        @passed = true
        forward(@held, @size || @held.bytesize, @env) unless @held.empty?
      end

      private

      def forward(chunk, size, env)
        case @block.arity
        when 1 then @block.call(chunk)
        when 2 then @block.call(chunk, size)
        else @block.call(chunk, size, env)
        end
      end

      public

      # Whether the first SSE event has arrived whole (core +middleware::first_event+).
      def self.event_end(text)
        RetryCore._sse_first_event(text)[0]
      end

      # The data of the first event when it is an error event (+event: error+, or a JSON object
      # with an +error+ member as OpenAI sends), else nil: the core's rule.
      def self.error_payload(text)
        RetryCore._sse_first_event(text)[1]
      end
    end
  end
end
