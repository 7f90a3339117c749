# frozen_string_literal: true

# Test doubles of RubyLLM, version by version, as strict as RubyLLM itself: where RubyLLM raises,
# the double raises the same class. Every fact a double encodes is written down, with the tag and
# file it comes from, in ruby_llm_facts.md next to this file (read from github:crmne/ruby_llm with
# `git show <tag>:lib/ruby_llm/<file>`). No RubyLLM code is copied: the doubles are written from
# those facts.
#
# - RubyLLMDouble.build(version) makes one version's classes in a fresh namespace
#   (RubyLLMDouble::V1_9, V1_11, V1_13, V1_14, V1_15, V1_16, MAIN): Message, ToolCall, Content
#   (and Content::Raw), Tokens, Thinking, Attachment and the error classes that version has.
# - The top-level RubyLLM is the 1.9 double (what SwarmSDK builds its messages with: `model_id`,
#   separate token counts), plus the parts of RubyLLM outside those files that SwarmSDK and the
#   tests touch: `RubyLLM.config.max_retries` and ErrorMiddleware's status -> class mapping
#   (`RubyLLM.error_for`).
#
# Faraday is the real one (Debian's ruby-faraday 1.x, scripts/setup.sh installs it): RubyLLM's
# errors carry a real Faraday::Response; build one with RubyLLMDouble.response.

require "faraday"

module RubyLLMDouble
  # The versions with a double, oldest first, and the released tags each one stands for (the
  # files this double encodes are byte-identical across a group; ruby_llm_facts.md).
  VERSIONS = {
    "1.9" => %w[1.9.0 1.9.1 1.9.2],
    "1.11" => %w[1.10.0 1.11.0 1.12.0 1.12.1],
    "1.13" => %w[1.13.0 1.13.1 1.13.2],
    "1.14" => %w[1.14.0 1.14.1],
    "1.15" => %w[1.15.0],
    "1.16" => %w[1.16.0],
    "main" => ["main fb5a49bf (unreleased; version.rb still says 1.16.0)"]
  }.freeze

  # What changes between the versions (each flag: the first version that has it, see the facts).
  def self.features(version)
    order = VERSIONS.keys
    at_least = ->(v) { order.index(version) >= order.index(v) }
    main = version == "main"
    {
      # 1.10.0 message.rb: token counts live in a Tokens object (`tokens:` option), plus `thinking`.
      tokens_object: at_least.call("1.11"),
      # 1.10.0 tool_call.rb: thought_signature; ToolCall#to_h compacts.
      thought_signature: at_least.call("1.11"),
      # 1.13.0 message.rb normalize_content: an assistant message with tool calls and nil
      # content gets "" as its content.
      blank_content_for_tool_calls: at_least.call("1.13"),
      # 1.13.0 error.rb: ContextLengthExceededError, PromptNotFoundError, InvalidToolChoiceError;
      # ErrorMiddleware maps 502..504 (was 502..503).
      context_length_error: at_least.call("1.13"),
      # 1.14.0 error.rb: Error.new("text") takes a String first argument as the message.
      error_string_first: at_least.call("1.14"),
      # 1.15.0 message.rb / tokens.rb: cache_read_tokens, cache_write_tokens, cost, model_info.
      cache_read_write: at_least.call("1.15"),
      # 1.16.0 content.rb: Content#empty?; error.rb: UnsupportedAttachmentError.new(type = nil).
      content_empty_p: at_least.call("1.16"),
      # main message.rb: `model` (not `model_id`), `attachments` on the message, content a
      # String or nil (ArgumentError otherwise), to_h turns tool calls into Hashes; no Content.
      main: main
    }
  end

  # A Faraday::Response (the real class) with this status, body and headers, as RubyLLM's
  # errors carry it.
  def self.response(status:, body: nil, headers: {})
    Faraday::Response.new(status: status, body: body, response_headers: headers)
  end

  # The namespace of one version's double, built once.
  def self.build(version)
    raise ArgumentError, "no RubyLLM double for #{version.inspect}" unless VERSIONS.key?(version)

    name = version == "main" ? "MAIN" : "V#{version.tr(".", "_")}"
    return const_get(name, false) if const_defined?(name, false)

    namespace = Module.new
    const_set(name, namespace)
    define_version(namespace, version)
    namespace
  end

  def self.all
    VERSIONS.keys.map { |v| build(v) }
  end

  # --- the classes ---------------------------------------------------------------------------

  def self.define_version(ns, version)
    f = features(version)
    ns.const_set(:VERSION, version)
    ns.const_set(:FEATURES, f.freeze)
    define_errors(ns, f)
    define_tool_call(ns, f)
    define_attachment(ns)
    define_content(ns, f) unless f[:main]
    define_tokens(ns, f) if f[:tokens_object] && !f[:main]
    define_thinking(ns) if f[:tokens_object] && !f[:main]
    f[:main] ? define_main_message(ns) : define_message(ns, f)
  end

  # error.rb, per version (facts: "Errors").
  def self.define_errors(ns, f)
    main = f[:main]
    string_first = f[:error_string_first]
    error = Class.new(StandardError) do
      attr_reader :response

      if main
        # main: initialize(message = nil, response: nil)
        def initialize(message = nil, response: nil)
          @response = response
          super(message || response&.body || self.class.default_message)
        end

        def self.default_message
          nil
        end
      else
        # 1.9-1.16: initialize(response = nil, message = nil); from 1.14 a String first
        # argument is the message.
        define_method(:initialize) do |response = nil, message = nil|
          if string_first && response.is_a?(String)
            message = response
            response = nil
          end
          @response = response
          super(message || response&.body)
        end
      end
    end
    ns.const_set(:Error, error)

    standard = %i[ConfigurationError InvalidRoleError ModelNotFoundError]
    standard += %i[PromptNotFoundError InvalidToolChoiceError] if f[:context_length_error]
    standard += %i[PendingToolCallsError ModelRegistryError] if main
    standard.each { |n| ns.const_set(n, Class.new(StandardError)) }

    http = %i[BadRequestError ForbiddenError OverloadedError PaymentRequiredError RateLimitError ServerError
              ServiceUnavailableError UnauthorizedError]
    http << :ContextLengthExceededError if f[:context_length_error]
    http.each { |n| ns.const_set(n, Class.new(error)) }

    # UnsupportedAttachmentError: < StandardError up to 1.16 (1.16 builds its own message from a
    # type), < Error on main.
    attachment_base = main ? error : StandardError
    attachment = if f[:content_empty_p]
                   Class.new(attachment_base) do
                     def initialize(type = nil)
                       text = type ? "Unsupported attachment type: #{type}" : "Unsupported attachment type"
                       super("#{text}. Consider using a model that supports this attachment type.")
                     end
                   end
                 else
                   Class.new(attachment_base)
                 end
    ns.const_set(:UnsupportedAttachmentError, attachment)
    return unless main

    # main only: Chat#cancel! raises CancelledError (< StandardError, not a RubyLLM::Error);
    # malformed tool-call JSON raises ToolCallParseError (< Error, with finish_reason).
    ns.const_set(:CancelledError, Class.new(StandardError) do
      def initialize(message = "Chat generation cancelled")
        super
      end
    end)
    ns.const_set(:UnsupportedServerToolError, Class.new(error))
    ns.const_set(:ToolCallParseError, Class.new(error) do
      attr_reader :finish_reason

      def initialize(message = nil, response: nil, finish_reason: nil)
        @finish_reason = finish_reason
        message ||= "Provider returned malformed tool call arguments"
        message = "#{message} (finish_reason: #{finish_reason})" if finish_reason
        super(message, response: response)
      end
    end)
  end

  # ErrorMiddleware.parse_error's status -> class mapping (error.rb up to 1.15,
  # error_middleware.rb from 1.16).
  def self.error_class_for(ns, status, message)
    f = ns::FEATURES
    context = f[:context_length_error] && [400, 429].include?(status) && message.to_s.match?(/context (length|window)|maximum context|too many tokens/i)
    return ns::ContextLengthExceededError if context

    case status
    when 400 then ns::BadRequestError
    when 401 then ns::UnauthorizedError
    when 402 then ns::PaymentRequiredError
    when 403 then ns::ForbiddenError
    when 429 then ns::RateLimitError
    when 500 then ns::ServerError
    when 502, 503 then ns::ServiceUnavailableError
    when 504 then f[:context_length_error] ? ns::ServiceUnavailableError : ns::Error
    when 529 then ns::OverloadedError
    else ns::Error
    end
  end

  # What ErrorMiddleware raises for a response of this status in version `ns`.
  def self.error_for(ns, status, message = nil, body: nil, headers: {})
    klass = error_class_for(ns, status, message)
    response = response(status: status, body: body || { "error" => { "message" => message } }, headers: headers)
    ns::FEATURES[:main] ? klass.new(message, response: response) : klass.new(response, message)
  end

  # tool_call.rb: keywords id:, name:, arguments: {} (1.10 on: thought_signature: nil).
  def self.define_tool_call(ns, f)
    signature = f[:thought_signature]
    ns.const_set(:ToolCall, Class.new do
      attr_reader :id, :name, :arguments
      attr_accessor :thought_signature if signature

      if signature
        def initialize(id:, name:, arguments: {}, thought_signature: nil)
          @id = id
          @name = name
          @arguments = arguments
          @thought_signature = thought_signature
        end

        def to_h
          { id: @id, name: @name, arguments: @arguments, thought_signature: @thought_signature }.compact
        end
      else
        def initialize(id:, name:, arguments: {})
          @id = id
          @name = name
          @arguments = arguments
        end

        # 1.9: not compacted.
        def to_h
          { id: @id, name: @name, arguments: @arguments }
        end
      end
    end)
  end

  # attachment.rb, only as far as a message holds one: a source and its to_h.
  def self.define_attachment(ns)
    ns.const_set(:Attachment, Class.new do
      attr_reader :source

      def initialize(source)
        raise ArgumentError, "attachment source cannot be nil" if source.nil?

        @source = source
      end

      def to_h
        { source: @source.to_s }
      end

      def ==(other)
        other.is_a?(self.class) && other.source == source
      end

      # main's Attachment.wrap: nil -> [], a Hash's values flattened, blank Strings skipped,
      # Attachments kept.
      def self.wrap(sources)
        case sources
        when nil then []
        when Hash then sources.values.flat_map { |group| wrap(group) }
        else
          Array(sources).filter_map do |s|
            next if s.nil? || (s.is_a?(String) && s.strip.empty?)

            s.is_a?(self) ? s : new(s)
          end
        end
      end
    end)
  end

  # content.rb (1.9-1.16): Content.new(text = nil, attachments = nil) raises ArgumentError when
  # both are nil/empty; #format; #to_h; #empty? from 1.16; Content::Raw refuses nil.
  def self.define_content(ns, f)
    attachment = ns::Attachment
    content = Class.new do
      attr_reader :text, :attachments

      define_method(:initialize) do |text = nil, attachments = nil|
        @text = text
        @attachments = []
        list = attachments.is_a?(Hash) ? attachments.values.flatten : Array(attachments)
        list.each do |a|
          next if a.nil? || (a.is_a?(String) && a.strip.empty?)

          @attachments << (a.is_a?(attachment) ? a : attachment.new(a))
        end
        raise ArgumentError, "Text and attachments cannot be both nil" if @text.nil? && @attachments.empty?
      end

      def format
        @text && @attachments.empty? ? @text : self
      end

      def to_h
        { text: @text, attachments: @attachments.map(&:to_h) }
      end

      if f[:content_empty_p]
        def empty?
          attachments.empty? && (@text.nil? || (@text.respond_to?(:empty?) && @text.empty?))
        end
      end
    end
    ns.const_set(:Content, content)
    content.const_set(:Raw, Class.new do
      attr_reader :value

      def initialize(value)
        raise ArgumentError, "Raw content payload cannot be nil" if value.nil?

        @value = value
      end

      def format
        @value
      end

      def to_h
        @value
      end
    end)
  end

  # tokens.rb (1.10 on): keywords input, output, cached, cache_creation, thinking (reasoning as
  # a synonym); Tokens.build returns nil when every count is nil; to_h compacts. 1.15 adds
  # cache_read / cache_write (aliases of cached / cache_creation).
  def self.define_tokens(ns, f)
    rw = f[:cache_read_write]
    ns.const_set(:Tokens, Class.new do
      attr_reader :input, :output, :cached, :cache_creation, :thinking

      def initialize(input: nil, output: nil, cached: nil, cache_creation: nil, thinking: nil, reasoning: nil)
        @input = input
        @output = output
        @cached = cached
        @cache_creation = cache_creation
        @thinking = thinking || reasoning
      end

      def self.build(**counts)
        counts.values.all?(&:nil?) ? nil : new(**counts)
      end

      def to_h
        { input_tokens: input, output_tokens: output, cached_tokens: cached, cache_creation_tokens: cache_creation,
          thinking_tokens: thinking }.compact
      end

      if rw
        def cache_read
          cached
        end

        def cache_write
          cache_creation
        end
      end
    end)
  end

  # thinking.rb (1.10 on): text and signature.
  def self.define_thinking(ns)
    ns.const_set(:Thinking, Class.new do
      attr_reader :text, :signature

      def initialize(text: nil, signature: nil)
        @text = text
        @signature = signature
      end
    end)
  end

  # message.rb, 1.9 to 1.16.
  def self.define_message(ns, f)
    content_class = ns::Content
    invalid_role = ns::InvalidRoleError
    tokens_class = f[:tokens_object] ? ns::Tokens : nil
    message = Class.new do
      const_set(:ROLES, %i[system user assistant tool].freeze)
      attr_reader :role, :model_id, :tool_calls, :tool_call_id, :raw
      attr_writer :content

      if tokens_class
        attr_reader :thinking, :tokens
      else
        attr_reader :input_tokens, :output_tokens, :cached_tokens, :cache_creation_tokens
      end

      # Both :role and :content are fetched: a missing key is a KeyError (nil is allowed).
      define_method(:initialize) do |options = {}|
        @role = options.fetch(:role).to_sym
        @tool_calls = options[:tool_calls]
        @content = normalize_content(options.fetch(:content))
        @model_id = options[:model_id]
        @tool_call_id = options[:tool_call_id]
        if tokens_class
          @tokens = options[:tokens] || tokens_class.build(
            input: options[:input_tokens], output: options[:output_tokens], cached: options[:cached_tokens],
            cache_creation: options[:cache_creation_tokens], thinking: options[:thinking_tokens],
            reasoning: options[:reasoning_tokens]
          )
          @thinking = options[:thinking]
        else
          @input_tokens = options[:input_tokens]
          @output_tokens = options[:output_tokens]
          @cached_tokens = options[:cached_tokens]
          @cache_creation_tokens = options[:cache_creation_tokens]
        end
        @raw = options[:raw]
        raise invalid_role, "Expected role to be one of: #{self.class::ROLES.join(", ")}" unless self.class::ROLES.include?(@role)
      end

      # A method with a body, not an attr_reader: a Content with text and no attachments reads
      # as its text.
      define_method(:content) do
        @content.is_a?(content_class) && @content.text && @content.attachments.empty? ? @content.text : @content
      end

      def tool_call?
        !tool_calls.nil? && !tool_calls.empty?
      end

      def tool_result?
        !tool_call_id.nil? && !tool_call_id.empty?
      end

      if tokens_class
        def input_tokens = tokens&.input
        def output_tokens = tokens&.output
        def cached_tokens = tokens&.cached
        def cache_creation_tokens = tokens&.cache_creation
        def thinking_tokens = tokens&.thinking
        def reasoning_tokens = tokens&.thinking

        # 1.10 on: thinking becomes its text and signature; token counts are merged in; nils
        # are dropped.
        def to_h
          { role: role, content: content, model_id: model_id, tool_calls: tool_calls, tool_call_id: tool_call_id,
            thinking: thinking&.text, thinking_signature: thinking&.signature }.merge(tokens ? tokens.to_h : {}).compact
        end
      else
        # 1.9: nils are dropped (raw is never included).
        def to_h
          { role: role, content: content, model_id: model_id, tool_calls: tool_calls, tool_call_id: tool_call_id,
            input_tokens: input_tokens, output_tokens: output_tokens, cached_tokens: cached_tokens,
            cache_creation_tokens: cache_creation_tokens }.compact
        end
      end

      if f[:cache_read_write]
        def cache_read_tokens = tokens&.cache_read
        def cache_write_tokens = tokens&.cache_write
      end

      private

      blank = f[:blank_content_for_tool_calls]
      define_method(:normalize_content) do |value|
        return "" if blank && @role == :assistant && value.nil? && @tool_calls && !@tool_calls.empty?

        case value
        when String then content_class.new(value)
        when Hash then content_class.new(value[:text], value)
        else value
        end
      end
    end
    ns.const_set(:Message, message)
  end

  # message.rb on main.
  def self.define_main_message(ns)
    invalid_role = ns::InvalidRoleError
    attachment = ns::Attachment
    tokens_class = Class.new do
      attr_reader :input, :output, :cache_read, :cache_write, :thinking

      def initialize(input: nil, output: nil, cache_read: nil, cache_write: nil, thinking: nil)
        @input = input
        @output = output
        @cache_read = cache_read
        @cache_write = cache_write
        @thinking = thinking
      end

      def to_h
        { input_tokens: input, output_tokens: output, cache_read_tokens: cache_read, cache_write_tokens: cache_write,
          thinking_tokens: thinking }.compact
      end
    end
    ns.const_set(:Tokens, tokens_class)
    define_thinking(ns)
    message = Class.new do
      const_set(:ROLES, %i[system user assistant tool].freeze)
      attr_reader :role, :content, :attachments, :model, :tool_calls, :tool_call_id, :raw, :thinking, :tokens,
                  :citations, :finish_reason, :server_tool_calls, :raw_content, :raw_reasoning
      attr_accessor :conversation

      define_method(:initialize) do |options = {}|
        @role = options.fetch(:role).to_sym
        @tool_calls = options[:tool_calls]
        @content = normalize_content(options.fetch(:content))
        @attachments = attachment.wrap(options[:attachments])
        @model = options[:model]
        @tool_call_id = options[:tool_call_id]
        @tokens = options[:tokens] || tokens_class.new(
          input: options[:input_tokens], output: options[:output_tokens], cache_read: options[:cache_read_tokens],
          cache_write: options[:cache_write_tokens], thinking: options[:thinking_tokens]
        )
        @raw = options[:raw]
        @thinking = options[:thinking]
        @citations = Array(options[:citations])
        @server_tool_calls = Array(options[:server_tool_calls])
        @raw_content = options[:raw_content]
        @raw_reasoning = options[:raw_reasoning]
        @finish_reason = options[:finish_reason]
        @cache_until_here = options.fetch(:cache_until_here, false)
        raise invalid_role, "Expected role to be one of: #{self.class::ROLES.join(", ")}" unless self.class::ROLES.include?(@role)
      end

      def tool_call?
        !tool_calls.nil? && !tool_calls.empty?
      end

      def tool_result?
        !tool_call_id.nil? && !tool_call_id.empty?
      end

      def cache_until_here?
        @cache_until_here
      end

      def input_tokens = tokens&.input
      def output_tokens = tokens&.output

      # Tool calls become Hashes; attachment and citation lists their to_h (nil when empty);
      # nils dropped.
      def to_h
        { role: role, content: content, attachments: list_to_h(attachments), model: model,
          tool_calls: tool_calls&.transform_values(&:to_h), tool_call_id: tool_call_id, thinking: thinking&.text,
          thinking_signature: thinking&.signature, citations: list_to_h(citations),
          server_tool_calls: list_to_h(server_tool_calls), raw_content: raw_content, raw_reasoning: raw_reasoning,
          finish_reason: finish_reason, cache_until_here: cache_until_here? || nil }.merge(tokens.to_h).compact
      end

      private

      def list_to_h(list)
        list.empty? ? nil : list.map(&:to_h)
      end

      # A String or nil; "" for an assistant message with tool calls and no content; anything
      # else is an ArgumentError (files go in attachments:).
      def normalize_content(value)
        return "" if role == :assistant && value.nil? && tool_calls && !tool_calls.empty?
        return value if value.nil? || value.is_a?(String)

        raise ArgumentError, "Message content must be a String, got #{value.class}. " \
                             "Pass files via attachments: and structured data as JSON."
      end
    end
    ns.const_set(:Message, message)
  end
end

# The top-level RubyLLM: the 1.9 double (its classes named RubyLLM::..., as the engine's class
# table knows them), plus configuration and the status mapping.
module RubyLLM
  RubyLLMDouble.define_version(self, "1.9")

  # ErrorMiddleware.parse_error's mapping of statuses to classes (1.9: 502..503).
  def self.error_for(status, message = nil, body: nil, headers: {})
    RubyLLMDouble.error_for(self, status, message, body: body, headers: headers)
  end

  # configuration.rb: max_retries (3) and retry_interval (0.1) feed RubyLLM's Faraday retry
  # middleware.
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
