import csv,sys,collections
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
ix={h:i for i,h in enumerate(hdr)}
def f(r,k):
    try: return float(r[ix[k]] or 0)
    except: return 0.0
# top by L1 conflicts (excessive wavefronts)
tot_w=sum(f(r,'L1 Wavefronts Shared') for r in data); tot_x=sum(f(r,'L1 Wavefronts Shared Excessive') for r in data)
tot_s=sum(f(r,'Warp Stall Sampling (All Samples)') for r in data)
print('wavefronts',tot_w,'excessive',tot_x,'samples',tot_s)
top=sorted(data,key=lambda r:-f(r,'L1 Wavefronts Shared Excessive'))[:15]
for r in top: print(r[ix['Address']], r[ix['Source']][:60], f(r,'L1 Wavefronts Shared'), f(r,'L1 Wavefronts Shared Excessive'), f(r,'Instructions Executed'))
print('--- top wavefront instructions')
for r in sorted(data,key=lambda r:-f(r,'L1 Wavefronts Shared'))[:25]: print(r[ix['Address']], r[ix['Source']][:60], f(r,'L1 Wavefronts Shared'), f(r,'L1 Wavefronts Shared Excessive'))
print('--- top stall instructions')
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
for r in sorted(data,key=lambda r:-f(r,'Warp Stall Sampling (All Samples)'))[:30]:
    st=sorted(((f(r,h),h) for h in stalls),reverse=True)[:2]
    print(r[ix['Address']], r[ix['Source']][:55], f(r,'Warp Stall Sampling (All Samples)'), [(h[6:],int(v)) for v,h in st])
print('--- wavefronts by opcode')
agg=collections.Counter(); cnt=collections.Counter()
for r in data:
    src=r[ix['Source']].split()
    op=[t for t in src if not t.startswith('@')][0] if src else '?'
    agg[op]+=f(r,'L1 Wavefronts Shared'); cnt[op]+=f(r,'Instructions Executed')
for op,v in agg.most_common(14): print(op, int(v), round(v/tot_w*100,1), int(cnt[op]))
