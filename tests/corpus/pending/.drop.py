import json,os,sys,glob
drop=set(sys.argv[1:])
for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)),"*_b34b.json")):
    d=json.load(open(p)); n=len(d["cases"]); d["cases"]=[c for c in d["cases"] if c["name"] not in drop]
    if not d["cases"]: os.remove(p); continue
    json.dump(d,open(p,"w"),indent=1,ensure_ascii=False); open(p,"a").write("\n"); print(os.path.basename(p),len(d["cases"]))
