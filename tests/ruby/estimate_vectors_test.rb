# frozen_string_literal: true

require_relative "test_helper"

# tests/vectors/estimates.json through the Ruby front door: the request bytes counted from a
# call's messages (natively, without writing them) and the fleet's estimate from them and its
# max_tokens, with the messages' keys as Strings (as parsed) and as Symbols. cargo and pytest
# replay the same file, so the two bindings give the same estimate for the same messages.
class EstimateVectorsTest < Minitest::Test
  include TestHelpers

  CASES = JSON.parse(File.read(File.join(VECTORS_DIR, "estimates.json")))["cases"]

  def fleet
    @fleet ||= RetryCore::Fleet.new(admission: { mode: :static, limits: { requests: 1e12, tokens: 1e12 } })
  end

  def symbolized(value)
    case value
    when Hash then value.to_h { |k, v| [k.to_sym, symbolized(v)] }
    when Array then value.map { |v| symbolized(v) }
    else value
    end
  end

  CASES.each_with_index do |c, i|
    define_method("test_estimate_vector_#{i}") do
      want = [c["input_tokens"].to_f, c["output_tokens"].to_f]
      [c["messages"], symbolized(c["messages"])].each do |messages|
        assert_equal c["request_bytes"], RetryCore._json_size(messages), c["name"] unless messages.nil?
        assert_equal want, fleet._cost({ messages: messages, max_tokens: c["max_tokens"] }), c["name"]
        assert_equal want, RetryCore::Retry.cost({ "messages" => messages, "max_tokens" => c["max_tokens"] }, fleet),
                     c["name"]
      end
    end
  end
end
