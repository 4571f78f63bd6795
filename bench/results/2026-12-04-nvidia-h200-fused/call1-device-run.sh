#!/bin/bash
# fused path call 1: correctness (pytest -k fused) and a first timing probe
cd "$(dirname "$0")/../.." 
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/r/gpu.txt 2>&1
export PYTHONPATH=python
timeout 200 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused" -p no:cacheprovider > $OUT/r/pytest.log 2>&1; echo "pytest rc=$?" >> $OUT/r/pytest.log
tail -5 $OUT/r/pytest.log
OUT=$OUT/r timeout 200 python3 tools_tmp/fused_probe.py auto,fused > $OUT/r/probe.log 2>&1; echo "probe rc=$?" >> $OUT/r/probe.log
cat $OUT/r/probe.log | tail -30
cd $OUT && tar czf r.tgz r
