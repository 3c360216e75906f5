#!/bin/bash
# Two builds of `ordo` against each other on the device (issue 12: what a kernel change is worth
# to the engine): `ordo bench --synthetic full` with each, in the order old, new, old, new so
# drift shows. Run from the repository root with $OUT set. OLD and NEW: stripped, xz'd
# build/cuda-sm90/apps/ordo/ordo of the two commits; LIBS: libs.tar.xz (prepare_device_run.sh
# LIBS=1: ICU and fmt, which the device machine lacks). LAYOUT (default q2-30: 30 of the 43 layers
# fit an H100's 80 GB) and ARGS override the bench's shape.
W=/tmp/binary_ab; rm -rf $W; mkdir -p $W  # everything lands in $OUT/ab.tgz (the device returns at most 8 files)
L=/tmp/ordo_binary_ab; rm -rf $L; mkdir -p $L/lib
tar -xJf "$LIBS" -C $L/lib && export LD_LIBRARY_PATH=$L/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for b in old new; do
  src=OLD; [ $b = new ] && src=NEW
  xz -dc "${!src}" > $L/ordo_$b && chmod +x $L/ordo_$b || { echo "unpack of $src (${!src}) failed"; exit 3; }
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $W/device.txt
ARGS=${ARGS:---ctx 1024 -n 8 --prefill-tokens 0 --verify-widths 1,2,4,8 --verify-at 1024 --repeats 3}
for run in old1 new1 old2 new2; do
  timeout ${RUN_TIMEOUT:-150} $L/ordo_${run%[12]} bench --synthetic full --layout ${LAYOUT:-q2-30} $ARGS --no-breakdown \
    --markdown $W/bench_$run.md > $W/bench_$run.log 2>&1
  echo "$run rc=$?"
  grep -E "^\| (decode|verify|prefill) " $W/bench_$run.md
done
tar czf $OUT/ab.tgz -C $W .
