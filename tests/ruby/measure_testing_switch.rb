# frozen_string_literal: true

# Figures for issue 22's testing switch (not a test: run it by hand):
#   ruby -Igems/retry_core/lib -Itests/ruby tests/ruby/measure_testing_switch.rb
# The real time of a 429 -> 503 -> success run with a Fleet under RetryCore.testing! (best of
# 20), and the virtual time it spent.
require "retry_core"
require "logger"
require_relative "support/ruby_llm_double"

RetryCore.logger = Logger.new(File::NULL)
best = Float::INFINITY
virtual = 0.0
20.times do
  answers = [RubyLLM.error_for(429, "slow down", headers: { "retry-after" => "20" }),
             RubyLLM.error_for(503, "busy"), "ok"]
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  RetryCore.testing!(seed: 0) do |rec|
    out = RetryCore.call_llm_with_retry(fleet: RetryCore::Fleet.new, key: "openai:gpt-4o") do
      a = answers.shift
      raise a if a.is_a?(Exception)

      a
    end
    raise "not ok" unless out == "ok"

    virtual = rec.elapsed
  end
  best = [best, Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0].min
end
puts format("429 -> 503 -> success with a Fleet under RetryCore.testing!: %.2f ms real (best of 20), %.2f s virtual",
            best * 1000, virtual)
