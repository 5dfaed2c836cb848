"""Reasoning index benchmark: full build of 10,000 realistic notes, incremental rebuilds,
PageIndex and markdown-it comparisons, and the same full-build figures on a real vault.

Each measurement runs in a fresh subprocess so peak RSS (getrusage, self + forked workers)
belongs to that build alone. Figures: notes/s and MB/s of the full build (`kh index build`'s
service with one parser process per core) and the share of notes the scanner left to
markdown-it (fallback), incremental rebuilds after editing 1 and 100 notes (warm: in the
process that built before, as in the sidecar; `kh index build` as a new process, start-up
included, with its CPU time; the one-shot path alone; a new process after an edit that adds a link to a
note, and to an index note), the peak RSS of each, PageIndex 0.4.7's Markdown mode (no LLM, one JSON per note, one process) on the same files,
and structure-parsing throughput of our scanner vs markdown-it-py on a sample; on real notes, a
10,000-note vault of copies of the developer docs (links rewritten per copy): full build and
`kh index build` after a one-line edit; and a vault of notes with long Japanese aliases, titles and
descriptions (make_long_alias_vault): full build beside PageIndex, its throughput against the
generated vault's, and the slowest note's parse; a heading bomb (a 19.9 MB note of 1.5 M
headings, make_heading_bomb): peak RSS of its build and the RSS left after it.

The generated vault is bench/make_vault.py's with `realistic=True`. The real vault is
KH_BENCH_VAULT=DIR, else ../shared/retrieval-dev beside the repository when it exists (the
Obsidian developer docs and help vaults, read in place and copied to a temporary folder for
the build); without either the real-vault figures are skipped. PageIndex is installed with pip
into bench/out/pageindex-venv (a throwaway venv, reused); when that fails, the comparison is
markdown-it-py's block parse writing one JSON per note, and the figures say so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
N_NOTES = 10_000
PAGEINDEX = "pageindex==0.4.7"
PAGEINDEX_VENV = REPO / "bench" / "out" / "pageindex-venv"
SAMPLE_BYTES = 3_000_000
FULL_RUNS = 5  # fresh copies, each built by us and by PageIndex in turn; the medians are reported
CLI_RUNS = 7  # `kh index build` after an edit, each run editing other notes; the median is reported
WARM_RUNS = 5
SETTLE_SECONDS = 3.5  # the walk keeps a folder's listing once its ctime is 3 s old (WalkMemory.settle_ns)

_CHILD = r"""
import json, resource, sys, time, random
from pathlib import Path
from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault, list_note_files

mode, root, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
run = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # repeated runs edit other notes
vault = Vault.open(root)
out = {}

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

def touch(n, seed, link=None):
    files = list_note_files(vault)
    rng = random.Random(seed)
    if link is not None:  # link to a note that is (True) or is not (False) an index note
        entries = json.loads((root / ".harness/index/manifest.json").read_bytes())["notes"]
        targets = sorted(e["path"] for e in entries if e["index_note"] == link)
    for nf in rng.sample(files, n):
        # link: a link to another note, which changes the link graph (backlinks; categories when to an index note)
        line = f"[[{rng.choice(targets)[:-3]}]]" if link is not None else f"edited {seed}"
        with open(nf.disk_path, "a", encoding="utf-8") as fh:
            fh.write(f"\n{line}\n")

if mode in ("full", "full_one_process"):  # kh index build --full; the sidecar's full build parses in its own process
    workers = 0 if mode == "full" else 1
    c = cpu(); t = time.perf_counter(); r = build_index(vault, full=True, workers=workers); out["seconds"] = time.perf_counter() - t
    out["cpu_seconds"] = cpu() - c
    out["notes"] = r.notes
    out["fallback_notes"] = r.fallback_notes
elif mode == "cold":  # a new process, as `kh index build` runs it
    touch(count, 1000 + count)
    t = time.perf_counter(); r = build_index(vault, workers=0, resident=False); out["seconds"] = time.perf_counter() - t
    out["reparsed"] = r.reparsed
elif mode in ("cold_links", "cold_links_index"):  # a new process after an edit that adds a link
    touch(count, 3000 + count, link=mode == "cold_links_index")
    t = time.perf_counter(); r = build_index(vault, workers=0, resident=False); out["seconds"] = time.perf_counter() - t
    out["reparsed"] = r.reparsed
elif mode == "cli":  # `kh index build` itself, start-up included, after a one-line edit
    import subprocess
    touch(count, 4000 + 1000 * run + count)
    kh = str(Path(sys.executable).with_name("kh"))
    c = cpu(); t = time.perf_counter(); subprocess.run([kh, "index", "build", str(root)], check=True, capture_output=True)
    out["seconds"] = time.perf_counter() - t
    out["cpu_seconds"] = cpu() - c
    kb_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out["peak_rss_mb"] = kb_children / 1024  # the kh process alone
    print(json.dumps(out))
    sys.exit(0)
elif mode == "warm":
    from knowledge_harness.index.build_state import BuildMemory
    memory = BuildMemory()  # the sidecar's: the second build starts from the first's state
    build_index(vault, workers=0, memory=memory)
    touch(count, 2000 + 1000 * run + count)
    c = cpu(); t = time.perf_counter(); r = build_index(vault, workers=0, memory=memory); out["seconds"] = time.perf_counter() - t
    out["cpu_seconds"] = cpu() - c
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


# PageIndex's Markdown mode as a user runs it without an LLM: md_to_tree per note, its JSON
# written beside; or, when PageIndex cannot be installed, markdown-it's block parse per note
_PAGEINDEX = r"""
import asyncio, contextlib, io, json, resource, sys, time
from pathlib import Path
root, out, kind = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
files = sorted(p for p in root.rglob("*.md") if ".harness" not in p.parts)
out.mkdir(parents=True, exist_ok=True)
if kind == "pageindex":
    from pageindex.page_index_md import md_to_tree
    def tree(p):
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
            return asyncio.run(md_to_tree(str(p), if_add_node_summary="no", if_add_node_text="no"))
else:
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    def tree(p):
        tokens = md.parse(p.read_text(encoding="utf-8", errors="replace"))
        return [[t.tag, t.map, t.content] for t in tokens if t.type in ("heading_open", "inline")]
t, c = time.perf_counter(), cpu()
errors = 0
for i, p in enumerate(files):
    try:
        result = tree(p)
    except Exception:
        errors += 1
        continue
    (out / f"{i:06}.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
print(json.dumps({"seconds": time.perf_counter() - t, "cpu_seconds": cpu() - c, "notes": len(files), "errors": errors}))
"""


def _child(code: str, *args: str, python: str = sys.executable) -> dict[str, Any]:
    proc = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _runs(mode: str, root: Path, count: int, runs: int) -> tuple[dict[str, Any], str]:
    """The median run (by wall time) of `runs` children, and every run's milliseconds."""
    results = sorted(
        (_child(_CHILD, mode, str(root), str(count), str(i)) for i in range(runs)), key=lambda r: r["seconds"]
    )
    return results[len(results) // 2], ", ".join(str(round(r["seconds"] * 1000)) for r in results)


def _edit_figures(label: str, root: Path, full: dict[str, Any]) -> list[dict[str, Any]]:
    """A note or 100 notes edited after the full build `full` of `root`: rebuilt warm in the
    sidecar's process, and by `kh index build` as a new process (start-up included)."""
    os.sync()  # the full build's 40 MB written out first: the edits are timed, not that writeback
    cli1, cli1_runs = _runs("cli", root, 1, CLI_RUNS)
    cli100, cli100_runs = _runs("cli", root, 100, CLI_RUNS)
    warm1, warm1_runs = _runs("warm", root, 1, WARM_RUNS)
    warm100, warm100_runs = _runs("warm", root, 100, WARM_RUNS)

    def timed(run: dict[str, Any], runs: str) -> str:
        cpu_ms = round(run["cpu_seconds"] * 1000)
        return f"ms (runs: {runs}; CPU {cpu_ms} ms), peak RSS {round(run['peak_rss_mb'])} MB"

    return [
        {
            "name": f"{label}incremental, 1 note touched (warm, in the sidecar's process; median of {WARM_RUNS})",
            "value": round(warm1["seconds"] * 1000),
            "unit": timed(warm1, warm1_runs),
            "target": "<= 100 ms, <= 300 MB",
        },
        {
            "name": f"{label}incremental, 100 notes touched (warm; median of {WARM_RUNS})",
            "value": round(warm100["seconds"] * 1000),
            "unit": timed(warm100, warm100_runs),
            "target": "<= 300 MB",
        },
        {
            "name": f"{label}`kh index build` after a one-line edit (new process, start-up included; median of {CLI_RUNS})",
            "value": round(cli1["seconds"] * 1000),
            "unit": timed(cli1, cli1_runs),
            "target": f"<= {round(full['seconds'] * 100)} ms (10 % of the full build), <= 300 MB",
        },
        {
            "name": f"{label}`kh index build` after a one-line edit: CPU time / the full build's CPU time",
            "value": round(100 * cli1["cpu_seconds"] / full["cpu_seconds"], 1),
            "unit": "% (both measured in the same run; wall clock swings with the machine's other load)",
            "target": "<= 10 %",
        },
        {
            "name": f"{label}`kh index build` after 100 notes were edited (new process; median of {CLI_RUNS})",
            "value": round(cli100["seconds"] * 1000),
            "unit": timed(cli100, cli100_runs),
            "target": "<= 300 MB",
        },
    ]


def _real_10k_figures(real: Path, dest: Path) -> list[dict[str, Any]]:
    """A realistic 10,000-note vault of real notes: copies of the English developer docs, each in
    its own folder with its links rewritten to its own notes (the HTTP search bench's vault); a
    full build, then edits rebuilt as the sidecar and as a person's `kh index build` run them."""
    from bench.retrieval_eval import linked_copies

    source = real / "obsidian-developer-docs" if (real / "obsidian-developer-docs").is_dir() else real
    notes = linked_copies(source, dest, N_NOTES)[0]
    os.sync()
    # A person's vault has folders older than a few seconds; the walk keeps a folder's listing
    # only once it has settled, so the build waits for the fresh copies' folders to.
    time.sleep(SETTLE_SECONDS)
    full = _child(_CHILD, "full", str(dest), "0")
    label = f"real notes x copies ({source.name}, {notes} notes): "
    return [
        {
            "name": f"{label}full build",
            "value": round(full["seconds"], 2),
            "unit": f"s (CPU {full['cpu_seconds']:.2f} s), peak RSS {round(full['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        *_edit_figures(label, dest, full),
        *_nfd_figures(label, dest),
    ]


def _nfd_figures(label: str, root: Path) -> list[dict[str, Any]]:
    """The same vault with every other note renamed to a name in NFD, as macOS writes Japanese names
    (デ as テ and a combining mark): a one-line edit rebuilt warm and by a new process."""
    nfd = unicodedata.normalize("NFD", "デ")
    notes = sorted(p for p in root.rglob("*.md") if ".harness" not in p.parts)
    for note in notes[::2]:
        note.rename(note.with_name(nfd + note.name))
    os.sync()
    time.sleep(SETTLE_SECONDS)
    full = _child(_CHILD, "full", str(root), "0")
    os.sync()
    cli1, cli1_runs = _runs("cli", root, 1, CLI_RUNS)
    warm1, warm1_runs = _runs("warm", root, 1, WARM_RUNS)
    label = f"{label}every other note named in NFD: "
    return [
        {
            "name": f"{label}incremental, 1 note touched (warm; median of {WARM_RUNS})",
            "value": round(warm1["seconds"] * 1000),
            "unit": f"ms (runs: {warm1_runs})",
            "target": "<= 100 ms",
        },
        {
            "name": f"{label}`kh index build` after a one-line edit (new process; median of {CLI_RUNS})",
            "value": round(cli1["seconds"] * 1000),
            "unit": f"ms (runs: {cli1_runs})",
            "target": f"<= {round(full['seconds'] * 100)} ms (10 % of its full build)",
        },
    ]


LONG_ALIAS_NOTES = 2_000
_JA_PHRASES = ["同期の競合を解決する方法", "ショートカットキーの一覧", "日本語の長い別名", "設定画面で変更できる項目",
               "プラグインを無効にする手順", "ファイルの履歴を復元する", "テンプレートから新しいノート"]  # fmt: skip


def make_long_alias_vault(root: Path, n: int, seed: int = 0) -> None:
    """Notes as Japanese vaults write them: aliases of 20-80 Japanese characters (as list items,
    none with a colon), long titles and descriptions, the body of bench/make_vault.py's notes."""
    import random

    from bench.make_vault import make_vault

    make_vault(root, n, seed=seed, realistic=True)
    rng = random.Random(seed + 7)
    for path in sorted(p for p in root.rglob("*.md") if ".harness" not in p.parts):
        text = path.read_text(encoding="utf-8")
        body = text.split("\n---", 1)[1].split("\n", 1)[1] if text.startswith("---\n") else text

        def phrase(lo: int, hi: int) -> str:
            out = ""
            while len(out) < rng.randint(lo, hi):
                out += rng.choice(_JA_PHRASES) + rng.choice(["", "と", "、", "の", "　"])
            return out

        aliases = "".join(f"  - {phrase(20, 80)}\n" for _ in range(rng.randint(1, 4)))
        front = f"title: {phrase(20, 60)}\naliases:\n{aliases}description: {phrase(40, 160)}\ntags: [ja, docs]\n"
        path.write_text(f"---\n{front}---\n{body}", encoding="utf-8")


_PER_NOTE = r"""
import json, sys, time
from pathlib import Path
from knowledge_harness.index.record import parse_record
root = Path(sys.argv[1])
worst, worst_path, total = 0.0, "", 0.0
notes = sorted(p for p in root.rglob("*.md") if ".harness" not in p.parts)
for p in notes:
    raw = p.read_bytes()
    name = p.relative_to(root).as_posix()
    times = []
    for _ in range(2):  # the faster of two: a lazy import or compile the first note of a kind pays is not its cost
        t = time.perf_counter(); parse_record(name, raw); times.append(time.perf_counter() - t)
    dt = min(times)
    total += dt
    if dt > worst:
        worst, worst_path = dt, p.name
print(json.dumps({"worst_ms": worst * 1000, "worst_note": worst_path, "seconds": total}))
"""


def _long_alias_figures(tmp: Path, generated_mb_s: float) -> list[dict[str, Any]]:
    """The long-alias vault: full build beside PageIndex, throughput against the generated
    vault's, and the slowest note's parse (one process, parse_record alone, the faster of two runs)."""
    root = tmp / "long-alias"
    make_long_alias_vault(root, LONG_ALIAS_NOTES)
    copies = [root] + [tmp / f"long-alias{i}" for i in range(1, FULL_RUNS)]
    for copy in copies[1:]:
        shutil.copytree(root, copy)
    os.sync()
    label = f"long Japanese aliases ({LONG_ALIAS_NOTES} notes)"
    figures = _full_build_figures(label, root, copies, tmp / "pageindex-long-alias")[0]
    per_note = _child(_PER_NOTE, str(root))
    mb_s = next(f["value"] for f in figures if f["name"].endswith("full build throughput"))
    return [
        *figures,
        {
            "name": f"{label}: throughput / the generated vault's",
            "value": round(mb_s / generated_mb_s, 2),
            "unit": "x",
            "target": ">= 0.5",
        },
        {
            "name": f"{label}: slowest note to parse",
            "value": round(per_note["worst_ms"], 1),
            "unit": f"ms ({per_note['worst_note']}; all notes {per_note['seconds']:.2f} s in one process)",
            "target": "<= 50 ms",
        },
    ]


HEADING_BOMB_BYTES = 19_900_000

_HEADING_BOMB = r"""
import gc, json, resource, sys, time
from pathlib import Path
from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault
root = Path(sys.argv[1])
def rss_mb():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024
before = rss_mb()
t = time.perf_counter(); r = build_index(Vault.open(root), full=True, workers=1); seconds = time.perf_counter() - t
gc.collect()
print(json.dumps({"seconds": seconds, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "before_mb": before, "after_mb": rss_mb(), "errors": r.errors}))
"""


def make_heading_bomb(root: Path) -> int:
    """A 19.9 MB note of ATX and setext headings (over 1.5 M), the #44 item 7 note; its heading count."""
    root.mkdir(parents=True, exist_ok=True)
    parts: list[str] = []
    size = count = 0
    while size < HEADING_BOMB_BYTES:
        chunk = f"# H{count}\n" if count % 3 else f"S{count}\n--\n"
        parts.append(chunk)
        size += len(chunk)
        count += 1
    (root / "bomb.md").write_text("".join(parts), encoding="utf-8")
    (root / "plain.md").write_text("# Plain\nA note beside it.\n", encoding="utf-8")
    return count


def _heading_bomb_figures(tmp: Path) -> list[dict[str, Any]]:
    """The heading bomb built in one process as the sidecar builds (peak RSS, RSS after the build
    once collected), and by `kh index build` in a new process (its peak RSS)."""
    root = tmp / "heading-bomb"
    count = make_heading_bomb(root)
    one = _child(_HEADING_BOMB, str(root))
    shutil.rmtree(root / ".harness", ignore_errors=True)
    cli = _child(_CHILD, "cli", str(root), "0")  # 0 notes edited and no .harness: a full build in a new process
    finding = next((e["message"] for e in one["errors"] if e["path"] == "bomb.md"), "none")
    label = f"heading bomb (19.9 MB note, {count:,} headings)"
    return [
        {
            "name": f"{label}: full build in one process, as the sidecar builds",
            "value": round(one["seconds"], 2),
            "unit": f"s, peak RSS {round(one['peak_rss_mb'])} MB",
            "target": "<= 500 MB",
        },
        {
            "name": f"{label}: RSS after the build (collected) / before it",
            "value": f"{round(one['after_mb'])} / {round(one['before_mb'])}",
            "unit": "MB",
        },
        {
            "name": f"{label}: `kh index build` (new process)",
            "value": round(cli["seconds"], 2),
            "unit": f"s, peak RSS {round(cli['peak_rss_mb'])} MB",
            "target": "<= 500 MB",
        },
        {"name": f"{label}: the note's finding", "value": finding, "unit": ""},
    ]


def _compile_package() -> None:
    """Write the package's bytecode, as `pip install` does: a checkout run with
    PYTHONDONTWRITEBYTECODE (as in CI) would otherwise compile every module at each `kh` start
    (about 0.15 s), which no installed copy pays."""
    import knowledge_harness

    package = Path(knowledge_harness.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, capture_output=True)


def _pageindex_python() -> str | None:
    """The throwaway venv's python with PageIndex installed (made on first use), or None."""
    python = PAGEINDEX_VENV / "bin" / "python"
    check = [str(python), "-c", "import pageindex.page_index_md"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(PAGEINDEX_VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", PAGEINDEX], check=True, capture_output=True, timeout=600
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return str(python) if subprocess.run(check, capture_output=True).returncode == 0 else None


def _compare_pageindex(root: Path, out: Path) -> tuple[str, dict[str, Any]]:
    python = _pageindex_python()
    if python is not None:
        return PAGEINDEX + " Markdown mode", _child(_PAGEINDEX, str(root), str(out), "pageindex", python=python)
    return "markdown-it-py block parse (PageIndex not installable)", _child(_PAGEINDEX, str(root), str(out), "mdit")


def _real_vault() -> Path | None:
    env = os.environ.get("KH_BENCH_VAULT")
    if env:
        return Path(env)
    default = REPO.parent / "shared" / "retrieval-dev"
    return default if default.is_dir() else None


def _paired_builds(copies: list[Path], out: Path) -> tuple[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """Our full build and PageIndex's on each fresh copy, taking turns at going first, so that the
    machine's other load falls on both alike and the ratio is read copy by copy."""
    other, pairs = "", []
    for i, copy in enumerate(copies):
        if i % 2:
            other, theirs = _compare_pageindex(copy, out / f"pageindex{i}")
            ours = _child(_CHILD, "full", str(copy), "0")
        else:
            ours = _child(_CHILD, "full", str(copy), "0")
            other, theirs = _compare_pageindex(copy, out / f"pageindex{i}")
        pairs.append((ours, theirs))
    return other, pairs


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _full_build_figures(
    label: str, root: Path, copies: list[Path], out: Path
) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """Full build (median over fresh copies), fallback rate, and the comparison on the same files."""
    total = sum(p.stat().st_size for p in root.rglob("*.md") if ".harness" not in p.parts)
    other, pairs = _paired_builds(copies, out)
    fulls = sorted((ours for ours, _ in pairs), key=lambda r: r["seconds"])
    full = fulls[len(fulls) // 2]
    theirs = sorted(t["seconds"] for _, t in pairs)
    ratios = sorted(t["seconds"] / o["seconds"] for o, t in pairs)
    name = other.split(" ")[0]
    mb = total / 1e6
    notes = full["notes"]
    return (
        [
            {"name": f"{label}: size", "value": round(mb, 1), "unit": f"MB in {notes} notes"},
            {
                "name": f"{label}: full build (median of {len(copies)} fresh copies)",
                "value": round(full["seconds"], 2),
                "unit": "s (runs: " + ", ".join(f"{r['seconds']:.2f}" for r in fulls) + ")",
            },
            {"name": f"{label}: full build throughput", "value": round(mb / full["seconds"], 1), "unit": "MB/s"},
            {
                "name": f"{label}: notes left to markdown-it (fallback)",
                "value": round(100 * full["fallback_notes"] / max(notes, 1), 2),
                "unit": f"% ({full['fallback_notes']} notes)",
                "target": "<= 1 %",
            },
            {
                "name": f"{label}: {other}, same files (median)",
                "value": round(_median(theirs), 2),
                "unit": "s (runs: " + ", ".join(f"{t:.2f}" for t in theirs) + ")",
            },
            {
                "name": f"{label}: full build speed / {name}'s (median of the copies' ratios)",
                "value": round(_median(ratios), 2),
                "unit": f"x (each copy built by both, taking turns going first: {ratios[0]:.2f} to {ratios[-1]:.2f}; "
                "wall clock: ours on every core, it on one)",
                "target": ">= 2",
            },
            {
                "name": f"{label}: CPU time, full build (all processes) vs {name} (medians)",
                "value": f"{_median([o['cpu_seconds'] for o, _ in pairs]):.2f} vs "
                f"{_median([t['cpu_seconds'] for _, t in pairs]):.2f}",
                "unit": "s (the machine's other load does not count)",
            },
        ],
        full,
        other,
    )


def run() -> dict[str, Any]:
    from bench.make_vault import make_vault

    real = _real_vault()
    _compile_package()
    with tempfile.TemporaryDirectory(prefix="kh-index-bench-") as tmp:
        root = Path(tmp) / "vault"
        make_vault(root, N_NOTES, seed=0, realistic=True)
        # Fresh copies, all made before any build: on ext4, creating files soon after many were
        # deleted is several times slower (the inode allocator skips recently freed inodes), and
        # the generator's dirty pages are flushed first so the builds do not pay for them.
        copies = [root] + [Path(tmp) / f"copy{i}" for i in range(1, FULL_RUNS)]
        for copy in copies[1:]:
            shutil.copytree(root, copy)
        real_copies: list[Path] = []
        if real is not None:
            real_copies = [Path(tmp) / f"real{i}" for i in range(FULL_RUNS)]
            for copy in real_copies:
                shutil.copytree(real, copy, ignore=shutil.ignore_patterns(".harness", ".obsidian"))
        os.sync()
        gen_figures, full, other = _full_build_figures("generated", root, copies, Path(tmp) / "pageindex-gen")
        real_figures: list[dict[str, Any]] = []
        if real is not None:
            real_figures = _full_build_figures(
                f"real vault ({real.name})", real_copies[0], real_copies, Path(tmp) / "pageindex-real"
            )[0]
        real_10k = _real_10k_figures(real, Path(tmp) / "real10k") if real is not None else []
        generated_mb_s = next(f["value"] for f in gen_figures if f["name"].endswith("full build throughput"))
        long_alias = _long_alias_figures(Path(tmp), generated_mb_s)
        bomb = _heading_bomb_figures(Path(tmp))
        one_process = _child(_CHILD, "full_one_process", str(copies[0]), "0")
        cold1 = _child(_CHILD, "cold", str(root), "1")
        cold100 = _child(_CHILD, "cold", str(root), "100")
        cold_links = _child(_CHILD, "cold_links", str(root), "1")
        cold_links_index = _child(_CHILD, "cold_links_index", str(root), "1")
        edits = _edit_figures("", root, full)
        cmp = _child(_COMPARE, str(root), str(SAMPLE_BYTES))
    load = os.getloadavg()[0]
    figures = [
        *gen_figures,
        {"name": "full build notes/s", "value": round(N_NOTES / full["seconds"]), "unit": "notes/s"},
        {"name": "full build CPU time, all processes", "value": round(full["cpu_seconds"], 2), "unit": "s"},
        {"name": "full build peak RSS", "value": round(full["peak_rss_mb"]), "unit": "MB", "target": "<= 300"},
        {
            "name": "full build in one process, as the sidecar builds (`POST /v1/index/build?full=true`)",
            "value": round(one_process["seconds"], 2),
            "unit": f"s, peak RSS {round(one_process['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        *edits,
        {
            "name": "incremental, 1 note touched (one-shot path in a new process, imports excluded)",
            "value": round(cold1["seconds"] * 1000),
            "unit": f"ms, peak RSS {round(cold1['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        {
            "name": "incremental, 100 notes touched (one-shot path, imports excluded)",
            "value": round(cold100["seconds"] * 1000),
            "unit": f"ms, peak RSS {round(cold100['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        {
            "name": "incremental, 1 note gains a link to a note (one-shot path: the target's backlinks patched; imports excluded)",
            "value": round(cold_links["seconds"] * 1000),
            "unit": f"ms, peak RSS {round(cold_links['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        {
            "name": "incremental, 1 note gains a link to an index note (new process: the whole state loads)",
            "value": round(cold_links_index["seconds"] * 1000),
            "unit": f"ms, peak RSS {round(cold_links_index['peak_rss_mb'])} MB",
            "target": "<= 300 MB",
        },
        {"name": "load average (1 min) at the end of the incremental runs", "value": round(load, 1), "unit": ""},
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
        *real_figures,
        *real_10k,
        *long_alias,
        *bomb,
    ]
    return {
        "title": "Reasoning index (realistic notes)",
        "command": "make bench  (python -m bench index_bench)",
        "figures": figures,
        "notes": (
            f"Generated: bench/make_vault.py with realistic=True, seed 0, {N_NOTES} notes. Real vault: "
            f"{real.name if real is not None else 'none (set KH_BENCH_VAULT=DIR)'}. Full build: "
            f"`build_index(full=True, workers=0)`, the parent and one helper process per extra core "
            f"parsing; compared with {other} in one process on the same files (its JSON per note "
            f"written too): each of {FULL_RUNS} fresh copies is built by both, taking turns going first, "
            f"and the speed figure is the median of the copies' ratios (this shared machine's other "
            f"load moves single runs by a quarter either way). Scanner fell back to markdown-it on {cmp['fallback']} of {cmp['notes']} "
            f"sampled notes. Comparison sample: {cmp['bytes'] / 1e6:.1f} MB."
        ),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
