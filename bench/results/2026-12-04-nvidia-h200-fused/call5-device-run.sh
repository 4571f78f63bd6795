#!/bin/bash
V=$1
cd "$(dirname "$0")/../.."
mkdir -p $OUT/r
export PYTHONPATH=python
cp tools_tmp/$V-t/libgdn2_torch.so python/gdn2/
timeout 60 python3 tools_tmp/fused_timeline.py > $OUT/r/timeline.log 2>&1; echo rc=$? >> $OUT/r/timeline.log
grep -v "marks" $OUT/r/timeline.log
cd $OUT && tar czf r.tgz r
