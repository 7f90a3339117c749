# frozen_string_literal: true

require_relative "test_helper"

# The public error corpus (tests/corpus/*.json) through the Ruby binding: the same real error
# reports `cargo test` and pytest replay, held to the same labels.
class CorpusTest < Minitest::Test
  include TestHelpers

  CORPUS_DIR = File.expand_path("../corpus", __dir__)
  FIXED_NOW = Time.httpdate("Sun, 22 Nov 2026 12:00:00 GMT")

  def corpus
    Dir[File.join(CORPUS_DIR, "*.json")].sort.flat_map do |path|
      JSON.parse(File.read(path, encoding: "UTF-8")).fetch("cases").map { |c| [File.basename(path), c] }
    end
  end

  def test_the_corpus_is_large_and_broad
    all = corpus
    assert_operator all.size, :>=, 300
    assert_operator all.map(&:first).uniq.size, :>=, 15
  end

  def test_every_corpus_case_is_decided_as_labelled
    cases = corpus.map(&:last)
    wrong = cases.filter_map do |c|
      got = native { RetryCore.classify_at(RetryCore::Failure.from_h(c.fetch("failure")), FIXED_NOW) }
      exp = c.fetch("expect")
      # `also`: the other category a genuinely ambiguous case admits (tests/corpus/README.md).
      categories = [exp["category"], *c.fetch("also", [])]
      next if categories.include?(got.category.to_s) && got.transient? == exp["transient"]

      "#{c["name"]}: got #{got.category} (#{got.transient?}), want #{exp["category"]} (#{exp["transient"]})"
    end
    assert_empty wrong, "#{wrong.size} of #{cases.size} corpus cases decided wrong:\n#{wrong.join("\n")}"
  end
end
