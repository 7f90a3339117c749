# frozen_string_literal: true

require_relative "test_helper"

# Chaos (issue 14), no secret anywhere, from Ruby; tests/python/test_chaos_secrets.py is the twin.
#
# Every credential format of core/tests/secret_formats.rs, in each of its seven disguises (as
# is, JSON, repr, \u002d escapes, URL-encoded, split by a newline or a literal \n), is planted
# in an exception's message, its body (a String and a parsed JSON Hash), its headers and its
# cause chain, and sent through RetryCore.call_llm_with_retry (on_event), RetryCore.classify,
# RetryCore.error_message, Failure.from_exception, a Run's Decision and SwarmSDK's ChatRetry
# (LogStream events, the error message it returns). No run of 12 characters of the secret's
# random part may appear in anything retry-core produces: events, the inspect and to_s of its
# objects (Failure, Classification, Decision), its error texts. The user's exception is theirs
# and keeps its text.
class ChaosSecretsTest < Minitest::Test
  include TestHelpers
  include SwarmSDKInstalled

  R = "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP"
  LETTERS = "QxvTmNpLkRsWyZbCdFgHjKlMnPqRsTuVwXyZaBcDeFgHiJkLmNoP"
  HEX40 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  PLAIN = "Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1"
  BASIC = "YWRtaW46SHY0Tnc4UXAyTHM2VHowWW0zS2I3UmQx"

  # [what, planted text, the part that must not survive]: core/tests/secret_formats.rs, formats().
  FORMATS = [
    ["openai", "sk-proj-#{R}", R],
    ["anthropic", "sk-ant-api03-#{R[0, 60]}", R[0, 60]],
    ["openrouter", "sk-or-v1-#{R[0, 64]}", R[0, 64]],
    ["hugging face", "hf_#{LETTERS[0, 34]}", LETTERS[0, 34]],
    ["groq", "gsk_#{R[0, 52]}", R[0, 52]],
    ["xai", "xai-#{R[0, 70]}", R[0, 70]],
    ["github classic", "ghp_#{R[0, 36]}", R[0, 36]],
    ["github fine-grained", "github_pat_11AB#{R[0, 60]}", R[0, 60]],
    ["replicate", "r8_#{R[0, 37]}", R[0, 37]],
    ["perplexity", "pplx-#{R[0, 48]}", R[0, 48]],
    ["google oauth", "ya29.a0#{R[0, 60]}", R[0, 60]],
    ["google api key", "AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq", "SyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq"],
    ["aws key id", "AKIAQ3EXAMPLE7KEYZ2W", "AKIAQ3EXAMPLE7KEYZ2W"],
    ["gitlab", "glpat-#{R[0, 20]}", R[0, 20]],
    ["slack", "xoxb-1234567890-#{R[0, 24]}", R[0, 24]],
    ["stripe", "sk_live_#{R[0, 24]}", R[0, 24]],
    ["jwt", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.#{R[0, 40]}", R[0, 40]],
    ["azure subscription key", "Ocp-Apim-Subscription-Key: #{PLAIN}", PLAIN],
    ["aws secret", "aws_secret_access_key=#{HEX40}", HEX40],
    ["access_token", "access_token=#{PLAIN}", PLAIN],
    ["token", "?token=#{PLAIN}&x=1", PLAIN],
    ["password", "password=#{PLAIN}", PLAIN],
    ["url password", "https://admin:#{PLAIN}@llm.internal/v1", PLAIN],
    ["redis password", "redis://:#{PLAIN}@cache:6379/0", PLAIN],
    ["invalid api key value", "Invalid API key: #{PLAIN}", PLAIN],
    ["bare basic", "Basic #{BASIC}", BASIC],
    ["header tuple", "[('X-API-KEY', '#{PLAIN}'), ('accept', 'json')]", PLAIN],
    ["url-encoded api_key", "GET /v1?api_key%3D#{PLAIN}%26x%3D1", PLAIN]
  ].freeze

  # core/tests/secret_formats.rs, contexts().
  def self.contexts(secret)
    half = secret.size / 2
    a = secret[0, half]
    b = secret[half..]
    [
      "Error code: 401 - Incorrect key provided: #{secret}.",
      %({"error": {"message": "bad key #{secret}", "type": "invalid_request_error"}}),
      %(AuthenticationError("Error code: 401 - {'error': {'message': 'key #{secret}'}}")),
      %({"key": "#{secret.gsub("-", "\\u002d")}"}),
      "url=https://h/v1?q=#{secret.gsub(":", "%3A").gsub("=", "%3D")}",
      "The key #{a}\n#{b} was rejected",
      "'The key #{a}\\n#{b} was rejected'"
    ]
  end

  # An API error as RubyLLM and Faraday raise them: #response with status, headers and body.
  class AuthError < StandardError
    attr_reader :response

    def initialize(message, status: 401, body: nil, headers: {})
      super(message)
      @response = { status: status, headers: headers, body: body }
    end
  end

  class Wrapper < StandardError; end

  # `error`, raised as the cause of a Wrapper (whose own message says nothing).
  def self.wrapped(error)
    begin
      raise error
    rescue AuthError
      raise Wrapper, "the provider call failed"
    end
  rescue Wrapper => e
    e
  end

  # The places an exception carries a secret (a new exception each time: they are raised).
  def self.planted(text, status)
    {
      "message" => -> { AuthError.new(text, status: status) },
      "body" => -> { AuthError.new("unauthorized", status: status, body: text) },
      "json body" => -> { AuthError.new("unauthorized", status: status, body: { "error" => { "message" => text } }) },
      "headers" => -> { AuthError.new("unauthorized", status: status, headers: { "www-authenticate" => text, "x-echo" => text }) },
      "cause" => -> { wrapped(AuthError.new(text, status: status, body: text)) }
    }
  end

  CASES = FORMATS.each_with_index.flat_map do |(what, text, secret), f|
    contexts(text).each_with_index.flat_map do |ctx, i|
      planted(ctx, [401, 503][(f + i) % 2]).map { |where, make| ["#{what} / ctx #{i} / #{where}", secret, make] }
    end
  end.freeze

  def fragments(secret)
    (0..(secret.size - 12)).map { |i| secret[i, 12] }
  end

  def setup
    super
    @leaks = []
    @texts = 0
  end

  def check(label, secret, outputs)
    frags = fragments(secret)
    outputs.each do |where, value|
      text = value.is_a?(String) ? value : value.inspect
      @texts += 1
      frag = frags.find { |f| text.include?(f) }
      @leaks << "#{label} -> #{where}: #{frag.inspect} in #{text[0, 240].inspect}" if frag
    end
  end

  def assert_no_leaks(min_texts)
    assert_operator @texts, :>=, min_texts, "only #{@texts} texts checked"
    assert_empty @leaks, "#{@leaks.size} leaks:\n#{@leaks.first(25).join("\n")}"
  end

  # Raises the planted error once, then returns :ok; the user's error, if re-raised, is theirs.
  def through_call_llm_with_retry(make)
    events = []
    calls = 0
    begin
      RetryCore.call_llm_with_retry(policy: { preset: "default", backoff: { kind: "fixed", delay: 0 } },
                                    on_event: events.method(:<<)) { (calls += 1) == 1 ? raise(make.call) : :ok }
    rescue AuthError, Wrapper
      nil
    end
    events
  end

  def through_chat_retry(make)
    @emitter.events.clear
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "m", retry_config: { retry_delay: 0 } }, agent_name: :a)
    chat.define_singleton_method(:sleep) { |_| nil }
    calls = 0
    reply = begin
      chat.send(:call_llm_with_retry) { (calls += 1) == 1 ? raise(make.call) : RubyLLM::Message.new(role: :assistant, content: "ok") }
    rescue AuthError, Wrapper
      nil
    end
    [reply, @emitter.events.map { |e| e.except(:error_backtrace) }]
  end

  def test_the_planting_is_seen_by_the_checker
    label, secret, make = CASES.first
    check(label, secret, [["raw", make.call.message]])
    refute_empty @leaks
    assert_operator CASES.size, :>=, FORMATS.size * 7 * 5
  end

  def test_no_fragment_of_any_format_in_anything_retry_core_says
    CASES.each do |label, secret, make|
      error = make.call
      failure = RetryCore::Failure.from_exception(error)
      classification = RetryCore.classify(error)
      run = RetryCore::Run.new(:default, config: { seed: 1 })
      run.failed(error, 0.0)
      decision = run.decision
      reply, chat_events = through_chat_retry(make)
      outputs = [
        ["on_event", through_call_llm_with_retry(make)],
        ["classify.inspect", classification.inspect], ["classify.to_s", classification.to_s],
        ["classify.to_h", classification.to_h],
        ["error_message", RetryCore.error_message(error)],
        ["Failure#inspect", failure.inspect], ["Failure#to_s", failure.to_s],
        ["Decision#inspect", decision.inspect], ["Decision#to_h", decision.to_h], ["Decision#to_s", decision.to_s],
        ["ChatRetry LogStream", chat_events]
      ]
      outputs << ["ChatRetry reply", reply.content] if reply
      check(label, secret, outputs)
    end
    assert_no_leaks(CASES.size * 11)
  end

  # Issue 24: keys split by a space or a tab (the core joins them before it looks), formats of
  # the whole field (core/tests/secret_formats.rs), and an adversarial backslash text.
  # tests/python/test_chaos_secrets.py is the twin.
  HEX32 = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
  NEW_FORMATS = [
    ["openai split by a space", "sk-proj-#{R[0, 40]} #{R[40..]}", R],
    ["anthropic split by a tab", "sk-ant-api03-#{R[0, 30]}\t#{R[30, 30]}AA", R[0, 60]],
    ["google split by a space", "AIza#{R[0, 17]} #{R[17, 18]}", R[0, 35]],
    ["jwt split by a space", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.#{R[0, 20]} #{R[20, 20]}", R[0, 40]],
    ["nvidia", "nvapi-#{R[0, 64]}", R[0, 64]],
    ["alibaba", "LTAI#{R[0, 20]}", R[0, 20]],
    ["tencent", "AKID#{R[0, 32]}", R[0, 32]],
    ["langsmith", "lsv2_pt_#{HEX32}_0a1b2c3d4e", HEX32],
    ["voyage", "pa-#{R[0, 43]}", R[0, 43]],
    ["zhipu", "#{HEX32}.#{R[0, 16]}", "#{HEX32}.#{R[0, 16]}"],
    ["azure sas", "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=#{PLAIN}&se=2026", PLAIN],
    ["aws presigned", "?X-Amz-Signature=#{PLAIN}&X-Amz-Date=20261126", PLAIN],
    ["service account", %({"private_key": "#{PLAIN}"}), PLAIN],
    ["pem", "-----BEGIN PRIVATE KEY-----\\nMIIE#{R}\\n-----END PRIVATE KEY-----", R]
  ].freeze

  def test_split_keys_and_new_formats_leave_no_fragment
    NEW_FORMATS.each do |what, text, secret|
      make = -> { AuthError.new("Error code: 401 - Incorrect key provided: #{text}. Check your key.") }
      error = make.call
      message = RetryCore.error_message(error)
      run = RetryCore::Run.new(:default, config: { seed: 1 })
      run.failed(error, 0.0)
      check(what, secret, [
        ["on_event", through_call_llm_with_retry(make)],
        ["error_message", message],
        ["classify.inspect", RetryCore.classify(error).inspect],
        ["Decision#inspect", run.decision.inspect]
      ])
      # The message still reads as the message: only the key went.
      assert_includes message, "[REDACTED]", what
      assert_includes message, "Check your key.", what
    end
    assert_no_leaks(NEW_FORMATS.size * 4)
  end

  # The shape that made the old scrubber quadratic (8 s for 256 KB): a long run of backslashes,
  # not before a `u`, in a text that holds `\u` and `%`. How fast is the benchmark's concern
  # (core/benches/scrub.rs); here only the result.
  def test_an_adversarial_256_kb_backslash_text_is_scrubbed
    text = "%41 \\u002d #{"\\" * (256 << 10)} key sk-proj-#{R} end"
    make = -> { AuthError.new(text) }
    message = RetryCore.error_message(make.call)
    check("256 KB of backslashes", R, [["on_event", through_call_llm_with_retry(make)], ["error_message", message]])
    assert_includes message, "[REDACTED] end"
    assert_no_leaks(2)
  end
end
