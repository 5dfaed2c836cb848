"""Every reason code is documented in docs/pipeline.md with its Japanese and English explanation."""

from __future__ import annotations

from pathlib import Path

from knowledge_harness.pipeline.contract import REASONS, ReasonCode

DOC = Path(__file__).resolve().parents[2] / "docs" / "pipeline.md"


def test_reason_codes_are_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert set(REASONS) == set(ReasonCode)
    for code, (ja, en) in REASONS.items():
        assert f"| `{code.value}` | {ja} | {en} |" in text, code


def test_the_rule_table_names_code_and_tests_that_exist() -> None:
    import re

    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## The design's rules, one by one") : text.index("## Doors")]
    here = Path(__file__).resolve().parent
    package = here.parents[1] / "sidecar" / "knowledge_harness"
    tests = re.findall(r"`((?:\w+/)?test_\w+\.py)(?:::(test_\w+))?`", table)  # a folder of tests/, or this one
    assert len(tests) > 40
    for module, function in tests:
        source = (here.parent / module if "/" in module else here / module).read_text(encoding="utf-8")
        assert not function or f"def {function}(" in source, (module, function)
    modules = set(re.findall(r"`((?:ops/|vault/)?\w+\.py)", table)) - {m for m, _ in tests}
    assert modules
    for name in modules:
        assert (package / name).is_file() or (package / "pipeline" / name).is_file(), name
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| rule")]
    assert rows and all(re.search(r"\| (holds|partly|not followed)", row) for row in rows), rows
