"""`make demo-pipeline`: prepare a pipeline demo that reaches REVIEW_READY.

Under ROOT (default `.run/demo-pipeline/`) it creates
  blog/   a local git repository in ablog layout (docs/conf.py, docs/index.rst, three past posts
          in docs/blog/posts/ on branch main) — the blog the pipeline proposes articles to;
  vault/  a copy of examples/vault whose .harness/pipeline.toml names the blog ([blog] name = "demo",
          registered as [blogs.demo] in ROOT/machine-config.toml, the machine configuration);
and captures the vault's request note (O-01). It prints JSON: the vault, the blog and the run id.
Authorizing the run stays with the person (`kh pipeline authorize` at a terminal, or the plugin);
the agent steps are done by Claude Code or Codex over MCP with the agent token (docs/pipeline.md,
"Walkthrough"). Running it again starts from scratch.

    .venv/bin/python scripts/demo_pipeline.py [ROOT] [--providers vault,cited_urls]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_VAULT = REPO / "examples" / "vault"
REQUEST_NOTE = "Requests/メタデータ限定更新の記事.md"
AUTHOR = "Knowledge Harness demo"

CONF_PY = """\
# Sphinx + ablog configuration of the demo blog (a real blog would add a theme and its own settings).
project = "Knowledge Harness demo blog"
extensions = ["ablog"]
blog_path = "blog"
blog_title = project
blog_authors = {"Knowledge Harness demo": ("Knowledge Harness demo", None)}
language = "ja"
"""

INDEX_RST = """\
デモブログ
==========

.. postlist:: 10
   :date: %Y-%m-%d
"""

POSTS = {
    "2026-10-05-obsidian-properties.rst": """\
.. post:: 2026-10-05
   :tags: obsidian, frontmatter
   :category: ツール
   :author: Knowledge Harness demo
   :language: ja

Obsidian のプロパティを使い始める
=================================

Obsidian のプロパティは、ノート先頭の frontmatter（YAML）として保存される。
型を決めて書くと、検索や Dataview での集計が安定する。

この記事では、日付・リスト・真偽値のプロパティを書くときの注意点をまとめる。
""",
    "2026-10-20-idempotent-batches.rst": """\
.. post:: 2026-10-20
   :tags: automation, idempotency
   :category: 設計
   :author: Knowledge Harness demo
   :language: ja

   同じバッチを二度実行しても結果が変わらないように作る方法。

冪等なバッチ処理の作り方
========================

バッチ処理は途中で止まり、再実行されることを前提に作る。
入力のハッシュを記録し、同じ入力なら何もしないのが基本になる。
""",
    "2026-11-10-ai-notes-review.rst": """\
.. post:: 2026-11-10
   :tags: ai, obsidian, review
   :category: 運用
   :author: Knowledge Harness demo
   :language: ja

AI が書いたノートを人間が確認する流れ
=====================================

AI エージェントが作ったノートは、出典と作成者を記録してから人間が確認する。
確認の結果は、本文ではなくメタデータとして残すと後から追跡しやすい。
""",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", f"user.name={AUTHOR}", "-c", "user.email=demo@example.invalid", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        timeout=60,
    )


def make_blog(blog: Path) -> None:
    posts = blog / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    _git(blog, "init", "-q", "-b", "main")
    (blog / "docs" / "conf.py").write_text(CONF_PY, encoding="utf-8")
    (blog / "docs" / "index.rst").write_text(INDEX_RST, encoding="utf-8")
    for name, text in POSTS.items():
        (posts / name).write_text(text, encoding="utf-8")
    _git(blog, "add", "-A")
    _git(blog, "commit", "-q", "-m", "Demo blog: three past posts")


def _generated(folder: str, names: list[str]) -> set[str]:
    """Only the committed demo policy of .harness/: nothing `make run` built there."""
    return {n for n in names if n != "policy.toml"} if Path(folder).name == ".harness" else set()


def make_vault(vault: Path, providers: list[str]) -> None:
    shutil.copytree(EXAMPLE_VAULT, vault, symlinks=True, ignore=_generated)
    listed = ", ".join(json.dumps(p) for p in providers)
    (vault / ".harness" / "pipeline.toml").write_text(
        "# The pipeline demo (make demo-pipeline): evidence from the vault and the pages its notes cite,\n"
        "# candidates proposed to the local blog repository beside this vault.\n"
        f"[evidence]\nproviders = [{listed}]\n\n"
        f'[blog]\nname = "demo"\nposts_dir = "docs/blog/posts"\nbase_branch = "main"\nauthor = "{AUTHOR}"\n',
        encoding="utf-8",
    )


def prepare(root: Path, providers: list[str]) -> dict[str, str]:
    from knowledge_harness.pipeline.engine import Pipeline
    from knowledge_harness.vault.paths import Vault

    root = root.resolve()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    make_blog(root / "blog")
    # The blog is registered in the machine configuration: a vault file only names it.
    machine = root / "machine-config.toml"
    machine.write_text(f'[blogs.demo]\nrepo = "{(root / "blog").as_posix()}"\n', encoding="utf-8")
    os.environ["KH_CONFIG"] = str(machine)
    make_vault(root / "vault", providers)
    status = Pipeline(Vault.open(root / "vault")).capture_note(REQUEST_NOTE)
    return {
        "vault": str(root / "vault"),
        "blog": str(root / "blog"),
        "machine_config": str(machine),
        "request_note": REQUEST_NOTE,
        "run_id": status.run_id,
        "state": str(status.state),
        "waiting_for": str(status.waiting_for),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(REPO / ".run" / "demo-pipeline"))
    parser.add_argument("--providers", default="vault,cited_urls")
    args = parser.parse_args(argv)
    result = prepare(Path(args.root), [p.strip() for p in args.providers.split(",") if p.strip()])
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
