# frozen_string_literal: true

require_relative "test_helper"

# estimate: read natively (Fleet#_cost, ruby-ext/src/estimate.rs): the messages' byte count
# (RetryCore._json_size) is JSON.generate(messages).bytesize, counted without writing them,
# and nil where only the generator knows; the estimate's errors and costs are those of the Ruby
# check it replaced (kept below as the reference), for every shape of estimate.
class EstimateTest < Minitest::Test
  include TestHelpers

  def fleet
    @fleet ||= RetryCore::Fleet.new(admission: { mode: :static, limits: { requests: 1e12, tokens: 1e12 } })
  end

  # An object counted as its Hash (RubyLLM's Message).
  Message = Struct.new(:role, :content, keyword_init: true)

  # An object JSON writes through its own to_json.
  class Custom
    def to_json(*) = '{"custom":true}'
  end

  class SubHash < Hash; end
  class SubString < String; end

  # The Ruby check before Fleet#_cost: what the native one must answer, error for error.
  module Reference
    KEYS = %w[messages max_tokens].freeze

    def self.cost(estimate, fleet)
      case estimate
      when Integer
        raise ArgumentError, "estimate: must be at most 1e12 tokens, got #{estimate}" if estimate > 10**15

        fleet._estimate(estimate.to_f, 0, 0)
      when Hash
        keys = estimate.keys.map(&:to_s)
        if keys.empty? || !(keys - KEYS).empty? || keys.uniq.size != keys.size
          raise ArgumentError, "estimate: takes messages: and/or max_tokens:, got #{estimate.keys.inspect}"
        end

        fetch = ->(k) { estimate.key?(k.to_sym) ? estimate[k.to_sym] : estimate[k] }
        fleet._estimate(nil, request_bytes(fetch.call("messages")), max_tokens(fetch.call("max_tokens")))
      else
        raise TypeError, "estimate: takes an Integer (tokens) or a Hash with messages: and/or max_tokens:, " \
                         "not #{estimate.class}"
      end
    end

    def self.request_bytes(messages)
      return 0 if messages.nil?
      raise TypeError, "estimate: messages: must be an Array, not #{messages.class}" unless messages.is_a?(Array)

      JSON.generate(messages.map { |m| m.is_a?(Hash) || m.is_a?(Array) || !m.respond_to?(:to_h) ? m : m.to_h }).bytesize
    rescue JSON::GeneratorError, EncodingError, NoMethodError => e
      raise TypeError, "estimate: messages: must be JSON-serializable: #{e.message}"
    end

    def self.max_tokens(value)
      return 0 if value.nil?
      raise TypeError, "estimate: max_tokens: must be an Integer, not #{value.class}" unless value.is_a?(Integer)
      raise ArgumentError, "estimate: max_tokens: must be in 0...2**64, got #{value}" unless value >= 0 && value < 2**64

      value
    end
  end

  CONTROL = (0..31).map(&:chr).join

  # Values the native count must measure exactly as JSON.generate writes them.
  PLAIN = [
    [], {}, [[]], [{}], nil, true, false, 0, -1, 7, 10, -10, 99, 100, 2**62 - 1, -2**62,
    "", "plain", "quote \" and backslash \\ and slash /", CONTROL, "\u007f\u0080\u2028\u2029",
    "héllo wörld", "日本語のテキスト", "emoji 😀👍🏽 family 👨‍👩‍👧", "tab\tnew\nline\rcr\bbs\fff",
    "US-ASCII".encode("US-ASCII"), :sym, :"quoted \"sym\"", :"日本",
    { role: "user", content: "hi" }, { "role" => "user", "content" => "hi" }, { :a => 1, "b" => [1, 2.5, nil] },
    { "ключ" => { nested: { deeper: [true, false, nil, { "x\ny" => "\u0001" }] } } },
    [{ role: "system", content: "You are terse." }, { role: "user", content: "Say hello in five words." }],
    [{ role: "assistant", content: nil, tool_calls: [{ id: "call_1", type: "function",
                                                      function: { name: "f", arguments: "{\"a\":1}" } }] }],
    (1..64).reduce([]) { |inner, _| [inner] }
  ].freeze

  FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-4, 1.5e-4, 1e-5, 0.001, 123.456, 1e14, 1e15, 1.5e15,
            1234567890123456.0, 1234567890123456.8, 9007199254740993.0, 1e16, 1e20, 1e100, 2.5e-300,
            5e-324, Float::MAX, Float::MIN, Float::EPSILON, 100.0, 1234567.125, 1 / 3.0].freeze

  def test_the_byte_count_is_json_generates_on_plain_values
    PLAIN.each do |value|
      assert_equal JSON.generate(value).bytesize, RetryCore._json_size(value), value.inspect
    end
  end

  def test_floats_are_counted_as_ruby_writes_them
    random = Random.new(23)
    floats = FLOATS + Array.new(3000) do
      [random.rand * 10**random.rand(-30..30), [random.bytes(8)].pack("a8").unpack1("E")].sample(random: random)
    end
    floats.select(&:finite?).each do |f|
      assert_equal JSON.generate([f, -f]).bytesize, RetryCore._json_size([f, -f]), f.inspect
    end
  end

  def test_what_only_the_generator_knows_is_left_to_it
    [2**64, -2**70, Float::NAN, Float::INFINITY, "\xff broken", "\xffbin".b, "ascii".b, "é".encode("ISO-8859-1"),
     "abc".encode("UTF-16LE"), Object.new, Custom.new, Message.new(role: "user"), SubHash.new, SubString.new("s"),
     { 1 => "integer key" }, { nil => 1 }, 1r, (1..65).reduce([]) { |inner, _| [inner] },
     [{ role: "user", content: Custom.new }]].each do |value|
      assert_nil RetryCore._json_size(value), value.inspect
    end
  end

  # Every shape of estimate: the native check answers as the Ruby one did, the same cost or
  # the same error class and message.
  def test_the_cost_and_the_errors_are_those_of_the_ruby_check
    with_default = Hash.new([{ role: "user", content: "from the default" }])
    with_default[:max_tokens] = 5
    estimates = [
      100, 0, -1, 10**13, 10**15, 10**15 + 1, 2**64, -2**64, 1.5, "100", true, [], :tokens,
      {}, { tokens: 3 }, { messages: [], "messages" => [] }, { "max_tokens" => 9 }, { max_tokens: 9, extra: 1 },
      { 1 => 2 }, { messages: nil }, { messages: nil, max_tokens: nil }, { messages: "hi" }, { messages: { a: 1 } },
      { max_tokens: -1 }, { max_tokens: "5" }, { max_tokens: 2**64 }, { max_tokens: 2**64 - 1 }, { max_tokens: 1.0 },
      { messages: "hi", max_tokens: "5" }, with_default,
      *PLAIN.grep(Array).map { |m| { messages: m, max_tokens: 64 } },
      *PLAIN.reject { |v| v.is_a?(Array) }.map { |m| { messages: [m] } },
      { messages: [Message.new(role: "user", content: "hi")], max_tokens: 3 },
      { "messages" => [{ content: Custom.new }] },
      { messages: [{ content: Float::NAN }] }, { messages: [{ content: "\xff" }] }, { messages: [Object.new] },
      { messages: [nil, 1, "two", :three, 4.5] }, { messages: [2**70] }, { messages: [{ 1 => 2 }] },
      { messages: [SubHash[a: 1], [1, [2, 3]]] }, SubHash[max_tokens: 4]
    ]
    estimates.each do |estimate|
      expected = begin
        Reference.cost(estimate, fleet)
      rescue StandardError => e
        e
      end
      if expected.is_a?(Exception)
        error = assert_raises(expected.class, estimate.inspect) { RetryCore::Retry.cost(estimate, fleet) }
        assert_equal expected.message, error.message, estimate.inspect
      else
        assert_equal expected, RetryCore::Retry.cost(estimate, fleet), estimate.inspect
      end
    end
  end

  def test_a_to_h_that_fails_is_the_same_type_error
    broken = Object.new
    def broken.to_h = raise(NoMethodError, "no h")
    e = assert_raises(TypeError) { RetryCore::Retry.cost({ messages: [broken] }, fleet) }
    assert_match(/\Aestimate: messages: must be JSON-serializable: no h/, e.message)
  end

  def test_the_door_calls_nothing_when_the_estimate_is_bad
    calls = 0
    assert_raises(TypeError) do
      RetryCore.call_llm_with_retry(fleet: fleet, key: "openai:gpt-4o", estimate: { messages: [{ a: Float::NAN }] }) do
        calls += 1
      end
    end
    assert_equal 0, calls
    assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: "openai:gpt-4o",
                                                    estimate: { messages: PLAIN.last(2).first, max_tokens: 9 }) { :ok }
  end

  def test_an_estimate_needs_a_fleet_and_the_block_is_not_called
    calls = 0
    error = assert_raises(ArgumentError) { RetryCore.call_llm_with_retry(estimate: 100) { calls += 1 } }
    assert_equal "estimate: needs fleet: (a RetryCore::Fleet with admission on)", error.message
    assert_equal 0, calls
  end
end
