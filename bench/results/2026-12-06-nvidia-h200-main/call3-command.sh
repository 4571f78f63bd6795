# Call 3 (session of 2026-12-06 from 20:03), the same warm H200, run inline; carry tools_tmp/c19.tgz.
tar xzf tools_tmp/c19.tgz -C tools_tmp; R=$OUT/h3; mkdir -p $R; T=tools_tmp/ab4/main
cp $T/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/bin/* build/; t0=$(date +%s)
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 70 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
PYTHONPATH=python timeout 100 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race SANITIZE_TIMEOUT=90 timeout 95 bash scripts/gpu_check.sh sanitize > $R/racecheck.log 2>&1; echo "rc=$?" >> $R/racecheck.log
