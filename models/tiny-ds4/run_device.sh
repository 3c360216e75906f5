#!/bin/bash
# One device run of the tiny model's training (models/tiny-ds4/README.md), at most 200 s.
# From the repository root on the device machine, with the payload in DIR (default .dev/tiny):
# train.py and corpus.tar.xz (make_corpus.py's files). Writes $OUT/tiny.tar.xz (the checkpoint
# directory: model.safetensors, config.json, train_state.json, eval.json, plus train.log) and
# $OUT/tiny.log, and prints the summary last.
set -u
t0=$(date +%s)
dir=${1:-.dev/tiny}
work=$(mktemp -d)
log=$work/train.log
mkdir -p "$work/data" "$work/ckpt"
xz -dc "$dir/corpus.tar.xz" | tar -x -C "$work/data"
echo "tiny: corpus unpacked in $(( $(date +%s) - t0 )) s" | tee "$log"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader >> "$log" 2>&1
# train.py stops training 32 s before its deadline to export and evaluate; the timeout is a backstop
# (it also exports a checkpoint every 40 s, which is what comes back if it is killed).
timeout -k 5 $(( t0 + 188 - $(date +%s) )) python3 -u "$dir/train.py" --data "$work/data" --out "$work/ckpt" \
  --deadline $(( t0 + 180 )) >> "$log" 2>&1
echo "tiny: train.py exit status $? after $(( $(date +%s) - t0 )) s" >> "$log"
cp "$log" "$work/ckpt/train.log"
tar -C "$work" -cf - ckpt | xz -T0 -2 > "$OUT/tiny.tar.xz"
cp "$log" "$OUT/tiny.log"
rm -rf "$work"
echo "tiny: $OUT/tiny.tar.xz $(stat -c %s "$OUT/tiny.tar.xz") bytes, $(( $(date +%s) - t0 )) s in all"
grep -E 'SUMMARY|self-check|FAILED|Error|error' "$OUT/tiny.log" | tail -8
tail -3 "$OUT/tiny.log"
