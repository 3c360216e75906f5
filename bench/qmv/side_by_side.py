#!/usr/bin/env python3
"""Side-by-side table of one device call: qmv_bench --tsv output and llama.cpp's
`test-backend-ops perf -o MUL_MAT` console log (ORDO_QMV_ONLY cases, run in the same call).

  side_by_side.py bench.tsv llama_perf.log > table.md

llama's time for a case with bs = [B, 1] is for B distinct matrices; the per-matrix time is
us/run / B. Ratio = llama µs / ordo µs (> 1: ordo is faster)."""
import re
import sys

bench_tsv, llama_log = sys.argv[1], sys.argv[2]
ordo = {}
copy_gbs = read_gbs = None
with open(bench_tsv) as f:
    next(f)
    for line in f:
        fmt, n_out, k, tier, us, graph_us, nbytes, copy_gbs, read_gbs = line.split('\t')[:9]  # later columns: read_us
        ordo[(fmt, int(n_out), int(k), int(tier))] = (float(us), float(graph_us), float(nbytes))
copy_gbs, read_gbs = float(copy_gbs), float(read_gbs)

pat = re.compile(r'MUL_MAT\(type_a=(\w+),type_b=f32,m=(\d+),n=(\d+),k=(\d+),bs=\[(\d+),(\d+)\].*?\):\s+(\d+) runs -\s+([\d.]+) us/run')
llama = {}
with open(llama_log) as f:
    for line in f:
        m = pat.search(line)
        if m:
            t, mm, n, k, b0, b1, runs, us = m.groups()
            llama.setdefault((t.lower(), int(mm), int(k), int(n)), {})[int(b0) * int(b1)] = float(us) / (int(b0) * int(b1))

names = {(129280, 4096): 'output head 4096→129280', (32768, 1024): 'attn q_b 1024→32768',
         (2048, 4096): 'routed gate/up 4096→2048', (4096, 2048): 'routed down 2048→4096'}
print(f'copy bandwidth {copy_gbs:.0f} GB/s, streaming read {read_gbs:.0f} GB/s (same call)\n')
print('| shape | format | tier | ordo µs | ordo µs (graph) | floor µs (read BW) | % of copy BW | % of read BW | ordo vs t1 '
      '| llama µs, 1 matrix | llama µs/matrix, B distinct (B) | llama / ordo (HBM case) |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
for (fmt, n_out, k, tier), (us, graph_us, nbytes) in ordo.items():
    t1 = ordo[(fmt, n_out, k, 1)][0]
    gbs = nbytes / (us * 1e-6) / 1e9
    l = llama.get((fmt, n_out, k, tier), {})
    one = l.get(1)
    many = {b: v for b, v in l.items() if b > 1}
    hbm_b = max(many) if many else None
    ref = many[hbm_b] if many else (one if n_out * k >= 129280 * 4096 else None)
    cells = [names.get((n_out, k), f'{n_out}x{k}'), fmt, str(tier), f'{us:.2f}', f'{graph_us:.2f}', f'{nbytes / (read_gbs * 1e3):.2f}',
             f'{100 * gbs / copy_gbs:.0f}%', f'{100 * gbs / read_gbs:.0f}%', f'{us / t1:.2f}×',
             f'{one:.2f}' if one else '–', f'{many[hbm_b]:.2f} ({hbm_b})' if many else '–',
             f'{ref / us:.2f}×' if ref else (f'({one / us:.2f}× vs L2-resident)' if one else '–')]
    print('| ' + ' | '.join(cells) + ' |')
