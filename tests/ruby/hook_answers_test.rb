# frozen_string_literal: true

require_relative "test_helper"

# tests/vectors/hook_answers.json through the Ruby front door: an +on_orphans+ hook given no
# history answers each value; the core reads it (run::HookAnswer). cargo and pytest replay the
# same file.
class HookAnswersTest < Minitest::Test
  include TestHelpers

  CASES = JSON.parse(File.read(File.join(VECTORS_DIR, "hook_answers.json")))["cases"]

  class PairingError < StandardError
    def initialize
      super("tool_use ids were found without tool_result blocks immediately after")
    end

    def status = 400
  end

  def teardown
    unstub_sleeps
  end

  CASES.each_with_index do |c, i|
    define_method("test_hook_answer_#{i}") do
      record_sleeps(RetryCore)
      calls = 0
      events = []
      run = lambda do
        RetryCore.call_llm_with_retry(on_orphans: ->(_) { c["answer"] }, on_event: events.method(:<<)) do
          (calls += 1) == 1 ? raise(PairingError) : :ok
        end
      end
      if c["pruned"].zero?
        assert_raises(PairingError) { run.call }
        assert_equal 1, calls
      else
        assert_equal :ok, run.call
      end
      pruned = events.select { |e| e[:type] == "orphan_tool_calls_pruned" }.map { |e| e[:pruned_count] }
      assert_equal(c["pruned"].zero? ? [] : [c["pruned"]], pruned, "answer #{c["answer"].inspect}")
    end
  end
end
