# frozen_string_literal: true

module RetryCore
  # The result of {RetryCore.prune_orphan_tool_calls}.
  #
  # @!attribute messages [Array] the new history (untouched messages are the same objects)
  # @!attribute pruned [Array<Hash>] +{id:, name:, arguments:}+ per removed call
  # @!attribute dangling_results [Integer] tool results removed because their call does not exist
  # @!attribute reminder [String] the system reminder listing the removed calls ("" when none)
  Pruned = Struct.new(:messages, :pruned, :dangling_results, :reminder, keyword_init: true) do
    # Orphan calls and dangling results removed.
    def count
      pruned.size + dangling_results
    end

    def changed?
      count.positive?
    end
  end

  # Applies the core's pruning plan with the host's own classes.
  # @api private
  module Orphans
    module_function

    # @param messages [Array] RubyLLM-like messages and/or Hashes
    # @return [Pruned]
    def prune(messages)
      raise TypeError, "messages must be an Array, not #{messages.class}" unless messages.is_a?(Array)

      edits, pruned, dangling, reminder = RetryCore._orphan_plan(messages)
      return Pruned.new(messages: messages.dup, pruned: pruned, dangling_results: dangling, reminder: reminder) if edits.empty?

      out = []
      pos = 0
      edits.each do |index, kind, tool_calls, content|
        out.concat(messages[pos...index]) if index > pos
        out << stripped(messages[index], tool_calls, content) if kind == :strip
        pos = index + 1
      end
      out.concat(messages[pos..]) if pos < messages.size
      Pruned.new(messages: out, pruned: pruned, dangling_results: dangling, reminder: reminder)
    end

    # A copy of a message without the tool calls and content blocks at these slots.
    def stripped(message, tool_calls, content)
      message = without_tool_calls(message, tool_calls) unless tool_calls.empty?
      message = without_blocks(message, content) unless content.empty?
      message
    end

    def drop_slots(calls, slots)
      case calls
      when Hash then calls.each_with_index.reject { |(_, _), i| slots.include?(i) }.to_h { |(k, v), _| [k, v] }
      else calls.reject.with_index { |_, i| slots.include?(i) }
      end
    end

    def key_of(hash, name)
      hash.key?(name) || !hash.key?(name.to_sym) ? name : name.to_sym
    end

    def without_tool_calls(message, slots)
      if message.is_a?(Hash)
        key = key_of(message, "tool_calls")
        remaining = drop_slots(message[key], slots)
        copy = message.dup
        remaining.empty? ? copy.delete(key) : copy[key] = remaining
        return copy
      end
      remaining = drop_slots(message.tool_calls, slots)
      rebuild(message, remaining.empty? ? nil : remaining)
    end

    def without_blocks(message, slots)
      key = key_of(message, "content")
      copy = message.dup
      copy[key] = drop_slots(message[key], slots)
      copy
    end

    # A copy of a message with other tool calls, made with the message's own constructor so
    # that it keeps its class and is checked as the class checks new messages. The constructor
    # arguments are read through the message's readers, never through +to_h+: RubyLLM's +to_h+
    # drops nil values (so an assistant message whose content is nil loses the +:content+ key
    # that +Message.new+ fetches, a KeyError in every version from 1.9 to 1.16), drops +raw+,
    # turns +thinking+ into its text, and on RubyLLM's main branch turns tool calls into Hashes
    # (tests/ruby/support/ruby_llm_facts.md). A message class without a constructor of its
    # own shape is copied with +dup+ and +@tool_calls+ replaced.
    #
    # @raise [InvalidArgumentError] when the class refuses the rebuilt message (the history
    #   given is left as it was)
    def rebuild(message, tool_calls)
      style, keywords, readers = constructor(message.class)
      return dup_with(message, tool_calls) if style == :none

      attrs = attributes_of(message, readers)
      attrs[:tool_calls] = tool_calls
      copy = construct(message.class, style, keywords, attrs)
      # RubyLLM's main branch: the Chat a message belongs to (backs #tool_results); not a
      # constructor option.
      copy.conversation = message.conversation if copy.respond_to?(:conversation=) && message.respond_to?(:conversation)
      copy
    rescue ArgumentError, KeyError, TypeError, NoMethodError => e
      raise InvalidArgumentError,
            "cannot rebuild a #{message.class} without its orphan tool calls: #{e.class}: #{e.message}"
    end

    # The constructor options RubyLLM's Message takes, with the reader that holds each value.
    # +role+ and +content+ are always given (content may be nil: +Message.new+ fetches the key);
    # the rest only when the message has that reader and a value. The model is +model_id+ up
    # to RubyLLM 1.16 and +model+ on its main branch: +model_id+ wins when a class has both.
    # +tokens+ (1.10 on) carries every count; before 1.10 the counts are separate readers.
    OPTIONAL = %i[tool_call_id raw thinking attachments citations server_tool_calls raw_content raw_reasoning
                  finish_reason].freeze
    TOKEN_COUNTS = %i[input_tokens output_tokens cached_tokens cache_creation_tokens].freeze

    # The readers a class has among those, learned once per class (with its constructor).
    def readers_of(klass)
      has = ->(name) { klass.public_method_defined?(name) }
      names = []
      if has.call(:model_id)
        names << :model_id
      elsif has.call(:model)
        names << :model
      end
      names.concat(has.call(:tokens) ? [:tokens] : TOKEN_COUNTS.select(&has))
      names.concat(OPTIONAL.select(&has))
      [names.freeze, has.call(:cache_until_here?), has.call(:ruby_llm_usage_entries)].freeze
    end

    def attributes_of(message, readers)
      names, cache_mark, usage = readers
      attrs = { role: message.role, content: message.content }
      names.each do |name|
        value = message.public_send(name)
        attrs[name] = value unless value.nil?
      end
      attrs[:cache_until_here] = true if cache_mark && message.cache_until_here?
      if usage
        entries = message.ruby_llm_usage_entries
        attrs[:usage_entries] = entries if entries.respond_to?(:empty?) && !entries.empty?
      end
      attrs
    end

    def dup_with(message, tool_calls)
      copy = message.dup
      copy.instance_variable_set(:@tool_calls, tool_calls)
      copy
    end

    # How a class takes its attributes: one options Hash (RubyLLM::Message), keywords (a
    # keyword_init Struct, a Data-like class) with the keywords it accepts, or not at all
    # (+:none+: an +initialize+ that takes nothing); and which readers it has. Learned once per
    # class.
    CONSTRUCTORS = {} # rubocop:disable Style/MutableConstant -- a cache
    CONSTRUCTORS_LOCK = Mutex.new

    def constructor(klass)
      CONSTRUCTORS[klass] || CONSTRUCTORS_LOCK.synchronize do
        CONSTRUCTORS[klass] ||= [*constructor_of(klass), readers_of(klass)].freeze
      end
    end

    def construct(klass, style, keywords, attrs)
      case style
      when :options then klass.new(attrs)
      when :keyrest then klass.new(**attrs)
      else klass.new(**attrs.slice(*keywords))
      end
    end

    def constructor_of(klass)
      params = klass.instance_method(:initialize).parameters
      keywords = params.select { |type, _| %i[key keyreq].include?(type) }.map(&:last)
      positional = params.select { |type, _| %i[req opt rest].include?(type) }
      unless positional.empty?
        # One options Hash (RubyLLM: `initialize(options = {})`); more required positional
        # arguments than one is a constructor of another shape.
        return positional.count { |type, _| type == :req } <= 1 ? [:options, nil] : [:none, nil]
      end
      return [:keyrest, nil] if params.any? { |type, _| type == :keyrest }
      return [:none, nil] if keywords.empty?

      [:keywords, keywords]
    end
  end
end
