# frozen_string_literal: true

# `make test-dist`'s Ruby smoke program, run by scripts/dist-test.sh against a gem installed
# into a clean GEM_HOME (the precompiled gem with no Rust toolchain on PATH, or the source gem
# built offline):
#
#   ruby scripts/dist-smoke.rb VERSION RETRY_LAB_BINARY EXPECTED_LIBRARY_SUFFIX
#
# It proves the installed gem answers, with the library it should load: the version, a real
# Ruby exception classified, a retry through the fault lab over Net::HTTP, a pruned history.

require "json"
require "net/http"

version, lab_bin, lib_suffix = ARGV
gem "retry_core", version
require "retry_core"

home = ENV.fetch("GEM_HOME")
loaded = $LOADED_FEATURES.grep(%r{/retry_core(/[\d.]+)?/retry_core\.so\z|/retry_core\.so\z})
abort "smoke(ruby): no native library loaded" if loaded.empty?
abort "smoke(ruby): #{loaded.first} is not from #{home}" unless loaded.first.start_with?(home)
abort "smoke(ruby): #{loaded.first} does not end with #{lib_suffix}" unless loaded.first.end_with?(lib_suffix)
abort "smoke(ruby): RetryCore::VERSION #{RetryCore::VERSION} != #{version}" unless RetryCore::VERSION == version
native = RetryCore.const_defined?(:NATIVE_VERSION) ? RetryCore::NATIVE_VERSION : RetryCore::Native::NATIVE_VERSION
abort "smoke(ruby): native #{native} != #{version}" unless native == version
puts "smoke(ruby): retry_core #{RetryCore::VERSION} (native #{native}) from #{loaded.first}"

# 1. Real exceptions: a reset connection, a read timeout, a 429 Net::HTTP error with retry-after.
c = RetryCore.classify(Errno::ECONNRESET.new)
abort "smoke(ruby): ECONNRESET -> #{c.category}" unless c.category == :connection
c = RetryCore.classify(Net::ReadTimeout.new)
abort "smoke(ruby): Net::ReadTimeout -> #{c.category}" unless c.category == :timeout
puts "smoke(ruby): Errno::ECONNRESET -> connection, Net::ReadTimeout -> timeout"

# 2. A retry through the fault lab over Net::HTTP: 429 (retry-after 0), 529, ok.
lab = IO.popen([lab_bin, "--port", "0", "--exit-on-stdin-close", "--quiet"], "r+")
begin
  host, port = lab.gets.split[1].split(":")
  http = Net::HTTP.new(host, port.to_i)
  http.proxy_address = nil
  script = { steps: [{ fault: "rate_limit", retry_after: 0 }, { fault: "overloaded" }, { fault: "ok" }] }
  http.post("/_lab/script", JSON.generate(script), "content-type" => "application/json").value
  events = []
  calls = 0
  reply = RetryCore.call_llm_with_retry(max_retries: 3, delay: 0.05, on_event: ->(e) { events << e[:type] }) do
    calls += 1
    res = http.post("/v1/messages", JSON.generate(model: "claude-sonnet-4", max_tokens: 16,
                                                  messages: [{ role: "user", content: "hi" }]),
                    "content-type" => "application/json", "x-api-key" => "sk-ant-smoke-1234")
    res.value # raises Net::HTTPClientException / Net::HTTPFatalError with the response
    JSON.parse(res.body)
  end
  text = reply["content"][0]["text"]
  abort "smoke(ruby): reply #{text.inspect}" unless text.start_with?("Hello from retry-lab!")
  statuses = JSON.parse(http.get("/_lab/log").body).map { |r| r["status"] }
  abort "smoke(ruby): the lab saw #{statuses}" unless statuses == [429, 529, 200] && calls == 3
  puts "smoke(ruby): through the lab #{statuses} -> #{text.inspect}; events #{events}"
ensure
  lab.close_write
  Process.wait(lab.pid)
end

# 3. Prune a history: a tool call without its result.
history = [
  { "role" => "user", "content" => "read it" },
  { "role" => "assistant", "content" => nil,
    "tool_calls" => [{ "id" => "call_1", "type" => "function",
                       "function" => { "name" => "Read", "arguments" => '{"file_path": "/a.rb"}' } }] },
  { "role" => "user", "content" => "and?" }
]
pruned = RetryCore.prune_orphan_tool_calls(history)
abort "smoke(ruby): pruned #{pruned.inspect}" unless pruned.messages.size == 2 && pruned.pruned.size == 1
puts "smoke(ruby): pruned #{pruned.pruned.size} orphan call(s); #{history.size} -> #{pruned.messages.size} messages"
puts "smoke(ruby): ok"
