#!/usr/bin/env python3
"""Trains ordo's tiny DS4-architecture model with its MTP block (models/tiny-ds4/README.md).

    python3 models/tiny-ds4/train.py --data DIR --out DIR [--deadline UNIX_SECONDS]

Runs on the device machine (python3, torch 2.11, transformers 5.17, safetensors; no internet).
DIR holds make_corpus.py's files. The main model is HF transformers' DeepseekV4ForCausalLM (every
layer kind: sliding / ratio-4 CSA with the indexer / ratio-128 HCA; hash and top-k routing). HF
has no MTP module, so the MTP block is written here from HF's own parts, following
docs/decisions.md D1-D4 and ds4-model.md §7.1:

    e   = e_proj(enorm(embed(t_{p+1})))                # the main model's embedding table
    H_a = e + h_proj(hnorm(h_p[a]))      a = 0..3      # h_p: the target's final HC state at p
    H   = DecoderLayer(H)                              # ratio 0 (sliding window), top-k routing
    logits = lm_head(norm(hc_head_mtp(H)))             # the main model's LM head -> t_{p+2}

Depth k > 1 feeds the block's own output H (depth k-1) with the token t_{p+k} (the accepted
draft), predicting t_{p+k+1}. Training unrolls depths 1..K (shared weights) over the sequence.

Tokens: bytes 0..255 are themselves; 256 <｜begin▁of▁sentence｜>, 257 <｜end▁of▁sentence｜>,
258 <｜User｜>, 259 <｜Assistant｜>, 260 <think>, 261 </think>, 262 ｜DSML｜ (ordo's byte vocabulary,
src/tokenizer/vocab_builders.cpp); n_vocab 264.

The run is bounded by --deadline: training stops early enough to export and evaluate. Every
CKPT_EVERY seconds, after training and after evaluation, OUT gets model.safetensors (HF
in-memory names for the main model; the MTP block as `mtp.0.` + the HF names of its layer's
modules, plus mtp.0.{e_proj,h_proj,enorm,hnorm,norm}.weight and mtp.0.hc_head.hc_{fn,base,scale};
matrices F16, vectors F32, tid2eid I64), config.json and train_state.json; eval.json
holds the held-out numbers. Anything that fails is logged and skipped, so whatever trained is
exported.
"""
import time

T_START = time.time()

import argparse
import json
import math
import os
import random
import sys
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F


def log(*a):
    print(f"[{time.time() - T_START:6.1f}s]", *a, flush=True)


import transformers
from safetensors.torch import save_file
from transformers import DeepseekV4Config, DeepseekV4ForCausalLM
from transformers.models.deepseek_v4 import modeling_deepseek_v4 as hfm

BOS, EOS, USER, ASSISTANT, THINK_OPEN, THINK_CLOSE, DSML = range(256, 263)
N_VOCAB = 264
SPECIAL_TEXT = {BOS: "<BOS>", EOS: "<EOS>", USER: "<User>", ASSISTANT: "<Assistant>", THINK_OPEN: "<think>",
                THINK_CLOSE: "</think>", DSML: "<DSML>"}

YARN = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536,
        "beta_fast": 32.0, "beta_slow": 1.0}

# The tiny synth preset's layer schedule and head shape (4 layers 0/0/4/128, head_dim 512 with a
# 64-dim RoPE tail, 16 experts top-6 + 1 shared, 1 hash layer) at n_embd 128 and 4 heads, so the
# converted GGUF (Q8_0 dense and experts, F16 aux) stays under 8 MB with the MTP block.
SHAPE = dict(vocab_size=N_VOCAB, hidden_size=128, moe_intermediate_size=64, num_hidden_layers=4,
             num_attention_heads=4, head_dim=512, partial_rotary_factor=64 / 512, q_lora_rank=128,
             num_experts_per_tok=6, n_routed_experts=16, n_shared_experts=1,
             layer_types=["sliding_attention", "sliding_attention", "compressed_sparse_attention",
                          "heavily_compressed_attention"],
             mlp_layer_types=["hash_moe", "moe", "moe", "moe"],
             sliding_window=128, o_groups=2, o_lora_rank=64,
             index_n_heads=16, index_head_dim=128, index_topk=8)

SEQ = 512          # training tokens per row (4 ratio-128 windows, 128 ratio-4 rows)
BATCH = 32
MTP_DEPTHS = 3     # unrolled MTP depths in training
MTP_WEIGHTS = [0.5, 0.3, 0.2]
EVAL_DEPTHS = 5
PEAK_LR = 2e-3
WARMUP = 40
CHAT_ROWS = BATCH // 4   # rows of a batch drawn from the chat stream
CKPT_EVERY = 40.0
BIAS_RATE = 2e-3   # aux-loss-free balancing step of the top-k routers' selection bias


def make_config():
    base = dict(max_position_embeddings=16 * 65536, rope_theta=10000.0, compress_rope_theta=160000.0,
                rope_parameters=dict(YARN), swiglu_limit=10.0, rms_norm_eps=1e-6, hc_mult=4,
                hc_sinkhorn_iters=20, hc_eps=1e-6, routed_scaling_factor=1.5, norm_topk_prob=True,
                scoring_func="sqrtsoftplus", num_key_value_heads=1, tie_word_embeddings=False,
                num_nextn_predict_layers=0, bos_token_id=BOS, eos_token_id=EOS)
    base.update(SHAPE)
    return DeepseekV4Config(**base)


class MTPBlock(nn.Module):
    """DS4's MTP block (module docstring). `block` is HF's decoder layer built as layer 1 of the main
    config: sliding attention (ratio 0, plain RoPE) and top-k routing with a selection bias (D3)."""

    def __init__(self, cfg):
        super().__init__()
        d, eps = cfg.hidden_size, cfg.rms_norm_eps
        self.enorm = hfm.DeepseekV4RMSNorm(d, eps=eps)
        self.hnorm = hfm.DeepseekV4RMSNorm(d, eps=eps)
        self.e_proj = nn.Linear(d, d, bias=False)
        self.h_proj = nn.Linear(d, d, bias=False)
        assert cfg.layer_types[1] == "sliding_attention" and cfg.mlp_layer_types[1] == "moe"
        self.block = hfm.DeepseekV4DecoderLayer(cfg, 1)
        self.hc_head = hfm.DeepseekV4HyperHead(cfg)
        self.norm = hfm.DeepseekV4RMSNorm(d, eps=eps)

    def forward(self, emb, hidden, layer_args):
        # emb [B, S, D]: embeddings of t_{p+k}; hidden [B, S, 4, D]: h_p (k = 1) or the block's H.
        e = self.e_proj(self.enorm(emb)).unsqueeze(2)
        h = e + self.h_proj(self.hnorm(hidden))
        args, kwargs = layer_args
        h = self.block(h, *args, **kwargs)
        return h, self.norm(self.hc_head(h))  # the LM head is the main model's (run_model)


class Capture:
    """Forward hooks on the HF model: the input of the final HC collapse (the target's 4-stream
    state, D1's `hidden`), the keyword arguments HF passes to a sliding-window layer (mask,
    RoPE tables, positions — the MTP block runs with exactly those), and the top-k routers'
    selections (for the selection-bias balancing)."""

    def __init__(self, model=None):
        self.hidden = None
        self.layer_kwargs = None
        self.selections = []
        self.handles = []
        if model is None:  # no MTP: only the router selections
            return
        m = model.model
        self.handles.append(m.hc_head.register_forward_pre_hook(self._hc_in, with_kwargs=True))
        self.handles.append(m.layers[1].register_forward_pre_hook(self._layer_in, with_kwargs=True))

    def _hc_in(self, mod, args, kwargs):
        self.hidden = args[0] if args else next(iter(kwargs.values()))

    def _layer_in(self, mod, args, kwargs):
        kw = dict(kwargs)
        if "input_ids" in kw:
            kw["input_ids"] = None  # top-k layer: unused; the MTP block has no hash routing
        self.layer_kwargs = (tuple(args[1:]), kw)  # args[0] is the hidden state

    def hook_router(self, router):
        self.handles.append(router.register_forward_hook(self._router_out))

    def _router_out(self, mod, inp, out):
        if isinstance(out, tuple) and len(out) == 3 and not out[2].is_floating_point():
            self.selections.append((mod, out[2].detach()))  # (logits, weights, expert ids)


@torch.no_grad()
def init_weights(module, gen):
    """HF-like init (std 0.02), norms 1, sinks/position bias 0, HC base: pre/post 0 and the comb
    part +1 on its diagonal, HC scales 1."""
    for name, p in module.named_parameters():
        leaf = name.split(".")[-1]
        if p.ndim == 1 and "norm" in name:
            p.fill_(1.0)
        elif leaf == "sinks" or leaf == "position_bias":
            p.zero_()
        elif leaf in ("base", "hc_base"):
            p.zero_()
            n = int(round(math.sqrt(p.numel() + 1))) - 1  # (2 + n) * n entries; hc_base has n
            if p.numel() == (2 + n) * n:
                for a in range(n):
                    p[2 * n + a * n + a] = 1.0
        elif leaf in ("scale", "hc_scale"):
            p.fill_(1.0)
        elif p.ndim >= 2:
            p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
        else:
            log(f"init: unclassified vector {name} {tuple(p.shape)}: N(0, 0.02)")
            p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
    for name, b in module.named_buffers():
        if name.endswith("tid2eid"):
            rows = [torch.randperm(SHAPE["n_routed_experts"], generator=gen)[: b.shape[1]] for _ in range(b.shape[0])]
            b.copy_(torch.stack(rows).to(b.dtype))
        elif name.endswith("e_score_correction_bias"):
            b.zero_()


def load_corpus(d):
    def raw(name):
        with open(os.path.join(d, name), "rb") as f:
            return f.read()

    def chat(name, epochs, rng):
        pairs = [json.loads(l) for l in raw(name).decode().splitlines() if l.strip()]
        ids = []
        for _ in range(epochs):
            rng.shuffle(pairs)
            for p in pairs:
                ids += [BOS, USER] + list(p["q"].encode()) + [ASSISTANT, THINK_CLOSE] + list(p["a"].encode()) + [EOS]
        return torch.tensor(ids, dtype=torch.int16), len(pairs)

    rng = random.Random(5)
    train = torch.frombuffer(bytearray(raw("train.txt")), dtype=torch.uint8).to(torch.int16)
    held = torch.frombuffer(bytearray(raw("heldout.txt")), dtype=torch.uint8).to(torch.int16)
    chat_train, n_ct = chat("chat_train.jsonl", 3, rng)
    chat_held, n_ch = chat("chat_heldout.jsonl", 1, rng)
    log(f"corpus: train {len(train)} bytes, held-out {len(held)} bytes, chat pairs {n_ct} train "
        f"({len(chat_train)} tokens over 3 epochs) / {n_ch} held-out")
    return train, held, chat_train, chat_held


def windows(stream, n, length, gen, device):
    starts = torch.randint(0, len(stream) - length, (n,), generator=gen)
    idx = starts[:, None] + torch.arange(length)[None, :]
    return stream[idx].long().to(device)


def run_model(model, mtp, cap, ids, seq, depths):
    """Main logits over ids[:, :seq] and MTP logits per depth k (1..depths): row p of depth k reads
    token ids[:, p + k] and predicts ids[:, p + k + 1]. Returns (main_logits, [mtp_logits_k])."""
    out = model(input_ids=ids[:, :seq], use_cache=False)
    if depths == 0 or mtp is None:
        return out.logits, []
    hidden = cap.hidden
    if hidden is None or cap.layer_kwargs is None:
        raise RuntimeError("hooks did not capture the HC state / layer arguments")
    emb_table, head = model.model.embed_tokens, model.lm_head  # shared with the main model (D4)
    outs = []
    for k in range(1, depths + 1):
        hidden, normed = mtp(emb_table(ids[:, k:k + seq]), hidden, cap.layer_kwargs)
        outs.append(head(normed))
    return out.logits, outs


def lr_at(step, frac):
    warm = min(1.0, (step + 1) / WARMUP)
    return PEAK_LR * warm * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def export(model, mtp, cfg, out_dir, state):
    os.makedirs(out_dir, exist_ok=True)
    tensors = {}

    def put(name, v):
        v = v.detach().to("cpu")
        if v.is_floating_point():
            v = v.to(torch.float16 if v.ndim >= 2 else torch.float32)
        tensors[name] = v.contiguous().clone()

    for k, v in model.state_dict().items():
        put(k, v)
    if mtp is not None:  # mtp.0. + HF's names of the layer's modules (ordo convert folds them)
        for k, v in mtp.state_dict().items():
            put("mtp.0." + (k[len("block."):] if k.startswith("block.") else k), v)
    tmp = os.path.join(out_dir, "model.safetensors.partial")
    save_file(tensors, tmp, metadata={"format": "pt"})
    os.replace(tmp, os.path.join(out_dir, "model.safetensors"))
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg.to_dict(), f, indent=1, default=str)
    with open(os.path.join(out_dir, "train_state.json"), "w") as f:
        json.dump(state, f, indent=1)
    log(f"exported {len(tensors)} tensors to {out_dir} (step {state.get('step')})")


def decode(ids):
    s = []
    for t in ids:
        s.append(SPECIAL_TEXT.get(t, chr(t) if 32 <= t < 127 or t in (9, 10) else f"\\x{t:02x}" if t < 256 else f"<{t}>"))
    return "".join(s)


@torch.no_grad()
def greedy(model, prompts, n_new, deadline):
    """Greedy continuations by repeated full forwards (no cache: HF's cached generate is not a
    valid reference, oracles.md §2). prompts: [B, P] tokens."""
    seq = prompts
    for _ in range(n_new):
        if time.time() > deadline:
            break
        nxt = model(input_ids=seq, use_cache=False).logits[:, -1].argmax(-1, keepdim=True)
        seq = torch.cat([seq, nxt], dim=1)
    return seq


@torch.no_grad()
def chain_acceptance(model, mtp, cap, seq, first, depths):
    """Per-depth acceptance of MTP draft chains against seq (the target's greedy path, or text).
    A round at row p (target token t_{p+1} committed, p + 1 >= first) drafts t_{p+2..p+1+depths};
    depth k counts when drafts 1..k-1 matched. Returns (accept[k], accuracy[k], rounds)."""
    n = seq.shape[1] - depths - 1
    _, outs = run_model(model, mtp, cap, seq, n, depths)
    ok_prefix = None
    accept, acc = [], []
    rows = torch.arange(n, device=seq.device) + 1 >= first
    for k in range(1, depths + 1):
        hit = (outs[k - 1].argmax(-1) == seq[:, k + 1:k + 1 + n]) & rows
        prev = rows.expand_as(hit) if ok_prefix is None else ok_prefix
        acc.append(float(hit.sum() / rows.expand_as(hit).sum()))
        both = hit & prev
        accept.append(float(both.sum() / max(1, int(prev.sum()))))
        ok_prefix = both
    return accept, acc, int(rows.expand_as(hit).sum())


def write_ordl(path, tokens, logits):
    """ORDL (src/eval/ordl.hpp): magic, version 1, rows, vocab, token ids, float32 logits."""
    import struct
    n, v = logits.shape
    with open(path, "wb") as f:
        f.write(b"ORDL")
        f.write(struct.pack("<III", 1, n, v))
        f.write(struct.pack(f"<{len(tokens)}i", *tokens))
        f.write(logits.contiguous().to(torch.float32).cpu().numpy().astype("<f4").tobytes())


@torch.no_grad()
def dump_parity(model, mtp, cap, held, out_dir):
    """Reference logits for ordo's parity check of the converted files: the main model over the first
    320 held-out bytes (hf.ordl, row i after token i) and the MTP block's depth-1 drafts over the
    same tokens (hf_mtp.ordl, row p from (t_{p+1}, h_p) at position p+1, predicting t_{p+2}; its
token list is t_1..t_319, each row's input token).
    Full fp32 on the device with the exported values: the matrices are rounded to F16 here as in
    model.safetensors (the evaluation after this runs the shipped weights too)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    for mod in (model, mtp):
        for p in (mod.parameters() if mod is not None else []):
            if p.ndim >= 2:
                p.data.copy_(p.data.half().float())
    model.eval()
    ids = held[:320].long().to(next(model.parameters()).device)[None]
    tokens = ids[0].tolist()
    if mtp is None:
        write_ordl(os.path.join(out_dir, "hf.ordl"), tokens, model(input_ids=ids, use_cache=False).logits[0])
        return
    mtp.eval()
    logits, outs = run_model(model, mtp, cap, ids, 319, 1)
    full = model(input_ids=ids, use_cache=False).logits[0]
    write_ordl(os.path.join(out_dir, "hf.ordl"), tokens, full)
    write_ordl(os.path.join(out_dir, "hf_mtp.ordl"), tokens[1:], outs[0][0])  # row p follows t_{p+1}
    log(f"parity logits written (main {tuple(full.shape)}, MTP depth 1 {tuple(outs[0][0].shape)})")


@torch.no_grad()
def evaluate(model, mtp, cap, held, chat_held, device, deadline):
    torch.backends.cuda.matmul.allow_tf32 = False  # greedy paths must not flip on TF32 rounding
    model.eval()
    if mtp is not None:
        mtp.eval()
    depths = EVAL_DEPTHS if mtp is not None else 0
    res = {}
    gen = torch.Generator().manual_seed(99)
    # Teacher-forced held-out loss (nats per byte token) and MTP per-depth loss / top-1 accuracy.
    n_rows, tot, mtp_tot, mtp_acc, main_acc = 0, 0.0, [0.0] * EVAL_DEPTHS, [0.0] * EVAL_DEPTHS, 0.0
    for _ in range(4):
        ids = windows(held, 16, SEQ + EVAL_DEPTHS + 1, gen, device)
        logits, outs = run_model(model, mtp, cap, ids, SEQ, depths)
        tot += float(F.cross_entropy(logits.reshape(-1, N_VOCAB).float(), ids[:, 1:SEQ + 1].reshape(-1)))
        main_acc += float((logits.argmax(-1) == ids[:, 1:SEQ + 1]).float().mean())
        for k in range(depths):
            tgt = ids[:, k + 2:k + 2 + SEQ]
            mtp_tot[k] += float(F.cross_entropy(outs[k].reshape(-1, N_VOCAB).float(), tgt.reshape(-1)))
            mtp_acc[k] += float((outs[k].argmax(-1) == tgt).float().mean())
        n_rows += 1
    res["heldout_loss_nats_per_byte"] = tot / n_rows
    res["heldout_bits_per_byte"] = tot / n_rows / math.log(2)
    res["heldout_main_top1"] = main_acc / n_rows
    res["heldout_mtp_loss_per_depth"] = [x / n_rows for x in mtp_tot]
    res["heldout_mtp_top1_per_depth"] = [x / n_rows for x in mtp_acc]
    if len(chat_held) > SEQ + 2:
        ids = windows(chat_held, 8, SEQ + 1, gen, device)
        logits = model(input_ids=ids[:, :SEQ], use_cache=False).logits
        res["heldout_chat_loss_nats_per_token"] = float(
            F.cross_entropy(logits.reshape(-1, N_VOCAB).float(), ids[:, 1:].reshape(-1)))
    log("held-out (teacher forced):", json.dumps(res))

    # Acceptance against the target's own greedy path: prompts from held-out text, greedy
    # continuations, then the MTP chains along them.
    prompts = windows(held, 16, 192, gen, device)
    seq = greedy(model, prompts, 160, deadline - 8)
    res["greedy_tokens"] = int(seq.shape[1] - prompts.shape[1])
    if depths and seq.shape[1] > prompts.shape[1] + EVAL_DEPTHS + 8:
        logits = model(input_ids=seq, use_cache=False).logits
        agree = (logits[:, prompts.shape[1] - 1:-1].argmax(-1) == seq[:, prompts.shape[1]:]).float().mean()
        res["greedy_path_self_agreement"] = float(agree)
        acc_g, top1_g, rounds = chain_acceptance(model, mtp, cap, seq, prompts.shape[1], EVAL_DEPTHS)
        res["mtp_acceptance_per_depth_greedy"] = acc_g
        res["mtp_top1_per_depth_greedy"] = top1_g
        res["mtp_rounds_greedy"] = rounds
        # Expected tokens per speculative round at width w (1 + sum of prefix products).
        exp, run = [], 1.0
        for a in acc_g:
            run *= a
            exp.append((exp[-1] if exp else 1.0) + run)
        res["expected_tokens_per_round_width_1_to_5"] = exp
        res["greedy_sample_0"] = decode(seq[0, prompts.shape[1]:].tolist())
    if depths:
        held_seq = windows(held, 16, 384, gen, device)
        acc_t, _, _ = chain_acceptance(model, mtp, cap, held_seq, 1, EVAL_DEPTHS)
        res["mtp_acceptance_per_depth_heldout_text"] = acc_t
    log("acceptance:", json.dumps({k: v for k, v in res.items() if "accept" in k or "expected" in k}))
    # Chat samples as `ordo generate` renders them (no system prompt, non-thinking).
    samples = {}
    for q in ("Hello! Who are you?", "What does ls do?", "What is the GPL license?"):
        if time.time() > deadline - 3:
            break
        ids = torch.tensor([[BOS, USER] + list(q.encode()) + [ASSISTANT, THINK_CLOSE]], device=device)
        out = greedy(model, ids, 160, deadline - 3)[0, ids.shape[1]:].tolist()
        if EOS in out:
            out = out[:out.index(EOS) + 1]
        samples[q] = decode(out)
        log(f"sample {q!r} -> {samples[q]!r}")
    res["chat_samples"] = samples
    model.train()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=T_START + 180)
    a = ap.parse_args()
    deadline = a.deadline
    train_end = deadline - 32  # export + evaluation after it
    device = "cuda" if torch.cuda.is_available() else "cpu"
    log(f"torch {torch.__version__}, transformers {transformers.__version__}, device {device}"
        + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else "")
        + f", {deadline - time.time():.0f} s left")
    torch.manual_seed(1234)
    gen = torch.Generator().manual_seed(1234)
    torch.backends.cuda.matmul.allow_tf32 = False

    train, held, chat_train, chat_held = load_corpus(a.data)
    cfg = make_config()
    model = DeepseekV4ForCausalLM(cfg).float()
    init_weights(model, gen)
    model.to(device).train()
    n_main = sum(p.numel() for p in model.parameters())
    log(f"parameters: main {n_main}; layer types {cfg.layer_types}, mlp {cfg.mlp_layer_types}")
    state = {"step": 0, "tokens": 0, "train_seconds": 0.0, "losses": [], "mtp_enabled": True,
             "torch": torch.__version__, "transformers": transformers.__version__}
    use_mtp = True
    # Self-check: the MTP block builds, the hooks see the HC state and the layer arguments, the
    # MTP block runs, and nothing sees the future.
    try:
        mtp = MTPBlock(cfg).float()
        init_weights(mtp, gen)
        mtp.to(device).train()
        log(f"parameters: MTP block {sum(p.numel() for p in mtp.parameters())}")
        cap = Capture(model)
        ids = windows(train, 2, 64 + MTP_DEPTHS + 1, gen, device)
        with torch.no_grad():
            logits, outs = run_model(model, mtp, cap, ids, 64, MTP_DEPTHS)
        if outs[0].shape != logits.shape:
            raise RuntimeError(f"MTP logits {tuple(outs[0].shape)} differ from the main logits {tuple(logits.shape)}")
        log(f"self-check: hidden {tuple(cap.hidden.shape)}, logits {tuple(logits.shape)}, "
            f"mtp logits {tuple(outs[0].shape)}, layer args {len(cap.layer_kwargs[0])} positional, "
            f"keywords {sorted(cap.layer_kwargs[1])}")
        # Causality: tokens from 40 on must not move the main logits of rows < 40, nor MTP depth
        # k's rows < 40 - k (they read tokens up to p + k).
        ids2 = ids.clone()
        ids2[:, 40:] = torch.randint(0, 256, ids2[:, 40:].shape, device=device)
        with torch.no_grad():
            logits2, outs2 = run_model(model, mtp, cap, ids2, 64, MTP_DEPTHS)
        leak = [float((logits2[:, :40] - logits[:, :40]).abs().max())]
        leak += [float((o2[:, :40 - k - 1] - o[:, :40 - k - 1]).abs().max()) for k, (o, o2) in enumerate(zip(outs, outs2))]
        log(f"self-check: causality (max |change| of earlier logits, main then MTP depths) {leak}"
            + ("" if max(leak) < 1e-4 else "  <-- NOT CAUSAL"))
    except Exception:
        log("self-check FAILED; training the main model without MTP:\n" + traceback.format_exc())
        use_mtp = False
        state["mtp_enabled"] = False
        for h in (cap.handles if "cap" in locals() else []):
            h.remove()
        mtp, cap = None, Capture()
    router_cls = getattr(hfm, "DeepseekV4TopKRouter", None)
    routers = [m for m in list(model.modules()) + (list(mtp.modules()) if mtp is not None else [])
               if router_cls is not None and isinstance(m, router_cls) and hasattr(m, "e_score_correction_bias")]
    for r in routers:
        cap.hook_router(r)
    log(f"top-k routers balanced by selection bias: {len(routers)}")

    params = [p for p in model.parameters()] + ([p for p in mtp.parameters()] if use_mtp else [])
    opt = torch.optim.AdamW(params, lr=PEAK_LR, betas=(0.9, 0.95), weight_decay=0.05, eps=1e-8)
    torch.backends.cuda.matmul.allow_tf32 = True  # training only; the checks and evaluation run full fp32
    t_train0 = time.time()
    budget = max(1.0, train_end - t_train0)
    log(f"training for {budget:.0f} s: batch {BATCH} x {SEQ} (+{MTP_DEPTHS} MTP depths), peak lr {PEAK_LR}")
    last_ckpt = time.time()
    step, nan_streak, lr_scale = 0, 0, 1.0
    good = None
    ema = None
    while time.time() < train_end:
        try:
            frac = (time.time() - t_train0) / budget
            lr = lr_at(step, frac) * lr_scale
            for g in opt.param_groups:
                g["lr"] = lr
            depths = MTP_DEPTHS if use_mtp else 0
            L = SEQ + MTP_DEPTHS + 1
            ids = torch.cat([windows(train, BATCH - CHAT_ROWS, L, gen, device),
                             windows(chat_train, CHAT_ROWS, L, gen, device)])
            cap.selections.clear()
            logits, outs = run_model(model, mtp, cap, ids, SEQ, depths)
            main_loss = F.cross_entropy(logits.reshape(-1, N_VOCAB).float(), ids[:, 1:SEQ + 1].reshape(-1))
            loss = main_loss
            mtp_losses = []
            for k, o in enumerate(outs):
                lk = F.cross_entropy(o.reshape(-1, N_VOCAB).float(), ids[:, k + 2:k + 2 + SEQ].reshape(-1))
                mtp_losses.append(lk)
                loss = loss + MTP_WEIGHTS[k] * lk
            if not torch.isfinite(loss):
                nan_streak += 1
                opt.zero_grad(set_to_none=True)
                log(f"step {step}: non-finite loss, skipped ({nan_streak} in a row)")
                if nan_streak >= 5 and good is not None:
                    model.load_state_dict(good[0])
                    if mtp is not None:
                        mtp.load_state_dict(good[1])
                    lr_scale *= 0.5
                    nan_streak = 0
                    log(f"restored the last good weights, lr scale {lr_scale}")
                step += 1
                continue
            nan_streak = 0
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            with torch.no_grad():  # DeepSeek's aux-loss-free balancing of the top-k routers
                for mod, sel in cap.selections:
                    counts = torch.bincount(sel.reshape(-1), minlength=mod.e_score_correction_bias.numel()).float()
                    mod.e_score_correction_bias += BIAS_RATE * torch.sign(counts.mean() - counts)
            step += 1
            state["tokens"] += BATCH * SEQ
            cur = [float(main_loss)] + [float(x) for x in mtp_losses]
            ema = cur if ema is None else [0.9 * e + 0.1 * c for e, c in zip(ema, cur)]
            if step % 25 == 0 or step <= 3:
                el = time.time() - t_train0
                log(f"step {step} lr {lr:.2e} loss {cur[0]:.3f} (ema {ema[0]:.3f}) mtp "
                    + " ".join(f"{x:.3f}" for x in ema[1:]) + f" gnorm {float(gnorm):.2f} "
                    f"{state['tokens'] / el:.0f} tok/s")
                state["losses"].append([step, round(el, 1)] + [round(x, 4) for x in ema])
            if step % 200 == 0:
                good = ({k: v.detach().clone() for k, v in model.state_dict().items()},
                        {k: v.detach().clone() for k, v in mtp.state_dict().items()} if mtp is not None else None)
            if time.time() - last_ckpt > CKPT_EVERY:
                state.update(step=step, train_seconds=time.time() - t_train0, train_loss_ema=ema)
                export(model, mtp if use_mtp else None, cfg, a.out, state)
                last_ckpt = time.time()
        except Exception:
            state["error"] = traceback.format_exc()[-2000:]
            opt.zero_grad(set_to_none=True)
            if use_mtp:  # keep training the main model rather than nothing
                log(f"step {step} failed with the MTP block; continuing without it:\n" + traceback.format_exc())
                use_mtp, mtp = False, None
                state["mtp_enabled"] = False
                continue
            log("training stopped by an error (exporting what trained):\n" + traceback.format_exc())
            break
    state.update(step=step, train_seconds=time.time() - t_train0, train_loss_ema=ema)
    export(model, mtp if use_mtp else None, cfg, a.out, state)
    try:
        dump_parity(model, mtp, cap, held, a.out)
    except Exception:
        log("parity logits failed:\n" + traceback.format_exc())

    try:
        res = evaluate(model, mtp, cap, held, chat_held, device, deadline)
    except Exception:
        log("evaluation failed:\n" + traceback.format_exc())
        res = {"error": traceback.format_exc()[-2000:]}
    res["train"] = {k: state[k] for k in ("step", "tokens", "train_seconds", "train_loss_ema", "mtp_enabled")}
    with open(os.path.join(a.out, "eval.json"), "w") as f:
        json.dump(res, f, indent=1)
    log("SUMMARY tiny: steps {} ({:.0f} s, {} tokens), train loss ema {}, held-out {:.3f} nats/byte "
        "({:.3f} bits/byte), MTP acceptance per depth (greedy path) {}".format(
            state["step"], state["train_seconds"], state["tokens"],
            [round(x, 3) for x in (ema or [])], res.get("heldout_loss_nats_per_byte", float("nan")),
            res.get("heldout_bits_per_byte", float("nan")),
            [round(x, 3) for x in res.get("mtp_acceptance_per_depth_greedy", [])]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
