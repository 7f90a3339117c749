# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/lab"

# Honest streams (issue 22): a stream that ends without its stop reason raises
# RetryCore::StreamIncomplete, which the engine classifies as stream_interrupted, so
# call_llm_with_retry asks for the whole stream again. Raw SSE over Net::HTTP against the fault
# lab (`stream_cut` with `clean: true`: the body ends properly, only the stop reason and the
# terminator are missing), a RubyLLM-shaped streamed reply, and the SSE parser's edges.
class StreamsTest < Minitest::Test
  include TestHelpers

  CUT = { fault: "stream_cut", clean: true, after_chunks: 2 }.freeze

  def setup
    super
    @sleeps = record_sleeps(RetryCore)
  end

  def teardown
    @lab&.stop
    unstub_sleeps
    super
  end

  def lab
    skip "timing-dependent (real sockets)" if GCStress.on?
    @lab ||= RetryLab::Server.start
  end

  def hello(n)
    "Hello from retry-lab! This is reply number #{n}."
  end

  # One streamed request to the lab; yields each SSE event's data to `each`, returns the text.
  def stream(provider)
    path = provider == :anthropic ? "/v1/messages" : "/v1/chat/completions"
    request = Net::HTTP::Post.new(path)
    request["content-type"] = "application/json"
    if provider == :anthropic
      request["x-api-key"] = "sk-ant-api03-test-key-0000"
      request["anthropic-version"] = "2023-06-01"
    else
      request["authorization"] = "Bearer sk-test-key-00000000"
    end
    request.body = JSON.generate(model: provider == :anthropic ? "claude-x" : "gpt-4o", max_tokens: 64, stream: true,
                                 messages: [{ role: "user", content: "hi" }])
    http = Net::HTTP.new(lab.host, lab.port, nil)
    http.open_timeout = http.read_timeout = 5
    text = +""
    http.request(request) do |response|
      raise RetryLab.error_for(response, provider) unless response.is_a?(Net::HTTPSuccess)

      yield response.enum_for(:read_body), text
    end
    text
  end

  def raw_sse(provider)
    stream(provider) do |chunks, text|
      RetryCore::Streams.each_event(chunks) do |data|
        text << (data.dig("choices", 0, "delta", "content") || data.dig("delta", "text")).to_s
      end
    end
  end

  # A stand-in for RubyLLM's streamed `chat.ask` on RubyLLM main: chunks carry the provider's
  # finish_reason (anthropic's delta.stop_reason, chat completions' choices[0].finish_reason),
  # the accumulator keeps the last one given, and the reply is a Message with it
  # (lib/ruby_llm/stream_accumulator.rb, protocols/*/streaming.rb at fb5a49bf).
  def ruby_llm_ask(provider, message_class: RubyLLMDouble.build("main")::Message)
    finish = nil
    text = stream(provider) do |chunks, out|
      parser = RetryCore::Streams::SSE.new
      take = lambda do |_name, data|
        next if data == "[DONE]"

        payload = JSON.parse(data)
        out << (payload.dig("choices", 0, "delta", "content") || payload.dig("delta", "text")).to_s
        reason = payload.dig("choices", 0, "finish_reason") || (payload["delta"].is_a?(Hash) && payload.dig("delta", "stop_reason"))
        finish = reason if reason
      end
      chunks.each { |c| parser.feed(c, &take) }
      parser.finish(&take)
    end
    options = { role: :assistant, content: text }
    options[:finish_reason] = finish if message_class.method_defined?(:finish_reason)
    message_class.new(options)
  end

  def test_without_the_helper_a_cut_stream_is_half_an_answer
    lab.script(steps: [CUT])
    half = stream(:openai) { |chunks, text| chunks.each { |c| text << c } }
    refute_includes half, "[DONE]"
    refute_includes half, "\"finish_reason\":\"stop\""
  end

  %i[openai anthropic].each do |provider|
    define_method("test_a_lab_stream_without_its_stop_reason_is_retried_#{provider}_raw_sse") do
      lab.script(steps: [CUT])
      events = []
      out = RetryCore.call_llm_with_retry(policy: :forgeflare, on_event: ->(e) { events << e }) { raw_sse(provider) }
      assert_equal hello(2), out
      assert_equal [%w[stream_cut 200], %w[ok 200]], lab.log.map { |e| [e["fault"], e["status"].to_s] }
      assert_equal [2.0], @sleeps
      attempt = events.find { |e| e[:type] == "llm_retry_attempt" }
      assert_equal "stream_interrupted", attempt[:category], events.inspect
    end

    define_method("test_a_lab_stream_without_its_stop_reason_is_retried_#{provider}_ruby_llm") do
      lab.script(steps: [CUT])
      events = []
      reply = RetryCore.call_llm_with_retry(policy: :forgeflare, on_event: ->(e) { events << e }) do
        RetryCore::Streams.ruby_llm!(ruby_llm_ask(provider))
      end
      assert_equal hello(2), reply.content
      assert_equal %w[stream_cut ok], lab.log.map { |e| e["fault"] }
      attempt = events.find { |e| e[:type] == "llm_retry_attempt" }
      assert_equal "stream_interrupted", attempt[:category], events.inspect
    end
  end

  def test_a_lab_stream_closed_with_a_failing_reason_is_retried
    lab.script(steps: [CUT.merge(finish_reason: "error")])
    assert_equal hello(2), RetryCore.call_llm_with_retry(policy: :forgeflare) { raw_sse(:openai) }
    assert_equal %w[stream_cut ok], lab.log.map { |e| e["fault"] }
    lab.script(steps: [CUT.merge(finish_reason: "length")])
    short = RetryCore.call_llm_with_retry(policy: :forgeflare) { raw_sse(:openai) }
    assert hello(1).start_with?(short) && short != hello(1), short
    assert_equal %w[stream_cut], lab.log.map { |e| e["fault"] }, "a proper end, short as it is: one request"
  end

  def test_the_error_names_its_api_and_classifies_by_its_class
    lab.script(steps: [CUT])
    err = assert_raises(RetryCore::StreamIncomplete) { raw_sse(:anthropic) }
    assert_equal "anthropic", err.api
    assert_nil err.reason
    assert_match "message_delta.delta.stop_reason", err.message
    c = RetryCore.classify(err)
    assert_equal [:stream_interrupted, true], [c.category, c.transient?]
    assert_equal RetryCore::STREAM_INCOMPLETE_CLASS, err.class.name
    quiet = RetryCore.classify(RetryCore::StreamIncomplete.new("half an answer"))
    assert_equal :stream_interrupted, quiet.category, "the class decides, not the words"
  end

  def test_ruby_llm_releases_without_finish_reason_get_a_clear_error_not_a_retry
    lab.script(steps: [{ fault: "ok" }])
    reply = ruby_llm_ask(:openai, message_class: RubyLLMDouble.build("1.16")::Message)
    err = assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Streams.ruby_llm!(reply) }
    assert_match(/no finish_reason/, err.message)
  end

  def test_check_reads_the_cores_table
    assert_nil RetryCore::Streams.check!("openai", "tool_calls")
    assert_nil RetryCore::Streams.check!(:anthropic, :pause_turn)
    assert_nil RetryCore::Streams.check!("openai", "a_reason_from_next_year")
    assert_raises(RetryCore::StreamIncomplete) { RetryCore::Streams.check!("openai", "error") }
    assert_raises(RetryCore::StreamIncomplete) { RetryCore::Streams.check!("any", "FINISH_REASON_UNSPECIFIED") }
    assert_raises(RetryCore::StreamIncomplete) { RetryCore::Streams.check!("gemini", nil) }
    err = assert_raises(RetryCore::InvalidArgumentError) { RetryCore::Streams.check!("opanai", "stop") }
    assert_match "openai, openai_responses, anthropic, gemini", err.message
    assert_equal %w[openai openai_responses anthropic gemini], RetryCore::Streams::APIS.keys
    assert_includes RetryCore::Streams::APIS["anthropic"][1], "end_turn"
  end

  def chunk(*reasons)
    { "choices" => reasons.each_with_index.map { |r, i| { "index" => i, "delta" => {}, "finish_reason" => r } } }
  end

  def test_watch_reads_every_shape
    ok = [
      [chunk(nil), chunk("stop"), { "choices" => [], "usage" => {} }],
      [chunk(nil, nil), chunk("stop", "length")],
      [{ "type" => "message_start" }, { "type" => "message_delta", "delta" => { "stop_reason" => "end_turn" } }],
      [{ "type" => "response.created", "response" => { "status" => "in_progress" } },
       { "type" => "response.completed", "response" => { "status" => "completed" } }],
      [{ "candidates" => [{ "finishReason" => "STOP" }] }]
    ]
    bad = [
      [chunk(nil), chunk(nil)], [chunk(nil), chunk("error")], [chunk(nil, nil), chunk("stop", nil)],
      [{ "type" => "message_start" }, { "type" => "content_block_delta" }],
      [{ "type" => "response.created", "response" => { "status" => "in_progress" } }],
      [{ "candidates" => [{}] }], []
    ]
    ok.each do |items|
      w = RetryCore::Streams::Watch.new
      items.each { |i| w.see(i) }
      assert_nil w.finish!, items.inspect
    end
    bad.each do |items|
      w = RetryCore::Streams::Watch.new
      items.each { |i| w.see(i) }
      err = assert_raises(RetryCore::StreamIncomplete, items.inspect) { w.finish! }
      assert_equal items.size, err.events
    end
  end

  def test_the_sse_parser_keeps_a_split_character_and_reads_crlf_and_cr
    body = "data: {\"t\":\"crab: 🦀\"}\r\n\r\n: a comment\r\nevent: x\rdata: {\"t\":\"caf\u00e9\"}\n\ndata: [DONE]\r\n\r\n".b
    crab = body.index("🦀".b)
    cr = body.index("\r".b)
    pieces = [body.byteslice(0, crab + 2), body.byteslice(crab + 2, cr - crab - 1), body.byteslice(cr + 1, body.bytesize)]
    got = []
    parser = RetryCore::Streams::SSE.new
    pieces.each { |p| parser.feed(p) { |name, data| got << [name, data] } }
    parser.finish { |name, data| got << [name, data] }
    assert_equal [["message", "{\"t\":\"crab: 🦀\"}"], ["x", "{\"t\":\"café\"}"], %w[message [DONE]]], got
    assert got.all? { |_, d| d.encoding == Encoding::UTF_8 && d.valid_encoding? }
  end

  def test_data_that_is_not_json_is_the_json_gems_error
    assert_raises(JSON::ParserError) { RetryCore::Streams.each_event(["data: {\"choices\": [\n\n"]) }
  end

  def test_a_last_event_without_its_blank_line_is_still_read
    got = []
    parser = RetryCore::Streams::SSE.new
    parser.feed("data: a\ndata: b") { |_, d| got << d }
    parser.finish { |_, d| got << d }
    assert_equal ["a\nb"], got
  end

  # An SSE error event is classified by the core from its payload (error.type): a transient one
  # is asked for again, a permanent one is not (it was retried as StreamIncomplete before).
  %i[openai anthropic].each do |provider|
    define_method("test_an_sse_error_event_is_classified_by_its_type_#{provider}") do
      lab.script(steps: [{ fault: "sse_error", after_chunks: 2, error_type: "overloaded_error" }])
      assert_equal hello(2), RetryCore.call_llm_with_retry(policy: :forgeflare) { raw_sse(provider) }
      assert_equal %w[sse_error ok], lab.log.map { |e| e["fault"] }

      %w[invalid_request_error authentication_error].each do |type|
        lab.script(steps: [{ fault: "sse_error", after_chunks: 2, error_type: type }])
        err = assert_raises(RetryCore::StreamError, type) do
          RetryCore.call_llm_with_retry(policy: :forgeflare) { raw_sse(provider) }
        end
        assert_equal %w[sse_error], lab.log.map { |e| e["fault"] }, "#{type}: one request, no retry"
        assert_equal type, JSON.parse(err.data).dig("error", "type")
        refute RetryCore.classify(err).transient?, type
      end
    end
  end

  def test_a_hash_error_event_raises_the_cores_classification
    w = RetryCore::Streams::Watch.new
    native { w.see(chunk(nil, "stop")) }
    err = assert_raises(RetryCore::StreamError) do
      native { w.see({ "type" => "error", "error" => { "type" => "overloaded_error", "message" => "Overloaded" } }) }
    end
    assert_equal "Overloaded", err.message
    assert_equal [:stream_interrupted, true], [RetryCore.classify(err).category, RetryCore.classify(err).transient?]
    err = assert_raises(RetryCore::StreamError) { native { w.see({ error: { type: "invalid_request_error", message: "bad" } }) } }
    assert_equal :invalid_response, RetryCore.classify(err).category
  end

  # tests/vectors/stream_watch.json: the verdicts the core's unit tests and Python's replay give.
  def test_the_shared_stream_vectors
    doc = JSON.parse(File.read(File.expand_path("../vectors/stream_watch.json", __dir__)))
    assert_operator doc["cases"].size, :>=, 15
    doc["cases"].each do |c|
      sse = c["events"].map { |e| "#{"event: #{e["event"]}\n" if e["event"]}data: #{JSON.generate(e["data"])}\n\n" }.join
      verdict = c["verdict"]
      begin
        RetryCore::Streams.each_event([sse], api: c["api"])
        assert verdict["ends"], "#{c["name"]}: ended"
      rescue RetryCore::StreamIncomplete => e
        want = verdict["incomplete"]
        refute_nil want, "#{c["name"]}: #{e.message}"
        assert_equal [want["api"], want["reason"]], [e.api, e.reason], c["name"]
      rescue RetryCore::StreamError => e
        assert_equal verdict["error"], RetryCore.classify(e).category.to_s, c["name"]
      end
    end
  end
end
