"""A cancelled index build (a job's Cancel, core/jobs.py): it stops between notes or chunks, writes
nothing, discards its staging, and the previous index stays as it was and usable; the next build is
the same as if the cancelled one had never run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.support.index_vaults import fresh_layers, index_layers, write_note

import knowledge_harness.index.parsing as parsing_module
from knowledge_harness.core.jobs import Job
from knowledge_harness.errors import Cancelled
from knowledge_harness.index.build import build_index
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.query import check_index, search
from knowledge_harness.vault.paths import Vault

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "v"
    shutil.copytree(REPO / "examples" / "vault", v, ignore=shutil.ignore_patterns(".harness"))
    for i in range(120):
        write_note(
            v,
            f"gen/ノート{i:03}.md",
            f"# ノート {i}\n\n## 節\n\n[[ノート{(i + 1) % 120:03}]] #tag{i % 3} zebra{i:03}\n",
        )
    return v


def _index_files(vault: Path) -> dict[str, bytes]:
    """Every file under the index (layers, build.json, the cache), by relative path."""
    root = vault / ".harness" / "index"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _stagings(vault: Path) -> list[str]:
    return sorted(p.name for p in (vault / ".harness").iterdir() if p.name.startswith(".index-new-"))


def _edit(vault: Path) -> None:
    write_note(vault, "gen/ノート007.md", "# 書き換えた\n\n[[ノート008]] 鮮度の話\n")
    write_note(vault, "gen/新しい.md", "# 新しい\n\n[[ノート001]]\n")


def _cancel_after(notes: int, seen: list[tuple[int, int, str]]) -> Job:
    """A job (the route's) whose person presses Cancel once `notes` notes are parsed."""
    job = Job("index-test-0001", "POST /v1/index/build")
    report = job.report

    def watch(done: int, total: int, step: str) -> None:
        seen.append((done, total, step))
        if step == "parse" and done >= notes:
            job.cancel_requested = True
        report(done, total, step)

    job.report = watch  # type: ignore[method-assign]
    return job


@pytest.mark.parametrize(
    ("workers", "stage_from"),
    [(1, 1_000_000), (1, 2), (2, 2)],
    ids=["one process, in memory", "one process, staged", "forked helpers, staged"],
)
def test_a_cancelled_rebuild_leaves_the_previous_index_and_the_next_build_is_whole(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, stage_from: int
) -> None:
    monkeypatch.setattr(parsing_module, "PARALLEL_MIN_NOTES", stage_from)
    v = Vault.open(vault)
    memory = BuildMemory()  # the sidecar's: a cancel leaves the kept state as it was
    notes = build_index(v, workers=workers, memory=memory).notes
    before = _index_files(vault)
    _edit(vault)
    seen: list[tuple[int, int, str]] = []
    job = _cancel_after(1 if workers == 1 else 0, seen)  # helpers may take every chunk after the first
    with pytest.raises(Cancelled):
        build_index(v, full=True, workers=workers, checkpoint=job.report, memory=memory)
    assert seen[0] == (0, 0, "scan")
    assert [s for _, _, s in seen[1:]] == ["parse"] * (len(seen) - 1)  # stopped while parsing
    assert seen[-1][1] == notes + 1 and seen[-1][0] < notes  # a full rebuild: every note to parse
    assert _index_files(vault) == before  # nothing written, nothing removed
    assert _stagings(vault) == []
    # the previous index still answers, and knows it is behind the vault
    assert not check_index(v).fresh
    assert [h.path for h in search(v, "zebra012").hits][:1] == ["gen/ノート012.md"]
    report = build_index(v, workers=workers, memory=memory)
    assert report.notes == notes + 1  # one note added
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "fresh")
    assert check_index(v).fresh


def test_a_build_reports_its_phases_with_notes_parsed_of_those_to_parse(vault: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    report = build_index(Vault.open(vault), checkpoint=lambda d, t, s: seen.append((d, t, s)))
    parsed = [(d, t) for d, t, s in seen if s == "parse"]
    assert parsed == [(i, report.notes) for i in range(report.notes)]
    assert seen[0] == (0, 0, "scan") and seen[-1] == (report.notes, report.notes, "links")


def test_a_build_cancelled_before_it_starts_writes_no_index(vault: Path) -> None:
    job = Job("index-test-0002", "POST /v1/index/build", cancel_requested=True)
    with pytest.raises(Cancelled) as stopped:
        build_index(Vault.open(vault), checkpoint=job.report)
    assert stopped.value.detail == {"job_id": "index-test-0002", "done": 0, "total": 0}
    assert not (vault / ".harness" / "index").exists() or _index_files(vault) == {}
