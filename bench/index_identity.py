"""Byte-identity of the index: this checkout's full build against another revision's, file by file.

`python -m bench.index_identity [REV]` (REV defaults to `main`) builds each vault twice, with
REV's sidecar package (from `git archive`) and with this checkout's, on fresh copies made
together (the walk keeps a folder's listing once it is 3 s old, so both builds see the same),
in one process and with forked helpers, and compares every file under `.harness/index/`:
the layers, the parse cache and the saved walk byte for byte, except what is each build's
or each copy's own (build.json's generation and timings; the saved walk's folder stamps:
device, inode, mtime, ctime). Vaults: examples/vault, the generated vault
(bench/make_vault.py, realistic, 10,000 notes), the long-alias vault (index_bench), and the
real vault (KH_BENCH_VAULT, else ../shared/retrieval-dev) when present. Exit status 1 on any
difference. A speed change to the index must leave this at "identical".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.index_bench import LONG_ALIAS_NOTES, REPO, _real_vault, make_long_alias_vault

_BUILD = (
    "import sys; from pathlib import Path; from knowledge_harness.index.build import build_index; "
    "from knowledge_harness.vault.paths import Vault; "
    "build_index(Vault.open(Path(sys.argv[1])), full=True, workers=int(sys.argv[2]))"
)
_OWN = {"generation", "seconds", "timings"}  # build.json keys that belong to one build


def _index_files(vault: Path) -> dict[str, bytes]:
    index = vault / ".harness" / "index"
    return {p.relative_to(index).as_posix(): p.read_bytes() for p in index.rglob("*") if p.is_file()}


def _comparable(files: dict[str, bytes]) -> dict[str, Any]:
    out: dict[str, Any] = dict(files)
    build = json.loads(files["build.json"])
    out["build.json"] = {k: v for k, v in build.items() if k not in _OWN}
    if "cache/walk.json" in files:
        walk = json.loads(files["cache/walk.json"])
        out["cache/walk.json"] = {k: v[4:] for k, v in walk["folders"].items()}  # names, not stamps
    return out


def _differences(rev_src: Path, vault: Path, work: Path) -> list[str]:
    found: list[str] = []
    for workers in (1, 0):
        copies = {side: work / f"{vault.name}-{side}-{workers}" for side in ("rev", "ours")}
        for copy in copies.values():
            shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".harness", ".obsidian"))
        time.sleep(3.5)
        sources = {"rev": str(rev_src), "ours": str(REPO / "sidecar")}
        for side, copy in copies.items():
            env = {**os.environ, "PYTHONPATH": sources[side]}
            subprocess.run([sys.executable, "-c", _BUILD, str(copy), str(workers)], check=True, env=env)
        rev, ours = (_comparable(_index_files(copies[side])) for side in ("rev", "ours"))
        differing = sorted(k for k in rev.keys() | ours.keys() if rev.get(k) != ours.get(k))
        print(f"{vault.name} (workers={workers}): {len(ours)} files, {len(differing)} differ {differing[:5]}")
        found += [f"{vault.name}:{workers}:{name}" for name in differing]
        for copy in copies.values():
            shutil.rmtree(copy)
    return found


def main(rev: str) -> int:
    from bench.make_vault import make_vault

    with tempfile.TemporaryDirectory(prefix="kh-index-identity-") as tmp:
        work = Path(tmp)
        archive = subprocess.run(["git", "archive", rev, "sidecar"], cwd=REPO, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(work)], input=archive.stdout, check=True)
        rev_src = work / "sidecar"
        vaults = [REPO / "examples" / "vault"]
        make_vault(work / "generated", 10_000, seed=0, realistic=True)
        make_long_alias_vault(work / "long-alias", LONG_ALIAS_NOTES)
        vaults += [work / "generated", work / "long-alias"]
        real = _real_vault()
        if real is not None and real.is_dir():
            vaults.append(real)
        else:
            print("no real vault (set KH_BENCH_VAULT=DIR)")
        found = [d for vault in vaults for d in _differences(rev_src, vault, work / "builds")]
    print("identical" if not found else f"DIFFERENT: {found}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "main"))
