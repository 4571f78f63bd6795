# Evaluation of the v64 refit (session of 2026-12-05 from 19:07): the picks of the contract's fused constants
# and the refit one against call 7's crossovers, with the H200's (contract) and this H100's chunked fit.
# usage, from the repository root: python3 eval_v64_refit.py crossover-long/crossover.json crossover-short/crossover.json
import json, math, sys
sys.path.insert(0, 'bench')
import fit_auto as F
rows=[]
for p in sys.argv[1:]:
    rows += json.load(open(p))['rows']
def run(fparams, cparams, label, margins={2:1.05,1:1.0}):
    regs=[]; offs=[]
    for r in rows:
        timed=[a for a in F.ALGORITHMS if F.usable(r,a)]
        est={'recurrent':F.recurrent_us(r,132),'chunked':F.fitted_chunked_us(r,132,cparams)}
        s,_,_=F.fused_form(r['N'],r['Hv'],132)
        est['fused']=F.fused_us(r,132,fparams)*margins[s]
        best=min(timed,key=lambda a:r[a+'_us']); pick=min(timed,key=lambda a:est[a])
        g=r[pick+'_us']/r[best+'_us']; regs.append(g)
        if g>1.001: offs.append((r['name'],best,pick,round(g,3), round(r['fused_us'],1), round(est['fused'],1), round(r['chunked_us'],1), round(est['chunked'],1)))
    print(label, 'geomean %.4f max %.3f'%(math.exp(sum(map(math.log,regs))/len(regs)),max(regs)), len(offs))
    for o in offs: print('   ',o)
cur={2:[5.81,1.502,0],1:[4.40,1.940,9.03]}
new={2:[8.19,1.181,0],1:[4.40,1.940,9.03]}
c200=[4.321,9.883,2.128,2.359,3.246,3.117]
c100=[2.31,11.440,2.254,2.728,4.153,1.630]
for m in (1.0,1.05):
  run(cur,c200,f'current, H200 chunked m{m}',{2:m,1:1.0})
  run(new,c200,f'new v64, H200 chunked m{m}',{2:m,1:1.0})
  run(cur,c100,f'current, H100 chunked m{m}',{2:m,1:1.0})
  run(new,c100,f'new v64, H100 chunked m{m}',{2:m,1:1.0})
