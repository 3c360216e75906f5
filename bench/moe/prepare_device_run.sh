#!/usr/bin/env bash
# Prepares what bench/moe/device_run.sh carries to the device machine, here (a 2-core machine: the
# builds take 15-40 minutes cold), into DEST (default .dev/run, ignored by git):
#   DEST/bin/*.xz       stripped, xz'd cuda-sm90 builds of ordo_props_gpu, moe_gpu_test, moe_bench
#                       (TARGETS: others, e.g. engine_gpu_test or qmv_gpu_test, or none when empty;
#                       the carry is at most 64 MiB with the tree, so large ones go in a second
#                       call's DEST)
#   DEST/base/moe_bench.xz   with BASE_COMMIT=<commit>: moe_bench built at that commit in a
#                       temporary worktree under /tmp, the baseline the same call times first
#   DEST/llama-src.tar.xz    with LLAMA=1: the llama.cpp peer's sources (bench/qmv/llama_peer;
#                       needs scripts/fetch-oracles first)
#   DEST/libs.tar.xz    with LIBS=1: Debian 12's ICU and fmt libraries, which `ordo` and
#                       engine_gpu_test load and the device machine lacks (device_run.sh's LIBS,
#                       bench/engine/h200_run.sh)
# Then, e.g. (carry DEST; the tree and the carry together must stay under 64 MiB):
#   BIN=DEST/bin BASE=DEST/base PROPS='moe.*' TESTS=moe_gpu_test MOE=1 MOE_ARGS='--variants --passes' \
#     LLAMA=1 LLAMA_SRC=DEST/llama-src.tar.xz bash bench/moe/device_run.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
dest="${1:-.dev/run}"
mkdir -p "$dest/bin"
pack() {  # pack BUILD_DIR TARGET OUT_DIR
  local f
  f=$(find "$1" -type f -name "$2" -perm -u+x | head -1)
  [ -n "$f" ] || { echo "prepare: $2 not found under $1" >&2; exit 1; }
  strip -o "/tmp/$2.stripped" "$f"
  xz -9e -T2 -c "/tmp/$2.stripped" > "$3/$2.xz"
  rm -f "/tmp/$2.stripped"
  echo "prepare: $3/$2.xz $(du -h "$3/$2.xz" | cut -f1)"
}
targets="${TARGETS-ordo_props_gpu moe_gpu_test moe_bench}"  # TARGETS= (empty): none
if [ -n "$targets" ]; then
  cmake --preset cuda-sm90 > /dev/null
  ninja -C build/cuda-sm90 -j"$(nproc)" $targets
  for t in $targets; do pack build/cuda-sm90 "$t" "$dest/bin"; done
fi
if [ -n "${BASE_COMMIT:-}" ]; then
  wt="/tmp/ordo-base-$BASE_COMMIT"
  [ -d "$wt" ] || git worktree add --detach "$wt" "$BASE_COMMIT"
  (cd "$wt" && cmake --preset cuda-sm90 > /dev/null && ninja -C build/cuda-sm90 -j"$(nproc)" moe_bench)
  mkdir -p "$dest/base"
  pack "$wt/build/cuda-sm90" moe_bench "$dest/base"
fi
if [ "${LLAMA:-0}" = 1 ]; then
  rm -rf /tmp/llama-src
  bench/qmv/llama_peer/prepare.sh /tmp/llama-src
  tar cJf "$dest/llama-src.tar.xz" -C /tmp llama-src
  echo "prepare: $dest/llama-src.tar.xz $(du -h "$dest/llama-src.tar.xz" | cut -f1)"
fi
if [ "${LIBS:-0}" = 1 ]; then
  (cd /usr/lib/x86_64-linux-gnu && tar cJf - libicuuc.so.72* libicudata.so.72* libfmt.so.9*) > "$dest/libs.tar.xz"
  echo "prepare: $dest/libs.tar.xz $(du -h "$dest/libs.tar.xz" | cut -f1)"
fi
du -sh "$dest"
