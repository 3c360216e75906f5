#!/usr/bin/env bash
# Static resources of moe's streamed passes, from the compiler alone (no GPU): for each layout and
# tier, the registers, spill bytes and machine-code bytes of gate_up_kernel and down_kernel, as
# nvcc builds them for sm_90 with the cuda-sm90 preset's flags and tuning. Code bytes matter
# because the hot loop of a kernel larger than the instruction caches stalls on fetches
# (no_instruction stalls: 22% of gate_up's at one row, ncu, docs/PERFORMANCE.md session 12).
#
#   bench/moe/kernel_resources.sh [LAYOUTS] [TIERS]      # defaults: "mxfp4 q2" "1 2 3 4 5 6 7 8 16"
#   POLICY='...' bench/moe/kernel_resources.sh ...        # a policy type other than the preset's
#
# Each (layout, tier) is its own small translation unit (about 2 s each). Needs nvcc
# (/usr/local/cuda/bin, or $NVCC) and readelf.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
layouts="${1:-mxfp4 q2}"
tiers="${2:-1 2 3 4 5 6 7 8 16}"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
policy="${POLICY:-ordo::tune::preset::qmv::policy}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/tu.cu" <<'CU'
#include ORDO_TUNE_HEADER
#include "ordo/ops/moe/moe.hpp"
using L = ordo::ops::moe::LAYOUT;
template <ordo::ops::moe::phase P>
using K = ordo::ops::moe::kernel<L, TIER, ordo::order::lane_strided, P, POLICY>;
template __global__ void ordo::ops::moe::streaming::gate_up_kernel<K<ordo::ops::moe::phase::gate_up>>(ordo::ops::moe::problem);
template __global__ void ordo::ops::moe::streaming::down_kernel<K<ordo::ops::moe::phase::down>>(ordo::ops::moe::problem);
CU
echo "| layout | tier | kernel | registers | spill stores / loads (B) | code (B) |"
echo "|---|---|---|---|---|---|"
for layout in $layouts; do
  for tier in $tiers; do
    "$nvcc" -ccbin=/usr/bin/c++ -DORDO_BUILD_GPU=1 '-DORDO_TUNE_HEADER=<ordo/tune/sm90.hpp>' '-DORDO_TUNE_NAME="sm90"' \
      -I"$root/include" -O3 -DNDEBUG -arch=sm_90 -fmad=false --expt-relaxed-constexpr -Xcompiler=-ffp-contract=off \
      -diag-suppress=550 -std=c++20 -DLAYOUT="${layout}_layout" -DTIER="$tier" -DPOLICY="$policy" \
      -cubin -Xptxas -v -o "$work/k.cubin" "$work/tu.cu" > "$work/ptxas.log" 2>&1 || { cat "$work/ptxas.log" >&2; exit 1; }
    python3 - "$work/ptxas.log" "$work/k.cubin" "$layout" "$tier" <<'PY'
import re, subprocess, sys
log, cubin, layout, tier = sys.argv[1:]
info, cur = {}, None
for line in open(log):
    m = re.search(r"Compiling entry function '([^']+)'", line)
    if m:
        cur = m.group(1); info[cur] = [0, 0, 0]
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and cur: info[cur][1:] = [int(m.group(1)), int(m.group(2))]
    m = re.search(r"Used (\d+) registers", line)
    if m and cur: info[cur][0] = int(m.group(1))
sections = subprocess.run(["readelf", "-SW", cubin], capture_output=True, text=True).stdout
for line in sections.splitlines():
    m = re.search(r" \.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+(\S+)", line)
    if m and m.group(1) in info:
        regs, st, ld = info[m.group(1)]
        kernel = "gate_up" if "gate_up_kernel" in m.group(1) else "down"
        print(f"| {layout} | {tier} | {kernel} | {regs} | {st} / {ld} | {int(m.group(2), 16)} |")
PY
  done
done
