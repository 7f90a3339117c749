# frozen_string_literal: true

require "set"

# SwarmSDK's pure-Ruby retry logic, re-implemented from its description (SwarmSDK decision 004
# "Smart LLM Request Retry Strategy" and its "LLM call retry logic with orphan tool call
# recovery" notes) for two uses: the baseline of bench/ruby/bench.rb, and the reference that
# tests/ruby/swarm_sdk_test.rb holds RetryCore::SwarmSDK::ChatRetry to.
#
# Behaviour described there:
# - max_retries counts every call; a fixed delay; sleep through Kernel#sleep;
# - 400 BadRequestError: once per call, if the message is about tool pairing, prune orphan tool
#   calls; when some were pruned, retry at once without counting the attempt; otherwise fail;
# - 401 / 402 / 403 and other RubyLLM::Error (422 UnprocessableEntity, other 4xx ClientError,
#   anything else UnknownAPIError) and ArgumentError / TypeError / NameError: fail at once,
#   emitting llm_request_failed and returning the error text as an assistant message;
# - RateLimitError, ServerError, ServiceUnavailableError, OverloadedError and any other
#   StandardError: llm_retry_attempt and sleep, or llm_retry_exhausted and re-raise.
module SwarmSDKReference
  # The orphan scan: for each assistant message with tool calls, the results that follow it
  # before the next user or assistant message; the calls without one are orphans.
  module Pruning
    module_function

    # @return [Hash] { count:, pruned_tools: [{name:, arguments:}], messages: }
    def prune(messages)
      orphans = find_orphans(messages)
      return { count: 0, pruned_tools: [], messages: messages } if orphans.empty?

      pruned_tools = []
      orphans.each do |index, ids|
        calls = messages[index].tool_calls
        ids.each do |id|
          call = calls[id]
          pruned_tools << { name: call.name, arguments: call.arguments } if call
        end
      end
      kept = messages.each_with_index.filter_map do |message, index|
        ids = orphans[index]
        next message unless ids

        remaining = message.tool_calls.reject { |id, _| ids.include?(id) }
        next nil if remaining.empty? && (message.content.nil? || message.content.to_s.strip.empty?)

        RubyLLM::Message.new(
          role: message.role, content: message.content, tool_calls: remaining.empty? ? nil : remaining,
          model_id: message.model_id, input_tokens: message.input_tokens, output_tokens: message.output_tokens,
          cached_tokens: message.cached_tokens, cache_creation_tokens: message.cache_creation_tokens
        )
      end
      { count: orphans.values.sum(&:size), pruned_tools: pruned_tools, messages: kept }
    end

    def find_orphans(messages)
      orphans = {}
      messages.each_with_index do |message, index|
        next unless message.role == :assistant && message.tool_calls && !message.tool_calls.empty?

        expected = message.tool_calls.keys.to_set
        answered = Set.new
        ((index + 1)...messages.size).each do |later|
          other = messages[later]
          break if other.role == :user || other.role == :assistant

          answered << other.tool_call_id if other.role == :tool && other.tool_call_id
        end
        missing = (expected - answered).to_a
        orphans[index] = missing unless missing.empty?
      end
      orphans
    end

    def format_arguments(arguments)
      return "" if arguments.nil? || arguments.empty?

      arguments.map do |key, value|
        shown = value.is_a?(String) && value.length > 50 ? "#{value[0...47]}..." : value.inspect
        "#{key}: #{shown}"
      end.join(", ")
    end

    def reminder(pruned_tools)
      lines = pruned_tools.map { |tool| "- #{tool[:name]}(#{format_arguments(tool[:arguments])})" }.join("\n")
      "<system-reminder>\nThe following tool calls were interrupted and removed from conversation history:\n\n" \
        "#{lines}\n\nThese tools were never executed. If you still need their results, please run them again.\n" \
        "</system-reminder>"
    end
  end

  TOOL_ERROR_PATTERNS = ["tool_use", "tool_result", "tool_use_id", "tool use", "tool result",
                         "corresponding tool_result", "must immediately follow"].freeze

  # SwarmSDK's Agent::Chat#call_llm_with_retry and its helpers, for a class that has what
  # Agent::Chat has (@llm_chat, @agent_name, @agent_context, @context_manager, model_id,
  # replace_messages, add_ephemeral_reminder).
  module RetryLoop
    private

    def call_llm_with_retry(max_retries: 3, delay: 15)
      attempts = 0
      pruning_attempted = false
      loop do
        attempts += 1
        begin
          return yield
        rescue RubyLLM::BadRequestError => e
          unless pruning_attempted
            if reference_recover_orphans(e).positive?
              pruning_attempted = true
              attempts -= 1
              next
            end
          end
          return reference_fail(e, "BadRequest")
        rescue RubyLLM::UnauthorizedError => e
          return reference_fail(e, "Unauthorized")
        rescue RubyLLM::PaymentRequiredError => e
          return reference_fail(e, "PaymentRequired")
        rescue RubyLLM::ForbiddenError => e
          return reference_fail(e, "Forbidden")
        rescue RubyLLM::RateLimitError, RubyLLM::ServerError, RubyLLM::ServiceUnavailableError,
               RubyLLM::OverloadedError => e
          reference_retry_or_raise(e, attempts, max_retries, delay)
        rescue RubyLLM::Error => e
          status = e.response&.status
          name = if status == 422 then "UnprocessableEntity"
                 elsif status && (400..499).cover?(status) then "ClientError"
                 else "UnknownAPIError"
                 end
          return reference_fail(e, name)
        rescue ArgumentError, TypeError, NameError => e
          return reference_fail(e, e.class.name)
        rescue StandardError => e
          reference_retry_or_raise(e, attempts, max_retries, delay)
        end
      end
    end

    def reference_context
      { agent: @agent_name, swarm_id: @agent_context&.swarm_id, parent_swarm_id: @agent_context&.parent_swarm_id,
        model: model_id }
    end

    def reference_retry_or_raise(error, attempts, max_retries, delay)
      if attempts >= max_retries
        SwarmSDK::LogStream.emit(type: "llm_retry_exhausted", **reference_context, attempts: attempts,
                                 error_class: error.class.name, error_message: error.message,
                                 error_backtrace: error.backtrace)
        raise error
      end
      SwarmSDK::LogStream.emit(type: "llm_retry_attempt", **reference_context, attempt: attempts,
                               max_retries: max_retries, error_class: error.class.name,
                               error_message: error.message, error_backtrace: error.backtrace, retry_delay: delay)
      sleep(delay)
    end

    def reference_status(error)
      error.respond_to?(:response) ? error.response&.status : nil
    end

    def reference_fail(error, error_type)
      SwarmSDK::LogStream.emit(type: "llm_request_failed", **reference_context, error_type: error_type,
                               error_class: error.class.name, error_message: error.message,
                               status_code: reference_status(error), retryable: false)
      RubyLLM::Message.new(role: :assistant, content: reference_error_text(error), model_id: model_id)
    end

    def reference_error_text(error)
      status = reference_status(error)
      text = +"I encountered an error while processing your request:\n\n"
      text << "**Error Type:** #{error.class.name.split("::").last}\n"
      text << "**Status Code:** #{status}\n" if status
      text << "**Message:** #{error.message}\n\n"
      text << "This error indicates a problem that cannot be automatically recovered. "
      text << case error
              when RubyLLM::UnauthorizedError then "Please check your API credentials."
              when RubyLLM::PaymentRequiredError then "Please check your account billing status."
              when RubyLLM::ForbiddenError then "You may not have permission to access this resource."
              when RubyLLM::BadRequestError then "The request format may be invalid."
              else "Please review the error and try again."
              end
      text
    end

    def reference_recover_orphans(error)
      text = error.message.to_s.downcase
      return 0 unless TOOL_ERROR_PATTERNS.any? { |pattern| text.include?(pattern) }

      @context_manager&.clear_ephemeral
      result = Pruning.prune(@llm_chat.messages)
      return 0 if result[:count].zero?

      replace_messages(result[:messages])
      SwarmSDK::LogStream.emit(type: "orphan_tool_calls_pruned", **reference_context,
                               pruned_count: result[:count], original_error: error.message)
      add_ephemeral_reminder(Pruning.reminder(result[:pruned_tools])) unless result[:pruned_tools].empty?
      result[:count]
    end
  end
end
