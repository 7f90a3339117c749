# frozen_string_literal: true

# One Ruby front door called N times: bench/doors_instr.sh counts its instructions per call
# under callgrind, a run of N + 1 calls minus a run of 1 (what the first call and the set-up
# cost cancels out). The doors and their arguments are bench.rb's.
#
#   ruby -I gems/retry_core/lib bench/ruby/doors_instr.rb DOOR N

require "retry_core"

response = Object.new
answer = { usage: { prompt_tokens: 120, completion_tokens: 40 } }
fleet = RetryCore::Fleet.new
# Admission on, no contention (limits no call reaches): the answer's usage settles the slot.
admitted = RetryCore::Fleet.new(admission: { mode: :static, limits: { requests: 1e12, tokens: 1e12 } })
estimate = { messages: [{ role: "system", content: "You are terse." },
                        { role: "user", content: "Say hello in five words." }], max_tokens: 64 }

# Each a block the loop yields to; `plain` and `plain_usage` are the plain calls the others'
# overhead is counted over.
doors = {
  "plain" => -> { response },
  "plain_usage" => -> { answer },
  "door" => -> { RetryCore.call_llm_with_retry { response } },
  "fleet" => -> { RetryCore.call_llm_with_retry(fleet: fleet, key: "openai:gpt-4o") { response } },
  "admission" => -> { RetryCore.call_llm_with_retry(fleet: admitted, key: "openai:gpt-4o") { answer } },
  "estimate" => lambda {
    RetryCore.call_llm_with_retry(fleet: admitted, key: "openai:gpt-4o", estimate: estimate) { answer }
  }
}

door = doors.fetch(ARGV.fetch(0))
n = Integer(ARGV.fetch(1))
i = 0
while i < n
  door.call
  i += 1
end
