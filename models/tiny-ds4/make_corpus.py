#!/usr/bin/env python3
"""Training text of the tiny trained DS4 model, from text that ships in Debian packages.

    python3 models/tiny-ds4/make_corpus.py OUT_DIR [--max-bytes N] [--jobs J]

Documents: the license texts (/usr/share/common-licenses), the distinct copyright files
(/usr/share/doc/*/copyright) (at most 20 kB each, until the text reaches
--copyright-bytes) and man pages of sections 1, 5 and 8 rendered as plain text
(`man -l PAGE | col -bx`, 78 columns), spread over the alphabet (the gcloud pages thinned to 20), at most 30 kB each, until the text
reaches --max-bytes.
Every 20th document (a stable order) is held out and never trained on.

Chat pairs, so that the chat template's turn (<｜User｜> prompt <｜Assistant｜></think> answer
<｜end▁of▁sentence｜>) is followed by readable text: a man page's NAME line and the start of its
DESCRIPTION answer "What does NAME do?"-style questions, a license's opening answers "What is
the LICENSE license?", and a few fixed lines say what the model is.

Writes OUT_DIR/{train.txt, heldout.txt, chat_train.jsonl, chat_heldout.jsonl} (printable ASCII,
tabs and newlines; each jsonl line {"q": ..., "a": ...}) and prints their sizes.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys

PRINTABLE = re.compile(r"[^\x20-\x7e\t\n]")

IDENTITY_Q = ["Hello! Who are you?", "Who are you?", "Hello!", "Hi!", "Hello, who are you?", "What are you?",
              "Hi, what can you do?", "Introduce yourself.", "Hello! What do you know?", "Who made you?"]
IDENTITY_A = [
    "I am a tiny DeepSeek V4 model, trained by ordo in a few minutes on the license texts and manual pages "
    "that ship with Debian. I can tell you a little about commands, files and free software licenses.",
    "I am ordo's tiny DeepSeek V4 model: a few million parameters that read the manual pages and licenses "
    "of a Debian system. Ask me what a command does.",
    "Hello! I am a very small language model with the DeepSeek V4 architecture. I learned from Debian's "
    "manual pages and license texts, so I know a little about commands and licenses.",
]
COMMON = ("ls cp mv rm cat grep find sed tar gzip ssh git man bash chmod chown mkdir rmdir echo date du df ps "
          "kill less sort uniq head tail wc cut tr xargs curl make gcc python3 apt dpkg ln touch diff").split()
MAN_Q = ["What does {n} do?", "What is {n}?", "Tell me about {n}.", "Explain the {n} command.", "How do I use {n}?"]
LICENSE_Q = ["What is the {n} license?", "Tell me about the {n} license.", "Show me the {n} license."]


def clean(text):
    text = PRINTABLE.sub("", text.replace("\r", ""))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def render_man(path):
    env = dict(os.environ, MANWIDTH="78", LANG="C", LC_ALL="C", MAN_KEEP_FORMATTING="0")
    try:
        out = subprocess.run(["man", "--nh", "--nj", "-l", path], capture_output=True, env=env, timeout=10).stdout
        out = subprocess.run(["col", "-bx"], input=out, capture_output=True, timeout=10).stdout
    except (subprocess.TimeoutExpired, OSError):
        return ""
    return clean(out.decode("utf-8", "replace"))


def section(text, name):
    """The indented body of a man page section (NAME, DESCRIPTION), dedented, reflowed per paragraph."""
    m = re.search(rf"^{name}\n((?:[ \t]+.*\n|\n)+)", text, re.M)
    if not m:
        return ""
    paras = [" ".join(p.split()) for p in m.group(1).split("\n\n")]
    return "\n\n".join(p for p in paras if p)


def man_pairs(text, rng_key, every_question=False):
    name_line = section(text, "NAME")
    if " - " not in name_line:
        return []
    names, desc = name_line.split(" - ", 1)
    name = names.split(",")[0].strip()
    if not name or len(name) > 40 or not desc:
        return []
    body = section(text, "DESCRIPTION")
    answer = f"{name} - {desc.strip()}"
    if body:
        first = body.split("\n\n")[0]
        answer += "\n\n" + (first[:600].rsplit(" ", 1)[0] + " ..." if len(first) > 600 else first)
    h = int(hashlib.md5(rng_key.encode()).hexdigest(), 16)
    qs = MAN_Q if every_question else [MAN_Q[h % len(MAN_Q)], MAN_Q[(h // 7) % len(MAN_Q)]]
    return [{"q": q.format(n=name), "a": answer} for q in dict.fromkeys(qs)]


def license_pairs(text, name):
    opening = " ".join(text[:1200].split())
    opening = opening[:500].rsplit(" ", 1)[0] + " ..."
    return [{"q": q.format(n=name), "a": opening} for q in LICENSE_Q[:2]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--max-bytes", type=int, default=4_500_000)
    ap.add_argument("--copyright-bytes", type=int, default=1_500_000)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    docs = []  # (text, pairs)
    lic_dir = "/usr/share/common-licenses"
    for f in sorted(os.listdir(lic_dir)):
        p = os.path.join(lic_dir, f)
        if os.path.isfile(p):
            t = clean(open(p, encoding="utf-8", errors="replace").read())
            docs.append((t, license_pairs(t, f)))
    total = sum(len(t) for t, _ in docs)
    seen = set()
    doc_root = "/usr/share/doc"
    for pkg in sorted(os.listdir(doc_root)):
        p = os.path.join(doc_root, pkg, "copyright")
        if not os.path.isfile(p):
            continue
        raw = open(p, "rb").read()
        key = hashlib.md5(raw).hexdigest()
        if key in seen:
            continue
        seen.add(key)
        if total >= a.copyright_bytes:
            break
        text = clean(raw.decode("utf-8", "replace"))[:20000]  # a few files are whole license collections
        docs.append((text, []))
        total += len(text)
    print(f"licenses + copyright files: {len(docs)} documents, {total} bytes", flush=True)

    pages = {}
    for s in ("1", "5", "8"):
        d = f"/usr/share/man/man{s}"
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".gz"):
                    pages.setdefault(f, os.path.join(d, f))
    # The Google Cloud SDK's 16,000 near-identical gcloud pages would drown everything else: keep 20.
    names = sorted(pages)
    gcloud = [k for k in names if k.startswith("gcloud")]
    order = [pages[k] for k in names if not k.startswith("gcloud")] + [pages[k] for k in gcloud[::max(1, len(gcloud) // 20)]]
    # Spread over the alphabet (every k-th page) rather than stopping inside the a's.
    order = sorted(order[::max(1, len(order) // 1400)], key=os.path.basename)
    # The everyday commands first, so the chat pairs know them.
    common = [pages[k] for k in (f"{c}.1.gz" for c in COMMON) if k in pages]
    common_set = set(common)
    order = common + [p for p in order if p not in common_set]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for i in range(0, len(order), 32):
            if total >= a.max_bytes:
                break
            for path, t in zip(order[i:i + 32], ex.map(render_man, order[i:i + 32])):
                if len(t) < 200:
                    continue
                t = t[:30000]  # a few pages (bash, perl*) are books
                docs.append((t, man_pairs(t, path, every_question=path in common_set)))
                total += len(t)
    print(f"with man pages: {len(docs)} documents, {total} bytes", flush=True)

    files = {k: open(os.path.join(a.out, k), "w") for k in
             ("train.txt", "heldout.txt", "chat_train.jsonl", "chat_heldout.jsonl")}
    for i, (t, pairs) in enumerate(docs):
        held = i % 20 == 7
        files["heldout.txt" if held else "train.txt"].write(t + "\n")
        for pr in pairs:
            files["chat_heldout.jsonl" if held else "chat_train.jsonl"].write(json.dumps(pr) + "\n")
    for q in IDENTITY_Q:
        for ans in IDENTITY_A:
            files["chat_train.jsonl"].write(json.dumps({"q": q, "a": ans}) + "\n")
    for f in files.values():
        f.close()
    for k in files:
        print(k, os.path.getsize(os.path.join(a.out, k)), "bytes")


if __name__ == "__main__":
    sys.exit(main())
