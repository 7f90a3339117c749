import os,re,sys
def rs(path):
    n=0; lines=open(path).read().split('\n')
    i=0; skip_depth=None; depth=0; in_block=False
    pending_cfg=False
    for ln in lines:
        s=ln.strip()
        if skip_depth is not None:
            depth+=ln.count('{')-ln.count('}')
            if depth<=skip_depth: skip_depth=None
            continue
        if s.startswith('#[cfg(test)]'):
            pending_cfg=True; continue
        if pending_cfg and s.startswith('mod '):
            pending_cfg=False
            skip_depth=depth; depth+=ln.count('{')-ln.count('}')
            if depth<=skip_depth: skip_depth=None
            continue
        pending_cfg=False
        depth+=ln.count('{')-ln.count('}')
        if not s or s.startswith('//'): continue
        n+=1
    return n
def script(path):
    n=0
    for ln in open(path):
        s=ln.strip()
        if not s or s.startswith('#'): continue
        n+=1
    return n
def count(roots, exts):
    tot=0; per={}
    for r in roots:
        for dp,dn,fn in os.walk(r):
            if 'target' in dp or '__pycache__' in dp: continue
            for f in fn:
                p=os.path.join(dp,f)
                if not any(f.endswith(e) for e in exts): continue
                c=rs(p) if f.endswith('.rs') else script(p)
                per[p]=c; tot+=c
    return tot,per
core,_=count(['core/src'],['.rs'])
py,pp=count(['python-ext/src','python-ext/python'],['.rs','.py'])
pyi,_=count(['python-ext/python'],['.pyi'])
rb,rp=count(['ruby-ext/src','gems/retry_core/lib'],['.rs','.rb'])
print('core',core,'py',py,py/core,'py+pyi',(py+pyi)/core,'rb',rb,rb/core)
if len(sys.argv)>1:
  for p,c in sorted({**pp,**rp}.items(), key=lambda x:-x[1])[:30]: print(c,p)
