#!/bin/bash
# Session of 2026-12-07 from 16:01, call 3. Call 2's stall samples put the state warpgroups'
# gamma loads behind their Kend^T U (short scoreboard on the first FFMA), then their stores (MIO)
# and the proxy fence. gamma-early-probe.patch (on bcd5afc): gh, gamma read before the product;
# ghol (-DOUT_LATE), gh and Out's M U after both state warpgroups' Kend^T U (named barrier 2).
# Neither changes any arithmetic: bit for bit main's. Three A/B rounds of S2, S5, L32K against main
# (3f4d0a3's build); on the gate's pick, the checks (pytest of the GPU tests, the sanitizers, the
# final run with accuracy).
# Carry: tools_tmp/c12.tgz (ab1/main, ab1/gh, ab1/ghol); bench/results moved out.
tar xzf tools_tmp/c12.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="gh ghol" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE= \
PYTEST_ARGS="tests/python/*_gpu.py" PYTEST_TIMEOUT=170 SANITIZE_LIMIT=130 STRESS=0 bash scripts/device_ab.sh
tar czf $OUT/r.tgz -C $OUT r
cat $OUT/r/medians.txt; cat $OUT/r/gate.txt; cat $OUT/r/times.log; for f in $OUT/r/compare-*.log; do tail -n 1 $f; done
tail -n 3 $OUT/r/pytest.log 2>/dev/null; tail -n 5 $OUT/r/sanitize.log 2>/dev/null
