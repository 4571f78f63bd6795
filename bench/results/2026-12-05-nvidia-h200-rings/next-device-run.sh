#!/bin/bash
# Per-CTA start/first-block/end times of the fused kernel (pc1 = main c97e759 + apply_probe_cta.py).
# Carry: tools_tmp/pc1 (the probe build).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
git log --oneline -1 > $R/tree.txt; md5sum $T/pc1/python/gdn2/*.so >> $R/tree.txt
cp $T/pc1/python/gdn2/*.so python/gdn2/
for i in 1 2; do
  mkdir -p $R/run$i; OUT=$R/run$i PYTHONPATH=python timeout 90 python3 bench/results/2026-12-05-nvidia-h200-rings/cta_times.py B8x2K-MHA,B8x2K-MHA:gentle,B4x4K-MHA,N64-MIXED-MHA,S3-MHA-PACKED-T4096,S2-MHA-T1024 > $R/cta-times-$i.log 2>&1; echo "rc=$?" >> $R/cta-times-$i.log
  mkdir -p $R/run$i; pack
done
cat $R/cta-times-1.log $R/cta-times-2.log
