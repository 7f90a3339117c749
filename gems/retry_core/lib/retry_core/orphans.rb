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

    READERS = { role: 1, content: 2, tool_calls: 4, tool_call_id: 8 }.freeze

    # Which of +role+, +content+, +tool_calls+ and +tool_call_id+ a message class defines with
    # +attr_reader+ (or +attr_accessor+), as a bit mask. The extension reads those as instance
    # variables rather than calling them: same value, a fraction of the cost. A method with a
    # Ruby body, a C method, a Struct member or an alias of another reader is called as usual.
    def reader_mask(klass)
      READERS.sum do |name, bit|
        method = klass.instance_method(name)
        plain = method.original_name == name && method.arity.zero? && !method.source_location.nil? &&
                RubyVM::InstructionSequence.of(method).nil?
        plain ? bit : 0
      rescue NameError
        0
      end
    end

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

    # A copy of a message with other tool calls, made with the message's own class so that it
    # keeps its class, model and token counts: through +to_h+ and +new+ (RubyLLM::Message),
    # else a +dup+ with +@tool_calls+ replaced.
    def rebuild(message, tool_calls)
      attrs = message.respond_to?(:to_h) ? message.to_h : nil
      return dup_with(message, tool_calls) unless attrs.is_a?(Hash)

      attrs = attrs.transform_keys(&:to_sym)
      tool_calls.nil? ? attrs.delete(:tool_calls) : attrs[:tool_calls] = tool_calls
      construct(message.class, attrs)
    end

    def dup_with(message, tool_calls)
      copy = message.dup
      copy.instance_variable_set(:@tool_calls, tool_calls)
      copy
    end

    # How a class takes its attributes: one options Hash (RubyLLM::Message), or keywords (a
    # keyword_init Struct, a Data-like class), with the keywords it accepts. Learned once per class.
    CONSTRUCTORS = {} # rubocop:disable Style/MutableConstant -- a cache
    CONSTRUCTORS_LOCK = Mutex.new

    def construct(klass, attrs)
      style, keywords = CONSTRUCTORS[klass] || CONSTRUCTORS_LOCK.synchronize { CONSTRUCTORS[klass] ||= constructor_of(klass) }
      case style
      when :options then klass.new(attrs)
      when :keyrest then klass.new(**attrs)
      else klass.new(**attrs.slice(*keywords))
      end
    end

    def constructor_of(klass)
      params = klass.instance_method(:initialize).parameters
      keywords = params.select { |type, _| %i[key keyreq].include?(type) }.map(&:last)
      return [:options, nil] if params.any? { |type, _| %i[req opt rest].include?(type) }
      return [:keyrest, nil] if params.any? { |type, _| type == :keyrest }
      return [:options, nil] if keywords.empty?

      [:keywords, keywords]
    end
  end
end
