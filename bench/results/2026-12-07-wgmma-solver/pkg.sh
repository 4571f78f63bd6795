#!/bin/bash
# pkg.sh SRC NAME: a device package of the build in SRC (build-land, python/gdn2 with its libraries)
set -e
SRC=$1; NAME=$2; D=/work/main/tools_tmp/ab1/$NAME
rm -rf $D; mkdir -p $D/python $D/bin
cp -r $SRC/python/gdn2 $D/python/; rm -rf $D/python/gdn2/__pycache__
cp -r $SRC/bench $D/bench; rm -rf $D/bench/results $D/bench/__pycache__
for b in gdn2_example gdn2_host_timing gdn2_pdl_caller_order gdn2_pdl_order_probe gdn2_sanitize_matrix gdn2_tf32_rounding; do cp $SRC/build-land/$b $D/bin/; done
echo "$NAME from $SRC ($(cd $SRC && git rev-parse --short HEAD) + changes)" > $D/VERSION
