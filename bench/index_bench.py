"""Reasoning index benchmark: full build of 10,000 notes, incremental rebuilds, markdown-it comparison.

Each measurement runs in a fresh subprocess so peak RSS (getrusage, self + forked workers)
belongs to that build alone. Figures: notes/s and MB/s of the full build (`kh index build`'s
service with one parser process per core), incremental rebuild after touching 1 and 100 notes
(cold: a new process that loads the previous build from disk; warm: the same process, as in
the sidecar), and structure-parsing throughput of our scanner vs markdown-it-py on a sample.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

N_NOTES = 10_000
SAMPLE_BYTES = 3_000_000
FULL_RUNS = 3  # the full build is timed on this many fresh copies; the median is reported

_CHILD = r"""
import json, resource, sys, time, random
from pathlib import Path
from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault, list_note_files

mode, root, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
vault = Vault.open(root)
out = {}

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

def touch(n, seed):
    files = list_note_files(vault)
    rng = random.Random(seed)
    for nf in rng.sample(files, n):
        with open(nf.disk_path, "a", encoding="utf-8") as fh:
            fh.write(f"\nedited {seed}\n")

if mode == "full":
    c = cpu(); t = time.perf_counter(); r = build_index(vault, full=True, workers=0); out["seconds"] = time.perf_counter() - t
    out["cpu_seconds"] = cpu() - c
    out["notes"] = r.notes
elif mode == "cold":
    touch(count, 1000 + count)
    t = time.perf_counter(); r = build_index(vault, workers=0); out["seconds"] = time.perf_counter() - t
    out["reparsed"] = r.reparsed
elif mode == "warm":
    build_index(vault, workers=0)
    touch(count, 2000 + count)
    t = time.perf_counter(); r = build_index(vault, workers=0); out["seconds"] = time.perf_counter() - t
    out["reparsed"] = r.reparsed
kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kb_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
out["peak_rss_mb"] = max(kb, kb_children) / 1024
print(json.dumps(out))
"""

_COMPARE = r"""
import json, sys, time
from pathlib import Path
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from knowledge_harness.index.parse import decode_text, parse_structure

root, limit = Path(sys.argv[1]), int(sys.argv[2])
texts, total = [], 0
for p in sorted(root.rglob("*.md")):
    if ".harness" in p.parts:
        continue
    raw = p.read_bytes()
    texts.append(decode_text(raw)); total += len(raw)
    if total >= limit:
        break
md = MarkdownIt("commonmark").use(front_matter_plugin)
t = time.perf_counter(); [md.parse(x) for x in texts]; mdit = time.perf_counter() - t
t = time.perf_counter(); s = [parse_structure(x) for x in texts]; ours = time.perf_counter() - t
fallback = sum(1 for x in s if x.scanner != "scan")
print(json.dumps({"bytes": total, "mdit_seconds": mdit, "ours_seconds": ours, "notes": len(texts), "fallback": fallback}))
"""


def _child(code: str, *args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def run() -> dict[str, Any]:
    from bench.make_vault import make_vault

    with tempfile.TemporaryDirectory(prefix="kh-index-bench-") as tmp:
        root = Path(tmp) / "vault"
        make_vault(root, N_NOTES, seed=0)
        total = sum(p.stat().st_size for p in root.rglob("*.md"))
        # Fresh copies, all made before any build: on ext4, creating files soon after many were
        # deleted is several times slower (the inode allocator skips recently freed inodes), and
        # the generator's dirty pages are flushed first so the builds do not pay for them.
        copies = [root] + [Path(tmp) / f"copy{i}" for i in range(1, FULL_RUNS)]
        for copy in copies[1:]:
            shutil.copytree(root, copy)
        os.sync()
        fulls = sorted((_child(_CHILD, "full", str(copy), "0") for copy in copies), key=lambda r: r["seconds"])
        full = fulls[len(fulls) // 2]
        cold1 = _child(_CHILD, "cold", str(root), "1")
        cold100 = _child(_CHILD, "cold", str(root), "100")
        warm1 = _child(_CHILD, "warm", str(root), "1")
        warm100 = _child(_CHILD, "warm", str(root), "100")
        cmp = _child(_COMPARE, str(root), str(SAMPLE_BYTES))
    mb = total / 1e6
    figures = [
        {"name": "vault size", "value": round(mb, 1), "unit": f"MB in {N_NOTES} notes"},
        {
            "name": f"full build (median of {FULL_RUNS} fresh copies)",
            "value": round(full["seconds"], 2),
            "unit": "s (runs: " + ", ".join(f"{r['seconds']:.2f}" for r in fulls) + ")",
        },
        {"name": "full build throughput", "value": round(mb / full["seconds"], 1), "unit": "MB/s", "target": ">= 30"},
        {"name": "full build notes/s", "value": round(N_NOTES / full["seconds"]), "unit": "notes/s"},
        {"name": "full build CPU time, all processes", "value": round(full["cpu_seconds"], 2), "unit": "s"},
        {"name": "full build peak RSS", "value": round(full["peak_rss_mb"]), "unit": "MB", "target": "<= 300"},
        {
            "name": "incremental, 1 note touched (warm, in-process)",
            "value": round(warm1["seconds"] * 1000),
            "unit": "ms",
            "target": "<= 100",
        },
        {"name": "incremental, 100 notes touched (warm)", "value": round(warm100["seconds"] * 1000), "unit": "ms"},
        {
            "name": "incremental, 1 note touched (cold, new process)",
            "value": round(cold1["seconds"] * 1000),
            "unit": "ms",
        },
        {"name": "incremental, 100 notes touched (cold)", "value": round(cold100["seconds"] * 1000), "unit": "ms"},
        {
            "name": "structure parse: our scanner",
            "value": round(cmp["bytes"] / 1e6 / cmp["ours_seconds"], 1),
            "unit": "MB/s",
        },
        {
            "name": "structure parse: markdown-it-py full parse, same bytes",
            "value": round(cmp["bytes"] / 1e6 / cmp["mdit_seconds"], 2),
            "unit": "MB/s",
        },
    ]
    return {
        "title": "Reasoning index (seed 003)",
        "command": "make bench  (python -m bench index_bench)",
        "figures": figures,
        "notes": (
            f"bench/make_vault.py, seed 0. Full build: `build_index(full=True, workers=0)`, the parent and one "
            f"helper process per extra core parsing. Scanner fell back to "
            f"markdown-it on {cmp['fallback']} of {cmp['notes']} sampled notes. Comparison sample: "
            f"{cmp['bytes'] / 1e6:.1f} MB."
        ),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
