#!/bin/bash
# Converts the checkpoint the device run returns (run_device.sh's tiny.tar.xz, or its ckpt/
# directory) into the two committed GGUFs: models/tiny-ds4/tiny-ds4.gguf (ds4 naming, Q8_0 dense
# and experts, F16 aux, byte vocabulary) and tiny-ds4-mtp.gguf (ds4's MTP sidecar, mtp.0.*).
#   models/tiny-ds4/convert.sh TINY_TAR_XZ_OR_CKPT_DIR [ORDO_BINARY]
set -euo pipefail
src=${1:?tiny.tar.xz or ckpt directory}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ordo=${2:-$here/../../build/cpu-release/apps/ordo/ordo}
if [ -d "$src" ]; then ckpt=$src; else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  xz -dc "$src" | tar -x -C "$tmp"; ckpt=$tmp/ckpt
fi
"$ordo" convert "$ckpt/model.safetensors" --config "$ckpt/config.json" -o "$here/tiny-ds4.gguf" \
  --mtp-out "$here/tiny-ds4-mtp.gguf" --experts q8_0 --vocab bytes --name "ordo tiny DS4 (trained)" -q
ls -l "$here/tiny-ds4.gguf" "$here/tiny-ds4-mtp.gguf"
"$ordo" inspect "$here/tiny-ds4.gguf" --no-metadata --no-tensors | tail -6
