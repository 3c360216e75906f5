#!/bin/bash
# Prepares the llama.cpp peer for a device run: ggml (CPU + CUDA sources only) and test-backend-ops
# from the node-llama-cpp 3.22.1 bundle's git bundle (llama.cpp tag v0.5.0, ggml 0.25.1), with the
# ORDO_QMV_ONLY perf cases patched in, into DEST (default .dev/perf/llama; ~9 MB to carry).
#   bench/qmv/llama_peer/prepare.sh [DEST]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-.dev/perf/llama}
tmp=$(mktemp -d)
tar xzf third_party/oracles/tgz/node-llama-cpp-3.22.1.tgz -C "$tmp" package/llama/gitRelease.bundle
git clone -q "$tmp/package/llama/gitRelease.bundle" "$tmp/llama.cpp"
mkdir -p "$dest/tests"
cp -r "$tmp/llama.cpp/ggml" "$dest/"
cp "$tmp/llama.cpp/tests/test-backend-ops.cpp" "$dest/tests/"
for b in rpc virtgpu cann openvino webgpu et metal hexagon sycl vulkan opencl blas zdnn zendnn musa hip; do
  rm -rf "$dest/ggml/src/ggml-$b"
done
cp "$here/CMakeLists.txt" "$dest/"
(cd "$dest" && patch -p1 < "$here/test-backend-ops.ordo.patch")
rm -rf "$tmp"
