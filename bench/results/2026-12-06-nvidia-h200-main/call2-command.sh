# Call 2 (session of 2026-12-06 from 20:03), the same warm H200 as call 1, run inline; carry tools_tmp/c19.tgz
# (ab4/main = main's build, wheels = FLA 0.6.0, fla-core 0.6.0, einops 0.8.2).
tar xzf tools_tmp/c19.tgz -C tools_tmp; R=$OUT/h2; mkdir -p $R; T=tools_tmp/ab4/main
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1; t0=$(date +%s)
for row in L32K-MHA B4x4K-MHA B8x2K-MHA N64-MIXED-MHA L32K-GVA2 B4x4K-GVA2 B8x2K-GVA2 N64-MIXED-GVA2; do
  (cd $T && PYTHONPATH=/tmp/site GDN2_COMMIT=2755d76 timeout 120 python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log)
  echo "fla-$row $(( $(date +%s) - t0 ))s" >> $R/times.log; tar czf $OUT/h2.tgz -C $OUT h2
done
cp $T/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/bin/* build/
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log
