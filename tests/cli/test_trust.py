"""`kh trust adopt`: only a person at a terminal adopts trust blocks, after typing the digest shown;
no note byte changes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from knowledge_harness.actors import os_account_name

from ..conftest import KH
from ..support.audit_vault import NoteSpec, write_vault
from ..support.batch_support import tree_bytes
from ..support.terminal import run_at_terminal


def _vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "v", [NoteSpec("kw/a.md"), NoteSpec("kw/b.md", status=None)], adopted=False)


def test_trust_adopt_without_a_terminal_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    result = subprocess.run(
        [str(KH), "trust", "adopt", str(vault)],
        input="ADOPT x\n",
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert result.returncode == 1 and "terminal" in result.stderr and "Traceback" not in result.stderr
    assert not (vault / ".harness" / "adoptions").exists()


def test_trust_adopt_at_a_terminal_shows_the_notes_asks_for_the_digest_and_names_the_person(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    before = tree_bytes(vault)
    wrong = run_at_terminal([str(KH), "trust", "adopt", str(vault)], ["ADOPT 000000000000"], env=dict(os.environ))
    assert wrong.exit_code == 1 and "nothing was written" in wrong.screen
    assert not (vault / ".harness" / "adoptions").exists()
    digest = wrong.screen.split("Digest: ")[1][:12]

    shown = run_at_terminal(
        [str(KH), "trust", "adopt", str(vault), "--json"], [f"ADOPT {digest}"], env=dict(os.environ)
    )
    assert shown.exit_code == 0, shown.screen
    assert "kw/a.md" in shown.screen and "kw/b.md" not in shown.screen  # b has no verification block
    files = list((vault / ".harness" / "adoptions").glob("adopt-*.json"))
    record = json.loads(files[0].read_bytes())
    assert record["adopted_by"] == os_account_name() and record["adopted_via"] == "terminal"
    assert [n["path"] for n in record["notes"]] == ["kw/a.md"]
    assert tree_bytes(vault) == before  # no note byte changed
    again = run_at_terminal([str(KH), "trust", "adopt", str(vault)], [], env=dict(os.environ))
    assert again.exit_code == 0 and "Nothing to adopt" in again.screen
