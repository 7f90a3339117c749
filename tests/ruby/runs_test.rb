# frozen_string_literal: true

require_relative "test_helper"

# Replays tests/vectors/runs.json (whole runs of one logical call through the core's Run) through
# RetryCore::Run, on virtual time (a fleet on a manual clock), as cargo and pytest replay it.
class RunsTest < Minitest::Test
  include TestHelpers

  DEFAULT_CLOCK_START = 1_000_000.0

  def runs
    runs = load_vectors("runs.json").fetch("runs")
    refute_empty runs
    sample(runs)
  end

  # Symbols as Strings, String keys: the shape JSON gives.
  def json_round_trip(value)
    JSON.parse(JSON.generate(value))
  end

  def replay(c)
    policy = RetryCore::Policy.from_config(c.fetch("policy"))
    clock_start = c.fetch("clock_start", DEFAULT_CLOCK_START).to_f
    fleet = c["fleet"] && RetryCore::Fleet._with_manual_clock(JSON.generate(c["fleet"]), clock_start)
    run = RetryCore::Run.new(policy, config: c["config"], fleet: fleet, keys: c["keys"])
    script = c.fetch("script").dup
    pruned = (c["pruned"] || []).dup
    compacted = (c["compacted"] || []).dup
    steps = []
    events = []
    t = 0.0
    step = native { run.start(t) }
    loop do
      events.concat(run.take_events)
      steps << step
      break if %i[return give_up reraise].include?(step[0])
      raise "runaway run" if steps.size > 500

      case step[0]
      when :call
        outcome = script.shift or flunk("#{c["name"]}: the run asked for a call the script does not have")
        t += outcome.fetch("takes", 0).to_f
        fleet&._set_clock(clock_start + t)
        step = if outcome["ok"]
                 native { run.succeeded(t) }
               else
                 failure = RetryCore::Failure.from_json(JSON.generate(outcome.fetch("failure")))
                 native { run.failed(failure, t) }
               end
      when :wait
        t += step[1]
        fleet&._set_clock(clock_start + t)
        step = native { run.resume(t) }
      when :skip then step = native { run.resume(t) }
      when :prune_orphans then step = native { run.pruned(pruned.shift || 0, t) }
      when :compact_context then step = native { run.compacted(compacted.shift || false, t) }
      else flunk "unknown step #{step.inspect}"
      end
    end
    events.concat(run.take_events)
    [steps, events, run.note, script]
  end

  def test_run_vectors
    failures = runs.filter_map do |c|
      steps, events, note, left = replay(c)
      expect = c.fetch("expect")
      problems = []
      problems << "steps #{json_round_trip(steps)}" unless same?(expect.fetch("steps"), json_round_trip(steps))
      problems << "events #{json_round_trip(events)}" unless json_round_trip(events) == expect.fetch("events")
      problems << "note #{note.inspect}" unless note == expect["note"]
      problems << "#{left.size} outcome(s) of the script never asked for" unless left.empty?
      "#{c["name"]}: #{problems.join("; ")}" unless problems.empty?
    end
    assert_empty failures
  end

  # Every line the front doors log comes from the core, one per event at most, at its level.
  def test_log_lines_come_with_their_events
    run = RetryCore::Run.new(:forgeflare, config: { seed: 1 })
    assert_equal [:call, 0], run.start
    assert_equal [:wait, 2.0, :backoff], run.failed(RetryCore::Failure.new(status: 503, message: "busy"), 0.0)
    lines = run.log_lines
    events = run.take_events
    assert_equal events.size, lines.size
    assert_equal %w[llm_retry_attempt retry_wait_started], events.map { |e| e[:type] }
    assert_equal :warn, lines[0][0]
    assert_match(/\Aretry-core: .*attempt 1\/\d+ failed; retrying in 2 s/, lines[0][1])
    assert_nil lines[1], "a backoff is announced once, by its llm_retry_attempt"
    assert_equal [:call, 0], run.resume(2.0)
    assert_equal [:return], run.succeeded(2.5)
    assert_equal 1, run.attempts
    assert_equal :retry, run.decision.action
  end

  def test_misuse_never_panics
    run = RetryCore::Run.new
    assert_equal [:give_up, :permanent], run.resume(0.0)
    assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Run.new.start(-1.0) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Run.new(config: { nope: 1 }) }
    assert_raises(RetryCore::InvalidStateError) { RetryCore::Fleet.new._set_clock(1.0) }
  end
end
