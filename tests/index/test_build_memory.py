"""BuildMemory, the build states a process keeps (the sidecar's VaultIndex): bounded, cleared, and never trusted
over a build.json another writer replaced; and what `kh index build` imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.index_vaults import fresh_layers, index_layers, write_note

from knowledge_harness.index.build import build_index
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.vault.paths import Vault


def _vault(root: Path) -> Path:
    write_note(root, "Home.md", "---\ntype: moc\n---\n# Home\n\n- [[A]]\n")
    write_note(root, "A.md", "# A\n\n[[Home]]\n")
    return root


def test_memory_keeps_at_most_max_vaults_and_drops_the_least_recently_built(tmp_path: Path) -> None:
    built = BuildMemory()  # the default bound (4) holds all three
    memory = BuildMemory(max_vaults=2)
    vaults = [Vault.open(_vault(tmp_path / f"v{i}")) for i in range(3)]
    for v in vaults:
        build_index(v, memory=built)
        state = built.get(str(v.root))
        assert state is not None and state.in_memory
        memory.put(str(v.root), state)
    assert [memory.holds(str(v.root)) for v in vaults] == [False, True, True]
    memory.put(str(vaults[1].root), memory.get(str(vaults[1].root)))  # type: ignore[arg-type]
    memory.put(str(vaults[0].root), built.get(str(vaults[0].root)))  # type: ignore[arg-type]
    assert [memory.holds(str(v.root)) for v in vaults] == [True, True, False]
    memory.clear()
    assert not any(memory.holds(str(v.root)) for v in vaults)


def test_a_vault_dropped_from_memory_builds_from_disk_to_the_same_layers(tmp_path: Path) -> None:
    memory = BuildMemory()
    root = _vault(tmp_path / "v")
    v = Vault.open(root)
    build_index(v, memory=memory)
    memory = BuildMemory()
    write_note(root, "A.md", "# A again\n\n[[Home]] [[B]]\n")
    write_note(root, "B.md", "# B\n")
    report = build_index(v, memory=memory)
    assert report.reparsed == 2
    assert memory.holds(str(v.root))
    assert index_layers(root) == fresh_layers(root, tmp_path, "fresh")


def test_a_state_in_memory_is_not_used_after_another_writer_rebuilt(tmp_path: Path) -> None:
    memory = BuildMemory()
    root = _vault(tmp_path / "v")
    v = Vault.open(root)
    build_index(v, memory=memory)
    kept = memory.get(str(v.root))
    assert kept is not None
    write_note(root, "A.md", "# A by another process\n\n[[Home]]\n")
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from knowledge_harness.index.build import build_index\n"
        "from knowledge_harness.vault.paths import Vault\n"
        "build_index(Vault.open(Path(sys.argv[1])), resident=False)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(root)], check=True)
    assert memory.get(str(v.root)) is kept
    # the kept state would re-read A.md (its stat is not the kept one); the state on disk knows it
    assert build_index(v, memory=memory).reparsed == 0
    assert memory.get(str(v.root)) is not kept
    assert index_layers(root) == fresh_layers(root, tmp_path, "fresh")


def test_kh_index_build_after_an_edit_imports_only_what_the_edit_needs(tmp_path: Path) -> None:
    """Not the query side, the fallback parser or multiprocessing; not orjson or dataclasses
    either (their imports cost a new process ~20 ms: core/jsoncodec.py)."""
    root = _vault(tmp_path / "v")
    build_index(Vault.open(root), full=True)
    write_note(root, "A.md", "# A\n\n[[Home]]\n\nOne more line.\n")
    code = (
        "import sys\n"
        "import knowledge_harness.cli as cli\n"
        "def stop():\n    raise SystemExit(0)\n"
        "cli._exit_now = stop  # the real one ends the process before the modules can be listed\n"
        "sys.argv = ['kh', 'index', 'build', sys.argv[1]]\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "names = ('knowledge_harness.index.query', 'knowledge_harness.index.search', 'knowledge_harness.index.schema',"
        " 'markdown_it', 'multiprocessing', 'orjson', 'dataclasses')\n"
        "print(sorted(n for n in names if n in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True).stdout
    assert "1 parsed" in out
    assert out.strip().splitlines()[-1] == "[]"
    assert index_layers(root) == fresh_layers(root, tmp_path, "fresh")
