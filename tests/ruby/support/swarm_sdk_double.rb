# frozen_string_literal: true

# A test double of SwarmSDK's Agent::Chat, as far as call_llm_with_retry reaches: LogStream
# (which, like SwarmSDK's, drops nil values and stamps each entry), the agent context, the
# context manager's ephemeral reminders, @llm_chat.messages, replace_messages and
# add_ephemeral_reminder. Two classes share it: SwarmSDK::Agent::Chat, into which the tests
# install RetryCore::SwarmSDK::ChatRetry, and ReferenceChat, which keeps SwarmSDK's own
# pure-Ruby call_llm_with_retry (bench/ruby/swarm_sdk_reference.rb).

require "time" # Time#iso8601, as SwarmSDK stamps its entries
require_relative "../../../bench/ruby/swarm_sdk_reference"

module SwarmSDK
  module LogStream
    class << self
      attr_accessor :emitter

      def emit(**data)
        return unless emitter

        emitter.emit(data.merge(timestamp: Time.now.utc.iso8601(6)).compact)
      end
    end
  end

  # Collects LogStream entries.
  class CollectingEmitter
    attr_reader :events

    def initialize
      @events = []
    end

    def emit(entry)
      @events << entry
    end

    def types
      @events.map { |e| e[:type] }
    end
  end

  module Agent
    Context = Struct.new(:swarm_id, :parent_swarm_id)
    Model = Struct.new(:id)

    class ContextManager
      attr_reader :ephemeral, :cleared

      def initialize
        @ephemeral = []
        @cleared = 0
      end

      def add_ephemeral_reminder(reminder, messages_array:)
        @ephemeral << [reminder, messages_array.size]
      end

      def clear_ephemeral
        @cleared += 1
        @ephemeral.clear
      end
    end

    class LLMChat
      attr_reader :messages, :model

      def initialize(model_id)
        @messages = []
        @model = Model.new(model_id)
      end
    end

    # What Agent::Chat has around call_llm_with_retry.
    module ChatShape
      attr_reader :agent_context, :context_manager, :llm_chat

      def initialize(definition:, agent_name: nil, global_semaphore: nil, **_options)
        @agent_name = agent_name
        @global_semaphore = global_semaphore
        @context_manager = ContextManager.new
        @llm_chat = LLMChat.new(definition[:model] || "claude-sonnet-4")
        @agent_context = nil
      end

      def setup_context(context)
        @agent_context = context
      end

      def model_id
        @llm_chat.model.id
      end

      def messages
        @llm_chat.messages.dup
      end

      def replace_messages(new_messages)
        @llm_chat.messages.clear
        new_messages.each { |m| @llm_chat.messages << m }
        self
      end

      def add_ephemeral_reminder(reminder)
        @context_manager&.add_ephemeral_reminder(reminder, messages_array: @llm_chat.messages)
      end

      def add_message(message)
        @llm_chat.messages << message
      end
    end

    class Chat
      include ChatShape
      include SwarmSDKReference::RetryLoop
    end
  end
end

# SwarmSDK's chat with its own retry logic, never patched.
class ReferenceChat
  include SwarmSDK::Agent::ChatShape
  include SwarmSDKReference::RetryLoop
end
