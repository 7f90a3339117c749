# frozen_string_literal: true

# retry-core for Ruby: one engine (in Rust) that decides how to survive a failed LLM API call.
#
#   require "retry_core"
#
#   RetryCore.call_llm_with_retry(max_retries: 3, delay: 15) { chat.complete }
#   RetryCore.classify(error).category          # => :rate_limited
#   RetryCore.prune_orphan_tool_calls(messages) # => #<struct RetryCore::Pruned ...>
#   RetryCore::SwarmSDK.install!                # SwarmSDK's call_llm_with_retry, decided by the engine
module RetryCore
end

require_relative "retry_core/version"
require_relative "retry_core/error"
require_relative "retry_core/native"
require_relative "retry_core/failure"
require_relative "retry_core/classification"
require_relative "retry_core/policy"
require_relative "retry_core/fleet"
require_relative "retry_core/run"
require_relative "retry_core/orphans"
require_relative "retry_core/retry"
require_relative "retry_core/swarm_sdk"
require_relative "retry_core/testing"
require_relative "retry_core/streams"
require_relative "retry_core/notifications"
