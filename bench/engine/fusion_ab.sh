#!/bin/bash
# What launch fusion saves on the device (issue 12): `ordo bench --synthetic full` decode and verify
# with session_options::fuse_launches on (the default: one quantization per shared input, one qmv
# per same-input group) and off (`--unfused`: one of each per matmul call), the same binary in one
# call, each run twice in the order fused, unfused, fused, unfused so drift shows. Run from the
# repository root with $OUT set and a folder DIR (default .dev/run3) holding `ordo.xz` (stripped,
# xz'd build/cuda-sm90/apps/ordo/ordo) and `libs.tar.xz` (prepare_device_run.sh LIBS=1). LAYOUT
# (default q2-30: 30 of the 43 layers fit an H100's 80 GB) and ARGS override the bench's shape.
# FLAG (default --unfused) is the switch compared with the default, e.g. FLAG=--no-mma: Q8_0
# matmuls of 8 or more rows on the dp4a kernel instead of the tensor cores (with ARGS that time
# prefill and wide verify rounds). The runs keep their names whatever FLAG is: fused1 and fused2
# run the default, unfused1 and unfused2 run with FLAG.
DIR=${1:-.dev/run3}
W=/tmp/ab; rm -rf $W; mkdir -p $W  # everything lands in $OUT/ab.tgz (the device returns at most 8 files)
L=/tmp/ordo_ab; rm -rf $L; mkdir -p $L/lib
tar -xJf $DIR/libs.tar.xz -C $L/lib && export LD_LIBRARY_PATH=$L/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
xz -dc $DIR/ordo.xz > $L/ordo && chmod +x $L/ordo || { echo "unpack failed"; exit 3; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $W/device.txt
ARGS=${ARGS:---ctx 1024,32768 -n 8 --prefill-tokens 0 --verify-widths 1,2,4 --verify-at 1024 --repeats 3}
for run in fused1 unfused1 fused2 unfused2; do
  flag=; [ "${run#unfused}" != "$run" ] && flag=${FLAG:---unfused}
  breakdown=--no-breakdown; [ $run = fused1 ] || [ $run = unfused1 ] && breakdown=
  timeout ${RUN_TIMEOUT:-150} $L/ordo bench --synthetic full --layout ${LAYOUT:-q2-30} $ARGS $breakdown $flag \
    --markdown $W/bench_$run.md > $W/bench_$run.log 2>&1
  echo "$run rc=$?"
  grep -E "^\| (decode|verify|prefill) " $W/bench_$run.md
done
tar czf $OUT/ab.tgz -C $W .
