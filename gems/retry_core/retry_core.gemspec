# frozen_string_literal: true

require_relative "lib/retry_core/version"

Gem::Specification.new do |spec|
  spec.name = "retry_core"
  spec.version = RetryCore::VERSION
  spec.authors = ["retry-core maintainers"]
  spec.summary = "One engine (in Rust) that decides how to survive a failed LLM API call."
  spec.description = <<~TEXT
    Classification of LLM API failures, retry policies (SwarmSDK, Forgeflare, PlanExe presets),
    events, error texts, secret scrubbing and orphan tool call pruning, decided by the retry-core
    Rust engine; waits go through Kernel#sleep. Includes a drop-in for SwarmSDK's
    call_llm_with_retry.
  TEXT
  spec.licenses = ["MIT", "Apache-2.0"]
  spec.required_ruby_version = ">= 3.1"

  # Built by RubyGems' own Cargo builder. The staged gem (`rake gem`) ships ext/retry_core with a
  # copy of the core crate inside it and a Cargo.lock, so `gem install --local` needs no other
  # path crate; the cdylib is named after the crate, RubyGems renames it retry_core.so.
  spec.extensions = ["ext/retry_core/Cargo.toml"]
  spec.metadata["cargo_crate_name"] = "retry_core_ruby"

  spec.files = Dir.chdir(__dir__) do
    Dir.glob(["lib/**/*.rb", "sig/**/*.rbs", "README.md", "ext/retry_core/Cargo.{toml,lock}",
              "ext/retry_core/src/**/*.rs", "ext/retry_core/core/Cargo.toml", "ext/retry_core/core/src/**/*.rs"])
  end
  spec.require_paths = ["lib"]
end
