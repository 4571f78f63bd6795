#!/bin/bash
# call3-device-run.sh without kss: its rounds take main and ks4 only (about 16 s a round instead
# of 24), for a call started on little device time. Written in the session of 2026-12-06 from
# 22:15, in which no machine started; not run yet. Its argument is call3-device-run.sh's path
# (in the package: tools_tmp/s/next6.sh). With this file copied to tools_tmp/next7.sh, both in
# carry: tar xzf tools_tmp/c22.tgz -C tools_tmp && DEADLINE=280 bash tools_tmp/next7.sh tools_tmp/s/next6.sh
# The steps after the rounds (racecheck over the matrix, pytest) run only while DEADLINE leaves
# 60 s for each.
set -u
sed 's/main kss ks4/main ks4/g' "$1" > /tmp/call3-lean.sh && exec bash /tmp/call3-lean.sh
