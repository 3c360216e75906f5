#!/usr/bin/env python3
"""The 8,000 most frequent words (lowercase alphabetic runs) of the training text, one per line:
the vocabulary tests/e2e/tiny_model checks the model's answers against.

    python3 models/tiny-ds4/words.py CORPUS_DIR/train.txt > models/tiny-ds4/words.txt
"""
import collections
import re
import sys

counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]+", open(sys.argv[1], errors="replace").read()))
for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8000]:
    print(w)
