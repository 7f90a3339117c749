import glob,json,re,sys,os
LINK=re.compile(r"https?://[^\s)\]>,;\"']+")
def norm(u):
    u=u.split('#')[0].rstrip('/').lower(); return re.sub(r'^https?://(www\.)?','',u)
used=set()
for p in glob.glob('/work/main/tests/corpus/**/*.json',recursive=True)+glob.glob('/work/wt/*/tests/corpus/**/*.json',recursive=True):
    if '/c34b/' in p: continue
    try: d=json.load(open(p))
    except Exception: continue
    for c in (d.get('cases',[]) if isinstance(d,dict) else d):
        if isinstance(c,dict): used|={norm(m) for m in LINK.findall(c.get('source',''))}
for p in glob.glob('/work/wt/*/variants_sources.txt')+glob.glob('/work/main/tests/corpus/rule_test_sources.txt')+glob.glob('/work/wt/*/tests/corpus/rule_test_sources.txt'):
    used|={norm(m) for m in LINK.findall(open(p).read())}
txt=sys.stdin.read()
for u in dict.fromkeys(LINK.findall(txt)):
    if 'github.com' in u and ('/issues/' in u or '/pull/' in u) or 'github.com' not in u:
        print(("USED " if norm(u) in used else "new  ")+u)
