#!/bin/bash
# The moe/qmv device run (issue 12), one call on the device machine, from the repository root with
# $OUT set. Binaries come as BIN/<name>.xz (stripped, xz: build/cuda-sm90's ordo_props_gpu,
# moe_gpu_test, engine_gpu_test, moe_bench, qmv_bench), the llama.cpp peer's source as
# .dev/run/llama-src.tar.xz (a tar.xz of bench/qmv/llama_peer/prepare.sh's output: 0.8 MB where
# the tree is 9 MB; the carry is limited to 64 MiB with the tracked tree);
# bench/moe/prepare_device_run.sh makes them here. Environment:
#   BIN      folder of the *.xz binaries (BIN2: a second one); BASE: a folder whose moe_bench.xz
#            and/or qmv_bench.xz are baselines, timed first (BASE_LAYOUTS; QMV_BASE_ARGS)
#   PROPS    ordo_props_gpu filters, space-separated ('qmv.* moe.*'); TESTS: gtest binaries to run
#   NCU_MOE  layout: ncu sections of moe_bench's launches (NCU_SKIP, NCU_COUNT, NCU_ARGS: e.g.
#            '--tiers 16' for one tier's launches)
#   NCU_SRC  kernel regex: per-SASS-instruction counts and stall samples (SourceCounters) of one
#            launch of moe_bench --layouts NCU_LAYOUT (mxfp4) NCU_ARGS, as CSV (SASS=1 also dumps
#            the static SASS)
#   NCU_QMV  kernel regex: ncu sections and per-SASS stall samples of one qmv_bench launch
#            (NCU_SKIP; NCU_ARGS: qmv_bench's arguments, e.g. '--formats q8_0 --shapes q_b --tiers 16')
#   NCU_CACHE ncu's --cache-control for the three above (default all: the L2 flushed before each
#            profiled launch; none keeps what the launches before left there, as a step does: a pass
#            that reads its predecessor's output, e.g. moe's quantize pass, session 26)
#   MOE=1    moe_bench --iters 50 MOE_ARGS (PLAIN=1: also --plain-launches)
#   QMV=1    qmv_bench --iters 100 QMV_ARGS
#   LLAMA=1  builds test-backend-ops in the background and runs ORDO_MOE_ONLY (LLAMA_MOE=0: not;
#            LLAMA_QMV=1: and ORDO_QMV_ONLY, for LLAMA_QMV_TIMEOUT seconds, default 150)
# Everything lands in $OUT/all.tgz (the device returns at most 8 files).
BIN=${BIN:-.dev/run/bin}
FINAL_OUT=$OUT; OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT  # a warm machine keeps /tmp: no logs of an earlier call
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}; export ORDO_SOURCE_DIR=$PWD
[ -f ${LIBS:-.dev/run/libs.tar.xz} ] && { mkdir -p /tmp/libs; tar xJf ${LIBS:-.dev/run/libs.tar.xz} -C /tmp/libs; export LD_LIBRARY_PATH=/tmp/libs:$LD_LIBRARY_PATH; }
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,memory.total,driver_version --format=csv > $OUT/smi.txt 2>&1; cat $OUT/smi.txt
X=/tmp/x; rm -rf $X; mkdir -p $X; for f in $BIN/*.xz ${BIN2:+$BIN2/*.xz}; do n=$(basename $f .xz); xz -dc $f > $X/$n; chmod +x $X/$n; done; for b in moe_bench qmv_bench; do [ -f ${BASE:-/nonexistent}/$b.xz ] && { xz -dc $BASE/$b.xz > $X/${b}_base; chmod +x $X/${b}_base; }; done
ls $X
LB=/tmp/lb
if [ "${LLAMA:-0}" = 1 ]; then
  mkdir -p /tmp/ls && tar xJf ${LLAMA_SRC:-.dev/run/llama-src.tar.xz} -C /tmp/ls
  ( cmake -S /tmp/ls/llama-src -B $LB -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF > $OUT/llama_build.log 2>&1 \
    && nice -n 10 ninja -C $LB -j14 test-backend-ops >> $OUT/llama_build.log 2>&1; echo "llama build rc=$?" >> $OUT/llama_build.log ) &
  BPID=$!
fi
read -ra PROP_FILTERS <<< "${PROPS:-}"  # no pathname expansion of the filters
for P in "${PROP_FILTERS[@]}"; do
  t "props $P"; timeout 200 $X/ordo_props_gpu "$P" --cases 6 >> $OUT/props.log 2>&1; echo "props $P rc=$?"; tail -4 $OUT/props.log
done
for T in ${TESTS:-}; do
  t "$T"; RC_PARAMS=max_success=6 timeout 200 $X/$T > $OUT/$T.log 2>&1; echo "$T rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/$T.log | tail -8
done
if [ -n "${NCU_MOE:-}" ]; then
  t "ncu moe $NCU_MOE"
  timeout 120 ncu --clock-control none --cache-control ${NCU_CACHE:-all} --kernel-name-base demangled --launch-skip ${NCU_SKIP:-30} --launch-count ${NCU_COUNT:-3} \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats \
    $X/moe_bench --layouts $NCU_MOE --iters 3 ${NCU_ARGS:-} > $OUT/ncu_moe.txt 2>&1; echo "ncu rc=$?"
  grep -E "^  [a-z_]+.*\(|Duration|Registers Per|Executed Instructions  |Achieved Occupancy|Issued Warp|No Eligible|Dynamic Shared" $OUT/ncu_moe.txt | head -40
fi
if [ -n "${NCU_SRC:-}" ]; then  # per-SASS-instruction counts of one kernel (regex NCU_SRC) of moe_bench NCU_LAYOUT, and the static SASS
  timeout 150 ncu --clock-control none --cache-control ${NCU_CACHE:-all} --kernel-name-base demangled -k regex:$NCU_SRC --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section SourceCounters --section InstructionStats --section WarpStateStats -o /tmp/src $X/moe_bench --layouts ${NCU_LAYOUT:-mxfp4} --iters 3 ${NCU_ARGS:-} > $OUT/ncu_src_run.txt 2>&1; echo "ncu src rc=$?"
  ncu -i /tmp/src.ncu-rep --page source --csv --print-source sass > $OUT/src_sass.csv 2> $OUT/src_err.txt; echo "page source rc=$? $(wc -l < $OUT/src_sass.csv) lines"; head -c 600 $OUT/src_err.txt
  ncu -i /tmp/src.ncu-rep --page details > $OUT/src_details.txt 2>&1
  [ "${SASS:-0}" = 1 ] && { cuobjdump --dump-sass $X/moe_bench 2>/dev/null | xz -T8 -3 > $FINAL_OUT/sass.xz; ls -la $FINAL_OUT/sass.xz; }
fi
if [ -n "${NCU_QMV:-}" ]; then  # kernel regex: sections and per-SASS-instruction stall samples of one qmv_bench launch (NCU_ARGS)
  t "ncu qmv $NCU_QMV"
  timeout 150 ncu --clock-control none --cache-control ${NCU_CACHE:-all} --kernel-name-base demangled -k regex:$NCU_QMV --launch-skip ${NCU_SKIP:-5} --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -o /tmp/qsrc $X/qmv_bench --iters 3 ${NCU_ARGS:-} > $OUT/ncu_qmv_run.txt 2>&1; echo "ncu qmv rc=$?"
  ncu -i /tmp/qsrc.ncu-rep --page details > $OUT/ncu_qmv.txt 2>&1
  ncu -i /tmp/qsrc.ncu-rep --page source --csv --print-source sass > $OUT/qmv_sass.csv 2> /dev/null
  grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Dynamic Shared|Block Limit" $OUT/ncu_qmv.txt | head -20
fi
if [ "${MOE:-0}" = 1 ]; then
  if [ -x $X/moe_bench_base ]; then
    t "moe_bench_base"; timeout 150 $X/moe_bench_base --iters 50 --layouts ${BASE_LAYOUTS:-q2,mxfp4} --markdown $OUT/moe_base.md > $OUT/moe_base.log 2>&1; echo "base rc=$?"; grep -E "^\| (q2|mxfp4) " $OUT/moe_base.md | head -20
  fi
  if [ "${PLAIN:-0}" = 1 ]; then
    t "moe_bench --plain-launches"; timeout 150 $X/moe_bench --plain-launches --iters 50 --layouts q2,mxfp4 --markdown $OUT/moe_plain.md > $OUT/moe_plain.log 2>&1; echo "plain rc=$?"; grep -E "^\| (q2|mxfp4) " $OUT/moe_plain.md | head -20
  fi
  t "moe_bench"; timeout 300 $X/moe_bench --iters 50 ${MOE_ARGS:-} --markdown $OUT/moe.md > $OUT/moe.log 2>&1; echo "moe_bench rc=$?"; cat $OUT/moe.log | tail -60
fi
if [ "${QMV:-0}" = 1 ]; then
  if [ -x $X/qmv_bench_base ]; then
    t "qmv_bench_base"; timeout 150 $X/qmv_bench_base --iters 100 ${QMV_BASE_ARGS:-} --markdown $OUT/qmv_base.md > $OUT/qmv_base.log 2>&1; echo "qmv base rc=$?"; cat $OUT/qmv_base.md
  fi
  t "qmv_bench"; timeout 200 $X/qmv_bench --iters 100 ${QMV_ARGS:-} --markdown $OUT/qmv.md > $OUT/qmv.log 2>&1; echo "qmv rc=$?"; cat $OUT/qmv.md
fi
if [ -n "${BPID:-}" ]; then
  t "waiting for llama build"; wait $BPID; tail -2 $OUT/llama_build.log
  if [ -x $LB/bin/test-backend-ops ]; then TBO=$LB/bin/test-backend-ops; else TBO=$LB/test-backend-ops; fi
  if [ "${LLAMA_MOE:-1}" = 1 ]; then
    t "llama moe"; ORDO_MOE_ONLY=1 timeout 200 $TBO perf -b CUDA0 > $OUT/llama_moe.log 2>&1; echo "llama moe rc=$?"
    grep -E "MUL_MAT" $OUT/llama_moe.log | sed -E 's/ +/ /g' | cut -c1-220
  fi
  if [ "${LLAMA_QMV:-0}" = 1 ]; then
    ORDO_QMV_ONLY=1 timeout ${LLAMA_QMV_TIMEOUT:-150} $TBO perf -b CUDA0 -o MUL_MAT > $OUT/llama_qmv.log 2>&1; echo "llama qmv rc=$?"
    grep -E "MUL_MAT.*(Q8_0|MXFP4|IQ2_XXS|Q2_K)" $OUT/llama_qmv.log | sed -E 's/ +/ /g' | cut -c1-220
  fi
fi
t done
cd $OUT && tar czf $FINAL_OUT/all.tgz . 2>/dev/null; ls -la $FINAL_OUT
