"""Same-call A/B table from a device call's folder: graph us per row (bench-<build>-<round>/results.json)
and fused-forced us per shape (cross-<build>-<round>/crossover.json), each round, and each build's
mean over the rounds against the first build's.

    python3 bench/results/2026-12-06-persistent-quads/ab_table.py DIR final,land,candC"""
import json,glob,collections,sys
root=sys.argv[1]; builds=sys.argv[2].split(',')
d=collections.defaultdict(dict)
for f in sorted(glob.glob(f'{root}/bench-*-?/results.json')):
    b,r=f.split('/')[-2].split('-')[1:3]
    for row in json.load(open(f))['rows']:
        d[row['row']][(b,r)]=row.get('graph_us')
for f in sorted(glob.glob(f'{root}/cross-*-?/crossover.json')):
    b,r=f.split('/')[-2].split('-')[1:3]
    for row in json.load(open(f))['rows']:
        d[row['name']+' fused'][(b,r)]=row.get('fused_us')
rs=sorted({r for v in d.values() for (_,r) in v})
m=lambda v,b: sum(v[(b,r)] for r in rs)/len(rs)
print("| row | " + " | ".join(f"{b} {r}" for b in builds for r in rs) + " | " + " | ".join(f"{b}/{builds[0]}" for b in builds[1:]) + " |")
print("|---"*(1+len(rs)*len(builds)+len(builds)-1)+"|")
for k,v in d.items():
    print(f"| {k} | " + " | ".join(f"{v.get((b,r),float('nan')):.1f}" for b in builds for r in rs) + " | " + " | ".join(f"{m(v,b)/m(v,builds[0]):.3f}" for b in builds[1:]) + " |")
