# frozen_string_literal: true

require_relative "lib/retry_core/version"

# One gemspec, two kinds of gem (both staged by the Rakefile, never built from this directory):
#
# - the source gem (platform "ruby"): ext/retry_core is built at install time by RubyGems' own
#   Cargo builder. The staged ext ships a copy of the core crate, a Cargo.lock, the vendored
#   crates (ext/retry_core/vendor) and ext/retry_core/.cargo/config.toml pointing cargo at them,
#   so `gem install` needs cargo but not crates.io.
# - a precompiled gem (RETRY_CORE_PLATFORM=x86_64-linux, say): no extension to build; the
#   libraries are lib/retry_core/<ruby minor>/retry_core.so, one per Ruby minor it was built
#   for (RETRY_CORE_RUBY_MINORS="3.1 3.2"), and lib/retry_core/native.rb loads the one for the
#   running Ruby.
platform = ENV.fetch("RETRY_CORE_PLATFORM", "").strip
minors = ENV.fetch("RETRY_CORE_RUBY_MINORS", "").split

Gem::Specification.new do |spec|
  spec.name = "retry_core"
  spec.version = RetryCore::VERSION
  spec.authors = ["the retry-core developers"]
  spec.summary = "One engine (in Rust) that decides how to survive a failed LLM API call."
  spec.description = <<~TEXT
    Classification of LLM API failures, retry policies (SwarmSDK, Forgeflare, PlanExe presets),
    events, error texts, secret scrubbing and orphan tool call pruning, decided by the retry-core
    Rust engine; waits go through Kernel#sleep. Includes a drop-in for SwarmSDK's
    call_llm_with_retry.
  TEXT
  spec.licenses = ["MIT", "Apache-2.0"]
  spec.homepage = "https://github.com/retry-core/retry-core"
  spec.metadata = {
    "homepage_uri" => spec.homepage,
    "source_code_uri" => "https://github.com/retry-core/retry-core/tree/main/gems/retry_core",
    "changelog_uri" => "https://github.com/retry-core/retry-core/blob/main/CHANGELOG.md",
    "bug_tracker_uri" => "https://github.com/retry-core/retry-core/issues",
    "documentation_uri" => "https://github.com/retry-core/retry-core/blob/main/gems/retry_core/README.md",
    "rubygems_mfa_required" => "true"
  }

  common = ["lib/**/*.rb", "sig/**/*.rbs", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]
  if platform.empty?
    spec.required_ruby_version = ">= 3.1"
    # Built by RubyGems' own Cargo builder; the cdylib is named after the crate, RubyGems
    # renames it retry_core.so.
    spec.extensions = ["ext/retry_core/Cargo.toml"]
    spec.metadata["cargo_crate_name"] = "retry_core_ruby"
    patterns = common + ["ext/retry_core/Cargo.{toml,lock}", "ext/retry_core/.cargo/config.toml",
                         "ext/retry_core/src/**/*.rs", "ext/retry_core/core/Cargo.toml",
                         "ext/retry_core/core/src/**/*.rs", "ext/retry_core/vendor/**/*"]
  else
    raise "RETRY_CORE_RUBY_MINORS must name the Ruby minors of a platform gem" if minors.empty?

    spec.platform = platform
    # Only the Rubies it carries a library for: RubyGems then picks the source gem elsewhere.
    low = minors.min_by { |m| Gem::Version.new(m) }
    high = minors.max_by { |m| Gem::Version.new(m) }
    spec.required_ruby_version = [">= #{low}", "< #{Gem::Version.new("#{high}.0").bump}.dev"]
    patterns = common + ["lib/retry_core/{#{minors.join(",")}}/retry_core.{so,bundle,dll}"]
  end

  spec.files = Dir.chdir(__dir__) do
    Dir.glob(patterns, File::FNM_DOTMATCH).select { |f| File.file?(f) }.sort
  end
  spec.require_paths = ["lib"]
end
