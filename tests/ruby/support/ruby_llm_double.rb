# frozen_string_literal: true

# A test double of the parts of RubyLLM that retry-core touches: the error hierarchy exactly as
# lib/ruby_llm/error.rb defines it (class names, superclasses, `response` as the Faraday
# response, `initialize(response = nil, message = nil)`), the status -> class mapping of its
# ErrorMiddleware, Message / ToolCall as SwarmSDK uses them, and the global configuration with
# `max_retries`. Plus the few Faraday error classes that reach SwarmSDK.

module Faraday
  class Error < StandardError
    attr_reader :response, :wrapped_exception

    def initialize(exc = nil, response = nil)
      @wrapped_exception = exc if exc.is_a?(Exception)
      @response = response
      super(exc.is_a?(Exception) ? exc.message : (exc || "the server responded with status #{response_status}"))
    end

    def response_status
      @response && @response[:status]
    end

    def response_headers
      @response && @response[:headers]
    end

    def response_body
      @response && @response[:body]
    end
  end

  class ClientError < Error; end
  class BadRequestError < ClientError; end
  class UnauthorizedError < ClientError; end
  class TooManyRequestsError < ClientError; end
  class ServerError < Error; end
  class TimeoutError < ServerError
    def initialize(exc = "timeout", response = nil)
      super
    end
  end
  class ConnectionFailed < Error; end
  class SSLError < Error; end

  # Faraday::Response, as far as RubyLLM's errors expose it.
  Response = Struct.new(:status, :body, :headers, keyword_init: true) do
    def initialize(status:, body: nil, headers: {})
      super
    end
  end
end

module RubyLLM
  class Error < StandardError
    attr_reader :response

    def initialize(response = nil, message = nil)
      @response = response
      super(message || response&.body)
    end
  end

  class ConfigurationError < StandardError; end
  class InvalidRoleError < StandardError; end
  class ModelNotFoundError < StandardError; end
  class UnsupportedAttachmentError < StandardError; end

  class BadRequestError < Error; end
  class ForbiddenError < Error; end
  class OverloadedError < Error; end
  class PaymentRequiredError < Error; end
  class RateLimitError < Error; end
  class ServerError < Error; end
  class ServiceUnavailableError < Error; end
  class UnauthorizedError < Error; end

  # ErrorMiddleware.parse_error's mapping of statuses to classes.
  def self.error_for(status, message = nil, body: nil, headers: {})
    klass = case status
            when 400 then BadRequestError
            when 401 then UnauthorizedError
            when 402 then PaymentRequiredError
            when 403 then ForbiddenError
            when 429 then RateLimitError
            when 500 then ServerError
            when 502..503 then ServiceUnavailableError
            when 529 then OverloadedError
            else Error
            end
    klass.new(Faraday::Response.new(status: status, body: body || { "error" => { "message" => message } }, headers: headers), message)
  end

  class ToolCall
    attr_reader :id, :name, :arguments

    def initialize(id:, name:, arguments: {})
      @id = id
      @name = name
      @arguments = arguments
    end

    def to_h
      { id: @id, name: @name, arguments: @arguments }
    end
  end

  # Message as SwarmSDK builds and rebuilds it (RubyLLM 1.9: model_id and token counts).
  class Message
    attr_reader :role, :content, :model_id, :tool_calls, :tool_call_id, :input_tokens, :output_tokens,
                :cached_tokens, :cache_creation_tokens

    def initialize(options = {})
      @role = options.fetch(:role).to_sym
      @content = options[:content]
      @model_id = options[:model_id]
      @tool_calls = options[:tool_calls]
      @tool_call_id = options[:tool_call_id]
      @input_tokens = options[:input_tokens]
      @output_tokens = options[:output_tokens]
      @cached_tokens = options[:cached_tokens]
      @cache_creation_tokens = options[:cache_creation_tokens]
    end

    def to_h
      { role: role, content: content, model_id: model_id, tool_calls: tool_calls, tool_call_id: tool_call_id,
        input_tokens: input_tokens, output_tokens: output_tokens, cached_tokens: cached_tokens,
        cache_creation_tokens: cache_creation_tokens }.compact
    end
  end

  class Configuration
    attr_accessor :max_retries, :retry_interval

    def initialize
      @max_retries = 3
      @retry_interval = 0.1
    end
  end

  class << self
    def config
      @config ||= Configuration.new
    end

    def reset_config!
      @config = Configuration.new
    end
  end
end
