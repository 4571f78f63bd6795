#!/bin/bash
V=$1
cd "$(dirname "$0")/../.."
mkdir -p $OUT/r
export PYTHONPATH=python
cp tools_tmp/$V/libgdn2_torch.so python/gdn2/
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused" -p no:cacheprovider > $OUT/r/pytest.log 2>&1; echo "pytest rc=$?" >> $OUT/r/pytest.log
tail -3 $OUT/r/pytest.log
cp tools_tmp/$V-t/libgdn2_torch.so python/gdn2/
timeout 60 python3 tools_tmp/fused_timeline.py > $OUT/r/timeline.log 2>&1; echo rc=$? >> $OUT/r/timeline.log
grep "per block\|segments" $OUT/r/timeline.log
cp tools_tmp/$V/libgdn2_torch.so python/gdn2/
timeout 300 python3 bench/algorithm_crossover.py --out $OUT/r/crossover --replays 20 > $OUT/r/crossover.log 2>&1; echo "crossover rc=$?" >> $OUT/r/crossover.log
cut -c1-150 $OUT/r/crossover.log
cd $OUT && tar czf r.tgz r
