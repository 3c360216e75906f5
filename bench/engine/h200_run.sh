#!/bin/bash
# The engine at full size on the device machine: `ordo bench --synthetic full` for the q2 layout
# (81 GB, every context) and MXFP4 with 30 layers (43 do not fit one H200), in one call, as
# docs/PERFORMANCE.md "Session 4" was measured. Run from the repository root with $OUT set and a
# folder DIR (default .dev/s4) holding `ordo.xz` (build/cuda-sm90/apps/ordo/ordo, stripped, xz) and
# `libs.tar.xz` (Debian 12's libicuuc.so.72, libicudata.so.72, libfmt.so.9 and their targets: the
# device machine has neither ICU nor fmt). BUDGET (s, default 300) bounds the whole run.
DIR=${1:-.dev/s4}
S=$(date +%s); left() { echo $(( ${BUDGET:-300} - ($(date +%s) - S) )); }
L=/tmp/ordo_bench; rm -rf $L; mkdir -p $L/lib
tar -xJf $DIR/libs.tar.xz -C $L/lib && export LD_LIBRARY_PATH=$L/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
xz -dc $DIR/ordo.xz > $L/ordo && chmod +x $L/ordo || { echo "unpack failed"; exit 3; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/device.txt 2>&1
t=$(( $(left) - 60 )); [ $t -gt 200 ] && t=200
timeout $t $L/ordo bench --synthetic full --layout q2 --ctx 1024,8192,32768 -n 4 --prefill-at 8192 --prefill-tokens 128 \
  --verify-widths 1,2,3,4,5,6 --verify-at 1024 --repeats 2 --mtp --markdown $OUT/bench_q2.md > $OUT/bench_q2.log 2>&1
echo "q2 rc=$?"
t=$(( $(left) - 5 )); [ $t -gt 120 ] && t=120
[ $t -gt 40 ] && timeout $t $L/ordo bench --synthetic full --layout mxfp4-30 --ctx 1024,32768 -n 4 --prefill-at 8192 \
  --prefill-tokens 128 --verify-widths 1,4 --verify-at 1024 --repeats 2 --no-breakdown --markdown $OUT/bench_mxfp4_30.md \
  > $OUT/bench_mxfp4.log 2>&1 && echo "mxfp4-30 rc=0"
cat $OUT/bench_q2.md 2>/dev/null | grep -E "^\| (decode|prefill|verify|[0-9])"
