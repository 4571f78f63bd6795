#!/bin/bash
# usage: f3.sh VARIANT : pytest -k fused, timeline (VARIANT-t), probe timings (VARIANT)
V=$1
cd "$(dirname "$0")/../.."
mkdir -p $OUT/r
export PYTHONPATH=python
cp tools_tmp/$V/libgdn2_torch.so python/gdn2/
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused" -p no:cacheprovider > $OUT/r/pytest.log 2>&1; echo "pytest rc=$?" >> $OUT/r/pytest.log
tail -4 $OUT/r/pytest.log
cp tools_tmp/$V-t/libgdn2_torch.so python/gdn2/
timeout 60 python3 tools_tmp/fused_timeline.py > $OUT/r/timeline.log 2>&1; echo rc=$? >> $OUT/r/timeline.log
grep -v "marks" $OUT/r/timeline.log
cp tools_tmp/$V/libgdn2_torch.so python/gdn2/
OUT=$OUT/r timeout 200 python3 tools_tmp/fused_probe.py ${ALGS:-auto,fused} > $OUT/r/probe.log 2>&1; echo "probe rc=$?" >> $OUT/r/probe.log
cat $OUT/r/probe.log | tail -30
cd $OUT && tar czf r.tgz r
