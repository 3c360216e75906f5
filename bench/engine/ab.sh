#!/bin/bash
# An engine A/B on the device (issue 12: what a kernel or runtime change is worth to the engine):
# `ordo bench --synthetic full` with side A and side B, in the order A, B, A, B so drift shows.
# Run from the repository root with $OUT set. Each side is a binary and flags:
#   A, B         stripped, xz'd build/cuda-sm90/apps/ordo/ordo (B defaults to A: one binary, two flags)
#   A_FLAGS, B_FLAGS   extra `ordo bench` flags of each side (e.g. B_FLAGS=--unfused, --no-mma)
#   LIBS         libs.tar.xz (bench/moe/prepare_device_run.sh LIBS=1: ICU and fmt, which the
#                device machine lacks)
#   LAYOUT       default q2-30 (30 of the 43 layers fit an H100's 80 GB); ARGS the bench's shape
#   BREAKDOWN=1  the first run of each side prints its per-op breakdown
# The runs are named a1 b1 a2 b2; everything lands in $OUT/ab.tgz (the device returns at most 8 files).
W=/tmp/engine_ab; rm -rf $W; mkdir -p $W
L=/tmp/ordo_engine_ab; rm -rf $L; mkdir -p $L/lib
[ -n "${A:-}" ] || { echo "ab.sh: A (an xz'd ordo binary) is not set"; exit 2; }
B=${B:-$A}
tar -xJf "${LIBS:?ab.sh: LIBS (libs.tar.xz) is not set}" -C $L/lib || { echo "ab.sh: unpack of LIBS ($LIBS) failed"; exit 3; }
export LD_LIBRARY_PATH=$L/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for side in A B; do
  xz -dc "${!side}" > $L/ordo_$side && chmod +x $L/ordo_$side || { echo "ab.sh: unpack of $side (${!side}) failed"; exit 3; }
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $W/device.txt
echo "A: $A ${A_FLAGS:-}" | tee -a $W/device.txt; echo "B: $B ${B_FLAGS:-}" | tee -a $W/device.txt
ARGS=${ARGS:---ctx 1024 -n 8 --prefill-tokens 0 --verify-widths 1,2,4,8 --verify-at 1024 --repeats 3}
for run in a1 b1 a2 b2; do
  side=A; [ ${run:0:1} = b ] && side=B
  flags=${side}_FLAGS
  breakdown=--no-breakdown; [ "${BREAKDOWN:-0}" = 1 ] && [ ${run:1} = 1 ] && breakdown=
  # shellcheck disable=SC2086  # ARGS and the flags are word lists
  timeout ${RUN_TIMEOUT:-150} $L/ordo_$side bench --synthetic full --layout ${LAYOUT:-q2-30} $ARGS $breakdown ${!flags:-} \
    --markdown $W/bench_$run.md > $W/bench_$run.log 2>&1
  echo "$run rc=$?"
  grep -E "^\| (decode|verify|prefill) " $W/bench_$run.md
done
tar czf $OUT/ab.tgz -C $W .
