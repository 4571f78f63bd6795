# Throwaway evaluation (session of 2026-12-05 from 15:49): the picks of fused/chunked constant sets on given crossovers.
# usage: python3 eval_refit.py crossover.json ...   (run from the repository root: imports bench/fit_auto.py)
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
        if g>1.001: offs.append((r['name'],best,pick,round(g,3)))
    print(label, 'geomean %.4f max %.3f'%(math.exp(sum(map(math.log,regs))/len(regs)),max(regs)), len(offs))
    for o in offs: print('   ',o)
old_f={2:[5.33,1.534,0],1:[4.12,2.055,8.573]}
new_f={2:[5.81,1.502,0],1:[4.40,1.940,9.03]}
c200=[4.321,9.883,2.128,2.359,3.246,3.117]
c100=[2.09,11.647,2.249,2.709,4.206,1.580]
run(old_f,c200,'main (old fused, H200 chunked)')
run(new_f,c200,'new fused, H200 chunked')
run(new_f,c100,'new fused, H100 chunked')
