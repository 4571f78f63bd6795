#!/bin/bash
# Call 3 (the same warm H100 as call 2): racecheck over the sanitizer matrix's cases whose names
# say neither fused nor persistent (44 ran), on main 1cfa015's build (tools_tmp/ab1/main from
# call2's package). As run, one command line:
[ -d tools_tmp/ab1/main ] || tar xzf tools_tmp/c2.tgz -C tools_tmp; T=tools_tmp/ab1/main; mkdir -p build; cp $T/bin/* build/; R=$OUT/w; mkdir -p $R; C=$(./build/gdn2_sanitize_matrix --list | grep -v -E 'fused|persistent' | tr '\n' ',' | sed 's/,$//'); GDN2_COMMIT=1cfa015 SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS=racecheck SANITIZE_MATRIX_ARGS=--only=$C OUT=$R/race SANITIZE_TIMEOUT=330 timeout 335 bash scripts/gpu_check.sh sanitize > $R/race.log 2>&1; echo "rc=$?" >> $R/race.log; grep -c PASS $R/race/sanitizer-racecheck-gdn2_sanitize_matrix.log; cat $R/race.log; tar czf $OUT/w.tgz -C $OUT w
