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

A config with a "stress" entry (hf_stressed) is then pushed into the regimes the plain configs
never reach, so that small semantic changes of the reference move logits far beyond the parity
tolerance (the mutation checks of tests/parity/hf rely on it; see stress() for each knob):
the SwiGLU clamp binds, the HC Sinkhorn has not converged after 20 iterations, and YaRN's
interpolated RoPE pairs turn visibly within the run (original context 256 instead of 65536).

    python3 tests/parity/hf/make_fixtures.py OUT_DIR [NAME ...]   # only the named configs
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


# hf_stressed: hf_tiny_a's shapes with YaRN's original context 256 (max_position_embeddings is
# kept at factor x original, as for the other configs) and the weight stress below. comb_gain 12:
# with 6, 19 instead of 20 Sinkhorn iterations moved this fixture's logits by only 4.4e-4 (the
# reference measured 0.39 at 12); with hf_tiny_b's shapes and 6, by 1.5e-3.
CONFIGS.append(
    dict(name="hf_stressed", seed=33, n_prompt=300,
         yarn=dict(YARN, original_max_position_embeddings=256), max_pos=16 * 256,
         stress=dict(expert_gain=6.0, comb_gain=12.0, dim0=12.0, neg_gate=3.0, neg_units=8, neg_down=50.0),
         kw=dict(CONFIGS[0]["kw"])))


def make_config(kw, yarn=None, max_pos=16 * 65536):
    base = dict(max_position_embeddings=max_pos, rope_theta=10000.0, compress_rope_theta=160000.0,
                rope_parameters=dict(yarn or YARN), swiglu_limit=10.0, rms_norm_eps=1e-6, hc_mult=4,
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


def _role(name):
    """(component, kind) of a parameter by its module path: kind gate / up / gate_up / down."""
    parts = name.split(".")
    comp = parts[-2] if parts[-1] == "weight" else parts[-1]
    kind = {"gate_proj": "gate", "w1": "gate", "up_proj": "up", "w3": "up", "gate_up_proj": "gate_up",
            "down_proj": "down", "w2": "down"}.get(comp)
    where = "shared" if "shared" in name else "routed" if "experts" in name else None
    return where, kind


@torch.no_grad()
def stress(model, cfg, s):
    """The hf_stressed weights, on top of randomize():
      * every routed and shared expert's gate and up x expert_gain, down / expert_gain: the SwiGLU
        clamp (10) cuts gate or up values of most expert rows;
      * embedding dim 0 = dim0 for every token, so the FFN input's x[0] is large and positive at
        every position; the shared expert's first neg_units gate rows read only -neg_gate * x[0]
        (g ~ -20, far below -10) and their down columns are x neg_down: a gate clamped from below
        too would change the FFN output by ~1e-2 instead of ~1e-8;
      * the comb part (the last hc_mult^2 entries) of every HC base x comb_gain: contrasty Sinkhorn
        logits that are not converged after 20 iterations.
    Returns how many tensors each rule touched (checked by the caller)."""
    n, neg = cfg.hc_mult, s["neg_units"]
    hits = {"embed": 0, "routed": 0, "shared_gate": 0, "shared_up": 0, "shared_down": 0, "hc_base": 0}
    for name, p in model.named_parameters():
        leaf = name.split(".")[-1]
        where, kind = _role(name)
        if "embed_tokens" in name:
            p[:, 0] = s["dim0"]
            hits["embed"] += 1
        elif where == "routed" and kind:
            p.mul_(1.0 / s["expert_gain"] if kind == "down" else s["expert_gain"])
            hits["routed"] += 1
        elif where == "shared" and kind in ("gate", "gate_up"):
            p.mul_(s["expert_gain"])
            gate = p[..., :p.shape[-2] // 2, :] if kind == "gate_up" else p
            gate[..., :neg, :] = 0.0
            gate[..., :neg, 0] = -s["neg_gate"]
            hits["shared_gate"] += 1
            if kind == "gate_up":
                hits["shared_up"] += 1
        elif where == "shared" and kind == "up":
            p.mul_(s["expert_gain"])
            hits["shared_up"] += 1
        elif where == "shared" and kind == "down":
            p.mul_(1.0 / s["expert_gain"])
            p[..., :neg] *= s["neg_down"]
            hits["shared_down"] += 1
        elif leaf in ("base", "hc_base", "hc_attn_base", "hc_ffn_base") and p.numel() == (2 + n) * n:
            p[2 * n:] *= s["comb_gain"]
            hits["hc_base"] += 1
        else:
            continue
        p.copy_(f16(p))
    L = cfg.num_hidden_layers
    want = {"embed": 1, "shared_gate": L, "shared_up": L, "shared_down": L, "hc_base": 2 * L}
    bad = {k: (hits[k], v) for k, v in want.items() if hits[k] != v}
    if bad or hits["routed"] < 2 * L:
        names = "\n".join(f"  {k} {tuple(v.shape)}" for k, v in model.named_parameters())
        raise RuntimeError(f"stress(): unexpected matches {bad}, routed {hits['routed']}; parameters:\n{names}")
    return hits


def check_saved_stress(d, cfg, s):
    """Reads the saved checkpoint back (upstream names) and confirms the stress is in the file."""
    from safetensors import safe_open
    n, neg = cfg.hc_mult, s["neg_units"]
    with safe_open(os.path.join(d, "model.safetensors"), "pt") as f:
        keys = set(f.keys())
        emb = f.get_tensor("model.embed_tokens.weight").float()
        ok = {"embed_dim0": bool((emb[:, 0] == s["dim0"]).all())}
        for il in range(cfg.num_hidden_layers):
            b = f"model.layers.{il}."
            w1 = f.get_tensor(b + "ffn.shared_experts.w1.weight").float()
            w2 = f.get_tensor(b + "ffn.shared_experts.w2.weight").float()
            ok[f"L{il}_shared_gate"] = bool((w1[:neg, 0] == -s["neg_gate"]).all() and (w1[:neg, 1:] == 0).all())
            ok[f"L{il}_shared_down_amplified"] = bool(w2[:, :neg].abs().mean() > 10 * w2[:, neg:].abs().mean())
            for t in ("hc_attn_base", "hc_ffn_base"):
                ok[f"L{il}_{t}_present"] = (b + t) in keys
    if not all(ok.values()):
        raise RuntimeError(f"saved checkpoint lacks the stress: {ok}")
    return ok


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
    only = set(sys.argv[2:])
    for c in CONFIGS:
        if only and c["name"] not in only:
            continue
        gen = torch.Generator().manual_seed(c["seed"])
        cfg = make_config(c["kw"], c.get("yarn"), c.get("max_pos", 16 * 65536))
        model = DeepseekV4ForCausalLM(cfg).float().eval()
        unclassified = randomize(model, cfg, gen)
        stress_hits = stress(model, cfg, c["stress"]) if "stress" in c else None
        ids = torch.randint(2, cfg.vocab_size, (c["n_prompt"],), generator=gen).tolist()
        tokens = list(ids)
        for _ in range(N_GEN):  # greedy by repeated full forwards (no cache)
            tokens.append(int(torch.argmax(logits_of(model, tokens, "cpu")[-1])))
        cpu = logits_of(model, tokens, "cpu")
        entry = {"n_prompt": len(ids), "n_gen": N_GEN, "params": sum(p.numel() for p in model.parameters()),
                 "unclassified": unclassified, "layer_types": cfg.layer_types,
                 "mlp_layer_types": cfg.mlp_layer_types}
        if stress_hits:
            entry["stress"] = c["stress"]
            entry["stress_tensors"] = stress_hits
            entry["yarn"] = c["yarn"]
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
        if stress_hits:
            entry["stress_saved"] = check_saved_stress(d, cfg, c["stress"])
        entry["files"] = sorted(os.listdir(d))
        entry["bytes"] = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        manifest["configs"][c["name"]] = entry
        print(c["name"], json.dumps(entry), flush=True)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
