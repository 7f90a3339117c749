# frozen_string_literal: true

require_relative "test_helper"
require "tempfile"

# Orphan pruning for RubyLLM-like objects and for Hashes of both shapes.
class OrphansTest < Minitest::Test
  include TestHelpers
  include GCStress

  def msg(role, content = nil, tool_calls: nil, tool_call_id: nil, **tokens)
    RubyLLM::Message.new(role: role, content: content, tool_calls: tool_calls, tool_call_id: tool_call_id,
                         model_id: role == :assistant ? "claude-sonnet-4" : nil, **tokens)
  end

  def call(id, name = "Read", arguments = { "file_path" => "/important/file.rb" })
    [id, RubyLLM::ToolCall.new(id: id, name: name, arguments: arguments)]
  end

  def test_ruby_llm_history_keeps_classes_tokens_and_identity
    long = "Hello, this is a long text that goes on and on, far beyond fifty characters."
    history = [
      msg(:user, "read and write"),
      msg(:assistant, "On it.", tool_calls: [call("c1"), call("c2", "Write", { "file_path" => "/output.txt", "content" => long })].to_h,
                                input_tokens: 120, output_tokens: 30, cached_tokens: 7, cache_creation_tokens: 2),
      msg(:tool, "file contents", tool_call_id: "c1"),
      msg(:user, "and?"),
      msg(:assistant, nil, tool_calls: [call("c3", "Bash", { "command" => "ls", "timeout" => 5 })].to_h),
      msg(:user, "hello?")
    ]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal 5, out.messages.size
    assert_same history[0], out.messages[0]
    assert_same history[2], out.messages[2]
    rebuilt = out.messages[1]
    assert_instance_of RubyLLM::Message, rebuilt
    assert_equal ["c1"], rebuilt.tool_calls.keys
    assert_same history[1].tool_calls["c1"], rebuilt.tool_calls["c1"]
    assert_equal [120, 30, 7, 2, "claude-sonnet-4", "On it."],
                 [rebuilt.input_tokens, rebuilt.output_tokens, rebuilt.cached_tokens, rebuilt.cache_creation_tokens,
                  rebuilt.model_id, rebuilt.content]
    assert_equal %w[c2 c3], out.pruned.map { |p| p[:id] }
    assert_equal %w[Write Bash], out.pruned.map { |p| p[:name] }
    assert_same history[4].tool_calls["c3"].arguments, out.pruned[1][:arguments]
    assert_equal 0, out.dangling_results
    assert_equal <<~TEXT.chomp, out.reminder
      <system-reminder>
      The following tool calls were interrupted and removed from conversation history:

      - Write(file_path: "/output.txt", content: Hello, this is a long text that goes on and on,...)
      - Bash(command: "ls", timeout: 5)

      These tools were never executed. If you still need their results, please run them again.
      </system-reminder>
    TEXT
    assert_equal SwarmSDKReference::Pruning.reminder(
      [{ name: "Write", arguments: { "file_path" => "/output.txt", "content" => long } },
       { name: "Bash", arguments: { "command" => "ls", "timeout" => 5 } }]
    ), out.reminder
  end

  def test_same_decisions_as_swarm_sdk_on_a_mixed_history
    history = build_history(GCStress.on? ? 20 : 300, seed: 7)
    ours = RetryCore.prune_orphan_tool_calls(history)
    theirs = SwarmSDKReference::Pruning.prune(history)
    assert_equal theirs[:count], ours.pruned.size
    assert_equal theirs[:messages].map { |m| [m.role, m.content, m.tool_calls&.keys, m.tool_call_id] },
                 ours.messages.map { |m| [m.role, m.content, m.tool_calls&.keys, m.tool_call_id] }
    assert_equal SwarmSDKReference::Pruning.reminder(theirs[:pruned_tools]), ours.reminder
  end

  def build_history(n, seed:)
    rng = Random.new(seed)
    history = []
    id = 0
    while history.size < n
      history << msg(:user, "question #{history.size}")
      calls = Array.new(rng.rand(0..3)) { call("call_#{id += 1}", %w[Read Write Bash].sample(random: rng), { "n" => id }) }
      history << msg(:assistant, rng.rand < 0.5 ? "thinking" : nil, tool_calls: calls.empty? ? nil : calls.to_h)
      calls.each { |(cid, _)| history << msg(:tool, "result", tool_call_id: cid) if rng.rand < 0.9 }
      history << msg(:assistant, "answer")
    end
    history
  end

  def test_openai_hashes_with_symbol_keys
    history = [
      { role: "user", content: "go" },
      { role: "assistant", content: nil, tool_calls: [
        { id: "a", type: "function", function: { name: "Read", arguments: '{"file_path": "/a"}' } },
        { id: "b", type: "function", function: { name: "Read", arguments: '{"file_path": "/b"}' } }
      ] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "zzz", content: "?" },
      { role: "user", content: "next" }
    ]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal 4, out.messages.size
    assert_equal ["a"], out.messages[1][:tool_calls].map { |c| c[:id] }
    refute_same history[1], out.messages[1]
    assert_equal 2, history[1][:tool_calls].size, "the input is not modified"
    assert_equal 1, out.dangling_results
    assert_equal [{ id: "b", name: "Read", arguments: '{"file_path": "/b"}' }], out.pruned
    assert_includes out.reminder, '- Read(file_path: "/b")'
  end

  def test_anthropic_content_blocks
    history = [
      { "role" => "user", "content" => "go" },
      { "role" => "assistant", "content" => [
        { "type" => "text", "text" => "reading" },
        { "type" => "tool_use", "id" => "toolu_1", "name" => "Read", "input" => { "file_path" => "/a" } },
        { "type" => "tool_use", "id" => "toolu_2", "name" => "Read", "input" => { "file_path" => "/b" } }
      ] },
      { "role" => "user", "content" => [{ "type" => "tool_result", "tool_use_id" => "toolu_1", "content" => "A" },
                                        { "type" => "tool_result", "tool_use_id" => "toolu_9", "content" => "?" }] }
    ]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal 2, out.messages[1]["content"].size
    assert_equal 1, out.messages[2]["content"].size
    assert_equal ["toolu_2"], out.pruned.map { |p| p[:id] }
    assert_equal({ "file_path" => "/b" }, out.pruned.first[:arguments])
    assert_equal 1, out.dangling_results
  end

  def test_clean_and_empty_histories
    clean = [msg(:user, "hi"), msg(:assistant, "hello")]
    out = RetryCore.prune_orphan_tool_calls(clean)
    assert_equal clean, out.messages
    refute out.changed?
    assert_equal "", out.reminder
    assert_equal 0, RetryCore.prune_orphan_tool_calls([]).count
  end

  # Message classes built with keywords, or without to_h, are rebuilt too.
  KeywordMessage = Struct.new(:role, :content, :tool_calls, :tool_call_id, :input_tokens, keyword_init: true)

  class PlainMessage
    attr_reader :role, :content, :tool_calls, :tool_call_id

    def initialize(role, content, tool_calls = nil)
      @role = role
      @content = content
      @tool_calls = tool_calls
    end
  end

  def test_other_message_classes
    kw = [KeywordMessage.new(role: :assistant, content: "x", tool_calls: [call("k1")].to_h, input_tokens: 9),
          KeywordMessage.new(role: :user, content: "y")]
    out = RetryCore.prune_orphan_tool_calls(kw)
    assert_instance_of KeywordMessage, out.messages.first
    assert_nil out.messages.first.tool_calls
    assert_equal 9, out.messages.first.input_tokens

    plain = [PlainMessage.new("assistant", "text", [call("p1")].to_h), PlainMessage.new("user", "ok")]
    out = RetryCore.prune_orphan_tool_calls(plain)
    assert_instance_of PlainMessage, out.messages.first
    assert_nil out.messages.first.tool_calls
    assert_equal "text", out.messages.first.content
  end

  # Attributes are read through the message's own methods, attr_readers or computed alike.
  class ComputedRole
    attr_reader :content, :tool_calls

    def initialize(kind, content, tool_calls = nil, answer_to = nil)
      @kind = kind
      @content = content
      @tool_calls = tool_calls
      @answer_to = answer_to
    end

    def role
      @kind == "bot" ? :assistant : @kind.to_sym
    end

    def tool_call_id
      @answer_to&.upcase
    end
  end

  def test_computed_attributes
    history = [ComputedRole.new("user", "go"), ComputedRole.new("bot", "", [call("C1"), call("C2")].to_h),
               ComputedRole.new("tool", "done", nil, "c1"), ComputedRole.new("user", "next")]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal ["C2"], out.pruned.map { |p| p[:id] }
    assert_equal ["C1"], out.messages[1].tool_calls.keys
  end

  # Ids in any form: UTF-8 (or US-ASCII / binary) Strings by their bytes, Symbols and Integers
  # by their text, other encodings converted to UTF-8, invalid bytes replaced; nil and "" are no
  # id. A calls Hash whose keys are of several kinds is read as one whose keys are all Strings.
  def test_ids_in_any_form
    utf16 = "c4".encode("UTF-16LE")
    bad = "c5\xFF".b.force_encoding("UTF-8")
    history = [
      msg(:user, "go"),
      msg(:assistant, "", tool_calls: { "c1" => tool("c1"), :c2 => tool("c2"), 3 => tool("3"), utf16 => tool("c4"),
                                        bad => tool("c5"), "c6" => tool("c6"), "" => tool("blank") }),
      msg(:tool, "1", tool_call_id: :c1),
      msg(:tool, "2", tool_call_id: "c2"),
      msg(:tool, "3", tool_call_id: "3"),
      msg(:tool, "4", tool_call_id: "c4"),
      msg(:tool, "5", tool_call_id: "c5\uFFFD"),
      msg(:tool, "?", tool_call_id: "c6".encode("UTF-16BE").b),
      msg(:tool, "?", tool_call_id: ""),
      msg(:user, "next")
    ]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal ["c6", nil], out.pruned.map { |p| p[:id] }
    assert_equal %w[c6 blank], out.pruned.map { |p| p[:name] }
    assert_equal ["c1", :c2, 3, utf16, bad], out.messages[1].tool_calls.keys
    assert_equal 2, out.dangling_results
    assert_equal %w[1 2 3 4 5], out.messages[2..6].map(&:content)

    # The same ids, all Strings but one Symbol in the middle: same answer.
    mixed = [msg(:user, "go"), msg(:assistant, "", tool_calls: { "m1" => tool("m1"), :m2 => tool("m2"), "m3" => tool("m3") }),
             msg(:tool, "1", tool_call_id: "m1"), msg(:tool, "3", tool_call_id: "m3"), msg(:user, "next")]
    out = RetryCore.prune_orphan_tool_calls(mixed)
    assert_equal ["m2"], out.pruned.map { |p| p[:id] }
    assert_equal %w[m1 m3], out.messages[1].tool_calls.keys
  end

  def tool(name)
    RubyLLM::ToolCall.new(id: name, name: name, arguments: { "n" => name })
  end

  # The name and arguments of a pruned call, read by the call's own methods; several call
  # classes in one history.
  StructCall = Struct.new(:id, :name, :arguments)

  class ComputedCall
    attr_reader :id

    def initialize(id)
      @id = id
    end

    def name
      "Computed#{@id}"
    end

    def arguments
      { "id" => @id, "twice" => @id * 2 }
    end
  end

  def test_call_objects_of_several_classes
    history = [
      msg(:user, "go"),
      msg(:assistant, "", tool_calls: { "r" => RubyLLM::ToolCall.new(id: "r", name: "Read", arguments: { "p" => "/r" }),
                                        "s" => StructCall.new("s", "Struct", { "p" => "/s" }),
                                        "c" => ComputedCall.new("c") }),
      msg(:user, "again"),
      msg(:assistant, "x", tool_calls: [StructCall.new("t", "Array", { "p" => "/t" }), RubyLLM::ToolCall.new(id: "u", name: "Kept")]),
      msg(:tool, "kept", tool_call_id: "u"),
      msg(:assistant, "", tool_calls: { "z" => Object.new })
    ]
    out = RetryCore.prune_orphan_tool_calls(history)
    assert_equal [%w[r Read], %w[s Struct], %w[c Computedc], %w[t Array], ["z", nil]],
                 out.pruned.map { |p| [p[:id], p[:name]] }
    assert_equal [{ "p" => "/r" }, { "p" => "/s" }, { "id" => "c", "twice" => "cc" }, { "p" => "/t" }, nil],
                 out.pruned.map { |p| p[:arguments] }
    assert_same history[1].tool_calls["r"].arguments, out.pruned[0][:arguments]
    assert_includes out.reminder, '- Computedc(id: "c", twice: "cc")'
    assert_includes out.reminder, "- unknown()"
    assert_equal %w[u], out.messages.last(2).first.tool_calls.map(&:id)
  end

  # Reading a message calls its methods, and converting an id may allocate (a computed id, a
  # Symbol's or an Integer's text, a UTF-16 String transcoded): every id read must stay right
  # when each of those allocations runs the GC. The plan made with GC.stress on is the plan made
  # without it.
  def test_plan_under_gc_stress_with_ids_made_while_reading
    rounds = GCStress.on? ? 3 : 8
    history = ids_made_while_reading(rounds)
    expected = RetryCore._orphan_plan(history)
    assert_equal rounds.times.flat_map { |i| ["ID#{i}B", ("u#{i}" if i.odd?)].compact }, expected[1].map { |p| p[:id] }
    got = begin
      GC.stress = true
      RetryCore._orphan_plan(history)
    ensure
      GC.stress = GCStress.on?
    end
    assert_equal expected, got
  end

  # Per round: a computed-reader exchange whose second call is orphaned (its answer's id is
  # upcased at each read), then a RubyLLM exchange keyed by a Symbol, an Integer and a UTF-16
  # String, whose UTF-16 call is answered in even rounds only.
  def ids_made_while_reading(rounds)
    Array.new(rounds) do |i|
      [ComputedRole.new("user", "q#{i}"),
       ComputedRole.new("bot", "", { "ID#{i}A" => tool("a#{i}"), "ID#{i}B" => tool("b#{i}") }),
       ComputedRole.new("tool", "r", nil, "id#{i}a"),
       msg(:assistant, "", tool_calls: { :"s#{i}" => tool("s#{i}"), (1000 + i) => tool("n#{i}"),
                                         "u#{i}".encode("UTF-16LE") => tool("u#{i}") }),
       msg(:tool, "s", tool_call_id: "s#{i}"),
       msg(:tool, "n", tool_call_id: (1000 + i).to_s),
       (msg(:tool, "u", tool_call_id: "u#{i}") if i.even?)].compact
    end.flatten
  end

  # Pruning under a GC that compacts at every allocation (GC.stress and GC.auto_compact),
  # in a child process. Ruby 3.1's VM itself crashes now and then in that mode, in its own code:
  # seen twice in 18 full suite runs when this ran in-process, once before _orphan_plan was even
  # called (`[BUG] can't remove str from str_id` inside rb_imemo_new at `GC.stat`), once after
  # it had returned; Ruby fixed such crashes later (ruby/ruby#8940). So a child that dies is
  # judged by its crash report: a retry_core frame in the C backtrace fails the test at once;
  # a crash in Ruby alone is tried again, up to three times, each from a heap laid out anew (a
  # fork copies the parent's heap, so three children of one state crashed alike, at the same
  # address, after a full suite had run in the parent).
  def test_pruning_under_a_compacting_gc
    history = build_history(40, seed: 3)
    history.each { |m| m.tool_call_id&.then { |id| m.instance_variable_set(:@tool_call_id, id.dup) } }
    expected = RetryCore._orphan_plan(history)
    refute_empty expected[1]
    ruby_crashes = []
    3.times do |attempt|
      status, result, report = compacting_plan_in_a_child(history, attempt)
      if status.success?
        got, compactions = Marshal.load(result) # rubocop:disable Security/MarshalLoad -- our own child
        assert_equal expected, got
        assert_operator compactions, :>, 0
        return
      end
      backtrace = report[/-- C level backtrace information -+\n(.*?)(?:\n-- |\z)/m, 1].to_s
      flunk "the child crashed inside retry_core (#{status.inspect}):\n#{report[0, 4000]}" if backtrace.include?("retry_core")
      ruby_crashes << "#{status.inspect}: #{report.lines.first(2).join.strip}"
    end
    flunk "Ruby crashed in its own code three times in a row:\n#{ruby_crashes.join("\n")}"
  end

  # [status, Marshal of [plan, compactions], crash report] of _orphan_plan run in a forked child
  # with GC.stress and GC.auto_compact on (bounded: the child is killed after 120 s). Attempt N
  # first lays the child's heap out anew: N thousand short-lived strings, a full GC and one
  # compaction without stress, so no two attempts start from the same heap.
  def compacting_plan_in_a_child(history, attempt = 0)
    reader, writer = IO.pipe
    report = Tempfile.new("retry-core-compaction")
    pid = fork do
      reader.close
      $stderr.reopen(report.path, "w")
      Array.new(attempt * 1000) { |i| "heap #{i}" }
      GC.start(full_mark: true, immediate_sweep: true)
      GC.compact
      GC.auto_compact = true
      GC.stress = true
      before = GC.stat(:compact_count)
      got = RetryCore._orphan_plan(history)
      compactions = GC.stat(:compact_count) - before
      GC.stress = false
      GC.auto_compact = false
      writer.write(Marshal.dump([got, compactions]))
      writer.close
      exit!(0)
    end
    writer.close
    result = begin
      Timeout.timeout(120) { reader.read }
    rescue Timeout::Error
      Process.kill("KILL", pid)
      ""
    end
    _, status = Process.wait2(pid)
    [status, result, File.binread(report.path)]
  ensure
    reader&.close
    report&.close!
  end

  def test_bad_input
    assert_raises(TypeError) { RetryCore.prune_orphan_tool_calls("nope") }
    assert_raises(ArgumentError) { RetryCore.prune_orphan_tool_calls([nil]) }
    assert_raises(TypeError) { RetryCore.prune_orphan_tool_calls([42]) }
    e = assert_raises(RetryCore::InvalidArgumentError) { RetryCore.prune_orphan_tool_calls([{ "role" => "assistant", "tool_calls" => [3] }]) }
    assert_match(/message 0|tool call/, e.message)
  end

  def test_reminder_helper
    assert_equal "", RetryCore.orphan_reminder([])
    assert_includes RetryCore.orphan_reminder([{ name: "Read", arguments: { path: "/x" } }]), '- Read(path: "/x")'
  end
end
