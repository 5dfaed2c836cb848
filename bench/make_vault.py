"""A realistic synthetic Obsidian vault for benchmarks (deterministic for a seed).

Notes in Japanese and English with Japanese and English file names in nested folders, sizes
from a few hundred bytes to a few hundred KB (log-normal, mean about 4 KB), ATX and setext
headings, lists, callouts, tables, fenced code with `#` comments, wikilinks, embeds,
Markdown links and external URLs, MOC notes (`type: moc`) in a hierarchy, and Keyword notes
with provenance / verification / evidence frontmatter and a references section.

`realistic=True` adds what real Obsidian vaults hold beside that (bench/index_bench.py uses it;
the other benchmarks keep the plain vault, so their figures stay comparable): lists nested with
tabs, HTML blocks (comments, `<div>`, `<details>`) and inline HTML, callouts with nested lists,
lazy continuation lines in list items and block quotes, footnotes and link reference
definitions, embeds (`![[x.png]]`, `![[Note#Heading]]`), heading and block links (`[[Note#^id]]`)
and block ids, and a few large notes (1-3 MB). The rates are of the order of those in the
official Obsidian help and developer documentation vaults.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

FOLDERS = [
    "技術/GitHub",
    "技術/CI",
    "技術/AI",
    "日記/2026",
    "Projects/Harness",
    "Projects/Index",
    "Reading",
    "Keywords",
]
JA_WORDS = [
    "索引",
    "見出し",
    "構造",
    "検証",
    "鮮度",
    "証拠",
    "リンク",
    "ノート",
    "自動生成",
    "差分",
    "階層",
    "検索",
    "要約",
    "運用",
    "設計",
    "実装",
    "信頼",
    "更新",
    "境界",
    "原文",
]
EN_WORDS = [
    "index",
    "heading",
    "structure",
    "evidence",
    "freshness",
    "vault",
    "markdown",
    "pipeline",
    "agent",
    "review",
    "stale",
    "commit",
    "branch",
    "manifest",
    "tree",
    "query",
    "token",
    "schema",
    "cache",
    "build",
]
JA_SENT = [
    "この節では{w}と{v}の関係を整理する。",
    "{w}は元のMarkdownを正本として扱い、{v}を派生物として管理する。",
    "実際の運用では{w}が古くなることがあるため、{v}を必ず確認する。",
    "AIは候補を絞ったあと、最後に元の{w}へ戻って{v}を読む。",
]
EN_SENT = [
    "This section explains how the {w} relates to the {v}.",
    "Keep the {w} as the source of truth and treat the {v} as derived data.",
    "When the {w} changes, the {v} must be rebuilt before an agent relies on it.",
    "An agent narrows candidates with the {w}, then reads the original {v}.",
]


def _sentence(rng: random.Random, ja: bool) -> str:
    words = JA_WORDS if ja else EN_WORDS
    return rng.choice(JA_SENT if ja else EN_SENT).format(w=rng.choice(words), v=rng.choice(words))


def _paragraph(rng: random.Random, ja: bool, links: list[str]) -> str:
    parts = [_sentence(rng, ja) for _ in range(rng.randint(2, 6))]
    if links and rng.random() < 0.6:
        target = rng.choice(links)
        style = rng.random()
        if style < 0.6:
            parts.insert(rng.randrange(len(parts) + 1), f"[[{target}]]")
        elif style < 0.75:
            parts.insert(rng.randrange(len(parts) + 1), f"[[{target}|別名]]")
        elif style < 0.85:
            parts.insert(rng.randrange(len(parts) + 1), f"[[{target}#概要]]")
        else:
            parts.insert(rng.randrange(len(parts) + 1), f"[link]({target.replace(' ', '%20')}.md)")
    if rng.random() < 0.15:
        parts.append(f"#{rng.choice(EN_WORDS)}")
    if rng.random() < 0.1:
        parts.append(f"https://example.org/{rng.choice(EN_WORDS)}/{rng.randint(1, 999)}")
    return ("" if ja else " ").join(parts) if ja else " ".join(parts)


def _block(rng: random.Random, ja: bool, links: list[str]) -> str:
    r = rng.random()
    if r < 0.55:
        return _paragraph(rng, ja, links)
    if r < 0.75:
        items = [f"- {_sentence(rng, ja)}" for _ in range(rng.randint(2, 6))]
        if rng.random() < 0.3:
            items.insert(1, f"  - {_sentence(rng, ja)}")
        return "\n".join(items)
    if r < 0.83:
        return "```python\n# a comment, not a heading\ndef f(x):\n    return x + 1  # [[not a link]]\n```"
    if r < 0.9:
        kind = rng.choice(["note", "tip", "warning"])
        return f"> [!{kind}] {rng.choice(EN_WORDS)}\n> {_sentence(rng, ja)}\n> {_sentence(rng, ja)}"
    if r < 0.95:
        return "| key | value |\n|---|---|\n| " + rng.choice(EN_WORDS) + " | " + rng.choice(JA_WORDS) + " |"
    return "1. " + _sentence(rng, ja) + "\n2. " + _sentence(rng, ja)


# kinds of Markdown real vaults add, and the share of notes that use each (a note that uses a
# kind has several such blocks): of the order of the Obsidian help vault's (issue #16: tabs in
# ~10 % of notes, HTML ~3 %, lazy lines ~3 %, link reference definitions ~0.5 %)
REALISTIC_KINDS = [
    ("tabs", 0.12),
    ("html", 0.05),
    ("callout", 0.08),
    ("lazy", 0.04),
    ("refs", 0.01),
    ("embeds", 0.30),
    ("table", 0.05),
]


def _realistic_block(rng: random.Random, ja: bool, links: list[str], kind: str) -> str:
    """A block of one of REALISTIC_KINDS (see the module docstring)."""
    sent = _sentence
    if kind == "tabs":  # Obsidian indents nested lists with tabs
        items = [f"- {sent(rng, ja)}", f"\t- {sent(rng, ja)}", f"\t\t- {sent(rng, ja)}", f"\t- {sent(rng, ja)}"]
        if rng.random() < 0.3:
            items.insert(2, f"\t\t1.\t{sent(rng, ja)}")
        if rng.random() < 0.3:
            items.append(f"\t```\n\tcode({rng.randint(1, 9)})\n\t```")
        return "\n".join(items)
    if kind == "html":  # HTML blocks and inline HTML
        return rng.choice(
            [
                "<!-- TODO: " + sent(rng, ja) + " -->",
                f'<div class="callout-grid">\n  <span>{sent(rng, ja)}</span>\n</div>',
                f"<details><summary>{rng.choice(EN_WORDS)}</summary>\n\n{sent(rng, ja)}\n\n</details>",
                f"{sent(rng, ja)}<br>{sent(rng, ja)} <kbd>Ctrl</kbd>",
                f'<p align="center">\n<img src="{rng.choice(EN_WORDS)}.png" width="400">\n</p>',
            ]
        )
    if kind == "callout":  # callouts with nested lists, lazy continuation lines
        callout = rng.choice(["note", "tip", "warning", "info", "example"])
        return (
            f"> [!{callout}]- {rng.choice(EN_WORDS)}\n> {sent(rng, ja)}\n> - {sent(rng, ja)}\n"
            f">\t- {sent(rng, ja)}\n{sent(rng, ja)}"
        )
    if kind == "lazy":  # list items whose text wraps without indentation (lazy lines)
        return f"- {sent(rng, ja)}\n{sent(rng, ja)}\n- {sent(rng, ja)}\n  {sent(rng, ja)}"
    if kind == "refs":  # footnotes and link reference definitions
        n = rng.randint(1, 9)
        return (
            f"{sent(rng, ja)}[^{n}] [{rng.choice(EN_WORDS)}][ref{n}]\n\n[^{n}]: {sent(rng, ja)}\n"
            f'[ref{n}]: https://example.org/{rng.choice(EN_WORDS)} "{rng.choice(EN_WORDS)}"'
        )
    if kind == "embeds" and links:  # embeds, heading and block links, block ids
        target = rng.choice(links)
        block_id = f"{rng.randrange(16**6):06x}"
        return rng.choice(
            [
                f"![[{rng.choice(EN_WORDS)}-{rng.randint(1, 99)}.png]]\n{sent(rng, ja)} ^{block_id}",
                f"![[{target}#{rng.choice(JA_WORDS if ja else EN_WORDS)}]]",
                f"{sent(rng, ja)} [[{target}#^{block_id}]] ^{block_id}",
                f"See [[{target}#{rng.choice(EN_WORDS)} {rng.randint(1, 99)}|{rng.choice(EN_WORDS)}]].",
            ]
        )
    return "| key\t| value |\n|---|---|\n| " + rng.choice(EN_WORDS) + " | " + rng.choice(JA_WORDS) + " |"


def _title(rng: random.Random, i: int, ja: bool) -> str:
    if ja:
        return f"{rng.choice(JA_WORDS)}の{rng.choice(JA_WORDS)} {i}"
    return f"{rng.choice(EN_WORDS).title()} {rng.choice(EN_WORDS)} {i}"


def _keyword_frontmatter(rng: random.Random, body_refs: list[str]) -> str:
    digest = hashlib.sha256(str(rng.random()).encode()).hexdigest()
    level = rng.choice([0, 1, 1, 2, 2, 2, 3])
    status = rng.choice(["unverified", "reviewed", "verified", "verified", "disputed"])
    sources = "\n".join(
        f"    - url: {u}\n      snapshot_sha256: {digest}\n      fetched_at: 2026-09-01\n      verdict: supported"
        for u in body_refs[:2]
    )
    return (
        "provenance:\n  origin: ai_generated\n  generator: claude\n"
        f"verification:\n  status: {status}\n  level: {level}\n  validator: lexical-1\n"
        f"  last_validated: 2026-09-01\n  revalidate_after: 2026-{rng.randint(10, 12)}-{rng.randint(10, 28)}\n"
        f"  content_sha256: {digest}\n  references_sha256: {digest}\n"
        f"evidence:\n  status: grounded\n  source_count: {len(body_refs[:2])}\n  sources:\n{sources}\n"
    )


def make_vault(root: Path, n: int, seed: int = 0, *, realistic: bool = False) -> None:
    """Write a vault of `n` notes under `root` (created; existing files are overwritten).

    realistic: add real vaults' Markdown (see the module docstring); without it the vault is
    byte for byte what earlier versions wrote for the seed.
    """
    extra = random.Random(seed + 1_000_003)  # the realistic additions draw from their own stream
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    n_moc = max(3, n // 200)
    plan: list[tuple[str, str, bool]] = []  # (folder, title, ja)
    for i in range(n - n_moc):
        ja = rng.random() < 0.55
        folder = rng.choice(FOLDERS)
        plan.append((folder, _title(rng, i, ja), ja))
    titles = [t for _, t, _ in plan]
    # MOC hierarchy: a root MOC, field MOCs below it
    moc_titles = ["技術"] + [f"MOC {rng.choice(JA_WORDS)} {k}" for k in range(1, n_moc)]
    for k, title in enumerate(moc_titles):
        members = rng.sample(titles, min(len(titles), rng.randint(20, 60)))
        children = moc_titles[1:] if k == 0 else []
        lines = [f"---\ntitle: {title}\ntype: moc\nstatus: active\ntags: [moc]\n---", f"# {title}", ""]
        if k:
            lines += ["上位: [[技術]]", ""]
        if children:
            lines += ["## 分野別MOC", ""] + [f"- [[{c}]]" for c in children] + [""]
        lines += ["## ノート", ""] + [f"- [[{m}]]" for m in members]
        (root / "MOC").mkdir(exist_ok=True)
        (root / "MOC" / f"{title}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for i, (folder, title, ja) in enumerate(plan):
        target_size = min(400_000, int(rng.lognormvariate(7.9, 0.75)))
        kinds = [k for k, share in REALISTIC_KINDS if extra.random() < share] if realistic else []
        if realistic and extra.random() < 0.0005:
            target_size = extra.randint(1_000_000, 3_000_000)  # a few large notes (logs, clippings)
        keyword = folder == "Keywords"
        refs = [f"https://example.org/{rng.choice(EN_WORDS)}/{i}-{j}" for j in range(rng.randint(1, 3))]
        fm = [f"title: {title}" if rng.random() < 0.3 else None, f"type: {'keyword' if keyword else 'note'}"]
        fm.append(f"tags: [{rng.choice(EN_WORDS)}, {rng.choice(EN_WORDS)}]")
        if rng.random() < 0.3:
            fm.append(f"aliases: [{rng.choice(JA_WORDS)}{i}]")
        front = "\n".join(x for x in fm if x) + "\n"
        if keyword:
            front += _keyword_frontmatter(rng, refs)
        out = [f"---\n{front}---", f"# {title}", ""]
        size = sum(len(x) for x in out)
        level = 2
        while size < target_size:
            r = rng.random()
            if r < 0.2:
                h = f"{'#' * level} {rng.choice(JA_WORDS if ja else EN_WORDS)} {rng.randint(1, 99)}"
                out += [h, ""]
                level = rng.choice([2, 2, 3, 3, 4]) if level < 4 else 2
            elif r < 0.23:
                out += [f"{rng.choice(EN_WORDS).title()} summary", "-" * 12, ""]
            block = _block(rng, ja, titles)
            if kinds and extra.random() < 0.25:
                block = _realistic_block(extra, ja, titles, extra.choice(kinds))
            out += [block, ""]
            size += len(block.encode("utf-8")) + 1
        if keyword or rng.random() < 0.2:
            out += ["## 参考資料" if ja else "## References", ""] + [f"- {u}" for u in refs]
        folder_path = root / folder
        folder_path.mkdir(parents=True, exist_ok=True)
        newline = "\r\n" if rng.random() < 0.02 else "\n"
        text = newline.join(out) + newline
        (folder_path / f"{title}.md").write_bytes(text.encode("utf-8"))
