"""O-09's program checks on drafts (pipeline/draft_checks.py) and `kh pipeline check-draft`: JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from knowledge_harness.pipeline.blog_repo import PastPost
from knowledge_harness.pipeline.draft_checks import CheckInputs, check_draft, similarity
from knowledge_harness.pipeline.drafts import autofix

from ..conftest import KH
from ..support.part2_support import GOOD, git, make_blog


def _kh(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def codes(text: str, inputs: CheckInputs | None = None) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_draft(text, inputs).errors]


def test_clean_draft_has_no_errors() -> None:
    report = check_draft(GOOD, CheckInputs(local_exists=lambda rel: rel == "other.rst"))
    assert report.errors == [] and report.warnings == []


def test_docutils_errors_carry_line_numbers() -> None:
    broken = GOOD + "\n.. unknown-directive:: x\n\n*強調が閉じない\n"
    found = codes(broken, CheckInputs(local_exists=lambda rel: True))
    assert ("DIRECTIVE_FORBIDDEN", 18) in found  # a directive the blog does not know
    assert any(code == "RST_SYNTAX" and line == 20 for code, line in found)  # the unclosed emphasis


def test_fixable_findings_and_the_one_fix() -> None:
    text = GOOD.replace("はじめに\n--------", "はじめに\n---").replace("を参照。", "を参照。  ").rstrip("\n")
    found = codes(text, CheckInputs(local_exists=lambda rel: True))
    assert ("HEADING_UNDERLINE", 14) in found and ("TRAILING_WHITESPACE", 16) in found
    assert ("NO_FINAL_NEWLINE", 16) in found
    fixed, fixes = autofix(text)
    assert fixed == GOOD
    assert sorted(f["code"] for f in fixes) == ["HEADING_UNDERLINE", "NO_FINAL_NEWLINE", "TRAILING_WHITESPACE"]
    assert codes(fixed, CheckInputs(local_exists=lambda rel: True)) == []
    # a wrong word, a broken link, a missing section: never "fixed"
    assert autofix(GOOD.replace("true", "ture"))[0] == GOOD.replace("true", "ture")


def test_safety_urls_references_duplicates_and_metadata() -> None:
    packet = {"sources": [{"source_id": "S-1", "url": "https://docs.example.org/yaml"}], "issues": []}
    text = GOOD + (
        "\nhttps://docs.example.org/yaml/ と https://evil.example.com/x を見る。電話 03-1234-5678、"
        "キー AKIA" + "Z7QXW3ERTY5UIOPA、社外秘。\n\n`親 <../../outside.rst>`_\n"
    )
    report = check_draft(text, CheckInputs(packet=packet, local_exists=lambda rel: True))
    got = {f.code for f in report.errors}
    assert {
        "URL_NOT_IN_PACKET",
        "PERSONAL_INFO_IN_DRAFT",
        "SECRET_IN_DRAFT",
        "PRIVATE_MARKER_IN_DRAFT",
        "LOCAL_REF_OUTSIDE",
    } <= got
    assert "AKIA" not in json.dumps(report.as_json(), ensure_ascii=False)
    assert sum(1 for f in report.errors if f.code == "URL_NOT_IN_PACKET") == 1  # the packet's URL is allowed
    past = [PastPost("docs/blog/posts/2026-01-01-x.rst", "2026-01-01", "x", "YAML  の真偽値", GOOD, "")]
    report = check_draft(GOOD, CheckInputs(past_posts=past, local_exists=lambda rel: True))
    assert [f.code for f in report.errors] == ["TITLE_DUPLICATE"]
    assert [f.code for f in report.warnings] == ["DUPLICATE_CANDIDATE"] and report.duplicates[0]["similarity"] >= 0.85
    assert similarity("全く違う内容の記事です。", GOOD) < 0.85
    no_meta = (
        GOOD.replace(":対象バージョン: 未確認\n", "")
        .replace(":公開日: 未確定", ":公開日: 2026-03-05")
        .replace(":記事状態: 下書き", ":記事状態: 不明")
    )
    found = {c for c, _ in codes(no_meta, CheckInputs(local_exists=lambda rel: True))}
    assert {"DRAFT_METADATA_MISSING", "PUBLICATION_DATE_IN_DRAFT", "UNKNOWN_VALUE_NOT_MARKED"} <= found
    assert "AI_SCOPE_MISSING" in {
        c for c, _ in codes(GOOD.replace("AI が", "私が"), CheckInputs(local_exists=lambda r: True))
    }


def test_blog_repo_commits_once_and_stays_confined(tmp_path: Path) -> None:
    import pytest

    from knowledge_harness.errors import PathRejected
    from knowledge_harness.pipeline.blog_repo import BlogRepo

    blog = make_blog(tmp_path)
    repo = BlogRepo(blog, "docs/blog/posts", "main")
    assert [p.title for p in repo.posts()] == ["カレーの作り方"] and repo.posts()[0].date == "2026-03-02"
    rel = repo.post_path("2026-03-03-日本語.rst")
    first = repo.commit_post("harness/r1", rel, "本文\n".encode(), "msg")
    again = repo.commit_post("harness/r1", rel, "本文\n".encode(), "msg")
    assert first.created_branch and first.created_commit
    assert again.commit == first.commit and not again.created_branch and not again.created_commit
    assert git(blog, "show", f"harness/r1:{rel}") == "本文"
    assert git(blog, "status", "--porcelain") == "" and git(blog, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert not repo.is_merged(first.commit)
    for bad in ("../x.rst", "sub/x.rst", ".hidden.rst"):
        with pytest.raises(PathRejected):
            repo.post_path(bad)
    with pytest.raises(PathRejected):
        repo.commit_post("harness/r1", "docs/index.rst", b"x", "msg")
    git(blog, "merge", "-q", "--no-ff", "-m", "merge", "harness/r1")
    assert repo.is_merged(first.commit)


SPHINX = (
    GOOD
    + """
.. seealso::

   :doc:`other` の続き。

.. versionadded:: 1.2

   YAML 1.2 で真偽値が true と false だけになりました。

.. code-block:: python

   print(":raw:`x`")  # code stays literal

.. todo:: 例を追加する。
"""
)


def test_check_draft_reads_the_sphinx_the_blog_uses(tmp_path: Path) -> None:
    draft = tmp_path / "draft.rst"
    draft.write_text(SPHINX, encoding="utf-8")
    (tmp_path / "other.rst").write_text("other\n=====\n", encoding="utf-8")
    packet = tmp_path / "packet.json"
    packet.write_text(
        json.dumps({"sources": [{"url": "https://yaml.org/spec/1.2.2/"}], "issues": []}), encoding="utf-8"
    )
    ok = _kh("pipeline", "check-draft", str(draft), "--packet", str(packet), "--repo", str(tmp_path), "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["errors"] == []
    # URLs of any scheme and case are checked against the packet; the packet's own URL passes in any case
    draft.write_text(
        SPHINX + "\n参照: HTTPS://YAML.ORG/spec/1.2.2/ と HTTPS://EVIL.EXAMPLE.COM/x と ftp://evil.example.com/x\n",
        encoding="utf-8",
    )
    flagged = _kh("pipeline", "check-draft", str(draft), "--packet", str(packet), "--repo", str(tmp_path), "--json")
    assert flagged.returncode == 1
    messages = [e["message"] for e in json.loads(flagged.stdout)["errors"] if e["code"] == "URL_NOT_IN_PACKET"]
    assert len(messages) == 2
    assert any("HTTPS://EVIL.EXAMPLE.COM/x" in m for m in messages)
    assert any("ftp://evil.example.com/x" in m for m in messages)


def test_file_reading_directives_stay_forbidden_and_the_blog_decides_the_rest(tmp_path: Path) -> None:
    for name in ("literalinclude", "include", "raw"):
        found = codes(GOOD + f"\n.. {name}:: ../secret.txt\n", CheckInputs(local_exists=lambda rel: True))
        assert ("DIRECTIVE_FORBIDDEN", 18) in found, (name, found)
    assert ("ROLE_NOT_ALLOWED", 18) in codes(
        GOOD + "\n見る :raw:`<b>x</b>`。\n", CheckInputs(local_exists=lambda r: True)
    )
    # a blog that does not list `todo` or `:kbd:` flags them; `literalinclude` cannot be allowed
    narrow = CheckInputs(local_exists=lambda rel: True, allowed_directives=["note", "seealso"], allowed_roles=["doc"])
    found = codes(GOOD + "\n.. todo:: x\n\n:kbd:`Ctrl` を押す。\n", narrow)
    assert ("DIRECTIVE_FORBIDDEN", 18) in found and ("ROLE_NOT_ALLOWED", 20) in found
    vault = tmp_path / "v"
    (vault / ".harness").mkdir(parents=True)
    (vault / ".harness" / "pipeline.toml").write_text('[drafts]\ndirectives = ["literalinclude"]\n', encoding="utf-8")
    draft = tmp_path / "d.rst"
    draft.write_text(GOOD, encoding="utf-8")
    refused = _kh("pipeline", "check-draft", str(draft), "--vault", str(vault))
    assert refused.returncode != 0 and "literalinclude" in refused.stdout + refused.stderr
    (vault / ".harness" / "pipeline.toml").write_text('[drafts]\ndirectives = ["note"]\n', encoding="utf-8")
    draft.write_text(GOOD.replace(":doc:`other`", "other") + "\n.. seealso:: x\n", encoding="utf-8")
    narrowed = _kh("pipeline", "check-draft", str(draft), "--vault", str(vault), "--json")
    assert narrowed.returncode == 1
    assert [e["code"] for e in json.loads(narrowed.stdout)["errors"]] == ["DIRECTIVE_FORBIDDEN"]


def test_the_draft_language_is_checked() -> None:
    english = GOOD.replace(
        "YAML 1.2 では *true* と *false* だけが真偽値です。詳しくは :doc:`other` を参照。",
        "In YAML 1.2 only *true* and *false* are booleans; the core schema changed how plain scalars resolve, "
        "which matters for Obsidian properties and every tool that reads front matter.",
    ).replace("はじめに\n--------", "Introduction\n------------")
    ja = CheckInputs(local_exists=lambda rel: True)
    assert [c for c, _ in codes(english, ja)] == ["DRAFT_LANGUAGE_MISMATCH"]
    assert codes(GOOD, ja) == []
    en = CheckInputs(local_exists=lambda rel: True, draft_language="en")
    assert [c for c, _ in codes(GOOD, en)] == ["DRAFT_LANGUAGE_MISMATCH"]
    assert codes(english, en) == []
    assert codes(english, CheckInputs(local_exists=lambda rel: True, draft_language=None)) == []


def test_private_words_in_a_technical_sense_do_not_hold_a_draft() -> None:
    inputs = CheckInputs(local_exists=lambda rel: True)
    technical = GOOD + "\n機密情報を git に入れない方法と、GitHub の非公開リポジトリでの設定を説明します。\n"
    assert codes(technical, inputs) == []
    for private in (
        "\n【社外秘】来期の計画です。\n",
        "\n田中さんの年収を載せます。\n",
        "\n社外秘の設計資料から引用します。\n",
    ):
        assert ("PRIVATE_MARKER_IN_DRAFT", 18) in codes(GOOD + private, inputs), private
