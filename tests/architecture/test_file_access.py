"""Which modules may read or write files: vault/ does, and the few others listed here, each for a reason.

Every module under sidecar/knowledge_harness/ is parsed with `ast`; a call that reads, writes, moves,
deletes or lists files (tests/architecture/file_access.py says which calls count) in a module that is
neither in vault/ nor in ALLOWED fails. ALLOWED is the list docs/architecture.md ("Who touches which
files") explains, and the two are checked against each other. A module that no longer touches files
loses its entry (the list stays true), and a new one gets an entry only with a reason — or moves its
file access into vault/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .file_access import FileCall, file_calls, module_name

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "sidecar" / "knowledge_harness"
ARCHITECTURE = REPO / "docs" / "architecture.md"

# vault/ is the file layer: every module in it may read and write vault notes and .harness/.
FILE_LAYER = "knowledge_harness.vault"

ALLOWED: dict[str, str] = {
    # the user's own files, outside any vault
    "knowledge_harness.machine_config": "the machine configuration (KH_CONFIG or the user config dir) and the agent "
    "token files it keeps there (0600)",
    "knowledge_harness.api.routes.system": "reads the agent token file to tell the plugin whether it may name it",
    "knowledge_harness.cli.pipeline": "reads the files a person names on the command line (a submission, a draft, "
    "its manifest and packet, the blog's posts folder) — files outside the vault",
    "knowledge_harness.cli.terminal": "opens the controlling terminal (/dev/tty) for a typed approval",
    "knowledge_harness.cli.serve": "reads standard input to exit when it closes (--exit-on-stdin-close)",
    # below vault/: the one TOML reader every settings file goes through
    "knowledge_harness.core.tomlfile": "reads one TOML settings file its caller names (.harness/policy.toml, "
    ".harness/pipeline.toml, the machine configuration)",
    # package data shipped inside the wheel
    "knowledge_harness.trust.validate.judges.lexical_model": "the lexical judge's fitted weights (package data)",
    "knowledge_harness.trust.validate.judges.related_words": "the lexical judge's table of related English words (package "
    "data; bench/make_related_words.py may name another table)",
    "knowledge_harness.trust.validate.judges.embedded": "the optional judge's fitted weights, WordLlama's embeddings and tokenizer (package data)",
    "knowledge_harness.trust.validate.judges.openai_compat": "the judge prompt (package data)",
    # hot read paths that read vault or .harness/ files directly, for speed (docs/architecture.md)
    "knowledge_harness.index.reading": "reads every note's bytes on the build's fast path (one unbuffered read per "
    "note)",
    "knowledge_harness.index.build_state": "reads the first bytes of build.json (the build stamp) and the staged "
    "cache parts a parallel build leaves; index files are written through vault/",
    "knowledge_harness.index.parallel": "creates the results folder in the build's staging folder and reads the "
    "parsers' results from it",
    "knowledge_harness.index.query": "hashes notes to tell a stale index and reads a note's current bytes for "
    "read_section",
    "knowledge_harness.index.graph": "reads a note's bytes to list the links it has now (index_changes)",
    "knowledge_harness.index.search": "reads notes for the search layer and creates its folder (in the user cache, "
    "KH_SEARCH_CACHE)",
    "knowledge_harness.trust.audit.audit": "reads .harness/policy.toml (cached by its bytes) and .harness/audits.jsonl",
    "knowledge_harness.pipeline.intake": "creates a run's folder under .harness/runs/ (files in it are written "
    "through pipeline/run_store.py)",
    "knowledge_harness.pipeline.proposals": "lists and reads .harness/proposals/ (writes go through vault/atomic.py)",
}


def _scan() -> list[FileCall]:
    calls: list[FileCall] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        calls += file_calls(path.read_text(encoding="utf-8"), module_name(PACKAGE, path))
    return calls


def _in_file_layer(module: str) -> bool:
    return module == FILE_LAYER or module.startswith(FILE_LAYER + ".")


def unlisted_file_access(calls: list[FileCall]) -> list[str]:
    return [
        f"{c.module}:{c.line} calls {c.call}" for c in calls if not _in_file_layer(c.module) and c.module not in ALLOWED
    ]


def test_only_vault_and_the_listed_modules_touch_files() -> None:
    offenders = unlisted_file_access(_scan())
    assert offenders == [], (
        "These modules read or write files outside vault/: move the access into vault/, or add the module "
        "to ALLOWED with its reason and to docs/architecture.md"
    )


def test_every_listed_module_still_touches_files() -> None:
    touching = {c.module for c in _scan()}
    assert sorted(set(ALLOWED) - touching) == [], "no longer touches files: drop it from ALLOWED and the docs"


def test_the_architecture_doc_names_every_listed_module() -> None:
    doc = ARCHITECTURE.read_text(encoding="utf-8")
    section = doc[doc.index("## Who touches which files") :]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    missing = [m for m in ALLOWED if f"`{m.removeprefix('knowledge_harness.').replace('.', '/')}.py`" not in section]
    assert missing == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("open(p, 'rb')", ["open"]),
        ("Path(p).write_text('x', encoding='utf-8')", ["Path.write_text"]),
        ("p.read_bytes()", ["Path.read_bytes"]),
        ("tmp.replace(target)", ["Path.replace"]),
        ("os.replace(a, b)", ["os.replace"]),
        ("os.unlink(a)", ["os.unlink"]),
        ("shutil.rmtree(folder)", ["shutil.rmtree"]),
        ("tempfile.mkstemp(dir=folder)", ["tempfile.mkstemp"]),
        ("folder.glob('*.json')", ["Path.glob"]),
        ("text.replace('a', 'b')", []),
        ("when.replace(tzinfo=None)", []),
        ("Vault.open(root)", []),
        ("shutil.which('git')", []),
        ("store.write_text(run_id, name, text)", []),
        ("path.exists() and path.stat()", []),
    ],
)
def test_the_scan_tells_file_calls_from_look_alikes(source: str, expected: list[str]) -> None:
    assert [c.call for c in file_calls(source, "m")] == expected


def test_a_planted_write_outside_vault_is_caught() -> None:
    planted = file_calls(
        "from pathlib import Path\n\nPath('x.md').write_text('y')\n", "knowledge_harness.trust.validate.claims"
    )
    assert unlisted_file_access(planted) == ["knowledge_harness.trust.validate.claims:3 calls Path.write_text"]
