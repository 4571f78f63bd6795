#!/bin/bash
# Call 3 (the same warm machine, after device-run.sh's two parts): racecheck over every case of the
# sanitizer matrix on main's build. As run, the command ended in `pkill -f compute-sanitizer`, which
# matched its own shell and ended it after the sanitizer had finished (rc -1, the logs complete);
# that line is left out here.
R=$OUT/n3; mkdir -p $R
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/san SANITIZE_TIMEOUT=340 \
  timeout 350 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1
echo "rc=$?" >> $R/sanitize.log
grep -h "SUMMARY\|case(s) run\|hazard" $R/san/*.log | sort | uniq -c
tar czf $OUT/n3.tgz -C $OUT n3
