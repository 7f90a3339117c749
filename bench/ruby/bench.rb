# frozen_string_literal: true

# Benchmarks of the Ruby binding against SwarmSDK's pure-Ruby code (swarm_sdk_reference.rb):
#
# 1. success-path overhead: call_llm_with_retry around a block that succeeds, SwarmSDK's method
#    vs RetryCore::SwarmSDK::ChatRetry (and RetryCore.call_llm_with_retry vs a bare yield);
# 2. orphan pruning of a 10 000-message RubyLLM-like history: SwarmSDK's Ruby scan and rebuild
#    vs RetryCore.prune_orphan_tool_calls, conversion of the Ruby objects included.
#
#    retry-core's time is RetryCore.prune_orphan_tool_calls: the native plan (reading the Ruby
#    messages, the core's plan, the edits and pruned calls handed back; shown alone as "plan")
#    plus the gem's Ruby applying it (lib/retry_core/orphans.rb: rebuilding each changed message
#    with its own class, as SwarmSDK does; "apply" is the difference of the two best times).
#
# Run with a release build:  rake bench   (or: RELEASE=1 rake compile && ruby -I gems/retry_core/lib bench/ruby/bench.rb)
# Options: --quick (fewer iterations), --json PATH or --json=PATH (also write the figures there).

require "json"
require "optparse"

USAGE = "usage: ruby -I gems/retry_core/lib bench/ruby/bench.rb [--quick] [--doors] [--json PATH]"
QUICK, DOORS, JSON_PATH = begin
  quick = false
  doors = false
  json = nil
  OptionParser.new do |o|
    o.banner = USAGE
    o.on("--quick", "fewer iterations") { quick = true }
    o.on("--doors", "the success path only (bench/doors.sh)") { doors = true }
    o.on("--json PATH", "also write the figures as JSON to PATH") { |path| json = path }
  end.parse!(ARGV)
  abort "unexpected arguments: #{ARGV.join(" ")}" unless ARGV.empty?
  [quick, doors, json]
rescue OptionParser::ParseError => e
  abort "#{e.message}\n#{USAGE}"
end

require "retry_core"
require_relative "../../tests/ruby/support/ruby_llm_double"
require_relative "../../tests/ruby/support/swarm_sdk_double"

RetryCore::SwarmSDK.install!(SwarmSDK::Agent::Chat)

# CPU time of this thread: the machines these run on are shared (2 cores, other builds), and
# wall time there measures the neighbours as much as the code. Nothing here waits.
def clock
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

# Best of `rounds` runs of `iterations` calls, in nanoseconds per call.
def per_call_ns(iterations, rounds: 7)
  best = Float::INFINITY
  rounds.times do
    GC.start
    started = clock
    i = 0
    while i < iterations
      yield
      i += 1
    end
    best = [best, clock - started].min
  end
  best / iterations * 1e9
end

# Best of `rounds` runs, in milliseconds.
def best_ms(rounds)
  best = Float::INFINITY
  rounds.times do
    GC.start
    started = clock
    yield
    best = [best, clock - started].min
  end
  best * 1e3
end

def new_chat(klass)
  chat = klass.new(definition: { model: "claude-sonnet-4" }, agent_name: :bench)
  chat.setup_context(SwarmSDK::Agent::Context.new("swarm", nil))
  chat
end

results = { ruby: RUBY_VERSION, retry_core: RetryCore::VERSION }

# --- 1. success path -------------------------------------------------------------------------

n = QUICK ? 200_000 : 2_000_000
reference = new_chat(ReferenceChat)
patched = new_chat(SwarmSDK::Agent::Chat)
response = Object.new

bare = per_call_ns(n) { response }
swarm = per_call_ns(n) { reference.__send__(:call_llm_with_retry) { response } }
ours = per_call_ns(n) { patched.__send__(:call_llm_with_retry) { response } }
plain_yield = per_call_ns(n) { [1].each { response } }
generic = per_call_ns(n) { RetryCore.call_llm_with_retry { response } }
hook = ->(_event) {}
with_options = per_call_ns(n) { RetryCore.call_llm_with_retry(policy: "default", on_event: hook) { response } }
fleet = RetryCore::Fleet.new
with_fleet = per_call_ns(n) { RetryCore.call_llm_with_retry(fleet: fleet, key: "openai:gpt-4o") { response } }
# Admission on, no contention (limits no call reaches): the answer reports its usage, which
# settles the call's slot; with an estimate, the core computes the cost from the messages.
admitted = RetryCore::Fleet.new(admission: { mode: :static, limits: { requests: 1e12, tokens: 1e12 } })
answer = { usage: { prompt_tokens: 120, completion_tokens: 40 } }
bare_answer = per_call_ns(n) { answer }
with_admission = per_call_ns(n / 4) { RetryCore.call_llm_with_retry(fleet: admitted, key: "openai:gpt-4o") { answer } }
estimate = { messages: [{ role: "system", content: "You are terse." },
                        { role: "user", content: "Say hello in five words." }], max_tokens: 64 }
with_estimate = per_call_ns(n / 4) do
  RetryCore.call_llm_with_retry(fleet: admitted, key: "openai:gpt-4o", estimate: estimate) { answer }
end

results[:success_path] = {
  iterations: n,
  loop_ns: bare.round(1),
  swarm_sdk_ns: swarm.round(1),
  chat_retry_ns: ours.round(1),
  extra_ns: (ours - swarm).round(1),
  call_llm_with_retry_ns: generic.round(1),
  with_options_ns: with_options.round(1),
  with_fleet_ns: with_fleet.round(1),
  answer_loop_ns: bare_answer.round(1),
  with_admission_ns: with_admission.round(1),
  with_estimate_ns: with_estimate.round(1),
  block_call_ns: plain_yield.round(1)
}

puts "Success path (#{n} calls, best of 7, CPU ns per call; the loop itself: #{bare.round(1)} ns)"
puts format("  SwarmSDK call_llm_with_retry (pure Ruby)   %8.1f", swarm)
puts format("  RetryCore::SwarmSDK::ChatRetry             %8.1f   extra: %+.1f ns", ours, ours - swarm)
puts format("  RetryCore.call_llm_with_retry              %8.1f", generic)
puts format("    (policy:, on_event:)                     %8.1f", with_options)
puts format("    (fleet:, key:)                           %8.1f", with_fleet)
puts format("    (fleet:, key:), admission on             %8.1f", with_admission)
puts format("    (fleet:, key:, estimate:), admission on  %8.1f", with_estimate)

if DOORS
  File.write(JSON_PATH, JSON.pretty_generate(results)) if JSON_PATH
  exit
end

# --- 2. orphan pruning -----------------------------------------------------------------------

def tool_call(id, name, arguments)
  [id, RubyLLM::ToolCall.new(id: id, name: name, arguments: arguments)]
end

# A long agent session: user turns, assistant turns with 1-3 tool calls and their results,
# and `orphan_every`-th call left without a result (an interrupted tool run).
def history(size, orphan_every:, seed: 42)
  rng = Random.new(seed)
  messages = []
  id = 0
  while messages.size < size
    messages << RubyLLM::Message.new(role: :user, content: "Please look at file #{messages.size}.")
    calls = Array.new(rng.rand(1..3)) do
      id += 1
      tool_call("toolu_#{id.to_s.rjust(8, "0")}", %w[Read Write Bash Grep].sample(random: rng),
                { "file_path" => "/src/app/models/file_#{id}.rb", "limit" => 200 })
    end
    messages << RubyLLM::Message.new(role: :assistant, content: rng.rand < 0.5 ? "Let me check." : "",
                                     tool_calls: calls.to_h, model_id: "claude-sonnet-4",
                                     input_tokens: 1200, output_tokens: 80)
    calls.each do |(call_id, _)|
      next if orphan_every && (call_id[-8..].to_i % orphan_every).zero?

      messages << RubyLLM::Message.new(role: :tool, content: "contents of the file", tool_call_id: call_id)
    end
    messages << RubyLLM::Message.new(role: :assistant, content: "Here is what I found.", model_id: "claude-sonnet-4")
  end
  messages.first(size)
end

rounds = QUICK ? 5 : 21
results[:pruning] = []
puts
puts "Orphan pruning of a 10 000-message RubyLLM-like history (best of #{rounds}, CPU ms; conversion included)"
[["one interrupted call at the end", nil], ["1 call in 50 orphaned", 50], ["1 call in 5 orphaned", 5]].each do |label, every|
  messages = history(10_000, orphan_every: every)
  if every.nil?
    messages << RubyLLM::Message.new(role: :assistant, content: "", tool_calls: [tool_call("toolu_last", "Bash", { "command" => "make test" })].to_h)
  end
  theirs = SwarmSDKReference::Pruning.prune(messages)
  ours = RetryCore.prune_orphan_tool_calls(messages)
  unless theirs[:count] == ours.pruned.size && theirs[:messages].size == ours.messages.size
    abort "pruning results differ: #{theirs[:count]} vs #{ours.pruned.size}"
  end

  ruby_ms = best_ms(rounds) { SwarmSDKReference::Pruning.prune(messages) }
  core_ms = best_ms(rounds) { RetryCore.prune_orphan_tool_calls(messages) }
  plan_ms = best_ms(rounds) { RetryCore._orphan_plan(messages) }
  apply_ms = [core_ms - plan_ms, 0.0].max
  results[:pruning] << { history: label, messages: messages.size, pruned: ours.pruned.size,
                         swarm_sdk_ms: ruby_ms.round(3), retry_core_ms: core_ms.round(3),
                         plan_only_ms: plan_ms.round(3), ruby_apply_ms: apply_ms.round(3),
                         speedup: (ruby_ms / core_ms).round(1) }
  puts format("  %-34s pruned %5d   SwarmSDK Ruby %7.2f   retry-core %6.2f (plan %5.2f, apply %5.2f)   %5.1fx",
              label, ours.pruned.size, ruby_ms, core_ms, plan_ms, apply_ms, ruby_ms / core_ms)
end

File.write(JSON_PATH, JSON.pretty_generate(results)) if JSON_PATH
