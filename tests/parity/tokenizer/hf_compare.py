#!/usr/bin/env python3
"""Compares HF `tokenizers` (Rust; what DeepSeek's own Python stack uses) with given ids.

Not a CI test (CI has no `tokenizers`); a diagnostic for machines that have it (the device image
has transformers). The ids file has one JSON object per corpus line with a "special" id list:
the JS oracle's (oracle_encode.js) or ordo's. Measured 2026-11-29: JS vs Rust 1066/1084 identical
(all differences at U+0085/U+FEFF, the regex \\s class); ordo with regex_whitespace::unicode vs
Rust 1084/1084.
    node oracle_encode.js <pkg> corpus.jsonl > js.jsonl
    python3 hf_compare.py tokenizer.json corpus.jsonl js.jsonl
"""
import json
import sys

from tokenizers import Tokenizer


def main():
    tok_path, corpus_path, js_path = sys.argv[1:4]
    tok = Tokenizer.from_file(tok_path)
    corpus = [json.loads(l) for l in open(corpus_path, encoding="utf-8") if l.strip()]
    js = [json.loads(l) for l in open(js_path, encoding="utf-8") if l.strip()]
    assert len(corpus) == len(js), (len(corpus), len(js))
    diff = 0
    for i, (text, want) in enumerate(zip(corpus, js)):
        got = tok.encode(text, add_special_tokens=False).ids
        if got != want["special"]:
            diff += 1
            if diff <= 30:
                print(f"line {i + 1} {json.dumps(text, ensure_ascii=True)}\n  js {want['special']}\n  hf {got}")
    print(f"{len(corpus) - diff}/{len(corpus)} strings identical between HF tokenizers (Rust) and {js_path}")
    # Whitespace probes: characters where ECMAScript \s and Unicode White_Space disagree.
    for probe in ["a\u0085b", "a \u0085b", "x\u0085\u0085 y", "a\ufeffb", "a \ufeff b", "a\u180eb", "a\u200bb"]:
        ids = tok.encode(probe, add_special_tokens=False).ids
        pieces = tok.pre_tokenizer.pre_tokenize_str(probe)
        print(f"probe {json.dumps(probe)}: ids {ids} pieces {[p for p, _ in pieces]}")


if __name__ == "__main__":
    main()
