# frozen_string_literal: true

require_relative "test_helper"

# No secret leaves the engine through the Ruby front door (CONTRACT §4; core/tests/secrets.rs is
# the Rust twin). Every shared vector (tests/vectors/*.json) is replayed with API keys and tokens
# planted into the failure's message, body and headers: as a failure record and as a live
# exception, through classification, every preset's decisions, both retry loops (with and
# without a fleet), SwarmSDK's adapter (its LogStream events and the message it returns), the
# policies' sequences, the orphan recovery and the errors the gem raises for bad input. No event
# Hash and no error text the engine produces may hold any piece of a secret.
class SecretsTest < Minitest::Test
  include TestHelpers
  include SwarmSDKInstalled

  # A planted secret: the whole of it, and its random part (any 12 characters of it leaking
  # count as a leak).
  Secret = Struct.new(:whole, :random)

  OPENAI_PROJECT = Secret.new("sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP",
                              "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP")
  OPENAI_LEGACY = Secret.new("sk-T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1",
                             "T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1")
  ANTHROPIC = Secret.new("sk-ant-api03-Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA",
                         "Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA")
  JWT = Secret.new("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe",
                   "eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe")
  # A key with no shape of its own: only its x-api-key name gives it away.
  API_KEY_VALUE = Secret.new("xak_Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1", "Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1")
  AWS = Secret.new("AKIAQ3EXAMPLE7KEYZ2W", "AKIAQ3EXAMPLE7KEYZ2W")
  GOOGLE = Secret.new("AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq", "SyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq")
  SECRETS = [OPENAI_PROJECT, OPENAI_LEGACY, ANTHROPIC, JWT, API_KEY_VALUE, AWS, GOOGLE].freeze

  # Three ways each secret turns up in real error texts: provider messages, echoed request headers
  # (HTTP, Python and Ruby reprs), query strings, JSON, JSON escaped inside a JSON string.
  def planted(variant)
    op, ol, an, jwt, key, aws, g = SECRETS.map(&:whole)
    case variant
    when 0
      "Incorrect API key provided: #{op}. Retried with #{ol}; x-api-key: #{an}; Authorization: Bearer #{jwt}; " \
        "x-api-key: #{key}; aws_access_key_id=#{aws}; https://example.invalid/v1/models?key=#{g}&alt=sse " \
        "{\"x-api-key\": \"#{key}\"}"
    when 1
      "request headers {'authorization': 'Bearer #{jwt}', 'x-api-key': '#{key}', 'api-key': '#{ol}'} " \
        "body {\"api_key\": \"#{op}\", \"anthropic_api_key\": \"#{an}\"} " \
        "Credential=#{aws}/20261122/us-east-1/bedrock/aws4_request x-goog-api-key=#{g} {b'x-api-key': b'#{key}'}"
    else
      "{\"X-Api-Key\" => \"#{key}\", \"Authorization\" => \"bearer #{jwt}\"} (key: #{an}) [#{op}] <#{ol}> " \
        "AccessKeyId:#{aws}, key='#{g}'\nBearer\t#{jwt} {\"detail\": \"{\\\"api_key\\\":\\\"#{key}\\\"}\"}"
    end
  end

  PLANTED_HEADERS = {
    "authorization" => "Bearer #{JWT.whole}", "x-api-key" => ANTHROPIC.whole,
    "api-key" => API_KEY_VALUE.whole, "x-goog-api-key" => GOOGLE.whole
  }.freeze

  # A failure record (the vectors' Hash shape) with secrets in its message, body and headers.
  def plant(failure, variant)
    secret = planted(variant)
    f = failure.transform_keys(&:to_s)
    f["message"] = "#{f["message"]} | #{secret}"
    body = f["body"]
    f["body"] = begin
      parsed = body && JSON.parse(body)
      if parsed.is_a?(Hash) && parsed["error"].is_a?(Hash) && parsed["error"]["message"].is_a?(String)
        parsed["error"]["message"] += " #{secret}"
      elsif parsed.is_a?(Hash)
        parsed["leak"] = secret
      end
      parsed.is_a?(Hash) ? JSON.generate(parsed) : "#{body} #{secret}"
    rescue JSON::ParserError
      "#{body} #{secret}"
    end
    f["headers"] = (f["headers"] || {}).merge(PLANTED_HEADERS)
    f
  end

  # A live exception carrying a planted record: RubyLLM's shape (a Faraday response with the
  # status, headers and body), the record's message.
  class PlantedError < StandardError
    attr_reader :response

    def initialize(record)
      @response = RubyLLMDouble.response(status: record["status"], body: record["body"], headers: record["headers"] || {})
      super(record["message"])
    end
  end

  # The first piece of a secret in `text`, if any.
  def leaked(text)
    SECRETS.each do |s|
      return s.whole if text.include?(s.whole)

      (0..(s.random.size - 12)).each do |i|
        piece = s.random[i, 12]
        return "#{piece} (of #{s.whole[0, 16]}...)" if text.include?(piece)
      end
    end
    nil
  end

  def setup
    super
    @leaks = []
    @texts = 0
  end

  def check(what, *texts)
    texts.flatten.each do |t|
      t = t.is_a?(String) ? t : t.inspect
      @texts += 1
      piece = leaked(t)
      @leaks << "#{what}: #{piece} in #{t[0, 300]}" if piece
    end
  end

  def assert_no_leaks(min_texts)
    assert_operator @texts, :>=, min_texts, "only #{@texts} texts checked"
    assert_empty @leaks, "#{@leaks.size} leaks:\n#{@leaks.first(20).join("\n")}"
  end

  ORPHAN_HISTORY = lambda do
    [RubyLLM::Message.new(role: :user, content: "read it"),
     RubyLLM::Message.new(role: :assistant, content: "", tool_calls: { "t1" => RubyLLM::ToolCall.new(id: "t1", name: "Read", arguments: {}) })]
  end

  # Everything one planted record makes the engine say through the Ruby front door.
  def outputs(label, record)
    failure = RetryCore::Failure.from_h(record)
    error = PlantedError.new(record)
    check("#{label} error_message(record)", RetryCore.error_message(failure))
    check("#{label} error_message(exception)", RetryCore.error_message(error))
    RetryCore::Policy::PRESETS.each do |preset|
      r = RunMachine.new(preset, seed: 1, context_hook: true, swarm_names: preset == "swarm_sdk")
      d = r.on_failure(failure)
      check("#{label} #{preset} decision", d.events)
      d = case d.action
          when :prune_orphans then r.on_orphans_pruned(1)
          when :compact_context then r.on_context_compacted(true)
          end
      check("#{label} #{preset} recovery", d.events) if d
      check("#{label} #{preset} run", r.events)
      seen = []
      calls = 0
      begin
        RetryCore.call_llm_with_retry(policy: preset, on_event: seen.method(:<<)) { (calls += 1) == 1 ? raise(error) : :ok }
      rescue PlantedError
        nil # the caller's own exception, re-raised untouched
      end
      check("#{label} #{preset} call_llm_with_retry", seen)
    end
    # SwarmSDK's adapter, with an orphan in the history so that a tool-pairing 400 recovers.
    @emitter.events.clear
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m", retry_config: { retry_delay: 0 } }, agent_name: :a)
    chat.define_singleton_method(:sleep) { |_| nil }
    ORPHAN_HISTORY.call.each { |m| chat.add_message(m) }
    calls = 0
    reply = begin
      chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(error) : RubyLLM::Message.new(role: :assistant, content: "ok") }
    rescue PlantedError
      nil
    end
    check("#{label} ChatRetry reply", reply.content) if reply
    check("#{label} ChatRetry events", @emitter.events.map { |e| e.except(:error_backtrace) })
  end

  def test_the_planting_is_seen_by_the_checker
    3.times do |v|
      text = planted(v)
      SECRETS.each { |s| assert_includes text, s.whole, "variant #{v}" }
      refute_nil leaked(text)
    end
  end

  def test_classification_vectors_leak_no_secret
    seen = 0
    %w[classify.json should_retry.json].each do |file|
      load_vectors(file).fetch("cases").each_with_index do |c, i|
        outputs("#{file} #{c["name"]}", plant(c.fetch("failure"), i % 3))
        seen += 1
      end
    end
    assert_operator seen, :>, 250
    assert_no_leaks(seen * 12)
  end

  def test_retry_after_vectors_leak_no_secret
    load_vectors("retry_after.json").fetch("cases").each_with_index do |c, i|
      record = plant({ "status" => 429, "headers" => c.fetch("headers"), "message" => "Rate limit reached",
                       "error_class" => ["RubyLLM::RateLimitError"] }, i % 3)
      outputs("retry_after.json #{c["name"]}", record)
    end
    assert_no_leaks(78 * 12)
  end

  def test_policy_sequences_leak_no_secret
    load_vectors("policies.json").fetch("cases").each do |c|
      3.times do |v|
        r = RunMachine.new(RetryCore::Policy.from_config(c.fetch("policy")), seed: c.fetch("seed", 0),
                                                                             context_hook: c.fetch("context_hook", false))
        last = nil
        c.fetch("steps").each do |step|
          elapsed = step.fetch("elapsed", 0.0)
          d = if step.key?("failure")
                last = RetryCore::Failure.from_h(plant(step["failure"], v))
                r.on_failure(last, elapsed: elapsed)
              elsif step.key?("pruned")
                r.on_orphans_pruned(step["pruned"], elapsed: elapsed)
              else
                r.on_context_compacted(step.fetch("compacted"), elapsed: elapsed)
              end
          check("policies.json #{c["name"]} ##{v}", d.events, r.events, RetryCore.error_message(last))
        end
      end
    end
    assert_no_leaks(26 * 3 * 2)
  end

  # Each orphans.json history (Hashes and RubyLLM messages) recovered by SwarmSDK's adapter from
  # a planted tool-pairing 400: orphan_tool_calls_pruned's original_error is scrubbed.
  def test_orphan_recoveries_leak_no_secret
    cases = load_vectors("orphans.json").fetch("cases")
    cases.each_with_index do |c, i|
      @emitter.events.clear
      chat = SwarmSDK::Agent::Chat.new(definition: { model: "m" }, agent_name: :a)
      chat.define_singleton_method(:sleep) { |_| nil }
      c.fetch("messages").each { |m| chat.add_message(m) }
      record = plant({ "status" => 400, "message" => "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
                       "body" => JSON.generate("type" => "error", "error" => { "type" => "invalid_request_error", "message" => "tool_use ids" }) }, i % 3)
      calls = 0
      reply = chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(PlantedError.new(record)) : RubyLLM::Message.new(role: :assistant, content: "ok") }
      check("orphans.json #{c["name"]} reply", reply.content)
      check("orphans.json #{c["name"]} events", @emitter.events.map { |e| e.except(:error_backtrace) })
    end
    types = @emitter.events.map { |e| e[:type] }
    refute_empty types
    assert_no_leaks(cases.size * 2)
  end

  # The fleet's events (breaker, budget, pauses, a Redis that cannot be reached and whose URL
  # holds a password) and both retry loops with a fleet.
  def test_fleet_events_leak_no_secret
    fleet = RetryCore::Fleet.new(budget: { capacity: 5, retry_cost: 5 }, breaker: { consecutive_failures: 1, open_s: 0 }, shared_pause: false)
    records = load_vectors("classify.json").fetch("cases").first(60).each_with_index.map { |c, i| plant(c.fetch("failure"), i % 3) }
    records.each_with_index do |record, i|
      r = RunMachine.new(:default, seed: 1, fleet: fleet, key: "k#{i}")
      r.start
      check("fleet gate", r.events)
      2.times { check("fleet decision", r.on_failure(RetryCore::Failure.from_h(record)).events) }
      r.succeeded unless r.step[0] == :give_up
      check("fleet run", r.events)
      seen = []
      calls = 0
      begin
        RetryCore.call_llm_with_retry(policy: :default, fleet: fleet, key: "c#{i}", on_event: seen.method(:<<)) do
          (calls += 1) == 1 ? raise(PlantedError.new(record)) : :ok
        end
      rescue PlantedError
        nil
      end
      check("fleet call_llm_with_retry", seen)
    end
    # A Redis URL with a password, and nothing listening: the degraded event names no secret.
    remote = RetryCore::Fleet.new(redis_url: "redis://:#{OPENAI_PROJECT.whole}@127.0.0.1:1/0", shared_pause: false, breaker: nil)
    seen = []
    RetryCore.call_llm_with_retry(policy: :default, fleet: remote, key: "k", on_event: seen.method(:<<)) { :ok }
    assert_equal ["fleet_backend_degraded"], seen.map { |e| e[:type] }
    check("redis degraded", seen, remote.inspect)
    assert_no_leaks(60 * 4)
  end

  # The errors the gem raises itself (bad input quoting the input, a panic) are scrubbed too.
  def test_error_texts_of_bad_input_leak_no_secret
    secret = planted(0)
    attempts = [
      -> { RetryCore::Policy.new(secret.to_sym => 1) },
      -> { RetryCore::Policy.new(preset: secret) },
      -> { RetryCore::Policy.preset(secret) },
      -> { RetryCore::Policy.from_config(%({"#{OPENAI_PROJECT.whole}": 1})) },
      -> { RetryCore::Policy.new(jitter: secret) },
      -> { RetryCore::Failure.new(transport: secret) },
      -> { RetryCore::Failure.from_json(%({"message": "x", "#{ANTHROPIC.whole}": 1})) },
      -> { RetryCore::Failure.from_h(secret.to_sym => 1) },
      -> { RetryCore::Fleet.new(secret.to_sym => 1) },
      -> { RetryCore::Fleet.new(redis_url: "redis://:#{OPENAI_PROJECT.whole}@:bad:port/") },
      -> { RetryCore::Fleet.new(redis_url: "not a url #{GOOGLE.whole}") },
      -> { RetryCore::Fleet.from_config(%({"namespace": "#{AWS.whole}", "bogus": "#{JWT.whole}"})) },
      -> { RetryCore.prune_orphan_tool_calls([{ "role" => "assistant", "tool_calls" => [secret] }]) },
      -> { RetryCore::Native._debug_panic(secret) }
    ]
    raised = 0
    attempts.each_with_index do |attempt, i|
      saved = $stderr.dup
      $stderr.reopen(File::NULL)
      attempt.call
    rescue RetryCore::Error, TypeError, ArgumentError => e
      raised += 1
      check("error text of attempt #{i} (#{e.class})", e.message)
    ensure
      $stderr.reopen(saved)
      saved.close
    end
    assert_equal attempts.size, raised
    assert_no_leaks(attempts.size)
  end
end
