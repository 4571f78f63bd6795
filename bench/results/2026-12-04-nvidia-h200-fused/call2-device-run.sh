#!/bin/bash
cd "$(dirname "$0")/../.."
mkdir -p $OUT/r
export PYTHONPATH=python
cp tools_tmp/f1t/libgdn2_torch.so python/gdn2/
python3 tools_tmp/fused_timeline.py > $OUT/r/timeline.log 2>&1; echo rc=$? >> $OUT/r/timeline.log
cat $OUT/r/timeline.log
cd $OUT && tar czf r.tgz r
