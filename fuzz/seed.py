#!/usr/bin/env python3
"""Writes the starting corpus of every fuzz target from ../tests/corpus into corpus/<target>/.

data_form: each case's form; reader: the same, indented; answer: "name\\nresponse" for every response of every case;
typed: the same for the three derived cases; structured, mcp_edge and asks_model: fixed
pseudo-random byte strings (the two deep targets draw their frames and operations from them).
Run once, fuzz, then minimize with `cargo +nightly fuzz cmin TARGET`.
"""
import hashlib, json, os, random, sys

here = os.path.dirname(os.path.abspath(__file__))
cases_dir = os.path.join(here, "..", "tests", "corpus")
typed = {"derived-report-setup", "derived-all-kinds", "derived-answers-setup"}

def put(target, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

compact = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode()
for file in sorted(os.listdir(cases_dir)):
    if not file.endswith(".json"):
        continue
    case = json.load(open(os.path.join(cases_dir, file), encoding="utf-8"))
    put("data_form", compact(case["form"]))
    put("reader", json.dumps(case["form"], ensure_ascii=False, indent=1).encode())
    for r in case["responses"]:
        line = case["name"].encode() + b"\n" + compact(r["response"])
        put("answer", line)
        if case["name"] in typed:
            put("typed", line)
rng = random.Random(7)
for i in range(64):
    put("structured", bytes(rng.randrange(256) for _ in range(rng.choice([16, 64, 256, 1024, 4096]))))
for target, seed in (("mcp_edge", 11), ("asks_model", 13)):
    rng = random.Random(seed)
    for i in range(32):
        put(target, bytes(rng.randrange(256) for _ in range(rng.choice([32, 96, 256, 512]))))
