"""Writes ../orphans.json: orphan tool call pruning in both message shapes (CONTRACT §5).
Expected histories and reminders are written out by hand. Run: python3 tests/vectors/src/make_orphans.py
"""
import json, os

HEAD = "<system-reminder>\nThe following tool calls were interrupted and removed from conversation history:\n\n"
TAIL = "\nThese tools were never executed. If you still need their results, please run them again.\n</system-reminder>"
def reminder(*lines): return HEAD + "".join(l + "\n" for l in lines) + TAIL

def oa_call(i, name, args): return {"id": i, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
user = lambda t: {"role": "user", "content": t}
tool = lambda i, t: {"role": "tool", "tool_call_id": i, "content": t}
LONG = "Hello, this is a long text that goes on and on, far beyond fifty characters."

cases = []
def case(name, messages, expect_messages, pruned, dangling, rem):
    cases.append({"name": name, "messages": messages, "expect": {"messages": expect_messages, "pruned": pruned, "dangling_results": dangling, "reminder": rem}})

read = oa_call("call_read", "Read", {"file_path": "/important/file.rb"})
write = oa_call("call_write", "Write", {"file_path": "/output.txt", "content": LONG})
case("openai_contract_example_both_orphans_message_removed",
     [user("do it"), {"role": "assistant", "content": None, "tool_calls": [read, write]}, user("well?")],
     [user("do it"), user("well?")],
     [{"id": "call_read", "name": "Read", "arguments": read["function"]["arguments"]},
      {"id": "call_write", "name": "Write", "arguments": write["function"]["arguments"]}],
     0,
     reminder('- Read(file_path: "/important/file.rb")',
              "- Write(file_path: \"/output.txt\", content: Hello, this is a long text that goes on and on,...)"))

a, b = oa_call("call_a", "Bash", {"command": "ls"}), oa_call("call_b", "Grep", {"pattern": "TODO", "limit": 5})
case("openai_one_of_two_answered_keeps_message_and_content",
     [user("look"), {"role": "assistant", "content": "Checking.", "tool_calls": [a, b]}, tool("call_a", "file.txt"), user("next")],
     [user("look"), {"role": "assistant", "content": "Checking.", "tool_calls": [a]}, tool("call_a", "file.txt"), user("next")],
     [{"id": "call_b", "name": "Grep", "arguments": b["function"]["arguments"]}], 0,
     reminder('- Grep(pattern: "TODO", limit: 5)'))

c = oa_call("call_c", "Read", {"file_path": "/x"})
case("openai_result_after_next_user_message_is_too_late",
     [{"role": "assistant", "content": "", "tool_calls": [c]}, user("interrupt"), tool("call_c", "late")],
     [user("interrupt")],
     [{"id": "call_c", "name": "Read", "arguments": c["function"]["arguments"]}], 1,
     reminder('- Read(file_path: "/x")'))

case("openai_dangling_tool_result_removed",
     [user("hi"), tool("call_ghost", "boo"), {"role": "assistant", "content": "hello"}],
     [user("hi"), {"role": "assistant", "content": "hello"}], [], 1, "")

ok = oa_call("call_ok", "Read", {"file_path": "/ok"})
clean = [{"role": "system", "content": "be brief"}, user("read"), {"role": "assistant", "content": None, "tool_calls": [ok]}, tool("call_ok", "data"), {"role": "assistant", "content": "done"}]
case("openai_clean_history_unchanged", clean, clean, [], 0, "")

ws = oa_call("call_ws", "Read", {"file_path": "/ws"})
# Blank content is no content (SwarmSDK's `strip.empty?`), for Hashes, dicts and RubyLLM objects alike.
case("openai_blank_content_with_only_orphans_is_removed",
     [user("go"), {"role": "assistant", "content": " \n\t", "tool_calls": [ws]}, user("next")],
     [user("go"), user("next")],
     [{"id": "call_ws", "name": "Read", "arguments": ws["function"]["arguments"]}], 0,
     reminder('- Read(file_path: "/ws")'))

case("empty_history", [], [], [], 0, "")

noid = {"type": "function", "function": {"name": "Bash", "arguments": "{\"command\": \"make\"}"}}
case("tool_call_without_id_is_an_orphan",
     [user("build"), {"role": "assistant", "content": "Building.", "tool_calls": [noid]}],
     [user("build"), {"role": "assistant", "content": "Building."}],
     [{"id": None, "name": "Bash", "arguments": noid["function"]["arguments"]}], 0,
     reminder('- Bash(command: "make")'))

# Anthropic shape: results live in the immediately following user message.
tu1 = {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/a.rb"}}
tu2 = {"type": "tool_use", "id": "toolu_02", "name": "Edit", "input": {"file_path": "/a.rb", "replace_all": True, "count": 2, "ratio": 0.5, "tags": ["x", 1], "meta": None}}
res1 = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "class A; end"}
case("anthropic_one_of_two_answered",
     [user("fix"), {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, tu1, tu2]},
      {"role": "user", "content": [res1]}],
     [user("fix"), {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, tu1]},
      {"role": "user", "content": [res1]}],
     [{"id": "toolu_02", "name": "Edit", "arguments": tu2["input"]}], 0,
     reminder('- Edit(file_path: "/a.rb", replace_all: true, count: 2, ratio: 0.5, tags: ["x", 1], meta: nil)'))

case("anthropic_trailing_tool_use_without_reply_removed",
     [user("go"), {"role": "assistant", "content": [tu1]}],
     [user("go")],
     [{"id": "toolu_01", "name": "Read", "arguments": tu1["input"]}], 0,
     reminder('- Read(file_path: "/a.rb")'))

ghost = {"type": "tool_result", "tool_use_id": "toolu_ghost", "content": "?"}
case("anthropic_dangling_result_block_removed_user_text_kept",
     [{"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
      {"role": "user", "content": [ghost, {"type": "text", "text": "continue"}]}],
     [{"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
      {"role": "user", "content": [{"type": "text", "text": "continue"}]}],
     [], 1, "")

case("anthropic_result_not_in_the_immediately_following_user_message",
     [{"role": "assistant", "content": [tu1]}, user("wait"), {"role": "user", "content": [res1]}],
     [user("wait")],
     [{"id": "toolu_01", "name": "Read", "arguments": tu1["input"]}], 1,
     reminder('- Read(file_path: "/a.rb")'))

# RubyLLM-like Hash: tool_calls is a map of id => call.
rl = {"role": "assistant", "content": "", "tool_calls": {"call_1": {"id": "call_1", "name": "Write", "arguments": {"file_path": "/o.txt", "content": "say \"hi\"\n"}}}}
case("ruby_llm_hash_tool_calls",
     [user("write"), rl, user("stop")],
     [user("write"), user("stop")],
     [{"id": "call_1", "name": "Write", "arguments": {"file_path": "/o.txt", "content": "say \"hi\"\n"}}], 0,
     reminder('- Write(file_path: "/o.txt", content: "say \\"hi\\"\\n")'))

# One message, two edits: an assistant message carrying both an orphan call and a result for
# it (found by the orphan fuzz target) loses both blocks and keeps its text.
case("anthropic_call_and_its_result_in_one_assistant_message",
     [user("fix"), {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, tu1, res1]}],
     [user("fix"), {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}]}],
     [{"id": "toolu_01", "name": "Read", "arguments": tu1["input"]}], 1,
     reminder('- Read(file_path: "/a.rb")'))

# A malformed mix of shapes: tool_use blocks beside a tool_calls list. Each pruned call leaves
# its own list (content slot 1 and tool_calls slot 1 are different calls).
ls_, cat = oa_call("call_1", "Ls", {}), oa_call("call_2", "Cat", {"path": "/b"})
tu9 = {"type": "tool_use", "id": "toolu_09", "name": "Read", "input": {"file_path": "/c"}}
case("mixed_shapes_tool_use_blocks_beside_tool_calls",
     [user("go"), {"role": "assistant", "content": [{"type": "text", "text": "x"}, tu9], "tool_calls": [ls_, cat]},
      tool("call_1", "ok")],
     [user("go"), {"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": [ls_]},
      tool("call_1", "ok")],
     [{"id": "toolu_09", "name": "Read", "arguments": tu9["input"]},
      {"id": "call_2", "name": "Cat", "arguments": cat["function"]["arguments"]}], 0,
     reminder('- Read(file_path: "/c")', '- Cat(path: "/b")'))

out = {"description": "Orphan tool call pruning. `messages` in, `expect.messages` out, with the pruned calls, the count of dangling results removed and the reminder text.", "cases": cases}
path = os.path.join(os.path.dirname(__file__), "..", "orphans.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
    fh.write("\n")
print(f"{len(cases)} orphan cases -> {os.path.normpath(path)}")
