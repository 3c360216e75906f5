#!/bin/bash
# perf helper device run: gate (qmv_gpu_test), counters (ncu), bench/qmv and llama.cpp's
# test-backend-ops MUL_MAT on the same shapes, all in one call. Usage: run.sh [build_llama=1] [test=1]
D=.dev/perf
BUILD_LLAMA=${1:-1}; RUN_TEST=${2:-1}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.txt 2>&1
LB=/tmp/lb
if [ "$BUILD_LLAMA" = 1 ]; then
  ( cmake -S $D/llama -B $LB -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF > $OUT/llama_build.log 2>&1 \
    && nice -n 10 ninja -C $LB -j16 test-backend-ops >> $OUT/llama_build.log 2>&1; echo "llama build rc=$?" >> $OUT/llama_build.log ) &
  BPID=$!
fi
if [ "$RUN_TEST" = 1 ]; then
  t "qmv_gpu_test"
  RC_PARAMS=max_success=6 timeout 240 $D/qmv_gpu_test > $OUT/test.log 2>&1; echo "qmv_gpu_test rc=$?" | tee -a $OUT/test.log
  grep -E "^\[  (PASSED|FAILED) |FAILED|OK \]" $OUT/test.log | tail -20
fi
t "ncu"
timeout 90 ncu --clock-control none --kernel-name-base demangled -k regex:int8_dot_streaming --launch-skip 12 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  $D/qmv_bench --formats q8_0 --iters 3 > $OUT/ncu_t1.txt 2>&1
timeout 90 ncu --clock-control none --kernel-name-base demangled -k regex:int8_dot_streaming --launch-skip 229 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats \
  $D/qmv_bench --formats q8_0 --iters 3 > $OUT/ncu_t8.txt 2>&1
grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Issue Slots Busy|Registers Per|Block Limit|No Eligible" $OUT/ncu_t1.txt | head -20
[ -n "${BPID:-}" ] && { t "waiting for llama build"; wait $BPID; tail -3 $OUT/llama_build.log; }
t "qmv_bench"
$D/qmv_bench --iters 100 --variants --markdown $OUT/bench.md --tsv $OUT/bench.tsv > $OUT/bench.log 2>&1; echo "bench rc=$?"
if [ -x $LB/test-backend-ops ]; then
  t "llama test-backend-ops"
  ORDO_QMV_ONLY=1 timeout 300 $LB/test-backend-ops perf -b CUDA0 -o MUL_MAT > $OUT/llama_perf.log 2>&1; echo "llama rc=$?"
fi
t "done"
cat $OUT/bench.md
grep -E "MUL_MAT" $OUT/llama_perf.log | sed -E 's/ +/ /g' | cut -c1-200 | head -80
