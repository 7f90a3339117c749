# frozen_string_literal: true

require_relative "test_helper"
require "net/http"
require "open3"
require "psych" # loaded by Fleet.from_file on first use: not inside a bounded call under GC.stress
require "timeout"

# The boundary holds (issue 7): a panic inside the core arrives as RetryCore::InternalError and
# the process lives on; bad input at every front door (wrong types, nil, 10 MB, 100 000 levels of
# nesting, invalid UTF-8, 100 000 messages) gets a TypeError / ArgumentError or a correct answer,
# never a crash, a hang or another exception. Each call is bounded with Timeout.
class HardeningTest < Minitest::Test
  include TestHelpers

  LIMIT = 30 # seconds for one call, even with a 10 MB input on a debug build

  def teardown
    reset_globals
    super
  end

  def bounded(seconds = LIMIT, &block)
    super
  end

  def heavy!
    skip "sized inputs: the GC.stress pass covers the front doors with small ones" if GCStress.on?
  end

  # Runs Ruby code in a child process that loads retry_core the way this suite does.
  def ruby_child(code)
    load = if ENV["RETRY_CORE_FROM"] == "gem"
             %(gem "retry_core"; require "retry_core")
           else
             %($LOAD_PATH.unshift(#{File.join(ROOT, "gems", "retry_core", "lib").dump}); require "retry_core")
           end
    Open3.capture3(RbConfig.ruby, "-e", "#{load}\n#{code}")
  end

  # Ruby's $stderr and the extension's (the same fd 2) silenced around the block.
  def quietly
    saved = $stderr.dup
    $stderr.reopen(File::NULL)
    yield
  ensure
    $stderr.reopen(saved)
    saved.close
  end

  # --- (a) a panic inside the core ----------------------------------------------------------

  def test_a_panic_in_the_core_is_an_internal_error_and_the_process_lives_on
    3.times do
      e = assert_raises(RetryCore::InternalError) { quietly { native { RetryCore::Native._debug_panic("on purpose") } } }
      assert_kind_of RetryCore::Error, e
      assert_equal "internal", e.code
      assert_match(/\Aretry-core panicked \(a bug, please report it\): retry-core debug panic: on purpose\z/, e.message)
    end
    # The engine still works, on this thread and on others.
    assert_equal :rate_limited, RetryCore.classify(RubyLLM.error_for(429, "slow down")).category
    assert_equal :server_error, Thread.new { RetryCore.classify(RubyLLM.error_for(500, "boom")).category }.value
    assert_raises(TypeError) { RetryCore::Native._debug_panic(42) }
  end

  def test_a_panic_in_a_child_process_exits_normally_with_a_scrubbed_line
    out, err, status = ruby_child(<<~RUBY)
      begin
        RetryCore::Native._debug_panic("leaked sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK")
      rescue RetryCore::InternalError => e
        puts "rescued: \#{e.message}"
      end
      puts RetryCore.classify(Errno::ECONNRESET.new).category
    RUBY
    assert status.success?, "the process died: #{status.inspect}\n#{err}"
    assert_equal ["rescued: retry-core panicked (a bug, please report it): retry-core debug panic: leaked [REDACTED]", "connection"],
                 out.lines.map(&:chomp)
    assert_match(/retry-core \(Ruby extension\) panicked at .*: retry-core debug panic: leaked \[REDACTED\]/, err)
    refute_includes err, "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK"
  end

  # --- (c) bad input at every front door ----------------------------------------------------

  # Built on first use, never under GC.stress: every collection would mark 200 000 objects.
  def self.deep_hash = @deep_hash ||= (0...100_000).reduce({}) { |h, _| { "a" => h } }
  def self.deep_array = @deep_array ||= (0...100_000).reduce([]) { |a, _| [a] }

  def deep_hash = self.class.deep_hash
  def deep_array = self.class.deep_array

  # A value whose #to_s raises, and one whose #to_s is not a String.
  class Hostile
    def to_s = raise("to_s says no")
    def inspect = "#<Hostile>"
  end

  class WeirdToS
    def to_s = 42
  end

  BAD = {
    "nil" => nil, "0" => 0, "-1" => -1, "2**70" => 2**70, "1.5" => 1.5, "NaN" => Float::NAN,
    "Infinity" => Float::INFINITY, "-Infinity" => -Float::INFINITY, "''" => "", "'text'" => "text",
    ":sym" => :sym, "[]" => [], "{}" => {}, "Object.new" => Object.new, "true" => true, "false" => false,
    "a Proc" => -> {}, "a Class" => String, "Hostile" => Hostile.new, "WeirdToS" => WeirdToS.new,
    "binary" => "\xFF\xFE\x00sk".b, "broken UTF-8" => (+"caf\xC3(").force_encoding(Encoding::UTF_8),
    "UTF-16LE" => "Rate limit".encode(Encoding::UTF_16LE), "ISO-8859-1" => "Überlastet".encode(Encoding::ISO_8859_1),
    "Complex" => Complex(1, 2), "Rational" => Rational(1, 3)
  }.freeze

  def bad_values
    return BAD if GCStress.on?

    BAD.merge("100 000-level Hash" => deep_hash, "100 000-level Array" => deep_array)
  end

  # An exception whose message is whatever the test gives it.
  class OddError < StandardError
    def initialize(message)
      @odd = message
      super("odd")
    end

    def message = @odd
  end

  FLAKY = 500

  # Each front door, as a lambda of one bad value. A door whose block fails once (a 500) and
  # then succeeds reaches the engine's decision path with the value.
  def doors
    fleet = RetryCore::Fleet.new
    err = RubyLLM.error_for(503, "busy")
    once = lambda do
      failed = false
      -> { failed ? :ok : (failed = true) && raise(RubyLLM.error_for(FLAKY, "boom")) }
    end
    chat = lambda do |definition = {}|
      c = SwarmSDK::Agent::Chat.new(definition: { model: "m" }.merge(definition), agent_name: :a)
      c.define_singleton_method(:sleep) { |_| nil }
      c
    end
    {
      "classify" => ->(v) { RetryCore.classify(v) },
      "classify_at(now)" => ->(v) { RetryCore.classify_at(err, v) },
      "transient?" => ->(v) { RetryCore.transient?(v) },
      "retry_after(headers)" => ->(v) { RetryCore.retry_after(v) },
      "retry_after(value)" => ->(v) { RetryCore.retry_after({ "retry-after" => v, "retry-after-ms" => v }) },
      # By identity: Ruby itself cannot hash a 100 000-level key.
      "retry_after(name)" => ->(v) { RetryCore.retry_after({}.compare_by_identity.tap { |h| h[v] = "3" }) },
      "retry_after(now:)" => ->(v) { RetryCore.retry_after({ "retry-after" => "Sun, 22 Nov 2026 12:00:07 GMT" }, now: v) },
      "scrub" => ->(v) { RetryCore.scrub(v) },
      "error_message" => ->(v) { RetryCore.error_message(v) },
      "call(max_retries:)" => ->(v) { RetryCore.call_llm_with_retry(max_retries: v, delay: 0, &once.call) },
      "call(delay:)" => ->(v) { RetryCore.call_llm_with_retry(delay: v, &once.call) },
      "call(policy:)" => ->(v) { RetryCore.call_llm_with_retry(policy: v, &once.call) },
      "call(on_event:)" => ->(v) { RetryCore.call_llm_with_retry(delay: 0, on_event: v, &once.call) },
      "call(fleet:)" => ->(v) { RetryCore.call_llm_with_retry(delay: 0, fleet: v, key: "k", &once.call) },
      "call(key:)" => ->(v) { RetryCore.call_llm_with_retry(delay: 0, fleet: fleet, key: v, &once.call) },
      "call raising(message)" => lambda do |v|
        RetryCore.call_llm_with_retry(max_retries: 1) { raise OddError, v }
      rescue OddError
        :reraised
      end,
      "prune(messages)" => ->(v) { RetryCore.prune_orphan_tool_calls(v) },
      "prune([message])" => ->(v) { RetryCore.prune_orphan_tool_calls([v]) },
      "prune(role)" => ->(v) { RetryCore.prune_orphan_tool_calls([{ role: v, content: "x" }]) },
      "prune(tool_calls)" => ->(v) { RetryCore.prune_orphan_tool_calls([{ role: "assistant", tool_calls: v }]) },
      "prune(call fields)" => lambda do |v|
        RetryCore.prune_orphan_tool_calls([{ role: "assistant", tool_calls: [{ id: v, function: { name: v, arguments: v } }] },
                                           { role: "tool", tool_call_id: v, content: v }])
      end,
      "prune(blocks)" => lambda do |v|
        RetryCore.prune_orphan_tool_calls([{ "role" => "assistant", "content" => [{ "type" => "tool_use", "id" => v, "name" => v, "input" => v }] },
                                           { "role" => "user", "content" => v }])
      end,
      "prune(objects)" => lambda do |v|
        calls = {}.compare_by_identity.tap { |h| h[v] = RubyLLM::ToolCall.new(id: v, name: v, arguments: v) }
        RetryCore.prune_orphan_tool_calls([RubyLLM::Message.new(role: :assistant, content: v, tool_calls: calls),
                                           RubyLLM::Message.new(role: :tool, content: v, tool_call_id: v)])
      end,
      "orphan_reminder" => ->(v) { RetryCore.orphan_reminder(v) },
      "orphan_reminder([x])" => ->(v) { RetryCore.orphan_reminder([v]) },
      "orphan_reminder(fields)" => ->(v) { RetryCore.orphan_reminder([{ name: v, arguments: v, id: v }]) },
      "Failure(status:)" => ->(v) { RetryCore::Failure.new(status: v) },
      "Failure(headers:)" => ->(v) { RetryCore::Failure.new(headers: v) },
      "Failure(header value)" => ->(v) { RetryCore::Failure.new(headers: { "retry-after" => v, "x-should-retry" => v }) },
      "Failure(body:)" => ->(v) { RetryCore.classify(RetryCore::Failure.new(status: 400, body: v)) },
      "Failure(error_class:)" => ->(v) { RetryCore::Failure.new(error_class: v) },
      "Failure(error_class: [x])" => ->(v) { RetryCore::Failure.new(error_class: [v]) },
      "Failure(message:)" => ->(v) { RetryCore.classify(RetryCore::Failure.new(message: v)) },
      "Failure(transport:)" => ->(v) { RetryCore::Failure.new(transport: v) },
      "Failure.from_exception" => ->(v) { RetryCore::Failure.from_exception(v) },
      "Failure.from_exception(message)" => ->(v) { RetryCore.classify(OddError.new(v)) },
      # Any object with status / body / headers (the real Faraday::Response refuses junk headers
      # when it is built, so a response-like Struct carries them here).
      "Failure.from_exception(response)" => lambda do |v|
        RetryCore.classify(RubyLLM::Error.new(ResponseLike.new(v, v, v), "x"))
      end,
      "Failure.from_json" => ->(v) { RetryCore::Failure.from_json(v) },
      "Failure.from_h" => ->(v) { RetryCore::Failure.from_h(v) },
      "Failure.from_h(fields)" => ->(v) { RetryCore::Failure.from_h("status" => v, "message" => v) },
      "Policy(max_attempts:)" => ->(v) { RetryCore::Policy.new(max_attempts: v) },
      "Policy(backoff:)" => ->(v) { RetryCore::Policy.new(backoff: v) },
      "Policy(jitter:)" => ->(v) { RetryCore::Policy.new(jitter: v) },
      "Policy(preset:)" => ->(v) { RetryCore::Policy.new(preset: v) },
      "Policy(overrides:)" => ->(v) { RetryCore::Policy.new(overrides: { rate_limited: v }) },
      "Policy(key)" => ->(v) { RetryCore::Policy.from_config({}.compare_by_identity.tap { |h| h[v] = 1 }) },
      "Policy.preset" => ->(v) { RetryCore::Policy.preset(v) },
      "Policy.from_config" => ->(v) { RetryCore::Policy.from_config(v) },
      "Policy.swarm_sdk(max_retries:)" => ->(v) { RetryCore::Policy.swarm_sdk(max_retries: v) },
      "Policy.swarm_sdk(delay:)" => ->(v) { RetryCore::Policy.swarm_sdk(delay: v) },
      "Policy.coerce" => ->(v) { RetryCore::Policy.coerce(v) },
      "Run(policy)" => ->(v) { RetryCore::Run.new(v) },
      "Run(config:)" => ->(v) { RetryCore::Run.new(config: v) },
      "Run#failed" => ->(v) { RetryCore::Run.new(:forgeflare, config: { seed: 1 }).failed(v, 0.0) },
      "Run#failed(elapsed)" => ->(v) { RetryCore::Run.new(:default).failed(err, v) },
      "Run#pruned" => ->(v) { RetryCore::Run.new(:swarm_sdk).pruned(v, 0.0) },
      "Run#compacted" => ->(v) { RetryCore::Run.new.compacted(v, v) },
      "Run#start(fleet)" => ->(v) { RetryCore::Run.new(fleet: fleet, keys: "k").start(v) },
      "Fleet(budget:)" => ->(v) { RetryCore::Fleet.new(budget: v) },
      "Fleet(budget fields)" => ->(v) { RetryCore::Fleet.new(budget: { capacity: v, retry_cost: v }) },
      "Fleet(breaker:)" => ->(v) { RetryCore::Fleet.new(breaker: v) },
      "Fleet(breaker fields)" => ->(v) { RetryCore::Fleet.new(breaker: { open_s: v, consecutive_failures: v }) },
      "Fleet(redis_url:)" => ->(v) { RetryCore::Fleet.new(redis_url: v) },
      "Fleet(namespace:)" => ->(v) { RetryCore::Fleet.new(namespace: v) },
      "Fleet(max_pause_s:)" => ->(v) { RetryCore::Fleet.new(max_pause_s: v) },
      "Fleet(shared_pause:)" => ->(v) { RetryCore::Fleet.new(shared_pause: v) },
      "Fleet.from_config" => ->(v) { RetryCore::Fleet.from_config(v) },
      "Fleet.from_file" => ->(v) { RetryCore::Fleet.from_file(v) },
      "Fleet.shared" => ->(v) { RetryCore::Fleet.shared(v) },
      "Fleet#tokens" => ->(v) { fleet.tokens(v) },
      "ChatRetry(max_retries:)" => ->(v) { chat.call.send(:call_llm_with_retry, max_retries: v, delay: 0, &once.call) },
      "ChatRetry(delay:)" => ->(v) { chat.call.send(:call_llm_with_retry, delay: v, &once.call) },
      "ChatRetry(retry_config:)" => ->(v) { chat.call(retry_config: v).send(:call_llm_with_retry, &once.call) },
      "ChatRetry(retry_config values)" => lambda do |v|
        chat.call(retry_config: { max_retries: v, retry_delay: v }).send(:call_llm_with_retry, &once.call)
      end,
      "ChatRetry(retry_config fleet)" => ->(v) { chat.call(retry_config: { fleet: v, retry_delay: 0 }).send(:call_llm_with_retry, &once.call) },
      "ChatRetry(retry_config key)" => lambda do |v|
        chat.call(retry_config: { fleet: fleet, key: v, retry_delay: 0 }).send(:call_llm_with_retry, &once.call)
      end,
      "SwarmSDK.configure(policy)" => lambda do |v|
        RetryCore::SwarmSDK.configure { |c| c.policy = v }
        chat.call.send(:call_llm_with_retry, &once.call)
      ensure
        RetryCore::SwarmSDK.reset_configuration!
      end,
      "SwarmSDK.configure(fleet)" => lambda do |v|
        RetryCore::SwarmSDK.configure do |c|
          c.fleet = v
          c.default_retry_delay = 0
        end
        chat.call.send(:call_llm_with_retry, &once.call)
      ensure
        RetryCore::SwarmSDK.reset_configuration!
      end
    }
  end

  ResponseLike = Struct.new(:status, :body, :headers)

  def test_bad_input_at_every_front_door
    RetryCore::SwarmSDK.install!
    record_sleeps(RetryCore)
    values = bad_values.to_a
    pairs = if GCStress.on?
              # Under GC.stress (a full collection per allocation) each door once, with the
              # values in turn: every door and every value still appear.
              doors.to_a.each_with_index.map { |door, i| [door, values[(i * 5) % values.size]] }
            else
              doors.to_a.product(values)
            end
    wrong = []
    answered = refused = 0
    pairs.each do |(door, call), (label, value)|
      bounded(10) do
        native { call.call(value) }
        answered += 1
      rescue TypeError, ArgumentError
        refused += 1
      rescue RubyLLM::ServerError => e
        # The block's own error, re-raised because the value allowed no retry (max_retries: 0).
        raise unless e.message == "boom"

        answered += 1
      rescue SystemCallError => e
        # A path that names no file: the file system's own answer.
        raise unless door == "Fleet.from_file"

        answered += 1
      end
    rescue StandardError, SystemStackError, NoMemoryError => e
      wrong << "#{door} with #{label}: #{e.class}: #{e.message[0, 200]}"
    end
    assert_empty wrong, "#{wrong.size} front doors answered bad input with something other than TypeError/ArgumentError or an answer"
    assert_operator refused, :>, 100 unless GCStress.on?
    assert_operator answered, :>, 100 unless GCStress.on?
  end

  # --- sized inputs --------------------------------------------------------------------------

  def test_a_10_mb_body_and_message
    heavy!
    big = "x" * 10_000_000
    json = %({"type":"error","error":{"type":"overloaded_error","message":"#{"y" * 10_000_000}"}})
    bounded do
      assert_equal :server_error, RetryCore.classify(RetryCore::Failure.new(status: 503, body: big, message: big)).category
      assert_equal :overloaded, RetryCore.classify(RetryCore::Failure.new(body: json, message: "x")).category
      text = RetryCore.error_message(RubyLLM.error_for(401, "Invalid key #{big} sk-proj-abcdefghijklmnop1234", body: json))
      assert_includes text, "Please check your API credentials."
      refute_includes text, "abcdefghijklmnop1234"
    end
    # Through the retry loop and SwarmSDK's adapter: events and the returned text.
    record_sleeps(RetryCore)
    seen = []
    bounded do
      assert_raises(RubyLLM::BadRequestError) do
        RetryCore.call_llm_with_retry(on_event: contract_events(seen)) { raise RubyLLM.error_for(400, big, body: json) }
      end
    end
    assert_equal 10_000_000, seen.first[:error_message].size
    RetryCore::SwarmSDK.install!
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m" })
    reply = bounded { chat.send(:call_llm_with_retry) { raise RubyLLM.error_for(403, big, body: json) } }
    assert_includes reply.content, "**Status Code:** 403"
  end

  def test_100_000_levels_of_nesting
    heavy!
    deep_json = ("[" * 100_000) + ("]" * 100_000)
    deep_object = ('{"error":' * 100_000) + "1" + ("}" * 100_000)
    bounded do
      assert_raises(RetryCore::InvalidJsonError) { RetryCore::Failure.from_json(deep_json) }
      assert_raises(RetryCore::InvalidJsonError) { RetryCore::Failure.from_json(deep_object) }
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.from_config(deep_object) }
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.from_config(deep_object) }
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.new(overrides: deep_hash) }
      assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(budget: deep_hash) }
      # A body nobody can parse that deep is still a body: the status decides.
      assert_equal :bad_request, RetryCore.classify(RetryCore::Failure.new(status: 400, body: deep_object)).category
      assert_equal :server_error, RetryCore.classify(RetryCore::Failure.new(status: 500, body: deep_hash)).category
      assert_equal :server_error, RetryCore.classify(RubyLLM::Error.new(RubyLLMDouble.response(status: 502, body: deep_array), "bad gateway")).category
      assert_nil RetryCore.retry_after({ "retry-after" => deep_hash })
      out = RetryCore.prune_orphan_tool_calls([{ "role" => "assistant", "content" => deep_hash,
                                                 "tool_calls" => [{ "id" => "c1", "function" => { "name" => "Read", "arguments" => deep_hash } }] },
                                               { "role" => "user", "content" => deep_array }])
      assert_equal ["c1"], out.pruned.map { |p| p[:id] }
      assert_includes RetryCore.orphan_reminder([{ name: "Read", arguments: deep_hash }]), "- Read("
    end
  end

  def test_invalid_utf8_and_other_encodings
    binary = "Rate limit \xFF\xFE reached".b
    broken = (+"Overloaded \xC3(").force_encoding(Encoding::UTF_8)
    utf16 = "Service overloaded, please retry".encode(Encoding::UTF_16LE)
    latin1 = "Zugriff verweigert: Überlastung".encode(Encoding::ISO_8859_1)
    seen = []
    record_sleeps(RetryCore)
    [binary, broken, utf16, latin1].each do |text|
      f = native { RetryCore::Failure.new(status: 429, headers: { text => text, "retry-after" => text }, body: text, error_class: [text], message: text) }
      assert f.message.valid_encoding?
      assert_equal Encoding::UTF_8, f.message.encoding
      # A 429 is a rate limit; one whose text says "overloaded" is sharpened into :overloaded
      # (TGI's 429 "Model is overloaded", tests/corpus/tgi.json). Either way the text is read.
      expected = f.message.match?(/overloaded/i) ? :overloaded : :rate_limited
      assert_equal expected, RetryCore.classify(f).category
      assert RetryCore.error_message(f).valid_encoding?
      assert RetryCore.scrub(text).valid_encoding?
      calls = 0
      RetryCore.call_llm_with_retry(delay: 0, on_event: seen.method(:<<)) { (calls += 1) == 1 ? raise(OddError, text) : :ok }
    end
    assert_equal :overloaded, RetryCore.classify(RetryCore::Failure.new(message: utf16)).category, "UTF-16 text is read as text"
    assert_equal :forbidden, RetryCore.classify(RetryCore::Failure.new(message: latin1.encode("UTF-8").sub("Zugriff verweigert", "Forbidden"))).category
    seen.each { |e| e.each_value { |v| assert v.valid_encoding?, e.inspect if v.is_a?(String) } }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.preset(binary) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Policy.new(preset: broken) }
    assert_raises(RetryCore::InvalidPolicyError) { RetryCore::Fleet.new(namespace: broken) }
    fleet = RetryCore::Fleet.new
    assert_equal :ok, RetryCore.call_llm_with_retry(fleet: fleet, key: binary) { :ok }
    assert(fleet.metrics.keys.all?(&:valid_encoding?))
    out = RetryCore.prune_orphan_tool_calls([{ "role" => "assistant", "tool_calls" => [{ "id" => binary, "function" => { "name" => broken, "arguments" => utf16 } }] },
                                             { "role" => "user", "content" => latin1 }])
    assert_equal 1, out.pruned.size
    assert out.reminder.valid_encoding?
  end

  def orphaned_history(size)
    history = []
    i = 0
    while history.size < size
      i += 1
      id = "toolu_#{i}"
      history << RubyLLM::Message.new(role: :user, content: "turn #{i}")
      history << RubyLLM::Message.new(role: :assistant, content: "", model_id: "m",
                                      tool_calls: { id => RubyLLM::ToolCall.new(id: id, name: "Read", arguments: { "file_path" => "/f#{i}" }) })
      history << RubyLLM::Message.new(role: :tool, content: "ok", tool_call_id: id) unless (i % 1000).zero?
      history << RubyLLM::Message.new(role: :assistant, content: "done #{i}", model_id: "m")
    end
    history.first(size)
  end

  def test_a_history_of_100_000_messages
    heavy!
    history = orphaned_history(100_000)
    out = bounded { RetryCore.prune_orphan_tool_calls(history) }
    assert_equal 25, out.pruned.size, "one call in 1 000 turns (4 messages each) has no result"
    assert_equal 100_000 - 25, out.messages.size
    hashes = history.map { |m| m.to_h.transform_keys(&:to_s).tap { |h| h["tool_calls"] = h["tool_calls"]&.values&.map { |c| { "id" => c.id, "function" => { "name" => c.name, "arguments" => "{}" } } } } }
    assert_equal 25, bounded { RetryCore.prune_orphan_tool_calls(hashes) }.pruned.size

    # SwarmSDK's recovery on that history: one 400, one pruning, one retry.
    RetryCore::SwarmSDK.install!
    emitter = SwarmSDK::CollectingEmitter.new
    SwarmSDK::LogStream.emitter = emitter
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m" })
    history.each { |m| chat.add_message(m) }
    calls = 0
    tool_error = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1000"
    reply = bounded { chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(RubyLLM.error_for(400, tool_error)) : :answered } }
    assert_equal [:answered, 2], [reply, calls]
    assert_equal 100_000 - 25, chat.llm_chat.messages.size
    assert_equal [["orphan_tool_calls_pruned", 25]], emitter.events.map { |e| e.values_at(:type, :pruned_count) }
  end
end
