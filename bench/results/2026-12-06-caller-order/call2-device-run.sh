#!/bin/bash
# Session 2026-12-06 from 14:31, call 2 (the same warm machine as call 1): FLA on the rows call 1's
# time left out, one row per process, the same bench.py with FLA's wheels on PYTHONPATH.
# Carry: tools_tmp/c10.tgz (as call 1) ; command: this file's lines, run from the repository root.
tar xzf tools_tmp/c10.tgz -C tools_tmp && cp tools_tmp/pa/python/gdn2/*.so python/gdn2/ && pip install -q --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl >/dev/null 2>&1
R=$OUT/b; mkdir -p $R; t0=$(date +%s)
for row in N64-MIXED-GVA2 S1 S3 S4 S5; do
  L=$((220-($(date +%s)-t0))); [ $L -lt 30 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $R/fla-$row.log; tar czf $OUT/b.tgz -C $OUT b
done
tail -n 3 $R/*.log
