# frozen_string_literal: true

require_relative "test_helper"

# The binding's limits, the same as Python's (issues 13 and 14): statuses 100..999, 16 causes,
# headers read up to 256 items / 64 KiB whatever the object gives.
class FailureLimitsTest < Minitest::Test
  include TestHelpers

  class EndlessHeaders
    include Enumerable

    def initialize(value = "v")
      @value = value
    end

    def each
      i = 0
      loop { yield "x-h#{i += 1}", @value }
    end
  end

  def test_status_range_is_100_to_999
    assert_equal 999, RetryCore::Failure.new(status: 999, message: "x").status
    assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Failure.new(status: 1000, message: "x") }
    assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Failure.new(status: 99, message: "x") }
    error = RubyLLM::Error.new(nil, "odd status")
    error.define_singleton_method(:status_code) { 799 }
    assert_equal 799, RetryCore::Failure.from_exception(error).status
  end

  def nested(depth)
    raise KeyError, "root" if depth.zero?

    begin
      nested(depth - 1)
    rescue StandardError
      raise RuntimeError, "wrap #{depth}"
    end
  end

  def test_sixteen_causes_are_read
    error = begin
      nested(20)
    rescue RuntimeError => e
      e
    end
    chain = RetryCore::Failure.from_exception(error).error_class
    assert_equal 16, chain.count("RuntimeError"), "16 exceptions of the chain, each with its ancestors"
    refute_includes chain, "KeyError"
  end

  def test_endless_headers_are_read_up_to_the_caps
    failure = Timeout.timeout(10) { RetryCore::Failure.new(status: 503, headers: EndlessHeaders.new, message: "x") }
    assert_equal 256, failure.headers.size
    big = Timeout.timeout(10) { RetryCore::Failure.new(status: 503, headers: EndlessHeaders.new("v" * 1000), message: "x") }
    bytes = big.headers.sum { |k, v| k.bytesize + v.bytesize }
    assert_operator bytes, :<=, 64 * 1024
    assert_operator big.headers.size, :>=, 60
    # Through a live exception's response too.
    error = RubyLLM.error_for(503, "busy")
    endless = EndlessHeaders.new
    error.response.define_singleton_method(:headers) { endless }
    assert_equal 256, Timeout.timeout(10) { RetryCore::Failure.from_exception(error).headers.size }
  end
end
