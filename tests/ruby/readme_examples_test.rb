# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"
require "open3"
require "tmpdir"

# Every ```ruby block of the gem's user docs runs: gems/retry_core/README.md and
# gems/retry_core/docs/*.md. Each block runs alone, in a fresh `ruby` process (with the
# retry_core this suite loaded on its load path) and a timeout, against the fault lab started
# for this file, with OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and
# RETRY_CORE_LAB_URL pointing at it. The lab's script is reset to `{}` (every request `ok`)
# before each block; a block that wants faults loads its own through RETRY_CORE_LAB_URL.
#
# A block preceded by the line `<!-- no-run: <reason> -->` is skipped with that reason (minitest
# lists skips with --verbose; the reasons are also printed once at the end of this file's run).
module ReadmeExamples
  NO_RUN = /\A<!--\s*no-run:\s*(?<reason>.*?)\s*-->\z/
  FENCE = /\A(?<indent>\s*)(?<fence>```+|~~~+)\s*(?<info>[^`]*)\z/
  TIMEOUT_S = 60

  Block = Struct.new(:path, :line, :lang, :code, :skip) do
    def id
      "#{path.delete_prefix("#{ROOT}/")}:#{line}"
    end
  end

  # The fenced blocks of a Markdown file, each with the no-run reason written on the line
  # before it (blank lines between allowed).
  def self.blocks(path)
    lines = File.read(path, encoding: "UTF-8").lines.map(&:chomp)
    out = []
    last_text = nil
    i = 0
    while i < lines.size
      m = FENCE.match(lines[i])
      unless m
        last_text = lines[i].strip unless lines[i].strip.empty?
        i += 1
        next
      end
      fence = m[:fence]
      indent = m[:indent].size
      lang = m[:info].split.first.to_s.split(",").first.to_s
      start = i
      body = []
      i += 1
      while i < lines.size && !lines[i].strip.start_with?(fence)
        body << (lines[i][0, indent].to_s.strip.empty? ? lines[i][indent..].to_s : lines[i])
        i += 1
      end
      i += 1
      marker = NO_RUN.match(last_text.to_s)
      out << Block.new(path, start + 1, lang, "#{body.join("\n")}\n", marker && marker[:reason])
      last_text = nil
    end
    out
  end

  DOCS = [File.join(ROOT, "gems", "retry_core", "README.md"),
          *Dir[File.join(ROOT, "gems", "retry_core", "docs", "*.md")].sort].freeze
  BLOCKS = DOCS.flat_map { |f| blocks(f) }.select { |b| b.lang == "ruby" }.freeze
  SKIPPED = []

  def self.lab
    @lab ||= RetryLab::Server.start.tap { |lab| Minitest.after_run { lab.stop } }
  end

  def self.env(lab)
    {
      "OPENAI_BASE_URL" => lab.url("/v1"), "OPENAI_API_KEY" => "sk-readme-example-0000aaaa",
      "ANTHROPIC_BASE_URL" => lab.url, "ANTHROPIC_API_KEY" => "sk-ant-readme-example-0000bbbb",
      "RETRY_CORE_LAB_URL" => lab.url, "NO_PROXY" => "127.0.0.1,localhost",
      "http_proxy" => nil, "https_proxy" => nil, "HTTP_PROXY" => nil, "HTTPS_PROXY" => nil
    }
  end

  # The directory of the retry_core this suite loaded (source tree or installed gem).
  def self.lib
    File.dirname($LOADED_FEATURES.grep(%r{/retry_core\.rb\z}).first)
  end

  # Runs one block in a fresh ruby against the lab; returns [Process::Status, output].
  def self.run(block)
    lab.script({})
    Dir.mktmpdir("readme-example") do |dir|
      file = File.join(dir, "example.rb")
      File.write(file, block.code)
      # A block that defines Minitest tests (a guide to testing your code) runs them.
      extra = block.code.match?(/<\s*Minitest::Test\b/) ? ["-rminitest/autorun"] : []
      Open3.popen2e(env(lab), RbConfig.ruby, "-I", lib, *extra, file, chdir: dir) do |stdin, io, thread|
        stdin.close
        reader = Thread.new { io.read }
        unless thread.join(TIMEOUT_S)
          Process.kill("KILL", thread.pid)
          thread.join
          raise Minitest::Assertion, "#{block.id} ran past #{TIMEOUT_S} s:\n#{reader.value}"
        end
        return [thread.value, reader.value]
      end
    end
  end
end

Minitest.after_run do
  unless ReadmeExamples::SKIPPED.empty?
    warn "README examples not run (no-run):"
    ReadmeExamples::SKIPPED.each { |b| warn "  #{b.id}: #{b.skip}" }
  end
end

class ReadmeExamplesTest < Minitest::Test
  ReadmeExamples::BLOCKS.each do |block|
    name = "test_#{block.id.gsub(/[^A-Za-z0-9]+/, '_')}"
    define_method(name) do
      if block.skip
        ReadmeExamples::SKIPPED << block
        skip "no-run: #{block.skip}"
      end
      skip "timing-dependent (real sockets)" if GCStress.on?
      status, out = ReadmeExamples.run(block)
      assert status.success?, "#{block.id} failed (#{status.exitstatus}):\n#{out}\n--- the block:\n#{block.code}"
    end
  end

  def test_the_gem_readme_has_runnable_examples
    runnable = ReadmeExamples::BLOCKS.select { |b| b.path.end_with?("gems/retry_core/README.md") && b.skip.nil? }
    assert_operator runnable.size, :>=, 3, runnable.map(&:id).inspect
  end

  def test_every_skip_says_why
    ReadmeExamples::DOCS.each do |f|
      File.read(f).scan(/<!--\s*no[ _]?run\b[^>]*-->/).each do |marker|
        m = ReadmeExamples::NO_RUN.match(marker)
        assert m && !m[:reason].empty?, "#{f}: malformed or empty marker #{marker.inspect}"
      end
    end
  end

  def test_a_block_of_minitest_tests_runs_its_tests
    skip "timing-dependent (real sockets)" if GCStress.on?
    code = "class GuideTest < Minitest::Test\n  def test_it\n    assert_equal 1, 2\n  end\nend\n"
    status, out = ReadmeExamples.run(ReadmeExamples::Block.new("#{ROOT}/guide.md", 1, "ruby", code, nil))
    refute status.success?, out
    assert_match(/1 failures/, out)
  end

  def test_the_block_parser_reads_markers_and_fences
    Dir.mktmpdir do |dir|
      md = File.join(dir, "x.md")
      File.write(md, "text\n\n<!-- no-run: needs RubyLLM -->\n\n```ruby\nputs 1\n```\n\n```ruby\nputs 2\n```\n  ```python\n  print(3)\n  ```\n")
      got = ReadmeExamples.blocks(md).map { |b| [b.lang, b.code, b.skip] }
      assert_equal [["ruby", "puts 1\n", "needs RubyLLM"], ["ruby", "puts 2\n", nil], ["python", "print(3)\n", nil]], got
    end
  end

  # The presets the README lists are the engine's, in its order, each with its number of calls.
  def test_the_preset_table_is_the_engines
    rows = readme_table("Presets")
    assert_equal RetryCore::Policy::PRESETS, rows.map(&:first)
    rows.each { |name, calls| assert_equal RetryCore::Policy.preset(name).max_attempts.to_s, calls, name }
  end

  # The policy keys the README lists are the ones the engine reports and accepts, with the
  # `default` preset's values.
  def test_the_policy_key_table_is_the_engines
    rows = readme_table("Policy keys").to_h { |r| [r[0], r] }
    config = RetryCore::Policy.preset(:default).to_h
    assert_equal (config.keys - ["name"] + %w[preset max_retries]).sort, rows.keys.sort
    rows.each do |key, row|
      next unless config.key?(key) && !config[key].is_a?(Hash) && !config[key].is_a?(Array)

      want = config[key].nil? ? "null" : JSON.generate(config[key]).delete('"')
      assert_equal want, row[1], "#{key}: the README's default is not the engine's"
      RetryCore::Policy.from_config(key => config[key]) unless key == "max_attempts"
    end
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.from_config("max_retry" => 3) }
  end

  private

  # The rows (cells without backticks) of the first table after the heading `title`.
  def readme_table(title)
    lines = File.read(File.join(ROOT, "gems", "retry_core", "README.md")).lines.map(&:chomp)
    at = lines.index { |l| l.sub(/\A#+\s*/, "").strip == title && l.start_with?("#") }
    refute_nil at, "the gem README has a '#{title}' heading"
    rows = []
    lines[(at + 1)..].each do |l|
      if l.start_with?("|")
        cells = l.strip.delete_prefix("|").delete_suffix("|").split("|").map { |c| c.strip.delete("`") }
        rows << cells unless cells.join.delete("-: ").empty?
      elsif !rows.empty?
        break
      end
    end
    rows.drop(1)
  end
end
