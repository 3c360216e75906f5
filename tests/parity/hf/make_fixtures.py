#!/usr/bin/env python3
"""Fixtures for the reference-vs-HF-transformers parity test (tests/parity/hf).

Run on the device machine (python3 + torch 2.11 + transformers 5.17, no internet):

    python3 tests/parity/hf/make_fixtures.py OUT_DIR

For each tiny random DeepseekV4 config below (together: all three attention layer types, hash
and top-k MoE layers, the indexer with a small top-k, YaRN on the compressed layers) it writes
OUT_DIR/<name>/{model.safetensors, config.json, hf.ordl}:

  * weights: HF's own module layout, re-initialised with O(1)-scaled random values (HF's init
    would give near-constant logits), rounded to F16-representable values so the F16 checkpoint
    is exact; the model runs in float32 as HF runs fp32 models.
  * hf.ordl: ORDL logits (see src/eval/ordl.hpp) of HF's forward, float32 on CPU, over the
    prompt plus a 32-token greedy continuation. The continuation is computed with repeated full
    forwards (no cache): HF generate() after a long prefill is not a valid reference
    (oracles.md §2). The final full forward gives every row.

and OUT_DIR/manifest.json: versions, per-config CPU-vs-CUDA max |Δlogit|, parameter counts.
Only what that machine has is used (torch, transformers, safetensors through save_pretrained).
"""
import json
import os
import struct
import sys

import torch
import transformers
from transformers import DeepseekV4Config, DeepseekV4ForCausalLM

N_GEN = 32

YARN = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536,
        "beta_fast": 32.0, "beta_slow": 1.0}

CONFIGS = [
    dict(name="hf_tiny_a", seed=11, n_prompt=300,
         kw=dict(vocab_size=256, hidden_size=64, moe_intermediate_size=32, num_hidden_layers=4,
                 num_attention_heads=4, head_dim=128, partial_rotary_factor=0.5, q_lora_rank=32,
                 num_experts_per_tok=3, n_routed_experts=8, n_shared_experts=1,
                 layer_types=["sliding_attention", "sliding_attention",
                              "compressed_sparse_attention", "heavily_compressed_attention"],
                 mlp_layer_types=["hash_moe", "moe", "moe", "moe"],
                 sliding_window=16, o_groups=2, o_lora_rank=32,
                 index_n_heads=8, index_head_dim=128, index_topk=4)),
    dict(name="hf_tiny_b", seed=22, n_prompt=320,
         kw=dict(vocab_size=192, hidden_size=96, moe_intermediate_size=32, num_hidden_layers=5,
                 num_attention_heads=4, head_dim=256, partial_rotary_factor=0.25, q_lora_rank=32,
                 num_experts_per_tok=2, n_routed_experts=6, n_shared_experts=1,
                 layer_types=["compressed_sparse_attention", "heavily_compressed_attention",
                              "sliding_attention", "compressed_sparse_attention",
                              "heavily_compressed_attention"],
                 mlp_layer_types=["hash_moe", "hash_moe", "moe", "moe", "moe"],
                 sliding_window=24, o_groups=2, o_lora_rank=32,
                 index_n_heads=8, index_head_dim=128, index_topk=6)),
]


def make_config(kw):
    base = dict(max_position_embeddings=16 * 65536, rope_theta=10000.0, compress_rope_theta=160000.0,
                rope_parameters=dict(YARN), swiglu_limit=10.0, rms_norm_eps=1e-6, hc_mult=4,
                hc_sinkhorn_iters=20, hc_eps=1e-6, routed_scaling_factor=1.5, norm_topk_prob=True,
                scoring_func="sqrtsoftplus", num_key_value_heads=1, tie_word_embeddings=False,
                num_nextn_predict_layers=0, bos_token_id=0, eos_token_id=1)
    base.update(kw)
    return DeepseekV4Config(**base)


def f16(t):
    return t.to(torch.float16).to(t.dtype)


@torch.no_grad()
def randomize(model, cfg, gen):
    """O(1) activations: projections N(0, 1/fan_in), norms 1 + 0.1 N, HC mixers small."""
    report = []
    for name, p in model.named_parameters():
        leaf = name.split(".")[-1]
        n = torch.randn(p.shape, generator=gen, dtype=torch.float64)
        if p.ndim == 1 and "norm" in name:
            v = 1.0 + 0.1 * n
        elif "sinks" in leaf:
            v = n
        elif leaf in ("base", "hc_base"):
            v = 0.5 * n
        elif leaf in ("scale", "hc_scale"):
            v = 1.0 + 0.3 * n
        elif "position_bias" in leaf:
            v = 0.5 * n
        elif leaf in ("fn", "hc_fn"):
            v = n * (0.5 / p.shape[-1] ** 0.5)
        elif "embed_tokens" in name:
            v = n
        elif p.ndim >= 2:
            v = n / p.shape[-1] ** 0.5  # fan-in is the last dim of every HF weight here
        else:
            v = 0.1 * n
            report.append(f"unclassified 1-D parameter {name} {tuple(p.shape)}: N(0, 0.01)")
        p.copy_(f16(v.to(p.dtype)))
    for name, b in model.named_buffers():
        if name.endswith("tid2eid"):
            k = b.shape[1]
            rows = [torch.randperm(cfg.n_routed_experts, generator=gen)[:k] for _ in range(b.shape[0])]
            b.copy_(torch.stack(rows).to(b.dtype))
        elif name.endswith("e_score_correction_bias"):
            b.copy_(f16(0.1 * torch.randn(b.shape, generator=gen, dtype=torch.float64)).to(b.dtype))
    return report


@torch.no_grad()
def logits_of(model, ids, device):
    x = torch.tensor([ids], dtype=torch.long, device=device)
    return model(input_ids=x, use_cache=False).logits[0].float().cpu()


def write_ordl(path, tokens, logits):
    n, v = logits.shape
    with open(path, "wb") as f:
        f.write(b"ORDL")
        f.write(struct.pack("<III", 1, n, v))
        f.write(struct.pack(f"<{n}i", *tokens))
        f.write(logits.contiguous().to(torch.float32).numpy().astype("<f4").tobytes())


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    torch.use_deterministic_algorithms(True, warn_only=True)
    manifest = {"torch": torch.__version__, "transformers": transformers.__version__, "configs": {}}
    for c in CONFIGS:
        gen = torch.Generator().manual_seed(c["seed"])
        cfg = make_config(c["kw"])
        model = DeepseekV4ForCausalLM(cfg).float().eval()
        unclassified = randomize(model, cfg, gen)
        ids = torch.randint(2, cfg.vocab_size, (c["n_prompt"],), generator=gen).tolist()
        tokens = list(ids)
        for _ in range(N_GEN):  # greedy by repeated full forwards (no cache)
            tokens.append(int(torch.argmax(logits_of(model, tokens, "cpu")[-1])))
        cpu = logits_of(model, tokens, "cpu")
        entry = {"n_prompt": len(ids), "n_gen": N_GEN, "params": sum(p.numel() for p in model.parameters()),
                 "unclassified": unclassified, "layer_types": cfg.layer_types,
                 "mlp_layer_types": cfg.mlp_layer_types}
        if torch.cuda.is_available():
            gpu = logits_of(model.to("cuda"), tokens, "cuda")
            model.to("cpu")
            entry["max_abs_cpu_vs_cuda"] = float((gpu - cpu).abs().max())
            entry["greedy_same_on_cuda"] = bool((gpu[len(ids) - 1:-1].argmax(-1) == torch.tensor(tokens[len(ids):])).all())
        entry["logit_abs_max"] = float(cpu.abs().max())
        # Top-2 margins along the greedy path: a small margin would make the comparison fragile.
        top2 = torch.topk(cpu[len(ids) - 1:-1], 2, dim=-1).values
        entry["min_greedy_margin"] = float((top2[:, 0] - top2[:, 1]).min())
        d = os.path.join(out_dir, c["name"])
        os.makedirs(d, exist_ok=True)
        model.to(torch.float16).save_pretrained(d, safe_serialization=True)
        for extra in ("generation_config.json",):
            if os.path.exists(os.path.join(d, extra)):
                os.remove(os.path.join(d, extra))
        write_ordl(os.path.join(d, "hf.ordl"), tokens, cpu)
        entry["files"] = sorted(os.listdir(d))
        entry["bytes"] = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        manifest["configs"][c["name"]] = entry
        print(c["name"], json.dumps(entry), flush=True)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
