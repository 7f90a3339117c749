import json,sys,os
# usage: add.py family  (reads JSON list of cases from stdin)
fam=sys.argv[1]
desc={"apps":"Apps, chat UIs, bots and plugins (batch 34b): the error as the app shows or logs it.",
"coding_agents":"Coding agents and IDE assistants (batch 34b): the error as the agent logs it.",
"frameworks":"Agent frameworks and LLM libraries (batch 34b): the error as the framework raises or logs it.",
"mcp":"MCP servers and clients (batch 34b): the error as the MCP host or server logs it.",
"evals":"Eval harnesses and judges (batch 34b): the error as the harness logs it."}[fam]
p=os.path.join(os.path.dirname(__file__),f"{fam}_b34b.json")
d=json.load(open(p)) if os.path.exists(p) else {"provider":fam,"description":desc,"cases":[]}
new=json.load(sys.stdin)
names={c["name"] for c in d["cases"]}
for c in new:
    assert c["name"].endswith("_b34b") and c["name"] not in names, c["name"]
    d["cases"].append(c)
json.dump(d,open(p,"w"),indent=1,ensure_ascii=False); open(p,"a").write("\n")
print(fam,len(d["cases"]))
