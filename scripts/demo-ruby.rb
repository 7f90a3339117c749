# frozen_string_literal: true

# `make demo`'s Ruby part: a SwarmSDK-shaped agent with RetryCore::SwarmSDK installed, whose
# LLM call is a real Net::HTTP request to the fault lab, through a scripted sequence of faults.
# One line per decision and why, from the events ChatRetry sends to SwarmSDK::LogStream.
#
# SwarmSDK and RubyLLM cannot be installed here (RubyGems is not reachable), so the agent is the
# test suite's double of SwarmSDK::Agent::Chat and RubyLLM's error hierarchy
# (tests/ruby/support/): the same class names, events and message objects; the HTTP is real.
#
#   scripts/demo-ruby.sh          # builds what is missing, starts and stops the lab
#   ruby scripts/demo-ruby.rb     # with retry_core installed and target/debug/retry-lab built

require "retry_core"
require_relative "../tests/ruby/support/ruby_llm_double"
require_relative "../tests/ruby/support/swarm_sdk_double"
require_relative "../tests/ruby/support/lab"

# The agent: SwarmSDK's chat, its LLM call a request to the lab.
class DemoChat < SwarmSDK::Agent::Chat
  include RetryLab::AgentTurn
end

# Prints each LogStream entry as a timeline line.
class Timeline
  attr_accessor :t0

  def initialize
    @t0 = now
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  def header
    puts format("  %7s  %-26s %-18s %-6s %-6s %s", "time", "event", "category", "status", "wait", "why")
  end

  def line(event, category: "-", status: "-", wait: nil, why: "")
    wait = wait.nil? ? "-" : "#{format('%.2f', wait)}s"
    puts format("  %6.2fs  %-26s %-18s %-6s %-6s %s", now - @t0, event, category || "-", status || "-", wait, why)
    $stdout.flush
  end

  # SwarmSDK::LogStream's emitter interface.
  def emit(e)
    type = e[:type]
    case type
    when "llm_retry_attempt"
      why = if e[:retry_after] then "the server's retry-after (#{format('%g', e[:retry_after])} s)"
            else "the policy's backoff"
            end
      line(type, category: e[:category], status: e[:status_code], wait: e[:retry_delay],
                 why: "#{why}; retry #{e[:attempt]}/#{e[:max_retries]}")
    when "llm_request_failed"
      line(type, category: e[:category], status: e[:status_code],
                 why: "#{e[:error_type]}: permanent, not retried; the error comes back as a message")
    when "orphan_tool_calls_pruned"
      line(type, category: "tool_pairing", status: 400,
                 why: "#{e[:pruned_count]} tool call(s) without results removed; retried at once, no attempt spent")
    when "llm_retry_exhausted"
      line(type, category: e[:category], status: e[:status_code], why: "gave up; the last error is raised")
    when "retry_layers_configured"
      line(type, why: e[:note])
    when "rate_limit_pause"
      line(type, category: e[:category], wait: e[:seconds], why: "every caller of #{e[:key]} waits, not only this one")
    else
      line(type, category: e[:category], why: e.reject { |k, _| %i[type timestamp agent swarm_id model].include?(k) }.inspect)
    end
  end
end

def turn(lab, agent, timeline, title, steps, text)
  lab.script(steps: steps)
  puts "\n  #{title}"
  timeline.header
  timeline.t0 = timeline.now
  begin
    reply = agent.ask(text)
    timeline.line("turn done", why: "#{reply.role}: #{reply.content.lines.first.to_s.strip[0, 60]}")
  rescue StandardError => e
    timeline.line("turn failed", why: "#{e.class}: #{e.message.lines.first.to_s.strip}")
  end
  log = lab.log
  puts "  the lab saw #{log.size} request(s): #{log.map { |r| "#{r['status'] || 'reset'}(#{r['fault']})" }.join(' ')}"
end

lab = RetryLab::Server.start
begin
  timeline = Timeline.new
  SwarmSDK::LogStream.emitter = timeline
  fleet = RetryCore::Fleet.new
  puts "  install!:"
  RetryCore::SwarmSDK.install!
  RetryCore::SwarmSDK.configure do |c|
    c.policy = :default # retry-after honoured, backoff from 1 s, 30 calls / 180 s at most
    c.fleet = fleet
  end

  agent = DemoChat.new(definition: { model: "claude-sonnet-4" }, agent_name: :backend)
  agent.setup_context(SwarmSDK::Agent::Context.new("demo-swarm", nil))
  agent.client = RetryLab::Client.new(lab, provider: :anthropic, read_timeout: 0.5)
  puts "  retry-lab at #{lab.url}; agent :backend (claude-sonnet-4) with RetryCore::SwarmSDK.install!, policy :default, a Fleet"

  turn(lab, agent, timeline, "turn 1: 429 retry-after 1 -> 529 overloaded -> ok",
       [{ fault: "rate_limit", retry_after: 1 }, { fault: "overloaded" }], "Summarise the repository.")

  # The previous reply asked for a tool whose result never made it into the history.
  agent.add_message(RubyLLM::Message.new(
                      role: :assistant, content: "", model_id: "claude-sonnet-4",
                      tool_calls: { "toolu_01" => RubyLLM::ToolCall.new(id: "toolu_01", name: "Read", arguments: { "file_path" => "lib/app.rb" }) }
                    ))
  turn(lab, agent, timeline, "turn 2: 400 tool_use without tool_result -> ok (an orphan tool call in the history)",
       [{ fault: "tool_pairing" }], "Go on.")

  turn(lab, agent, timeline, "turn 3: a stall past the 0.5 s read timeout -> a reset connection -> ok",
       [{ fault: "stall", seconds: 3 }, { fault: "reset" }], "And the tests?")

  turn(lab, agent, timeline, "turn 4: 401 (a bad key)",
       [{ fault: "unauthorized" }], "Thanks.")

  puts "\n  fleet.metrics (per key: calls, retries, seconds waited, calls wasted on sequences that failed):"
  fleet.metrics.each do |key, cats|
    t = cats["total"]
    detail = cats.reject { |c, _| c == "total" }.map { |c, v| "#{c} #{v[:calls]}" }.join(", ")
    puts format("    %-16s calls %d, retries %d, waited %.2fs, wasted %d calls / %.2fs  (%s)",
                key, t[:calls], t[:retries], t[:waited_s], t[:wasted_calls], t[:wasted_s], detail)
  end
ensure
  lab.stop
end
