"""O-10 Prepare Review: the publication candidate on the run's branch and the Review Packet.

The agent proposes the final title, slug, tags and a PR description; the program checks them
and does the rest: the publication date (Asia/Tokyo, the first date after today not used by an
existing post nor reserved by another open run), `docs/blog/posts/YYYY-MM-DD-slug.rst` with an ablog `post` directive (language
ja) whose body is the validated draft with only the title, 公開日 and 記事状態 replaced, one commit
per review round on the run's one branch (`<branch_prefix><run_id>`; unchanged content → no new
commit, never a second branch), and the Review Packet in Japanese with SHA-256s. O-10 never
merges, approves, interprets comments, edits the text, translates or makes images. A GitHub
pull request is an optional adapter (`[blog] pull_request = "gh"`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from ...errors import BlogRepoError, HarnessError
from ..agents import Refusal
from ..article_view import article_html, article_text, revision_diff
from ..blog import blog_repo, run_branch
from ..blog_repo import BlogRepo, pr_number, pr_repository
from ..config import BlogSettings
from ..contract import (
    DECISION_CHOICES,
    MAX_AI_REVISIONS,
    Producer,
    ReasonCode,
    Result,
    State,
    Uncertainty,
    offered_choices,
)
from ..draft_checks import normalize_title
from ..drafts import replace_front, replace_note, sha256_text
from ..language import is_japanese
from ..packets import packet_items, uncertainty_ids
from ..run_store import RunStore
from .base import AgentStep, OpContext, Outcome, Prepared, QuestionSpec, Wait, moves

OPERATION = "O-10"
TOKYO = ZoneInfo("Asia/Tokyo")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# merging the branch publishes the file as it reads: it carries the published status and notice,
# while the branch, the pull request and the Review Packet say that it waits for review
PUBLISHED_STATUS = "公開"
PUBLISHED_NOTICE = "この記事は、AI が根拠の整理と下書きを行い、人間が内容を確認して公開を判断したものです。"

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Review metadata (O-10)",
    "type": "object",
    "additionalProperties": False,
    "required": ["title", "slug", "tags", "pr_description_ja"],
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\n]+$"},
        "slug": {"type": "string", "minLength": 1, "maxLength": 80},
        "tags": {
            "type": "array",
            "maxItems": 10,
            "items": {"type": "string", "pattern": "^[^,\\n]{1,40}$"},
        },
        "pr_description_ja": {"type": "string", "minLength": 1, "maxLength": 8000},
    },
}

INSTRUCTIONS_JA = """\
検証済みDraft（inputs.draft_rst）とArticle Plan（inputs.plan）だけを使い、公開用の最終タイトル、slug（英小文字・数字・ハイフン）、tags、PR説明案（日本語）を作ってください。
- 本文は変更できません。公開日はプログラムが決めます（inputs.publication_date）。
- タイトルは既存記事（inputs.existing_titles）と同じにしない。slug は inputs.existing_files と重ならないファイル名になるもの。
- PR説明案には中心メッセージ、主要根拠、不確実性、人間が確認すること、無回答なら公開しないことを書く。"""

INSTRUCTIONS_EN = """\
From the validated draft (inputs.draft_rst) and the plan (inputs.plan) only, propose the final title, a slug (lowercase
letters, digits, hyphens), tags and a Japanese PR description. You cannot change the body; the program picks the publication
date (inputs.publication_date). The title must differ from existing titles (inputs.existing_titles) and the file name from
inputs.existing_files. The PR description states the central message, main evidence, uncertainties, what the person checks,
and that no answer means no publication."""


# runs in these states have given up their candidate: its date is free again
_RELEASED = frozenset({State.HOLD, State.REJECTED, State.NO_CANDIDATE})


def reserved_dates(ctx: OpContext) -> dict[str, str]:
    """Publication dates held by other runs (date → run id): the candidate of a run that has not ended
    without publishing, or the date offered in another run's open O-10 task. Two runs reviewed on the
    same day therefore never get the same date, even before either candidate is merged."""
    store = RunStore(ctx.vault)
    held: dict[str, str] = {}
    for other in ctx.all_runs():
        if other.run_id == ctx.run.run_id or other.state in _RELEASED:
            continue
        dates: list[str] = []
        with contextlib.suppress(HarnessError, KeyError, TypeError):
            sha = other.artifacts.get("publication_candidate")
            if sha:
                dates.append(str(store.get_artifact(other.run_id, sha)["publication_date"]))
            for task in other.tasks.values():
                if task.operation == OPERATION and task.status == "open":
                    doc = store.get_artifact(other.run_id, task.document_sha256)
                    dates.append(str(doc["inputs"]["publication_date"]))
        for date in dates:
            held.setdefault(date, other.run_id)
    return held


def publication_date(today: dt.date, used: set[str]) -> str:
    day = today + dt.timedelta(days=1)
    while day.isoformat() in used:
        day += dt.timedelta(days=1)
    return day.isoformat()


def _ai_scope(draft: str) -> str:
    lines = draft.split("\n")
    out: list[str] = []
    inside = False
    for line in lines:
        if line.strip() == ".. note::":
            inside = True
            continue
        if inside:
            if line and not line.startswith(" "):
                break
            out.append(line.strip())
    return "\n".join(x for x in out if x)


class PrepareReview(AgentStep):
    operation = OPERATION
    name = "Prepare Review"
    transitions = moves({State.VALIDATED: {State.REVIEW_READY, State.HOLD}})
    next_in = (State.VALIDATED,)
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        repo = blog_repo(ctx)
        if repo is None:
            return Wait(
                "config:blog.repo (register the blog as [blogs.NAME] in the machine configuration; name it with [blog] name in .harness/pipeline.toml)"
            )
        # the remote's base branch as it is now (posts merged on GitHub count); offline: as last fetched
        with contextlib.suppress(BlogRepoError):
            repo.fetch()
        posts = repo.posts()
        draft = ctx.artifact("draft")
        plan = ctx.artifact("article_plan")
        today = ctx.clock().astimezone(TOKYO).date()
        used = {p.date for p in posts if p.date} | set(reserved_dates(ctx))
        previous = ctx.artifact("publication_candidate") if ctx.artifact_sha("publication_candidate") else None
        inputs = {
            "run_id": ctx.run.run_id,
            "draft_sha256": draft["sha256"],
            "draft_rst": draft["rst"],
            "manifest_sha256": ctx.artifact_sha("draft_manifest"),
            "plan_sha256": ctx.artifact_sha("article_plan"),
            "packet_sha256": ctx.artifact_sha("evidence_packet"),
            "validation_sha256": ctx.artifact_sha("validation_report"),
            "candidate_decision_sha256": ctx.artifact_sha("candidate_decision"),
            "plan": {k: plan[k] for k in ("working_title", "central_message", "audience", "structure_type")},
            "run_date": today.isoformat(),
            "publication_date": publication_date(today, used),
            "existing_titles": sorted({p.title for p in posts if p.title}),
            "existing_files": sorted(p.path.rsplit("/", 1)[-1] for p in posts),
            "posts_dir": repo.posts_dir,
            "branch": run_branch(ctx),
            "base_branch": repo.base_branch,
            "base_commit": repo.base_commit(),
        }
        return Prepared(
            inputs=inputs,
            # the previous round's candidate path (to remove after a slug change); not an input of its own
            payload={"previous_path": previous["path"] if previous else None},
            input_refs=[
                f"artifact:draft@sha256:{ctx.artifact_sha('draft')}",
                f"artifact:validation_report@sha256:{inputs['validation_sha256']}",
                f"blog:{repo.base_branch}@{inputs['base_commit']}",
            ],
        )

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        refusals: list[Refusal] = []
        slug = output["slug"]
        if not SLUG.match(slug):
            refusals.append(
                Refusal(ReasonCode.SLUG_INVALID, "$.slug", "Use lowercase letters, digits and single hyphens.")
            )
        name = f"{inputs['publication_date']}-{slug}.rst"
        if name in inputs["existing_files"]:
            refusals.append(Refusal(ReasonCode.SLUG_INVALID, "$.slug", f"{name} already exists in the posts folder."))
        if not is_japanese(output["pr_description_ja"]):
            refusals.append(
                Refusal(
                    ReasonCode.PR_DESCRIPTION_NOT_JAPANESE,
                    "$.pr_description_ja",
                    "Write the PR description in Japanese (English technical terms are fine): the central message, "
                    "main evidence, uncertainties, what the person checks, and that no answer means no publication.",
                )
            )
        key = normalize_title(output["title"])
        if any(normalize_title(t) == key for t in inputs["existing_titles"]):
            refusals.append(
                Refusal(ReasonCode.TITLE_DUPLICATE, "$.title", "The title equals an existing article's title.")
            )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        inputs = prepared.inputs
        repo = blog_repo(ctx)
        assert repo is not None
        cfg = ctx.config.blog
        date = inputs["publication_date"]
        candidate = _candidate_rst(cfg, inputs, output)
        rel = repo.post_path(f"{date}-{output['slug']}.rst")
        previous_path = (prepared.payload or {}).get("previous_path")
        remove = [previous_path] if previous_path and previous_path != rel else []
        result = repo.commit_post(
            inputs["branch"],
            rel,
            candidate.encode("utf-8"),
            f"公開候補: {output['title']}\n\nKnowledge Harness run {inputs['run_id']} (O-10 Prepare Review).\n",
            remove=remove,
            author=cfg.author,
        )
        codes = [ReasonCode.REVIEW_PREPARED]
        if result.created_branch:
            codes.append(ReasonCode.BLOG_BRANCH_CREATED)
        # one of the two: a new commit for this round, or the branch's head reused (same content)
        codes.append(ReasonCode.BLOG_COMMIT_CREATED if result.created_commit else ReasonCode.BLOG_COMMIT_REUSED)
        candidate_sha = sha256_text(candidate)
        uncertainties: list[Uncertainty] = []
        pr_url: str | None = None
        packet = ctx.artifact("evidence_packet")
        manifest = ctx.artifact("draft_manifest")
        offered = offered_choices(ctx.records)
        # the article as a reader sees it, and what changed since the previous review round
        text = article_text(candidate)
        html = article_html(
            candidate, title_note=f"公開候補 {rel}（run {inputs['run_id']}、commit {result.commit[:12]}）"
        )
        previous = ctx.artifact("publication_candidate") if ctx.artifact_sha("publication_candidate") else None
        diff = None
        if previous is not None:
            diff = revision_diff(
                article_text(previous["rst"]),
                text,
                before_name=f"前回 {previous['path']} ({str(previous['commit'])[:12]})",
                after_name=f"今回 {rel} ({result.commit[:12]})",
            )
        view = ArticleView(
            text=text,
            html_file=ARTICLE_HTML,
            html_sha256=sha256_text(html),
            diff=diff,
            duplicates=_duplicates(ctx),
            independence_warnings=_independence_warnings(ctx),
        )
        review_md = build_review_packet(
            ctx, inputs, output, rel, result.commit, candidate_sha, packet, manifest, remove, offered, view
        )
        if cfg.pull_request == "gh":
            pr_url = _draft_pull_request(repo, inputs["branch"], output["title"], review_md, codes, uncertainties)
        review = {
            "markdown": review_md,
            "sha256": sha256_text(review_md),
            "run_id": inputs["run_id"],
            "candidate_path": rel,
            "candidate_sha256": candidate_sha,
            "branch": inputs["branch"],
            "base_branch": inputs["base_branch"],
            "commit": result.commit,
            "pr_url": pr_url,
            "pr_number": pr_number(pr_url),
            "choices": [
                {"code": code, "label_ja": DECISION_CHOICES[code][0], "effect_ja": DECISION_CHOICES[code][1]}
                for code in offered
            ],
            "article_text": text,
            "article_html_file": ARTICLE_HTML,
            "article_html_sha256": view.html_sha256,
            "diff": diff,
            "previous_commit": previous["commit"] if previous else None,
            "duplicates": view.duplicates,
            "independence_warnings": view.independence_warnings,
        }
        publication = {
            "path": rel,
            "sha256": candidate_sha,
            "rst": candidate,
            "branch": inputs["branch"],
            "base_branch": inputs["base_branch"],
            "base_commit": result.base_commit,
            "commit": result.commit,
            "title": output["title"],
            "slug": output["slug"],
            "publication_date": date,
            "tags": output["tags"],
            "pr_url": pr_url,
            "pr_number": pr_number(pr_url),
            "pr_repository": pr_repository(pr_url),
            "pr_description_ja": output["pr_description_ja"],
            "draft_sha256": inputs["draft_sha256"],
        }
        labels = "／".join(f"「{DECISION_CHOICES[code][0]}」" for code in offered)
        return Outcome(
            Result.ADVANCE,
            State.REVIEW_READY,
            codes,
            f"公開候補の確認待ちです（{rel}、branch {inputs['branch']}、commit {result.commit[:12]}）。"
            f"選択肢: {labels}。無回答の場合は公開せずHOLDを維持します。",
            uncertainties=uncertainties,
            artifacts={"publication_candidate": publication, "review_packet": review},
            metrics={"publication_date": date, "new_commit": result.created_commit},
            producer=Producer.AGENT,
            text_files={"REVIEW_PACKET.md": review_md, ARTICLE_HTML: html},
            question=QuestionSpec(
                kind="publication_decision",
                question_ja=f"公開候補の確認待ち: {output['title']}（{rel}）。{labels}から選んでください。",
                question_en=f"Publication candidate waiting for review: {', '.join(offered)} (approve after merging).",
                choices=offered,
            ),
        )


def _candidate_rst(cfg: BlogSettings, inputs: dict[str, Any], output: dict[str, Any]) -> str:
    """The article as the blog publishes it: the post directive, then the draft with its title and
    the candidate's metadata (publication date, status)."""
    date = inputs["publication_date"]
    header = [f".. post:: {date}"]
    if output["tags"]:
        header.append(f"   :tags: {', '.join(output['tags'])}")
    if cfg.category:
        header.append(f"   :category: {cfg.category}")
    header += [f"   :author: {cfg.author}", "   :language: ja", "", ""]
    body = replace_front(
        inputs["draft_rst"], title=output["title"], metadata={"公開日": date, "記事状態": PUBLISHED_STATUS}
    )
    body = replace_note(body, published_notice(_ai_scope(inputs["draft_rst"])))
    return "\n".join(header) + body


def published_notice(ai_scope: str) -> str:
    """The AI/human note as the published article says it: the program's sentence, then what the AI
    did in the agent's words, with "this draft" read as "this article"."""
    scope = ai_scope.replace("この下書きは", "この記事は").replace("この下書き", "この記事").strip()
    return f"{PUBLISHED_NOTICE}\n\n{scope}" if scope else PUBLISHED_NOTICE


def _draft_pull_request(
    repo: BlogRepo,
    branch: str,
    title: str,
    review_md: str,
    codes: list[ReasonCode],
    uncertainties: list[Uncertainty],
) -> str | None:
    """A draft PR through gh (its URL), or None with the failure as an uncertainty: the branch and
    the Review Packet still carry the review."""
    try:
        pr_url = repo.draft_pr(branch, title, review_md)
        if pr_number(pr_url) is None:
            raise BlogRepoError(f"gh did not return a pull request URL ({pr_url!r}).")
        codes.append(ReasonCode.PULL_REQUEST_PREPARED)
        return pr_url
    except BlogRepoError as exc:
        codes.append(ReasonCode.PULL_REQUEST_FAILED)
        uncertainties.append(
            Uncertainty(item=f"Draft PRを作成できない: {exc.message}", impact="branchとReview Packetで確認する")
        )
        return None


ARTICLE_HTML = "ARTICLE.html"
TREATMENT_EFFECT = {
    "DISCLOSE": "本文で明示する（読者に不確実だと伝える）",
    "LIMIT_CLAIM": "主張をこの範囲に限定する（断定しない）",
    "EXCLUDE": "記事では扱わない（この点には触れず、主張にも使わない）",
}
INDEPENDENCE_CODES = frozenset({"JUDGE_SAME_CLIENT_AS_AUTHOR", "SELF_JUDGED", "JUDGE_NOT_INDEPENDENT"})


class ArticleView(NamedTuple):
    """The article as the person reads it and what the packet warns about: computed once, for the
    packet's markdown and its JSON alike."""

    text: str
    html_file: str
    html_sha256: str
    diff: str | None
    duplicates: list[dict[str, Any]]
    independence_warnings: list[str]


def _uncertainty_lines(plan: dict[str, Any], packet: dict[str, Any]) -> list[str]:
    """Every uncertainty in words: what is uncertain, its effect, and how the article treats it."""
    known = {u["id"]: u for u in uncertainty_ids(packet)}
    lines: list[str] = []
    for entry in plan.get("uncertainty_handling", []):
        uid, treatment = entry["uncertainty_id"], entry["treatment"]
        unc = known.get(uid, {})
        code = f"（{unc['code']}）" if unc.get("code") else ""
        lines.append(f"- `{uid}`{code} {unc.get('item') or '（内容不明）'}")
        if unc.get("impact"):
            lines.append(f"  - 影響: {unc['impact']}")
        lines.append(f"  - 扱い: {treatment} — {TREATMENT_EFFECT.get(treatment, treatment)}。理由: {entry['reason']}")
    return lines or ["- 不確実性はありません。"]


def _independence_warnings(ctx: OpContext) -> list[str]:
    """The records' warnings that a judgment was not independent (the same client judged its own work)."""
    out: list[str] = []
    for record in ctx.records:
        for unc in record.uncertainties:
            warning = f"{record.operation}: {unc.item}（{unc.impact}）" if unc.impact else unc.item
            if unc.code in INDEPENDENCE_CODES and warning not in out:  # once, however many rounds repeat it
                out.append(warning)
    return out


def _diff_lines(diff: str | None) -> list[str]:
    if diff is None:
        return ["（前回の公開候補はありません: 初回の確認です）"]
    if not diff:
        return ["（前回の公開候補から本文の変更はありません）"]
    return ["```diff", diff, "```"]


def _duplicates(ctx: OpContext) -> list[dict[str, Any]]:
    report = ctx.artifact("validation_report") if ctx.artifact_sha("validation_report") else {}
    return list(report.get("duplicates") or [])


def build_review_packet(
    ctx: OpContext,
    inputs: dict[str, Any],
    output: dict[str, Any],
    rel: str,
    commit: str,
    candidate_sha: str,
    packet: dict[str, Any],
    manifest: dict[str, Any],
    removed: list[str],
    offered: list[str],
    view: ArticleView,
) -> str:
    plan = ctx.artifact("article_plan")
    validation = ctx.artifact("validation_report")
    article = [
        "## 記事（読者が読む形）",
        "",
        f"HTML: 実行フォルダの `{view.html_file}`（sha256 `{view.html_sha256}`）。",
        "",
        "```text",
        view.text.rstrip(),
        "```",
        "",
        "## 前回の公開候補からの差分",
        "",
        *_diff_lines(view.diff),
        "",
    ]
    lines = [
        f"# 公開候補の確認待ち — {output['title']}",
        "",
        f"- run_id: `{inputs['run_id']}`",
        f"- 公開候補: `{rel}`",
        f"- branch: `{inputs['branch']}` → base `{inputs['base_branch']}`、commit `{commit}`",
        f"- 公開日（予定、Asia/Tokyo）: {inputs['publication_date']}",
        "",
        "## 中心メッセージ",
        "",
        plan["central_message"],
        "",
        "## 主要根拠",
        "",
        *_cited_sources(packet, manifest),
        "",
        *article,
        "## 不確実性と扱い",
        "",
        *_uncertainty_lines(plan, packet),
        "",
        "## 独立性の警告",
        "",
        *(
            [f"- ⚠ {w}" for w in view.independence_warnings]
            or ["- 警告はありません（判定者と作成者は別のクライアントでした、または名乗りがありません）。"]
        ),
        "",
        "## 重複候補（既存記事との本文類似度）",
        "",
        *(
            [f"- `{d['path']}` 類似度 {float(d['similarity']):.2f}" for d in view.duplicates]
            or ["- 類似度 0.85 以上の既存記事はありません。"]
        ),
        "",
        "## 検証結果",
        "",
        *_validation_lines(validation),
        "",
        "## AIが担当した範囲",
        "",
        "Evidence Packetの整理、候補判定、構成、本文案、検証の評価、タイトル・slug・PR説明案の作成をAIが行いました。",
        _ai_scope(inputs["draft_rst"]),
        "",
        "## 人間が確認する範囲",
        "",
        "- 中心メッセージと主要根拠が公開してよい内容か",
        "- 不確実性の扱い（明示・限定・除外）が妥当か",
        "- 公開日・タイトル・タグ",
        "- 公開してよいかの最終判断（mergeまたは下の選択肢）",
        "",
        "## 変更ファイル",
        "",
        f"- `{rel}` sha256 `{candidate_sha}`",
        *(f"- `{old}` （前回の公開候補、削除）" for old in removed),
        "",
        "## 判断の選択肢と影響",
        "",
        *_choice_lines(offered, ctx.config.decision.wait_days),
        "",
        "## 判断の方法",
        "",
        *_how_to_decide(inputs["run_id"], commit, offered),
        "",
        "## SHA-256",
        "",
        f"- 公開候補 `{rel}`: `{candidate_sha}`",
        f"- draft.rst: `{inputs['draft_sha256']}`",
        f"- draft_manifest: `{inputs['manifest_sha256']}`",
        f"- article_plan: `{inputs['plan_sha256']}`",
        f"- evidence_packet: `{inputs['packet_sha256']}`",
        f"- validation_report: `{inputs['validation_sha256']}`",
        f"- candidate_decision: `{inputs['candidate_decision_sha256']}`",
        "",
        "## PR説明案",
        "",
        output["pr_description_ja"].strip(),
        "",
    ]
    return "\n".join(lines)


def _cited_sources(packet: dict[str, Any], manifest: dict[str, Any]) -> list[str]:
    """The sources the draft's blocks cite, in first-cited order, each with the agent's summary."""
    items = packet_items(packet)
    sources = {s["source_id"]: s for s in packet.get("sources") or []}
    cited: list[str] = []
    for block in manifest.get("blocks", []):
        for ref in block.get("packet_refs", []):
            for sid in items.get(ref, {}).get("source_ids", []):
                if sid not in cited:
                    cited.append(sid)
    lines = []
    for sid in cited:
        s = sources.get(sid, {})
        where = s.get("url") or s.get("repository_ref") or ""
        lines.append(f"- `{sid}` {s.get('title', '')}（{s.get('source_class', '')}） {where}".rstrip())
        if s.get("summary_ja") and s["summary_ja"] != "未確認":
            lines.append(f"  - 要約（AI）: {s['summary_ja']}")
    return lines


def _validation_lines(validation: dict[str, Any]) -> list[str]:
    lines = [
        f"- Program: エラー{len(validation.get('errors', []))}件、警告{len(validation.get('warnings', []))}件、"
        f"自動修正{len(validation.get('autofix', []))}件（末尾空白・最終改行・見出し装飾長のみ）"
    ]
    for finding in [*validation.get("errors", []), *validation.get("warnings", [])]:
        lines.append(f"  - `{finding.get('code')}` {finding.get('line', '')}行目: {finding.get('message', '')}")
    for fix in validation.get("autofix", []):
        lines.append(f"  - 自動修正: {fix.get('code', '')} {fix.get('line', '')}行目")
    for key, axis in (validation.get("axes") or {}).items():
        lines.append(f"- {key}: {axis['verdict']}（確信度{float(axis['confidence']):.2f}）{axis['reasons'][:200]}")
    return lines


def _choice_lines(offered: list[str], wait_days: float) -> list[str]:
    """The choices still offered with their effects, and what happens without an answer."""
    lines = []
    for code in offered:
        label, effect, _ = DECISION_CHOICES[code]
        lines.append(f"- **{label}**（`{code}`）: {effect}")
    if "revise" not in offered:
        lines.append(
            f"- 「{DECISION_CHOICES['revise'][0]}」は選べません: AIによる修正は同一記事{MAX_AI_REVISIONS}回までで、既に{MAX_AI_REVISIONS}回修正しました。"
            "それでも選ぶと、AIは修正せず、公開せず保留（HOLD）で終わります（REVISION_LIMIT_REACHED）。"
        )
    waiting = (
        f"{wait_days:g}日以内に判断がなければ、公開せず保留（HOLD）として終了します（再開条件を記録します）。"
        if wait_days
        else "判断があるまで待ちます。"
    )
    return [*lines, "", "**無回答の場合は公開せず、HOLD（未公開）を維持します。**" + waiting]


def _how_to_decide(run_id: str, commit: str, offered: list[str]) -> list[str]:
    label = {code: DECISION_CHOICES[code][0] for code in DECISION_CHOICES}
    revise = (
        [
            f"    kh pipeline decide VAULT {run_id} --choice {label['revise']} "
            '--instructions "…" --blocks B1 --review-sha256 <SHA-256>'
        ]
        if "revise" in offered
        else []
    )
    return [
        "どの判断にも、このReview PacketのSHA-256（`REVIEW_PACKET.md` のSHA-256、`kh pipeline review` や REST の "
        "`review_packet_sha256` でも表示）を添えます。SHA-256のない判断は受け付けません。"
        "承認は、branch（PR）をbaseへmergeしたあとに、commitも添えて行います"
        "（squash・rebaseによるmergeも、公開候補と同じ内容がbaseにあれば認めます）:",
        "",
        f"    kh pipeline decide VAULT {run_id} --choice {label['approve']} --commit {commit} --review-sha256 <SHA-256>",
        *revise,
        f'    kh pipeline decide VAULT {run_id} --choice {label["reject"]} --instructions "理由" --review-sha256 <SHA-256>',
        f'    kh pipeline decide VAULT {run_id} --choice {label["policy"]} --instructions "問題" '
        '--option "案1" --option "案2" --review-sha256 <SHA-256>',
        "",
        "`kh pipeline review VAULT RUN` がこのPacketを端末でページ送り表示し、SHA-256も示します。"
        "`--choice` には選択肢の日本語ラベル（例: 公開しない）かコード（例: reject）を指定します。"
        "受け付けられない判断（SHA-256の誤り、日本語でない修正指示など）は理由を示して拒否され、実行は確認待ちのままです。"
        "同じ公開候補への二つ目の異なる判断は、両方を記録して保留（HOLD）とします。",
    ]
