# frozen_string_literal: true

require_relative "test_helper"

# Replays every shared vector file in tests/vectors through the Ruby binding: the same files
# `cargo test` and pytest replay, so that the three languages decide identically.
class VectorsTest < Minitest::Test
  include TestHelpers

  # runs.json: runs_test.rb; chains.json: chain_vectors_test.rb; hook_answers.json: hook_answers_test.rb;
  # stream_watch.json: streams_test.rb; estimates.json: estimate_vectors_test.rb
  KNOWN = %w[classify.json should_retry.json retry_after.json policies.json orphans.json runs.json chains.json
             hook_answers.json stream_watch.json estimates.json].freeze
  FIXED_NOW = Time.httpdate("Sun, 22 Nov 2026 12:00:00 GMT")

  def test_every_vector_file_has_a_replay
    files = Dir[File.join(VECTORS_DIR, "*.json")].map { |f| File.basename(f) }
    refute_empty files, "no vector files in #{VECTORS_DIR}"
    assert_empty files - KNOWN, "vector files without a Ruby replay"
  end

  def vector_file(name)
    doc = load_vectors(name)
    cases = doc.fetch("cases")
    refute_empty cases, "#{name} has no cases"
    [doc, sample(cases)]
  end

  def check_classification_file(name)
    _, cases = vector_file(name)
    failures = cases.filter_map do |c|
      got = native { RetryCore.classify_at(RetryCore::Failure.from_h(c.fetch("failure")), FIXED_NOW) }
      exp = c.fetch("expect")
      bad = []
      bad << "category #{got.category} != #{exp["category"]}" if exp.key?("category") && got.category.to_s != exp["category"]
      bad << "transient #{got.transient?} != #{exp["transient"]}" if exp.key?("transient") && got.transient? != exp["transient"]
      if exp.key?("retry_after") && !same?(exp["retry_after"], got.retry_after)
        bad << "retry_after #{got.retry_after.inspect} != #{exp["retry_after"].inspect}"
      end
      "#{c["name"]}: #{bad.join(", ")}" unless bad.empty?
    end
    assert_empty failures, "#{failures.size} of #{cases.size} cases in #{name} fail:\n#{failures.join("\n")}"
  end

  def test_classify_vectors
    check_classification_file("classify.json")
  end

  def test_should_retry_vectors
    check_classification_file("should_retry.json")
  end

  def test_retry_after_vectors
    doc, cases = vector_file("retry_after.json")
    now = Time.httpdate(doc.fetch("now"))
    failures = cases.filter_map do |c|
      got = native { RetryCore.retry_after(c.fetch("headers"), now: now) }
      "#{c["name"]}: got #{got.inspect}, want #{c["expect"].inspect}" unless same?(c["expect"], got)
    end
    assert_empty failures, failures.join("\n")
  end

  def check_decision(label, decision, exp)
    bad = []
    bad << "action #{decision.action} != #{exp["action"]}" unless decision.action.to_s == exp["action"]
    bad << "delay #{decision.delay.inspect} != #{exp["delay"]}" if exp.key?("delay") && !same?(exp["delay"], decision.delay)
    bad << "reason #{decision.reason.inspect} != #{exp["reason"]}" if exp.key?("reason") && decision.reason.to_s != exp["reason"]
    bad << "attempt #{decision.attempt} != #{exp["attempt"]}" if exp.key?("attempt") && decision.attempt != exp["attempt"]
    if exp.key?("category") && decision.classification.category.to_s != exp["category"]
      bad << "category #{decision.classification.category} != #{exp["category"]}"
    end
    if exp.key?("events") && !same?(exp["events"], decision.events)
      bad << "events #{decision.events.inspect} != #{exp["events"].inspect}"
    end
    bad.map { |b| "#{label}: #{b}" }
  end

  # The run's step on a decision: a retry waits (one of 0 s after a server's wait of 0 or a
  # recovery may call at once); a recovery or an end is the step of the same name.
  def step_matches?(decision, step)
    case decision.action
    when :retry then (step[0] == :wait && step[1] == decision.delay) || (step[0] == :call && decision.delay.zero?)
    when :give_up then step == [:give_up, decision.reason]
    else step == [decision.action]
    end
  end

  # Through the engine's Run, as Rust's and Python's runners do.
  def test_policy_vectors
    _, cases = vector_file("policies.json")
    failures = cases.flat_map do |c|
      machine = RunMachine.new(RetryCore::Policy.from_config(c.fetch("policy")),
                               seed: c.fetch("seed", 0), context_hook: c.fetch("context_hook", false))
      c.fetch("steps").each_with_index.flat_map do |step, i|
        elapsed = step.fetch("elapsed", 0.0)
        decision = native do
          if step.key?("failure")
            machine.on_failure(RetryCore::Failure.from_h(step["failure"]), elapsed: elapsed)
          elsif step.key?("pruned")
            machine.on_orphans_pruned(step["pruned"], elapsed: elapsed)
          else
            machine.on_context_compacted(step.fetch("compacted"), elapsed: elapsed)
          end
        end
        bad = step_matches?(decision, machine.step) ? [] : ["#{c["name"]} step #{i}: step #{machine.step.inspect} for #{decision.inspect}"]
        bad + check_decision("#{c["name"]} step #{i}", decision, step.fetch("expect"))
      end
    end
    assert_empty failures, failures.join("\n")
  end

  def test_orphan_vectors_as_hashes
    _, cases = vector_file("orphans.json")
    failures = cases.flat_map do |c|
      exp = c.fetch("expect")
      out = native { RetryCore.prune_orphan_tool_calls(c.fetch("messages")) }
      bad = []
      bad << "messages #{out.messages.inspect}" unless out.messages == exp["messages"]
      pruned = out.pruned.map { |p| p.transform_keys(&:to_s) }
      bad << "pruned #{pruned.inspect}" unless pruned == exp["pruned"]
      bad << "dangling #{out.dangling_results}" unless out.dangling_results == exp["dangling_results"]
      bad << "reminder #{out.reminder.inspect}" unless out.reminder == exp["reminder"]
      bad.map { |b| "#{c["name"]}: #{b}" }
    end
    assert_empty failures, failures.join("\n")
  end

  # The OpenAI / RubyLLM shaped cases again, as RubyLLM::Message objects: same decisions.
  def test_orphan_vectors_as_ruby_llm_messages
    _, cases = vector_file("orphans.json")
    convertible = cases.select { |c| c["messages"].all? { |m| ruby_llm_shaped?(m) } }
    refute_empty convertible
    failures = convertible.flat_map do |c|
      exp = c.fetch("expect")
      messages = c["messages"].map { |m| to_message(m) }
      out = native { RetryCore.prune_orphan_tool_calls(messages) }
      bad = []
      got = out.messages.map { |m| [m.role.to_s, m.tool_call_id, m.tool_calls&.keys] }
      want = exp["messages"].map { |m| [m["role"], m["tool_call_id"], to_message(m).tool_calls&.keys] }
      bad << "messages #{got.inspect} != #{want.inspect}" unless got == want
      bad << "pruned ids #{out.pruned.map { |p| p[:id] }}" unless out.pruned.map { |p| p[:id] } == exp["pruned"].map { |p| p["id"] }
      bad << "dangling #{out.dangling_results}" unless out.dangling_results == exp["dangling_results"]
      bad << "reminder #{out.reminder.inspect}" unless out.reminder == exp["reminder"]
      bad.map { |b| "#{c["name"]}: #{b}" }
    end
    assert_empty failures, failures.join("\n")
  end

  def ruby_llm_shaped?(message)
    !message["content"].is_a?(Array) &&
      (message["tool_calls"].nil? || message["tool_calls"].is_a?(Hash) ||
        message["tool_calls"].all? { |tc| tc["id"] && tc.dig("function", "name") })
  end

  def to_message(hash)
    calls = case hash["tool_calls"]
            when Hash
              hash["tool_calls"].to_h { |id, tc| [id, RubyLLM::ToolCall.new(id: tc["id"], name: tc["name"], arguments: tc["arguments"])] }
            when Array
              hash["tool_calls"].to_h do |tc|
                args = tc.dig("function", "arguments")
                args = JSON.parse(args) if args.is_a?(String) && !args.strip.empty?
                [tc["id"], RubyLLM::ToolCall.new(id: tc["id"], name: tc.dig("function", "name"), arguments: args || {})]
              end
            end
    RubyLLM::Message.new(role: hash["role"], content: hash["content"], tool_calls: calls, tool_call_id: hash["tool_call_id"])
  end
end
