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
      edits.each do |index, kind, slots|
        out.concat(messages[pos...index]) if index > pos
        message = messages[index]
        case kind
        when :tool_calls then out << without_tool_calls(message, slots)
        when :content then out << without_blocks(message, slots)
        end
        pos = index + 1
      end
      out.concat(messages[pos..]) if pos < messages.size
      Pruned.new(messages: out, pruned: pruned, dangling_results: dangling, reminder: reminder)
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

    def construct(klass, attrs)
      params = klass.instance_method(:initialize).parameters
      keywords = params.select { |type, _| %i[key keyreq].include?(type) }.map(&:last)
      positional = params.any? { |type, _| %i[req opt rest].include?(type) }
      return klass.new(attrs) if positional || keywords.empty? && params.none? { |type, _| type == :keyrest }

      attrs = attrs.slice(*keywords) unless params.any? { |type, _| type == :keyrest }
      klass.new(**attrs)
    end
  end
end
