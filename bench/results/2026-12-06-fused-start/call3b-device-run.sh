#!/bin/bash
# Session 2026-12-06 from 12:51, call 3b: on the machine still held after call 3 (carry c3.tgz:
# tools_tmp/zb, tools_tmp/fs), S2's phase-1 and pass timelines of both builds, one round of
# bench/sequence_lengths.py for each, and the fused-start GPU tests on fs. The command as run:
tar xzf tools_tmp/c3.tgz -C tools_tmp; R=$OUT/q; mkdir -p $R; for v in zb fs; do timeout 40 ./tools_tmp/$v/bin/gdn2_phase1_timeline S2 > $R/tl-$v.log 2>&1; done; for v in zb fs; do (cd tools_tmp/$v && PYTHONPATH=$PWD/python timeout 60 python3 bench/sequence_lengths.py $v >> $R/lengths.jsonl 2>>$R/lengths.err); done; cp tools_tmp/fs/python/gdn2/*.so python/gdn2/; timeout 90 python3 -m pytest -q -x tests/python/test_forward_gpu.py::test_fused_start tests/python/test_forward_gpu.py::test_fused_start_is_the_fused_call_then_the_chunked_call > $R/pytest.log 2>&1; echo rc=$? >> $R/pytest.log; tail -3 $R/pytest.log; tar czf $OUT/q.tgz -C $OUT q
