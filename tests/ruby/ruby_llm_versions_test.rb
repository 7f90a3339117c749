# frozen_string_literal: true

require_relative "test_helper"

# Orphan pruning on RubyLLM's messages as each version really builds them (support/
# ruby_llm_facts.md): through RetryCore.prune_orphan_tool_calls and through the SwarmSDK drop-in,
# on assistant messages whose content is nil, empty, or content blocks / attachments, for every
# version double and for plain Hashes. First, the doubles are shown to be as strict as RubyLLM:
# the old rebuild, Message.new(message.to_h), fails on them.
class RubyLLMVersionsTest < Minitest::Test
  include TestHelpers

  VERSIONS = RubyLLMDouble::VERSIONS.keys

  def ns(version)
    RubyLLMDouble.build(version)
  end

  def assert_equal_or_nil(expected, actual, label)
    expected.nil? ? assert_nil(actual, label) : assert_equal(expected, actual, label)
  end

  def main?(version)
    version == "main"
  end

  def calls(ns, *ids)
    ids.to_h { |id| [id, ns::ToolCall.new(id: id, name: id == "t2" ? "Write" : "Read", arguments: { "file_path" => "/#{id}.rb" })] }
  end

  # Options for an assistant message of this version: the model key it has, token counts, raw,
  # thinking where the version has them.
  def assistant_options(version, content, tool_calls)
    n = ns(version)
    options = { role: :assistant, content: content, tool_calls: tool_calls, input_tokens: 120, output_tokens: 30,
                raw: :the_faraday_response }
    options[main?(version) ? :model : :model_id] = "claude-sonnet-4"
    options[:thinking] = n::Thinking.new(text: "plan", signature: "sig") if n.const_defined?(:Thinking, false)
    options
  end

  # user, assistant (t1 answered, t2 orphaned), tool result for t1, user.
  def history(version, content)
    n = ns(version)
    [n::Message.new(role: :user, content: "read both"),
     n::Message.new(assistant_options(version, content, calls(n, "t1", "t2"))),
     n::Message.new(role: :tool, content: "contents of t1", tool_call_id: "t1"),
     n::Message.new(role: :user, content: "well?")]
  end

  # The assistant contents each version accepts: nil, "", and content blocks (an Array kept as
  # it is, or a Content with an attachment) up to 1.16; main takes only Strings and nil, with
  # attachments beside them.
  def contents(version)
    return [nil, "", "Let me read both."] if main?(version)

    n = ns(version)
    [nil, "", [{ "type" => "text", "text" => "Let me read both." }], n::Content.new("Look:", ["diagram.png"])]
  end

  # --- the doubles are strict ----------------------------------------------------------------

  def test_every_version_fetches_role_and_content
    VERSIONS.each do |v|
      assert_raises(KeyError, v) { ns(v)::Message.new(role: :assistant) }
      assert_raises(KeyError, v) { ns(v)::Message.new(content: "x") }
      assert_raises(ns(v)::InvalidRoleError, v) { ns(v)::Message.new(role: :robot, content: "x") }
      assert_equal :assistant, ns(v)::Message.new(role: "assistant", content: nil).role, v
    end
  end

  def test_the_old_rebuild_fails_on_the_strict_doubles
    %w[1.9 1.11].each do |v|
      message = ns(v)::Message.new(assistant_options(v, nil, calls(ns(v), "t1")))
      refute message.to_h.key?(:content), "#{v}: to_h drops the nil content"
      error = assert_raises(KeyError, v) { message.class.new(message.to_h) }
      assert_match(/content/, error.message)
    end
    # 1.13 on: the constructor turned nil into "", so no KeyError, but thinking comes back as a
    # String (from 1.10) and raw is lost.
    %w[1.13 1.14 1.15 1.16].each do |v|
      message = ns(v)::Message.new(assistant_options(v, nil, calls(ns(v), "t1")))
      assert_equal "", message.content, v
      copy = message.class.new(message.to_h)
      assert_instance_of String, copy.thinking, v
      assert_raises(NoMethodError, v) { copy.to_h }
      assert_nil copy.raw, v
    end
    # main: tool calls come back as Hashes, content blocks are refused.
    message = ns("main")::Message.new(assistant_options("main", nil, calls(ns("main"), "t1")))
    copy = message.class.new(message.to_h)
    assert_instance_of Hash, copy.tool_calls["t1"]
    assert_raises(NoMethodError) { copy.tool_calls["t1"].name }
    assert_raises(ArgumentError) { ns("main")::Message.new(role: :assistant, content: [{ "type" => "text", "text" => "x" }]) }
  end

  def test_error_hierarchy_per_version
    VERSIONS.each do |v|
      n = ns(v)
      %i[RateLimitError ServerError ServiceUnavailableError OverloadedError BadRequestError UnauthorizedError
         PaymentRequiredError ForbiddenError].each { |c| assert_operator n.const_get(c), :<, n::Error, "#{v} #{c}" }
      %i[ConfigurationError InvalidRoleError ModelNotFoundError].each do |c|
        refute_operator n.const_get(c), :<, n::Error, "#{v} #{c}"
      end
      assert_equal main?(v), n.const_defined?(:CancelledError, false), "#{v}: CancelledError only on main"
      assert_equal main?(v), n.const_defined?(:ToolCallParseError, false), "#{v}: ToolCallParseError only on main"
      assert_equal !%w[1.9 1.11].include?(v), n.const_defined?(:ContextLengthExceededError, false), v
      assert_equal %w[1.9 1.11].include?(v) ? n::Error : n::ServiceUnavailableError, RubyLLMDouble.error_for(n, 504, "gw").class, v
    end
    assert_operator ns("main")::CancelledError, :<, StandardError
    refute_operator ns("main")::CancelledError, :<, ns("main")::Error
    assert_operator ns("main")::ToolCallParseError, :<, ns("main")::Error
  end

  # --- pruning, version by version -----------------------------------------------------------

  def test_prune_orphan_tool_calls_on_every_version_and_content
    VERSIONS.each do |v|
      contents(v).each do |content|
        label = "#{v} content=#{content.inspect[0, 40]}"
        h = history(v, content)
        before = h.map(&:dup)
        out = native { RetryCore.prune_orphan_tool_calls(h) }
        assert_equal ["t2"], out.pruned.map { |p| p[:id] }, label
        assert_equal 4, out.messages.size, label
        rebuilt = out.messages[1]
        assert_instance_of ns(v)::Message, rebuilt, label
        refute_same h[1], rebuilt, label
        assert_equal ["t1"], rebuilt.tool_calls.keys, label
        assert_same h[1].tool_calls["t1"], rebuilt.tool_calls["t1"], "#{label}: tool calls keep their form (ToolCall objects)"
        assert_equal_or_nil h[1].content, rebuilt.content, label
        assert_equal "claude-sonnet-4", main?(v) ? rebuilt.model : rebuilt.model_id, label
        assert_equal [120, 30], [rebuilt.input_tokens, rebuilt.output_tokens], label
        assert_equal :the_faraday_response, rebuilt.raw, label
        assert_same h[1].thinking, rebuilt.thinking, label if h[1].respond_to?(:thinking)
        assert_same h[1].tokens, rebuilt.tokens, label if h[1].respond_to?(:tokens)
        rebuilt.to_h # the copy is a sound message of its version
        assert_equal before.map(&:to_h), h.map(&:to_h), "#{label}: the history given is untouched"
      end
    end
  end

  def test_a_message_left_without_calls_or_content_is_removed
    VERSIONS.each do |v|
      n = ns(v)
      h = [n::Message.new(role: :user, content: "go"), n::Message.new(assistant_options(v, nil, calls(n, "t2"))),
           n::Message.new(role: :user, content: "well?")]
      out = native { RetryCore.prune_orphan_tool_calls(h) }
      assert_equal %i[user user], out.messages.map(&:role), v
      # With text left, the message stays without tool calls.
      h[1] = n::Message.new(assistant_options(v, "Let me look.", calls(n, "t2")))
      out = native { RetryCore.prune_orphan_tool_calls(h) }
      assert_nil out.messages[1].tool_calls, v
      assert_equal "Let me look.", out.messages[1].content, v
    end
  end

  def test_main_keeps_attachments_conversation_and_cache_marks
    n = ns("main")
    options = assistant_options("main", "See the diagram.", calls(n, "t1", "t2"))
    assistant = n::Message.new(options.merge(attachments: ["diagram.png"], finish_reason: "tool_calls", cache_until_here: true))
    assistant.conversation = :the_chat
    h = [n::Message.new(role: :user, content: "go"), assistant, n::Message.new(role: :tool, content: "ok", tool_call_id: "t1")]
    rebuilt = native { RetryCore.prune_orphan_tool_calls(h) }.messages[1]
    assert_equal assistant.attachments, rebuilt.attachments
    assert_equal ["diagram.png"], rebuilt.attachments.map(&:source)
    assert_equal ["tool_calls", true, :the_chat], [rebuilt.finish_reason, rebuilt.cache_until_here?, rebuilt.conversation]
  end

  # A class that refuses the copy: a clear error, and nothing lost.
  class PickyMessage
    attr_reader :role, :content, :tool_calls, :tool_call_id

    def initialize(options = {})
      raise ArgumentError, "PickyMessage wants a signature" unless options[:signature] || options[:role] != :assistant

      @role = options.fetch(:role)
      @content = options.fetch(:content)
      @tool_calls = options[:tool_calls]
      @tool_call_id = options[:tool_call_id]
      @signature = options[:signature]
    end

    def self.build(role, content, tool_calls = nil)
      new(role: role, content: content, tool_calls: tool_calls, signature: "s")
    end
  end

  def test_a_class_that_refuses_the_copy_raises_a_clear_error
    h = [PickyMessage.build(:user, "go"), PickyMessage.build(:assistant, nil, calls(RubyLLM, "t1", "t2")),
         PickyMessage.build(:tool, "ok").tap { |m| m.instance_variable_set(:@tool_call_id, "t1") }]
    before = h.dup
    error = assert_raises(RetryCore::InvalidArgumentError) { RetryCore.prune_orphan_tool_calls(h) }
    assert_kind_of ArgumentError, error
    assert_match(/cannot rebuild a RubyLLMVersionsTest::PickyMessage/, error.message)
    assert_match(/wants a signature/, error.message)
    assert_equal before, h
    assert_equal %w[t1 t2], h[1].tool_calls.keys
  end

  # --- plain Hashes --------------------------------------------------------------------------

  def test_hashes_with_nil_empty_and_block_content
    [nil, "", [{ "type" => "text", "text" => "Let me read both." }]].each do |content|
      %i[string symbol].each do |keys|
        h = [{ "role" => "user", "content" => "go" },
             { "role" => "assistant", "content" => content,
               "tool_calls" => [{ "id" => "t1", "type" => "function", "function" => { "name" => "Read", "arguments" => "{}" } },
                                { "id" => "t2", "type" => "function", "function" => { "name" => "Write", "arguments" => "{}" } }] },
             { "role" => "tool", "tool_call_id" => "t1", "content" => "ok" },
             { "role" => "user", "content" => "well?" }]
        h = h.map { |m| m.transform_keys(&:to_sym) } if keys == :symbol
        out = native { RetryCore.prune_orphan_tool_calls(h) }
        label = "#{keys} content=#{content.inspect}"
        assert_equal ["t2"], out.pruned.map { |p| p[:id] }, label
        rebuilt = out.messages[1]
        key = keys == :symbol ? :tool_calls : "tool_calls"
        assert_equal ["t1"], rebuilt[key].map { |c| c[keys == :symbol ? :id : "id"] || c["id"] }, label
        assert_equal_or_nil content, rebuilt[keys == :symbol ? :content : "content"], label
      end
    end
    # Anthropic blocks: the orphan tool_use block goes, the text block stays.
    h = [{ "role" => "user", "content" => "go" },
         { "role" => "assistant", "content" => [{ "type" => "text", "text" => "Reading." },
                                                { "type" => "tool_use", "id" => "toolu_1", "name" => "Read", "input" => {} }] },
         { "role" => "user", "content" => "well?" }]
    out = native { RetryCore.prune_orphan_tool_calls(h) }
    assert_equal ["toolu_1"], out.pruned.map { |p| p[:id] }
    assert_equal [{ "type" => "text", "text" => "Reading." }], out.messages[1]["content"]
  end

  # --- the SwarmSDK drop-in ------------------------------------------------------------------

  TOOL_ERROR = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2. " \
               "Each `tool_use` block must have a corresponding `tool_result` block in the next message."

  def setup
    super
    RubyLLM.reset_config!
    install_swarm_sdk
  end

  def teardown
    reset_globals
    super
  end

  def chat_with(history)
    chat = SwarmSDK::Agent::Chat.new(definition: { model: "claude-sonnet-4" }, agent_name: :backend)
    chat.setup_context(SwarmSDK::Agent::Context.new("swarm-1", nil))
    history.each { |m| chat.add_message(m) }
    chat
  end

  def test_chat_retry_recovers_on_every_version_and_content
    VERSIONS.each do |v|
      contents(v).each do |content|
        label = "#{v} content=#{content.inspect[0, 40]}"
        @emitter.events.clear
        chat = chat_with(history(v, content))
        sleeps = record_sleeps(chat)
        n = 0
        reply = bounded do
          chat.send(:call_llm_with_retry) do
            (n += 1) == 1 ? raise(RubyLLM.error_for(400, TOOL_ERROR)) : :answered
          end
        end
        assert_equal :answered, reply, label
        assert_equal 2, n, label
        assert_empty sleeps, label
        assert_equal [["orphan_tool_calls_pruned", 1]], @emitter.events.map { |e| e.values_at(:type, :pruned_count) }, label
        messages = chat.llm_chat.messages
        assert_equal %i[user assistant tool user], messages.map(&:role), label
        assert_instance_of ns(v)::Message, messages[1], label
        assert_equal ["t1"], messages[1].tool_calls.keys, label
        assert_instance_of ns(v)::ToolCall, messages[1].tool_calls["t1"], label
        reminder, = chat.context_manager.ephemeral.first
        assert_includes reminder, '- Write(file_path: "/t2.rb")', label
      end
    end
  end

  # A history the message class refuses to rebuild: the 400 comes back as SwarmSDK's error
  # message, the history untouched; no error of ours replaces it.
  def test_chat_retry_when_the_history_cannot_be_rebuilt
    h = [PickyMessage.build(:user, "go"), PickyMessage.build(:assistant, nil, calls(RubyLLM, "t1", "t2")),
         PickyMessage.build(:tool, "ok").tap { |m| m.instance_variable_set(:@tool_call_id, "t1") }]
    chat = chat_with(h)
    record_sleeps(chat)
    reply = bounded { chat.send(:call_llm_with_retry) { raise RubyLLM.error_for(400, TOOL_ERROR) } }
    assert_instance_of RubyLLM::Message, reply
    assert_includes reply.content, "BadRequest"
    assert_equal h, chat.llm_chat.messages
    assert_equal %w[t1 t2], chat.llm_chat.messages[1].tool_calls.keys
  end
end
