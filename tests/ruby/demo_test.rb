# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"
require "open3"

# `make demo`'s Ruby part (scripts/demo-ruby.rb) runs against the real lab and prints the
# decisions it claims: the server's retry-after, the orphan pruned without a wait, timeouts and
# resets retried, the 401 returned as a message, and the fleet's metrics.
class DemoTest < Minitest::Test
  def test_the_ruby_demo_prints_each_decision
    skip "timing-dependent (real sockets and waits)" if GCStress.on?
    assert File.executable?(RetryLab.binary), "#{RetryLab.binary} is missing: `rake test` builds it (cargo build -p retry-lab)"

    lib = File.dirname($LOADED_FEATURES.grep(%r{/retry_core\.rb\z}).first)
    out, err, status = Timeout.timeout(60) do
      Open3.capture3(RbConfig.ruby, "-I", lib, File.join(ROOT, "scripts", "demo-ruby.rb"))
    end
    assert status.success?, "demo-ruby.rb failed:\n#{err}\n#{out}"
    lines = out.lines.map(&:strip)
    find = ->(prefix) { lines.grep(prefix) }

    assert_match(/rate_limited\s+429\s+1\.00s\s+the server's retry-after \(1 s\)/, find.call(/llm_retry_attempt\s+rate_limited/).first)
    assert_equal 1, find.call(/rate_limit_pause/).size
    assert_match(/overloaded\s+529/, find.call(/llm_retry_attempt\s+overloaded/).first)
    assert_match(/1 tool call\(s\) without results removed; retried at once/, find.call(/orphan_tool_calls_pruned/).first)
    assert_equal 1, find.call(/llm_retry_attempt\s+timeout/).size
    assert_equal 1, find.call(/llm_retry_attempt\s+connection/).size
    assert_match(/unauthorized\s+401/, find.call(/llm_request_failed/).first)
    assert_equal 4, find.call(/turn done/).size, out
    assert_empty find.call(/turn failed/)
    assert_equal ["the lab saw 3 request(s): 429(rate_limit) 529(overloaded) 200(ok)",
                  "the lab saw 2 request(s): 400(tool_pairing) 200(ok)",
                  "the lab saw 3 request(s): 200(stall) reset(reset) 200(ok)",
                  "the lab saw 1 request(s): 401(unauthorized)"], find.call(/the lab saw/)
    assert_match(/claude-sonnet-4\s+calls 9, retries 4/, find.call(/calls \d+, retries/).first)
    refute_match(/sk-ant-api03/, out + err, "no key in the demo's output")
  end
end
