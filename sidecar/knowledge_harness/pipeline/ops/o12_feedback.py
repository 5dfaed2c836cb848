"""O-12 Apply Feedback: revise only the named blocks; at most two AI revisions per article.

Input: the REVISION decision (concrete Japanese instructions, target blocks), the reviewed
draft, the plan and the packet of the same run. Before anything is revised the program checks the
decision's references instead of copying them: the Review Packet SHA-256 it names is the current
packet's, its commit is the candidate commit and still the head of the run's branch, the draft
to revise is the one the candidate was built from, and a GitHub comment reference points into the
candidate's pull request. A mismatch → HOLD (`REVISION_REFERENCE_MISMATCH`) with a resume condition. The agent returns new text for exactly the
target blocks, citing only packet items the block's section allows; the program refuses any
other block, a new URL, a heading, an outside-content directive. The agent may instead say the
instruction cannot be applied without new evidence or unrequested changes → HOLD. The program
replaces the blocks byte-exactly (everything else unchanged), writes a revision manifest with
the request, packet references and before/after SHA-256 per block, and moves the run to
REVISED ("修正しました。再検証します"), from where O-09, O-10 and O-11 run again. The third AI
revision of an article is not run: HOLD.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...core.urls import normalize_url
from ...errors import HarnessError
from ..agents import Refusal
from ..blog import blog_repo
from ..blog_repo import pr_number, pr_repository
from ..contract import MAX_AI_REVISIONS, Producer, ReasonCode, Result, State
from ..draft_checks import CheckInputs, check_draft
from ..drafts import block_problems, layout, refresh_manifest, replace_blocks, sha256_text
from ..packets import packet_items, packet_urls, packet_view, urls_in
from .base import AgentStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-12"
_ID = {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Revised blocks (O-12)",
    "type": "object",
    "additionalProperties": False,
    "required": ["revisions"],
    "properties": {
        "revisions": {
            "type": "array",
            "maxItems": 50,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["block_id", "rst", "packet_refs", "change_summary_ja"],
                "properties": {
                    "block_id": _ID,
                    "rst": {"type": "string", "minLength": 1, "maxLength": 20000},
                    "packet_refs": {"type": "array", "items": _ID, "minItems": 1},
                    "change_summary_ja": {"type": "string", "minLength": 1, "maxLength": 2000},
                },
            },
        },
        "cannot_apply": {"type": ["string", "null"], "maxLength": 2000},
    },
}

INSTRUCTIONS_JA = """\
人間の修正指示（inputs.instructions）を、指定されたブロック（inputs.target_blocks）だけに適用してください。
- 各対象ブロックの新しいrst、packet_refs（inputs.target_blocks[].allowed_refs の範囲内）、変更の要約を返す。対象外のブロック、節構成、中心メッセージは変えない。
- 新しい根拠・URL、未依頼の節や主張を加えない。見出しや外部内容を取り込むdirectiveを書かない。
- 新しい根拠や未依頼の変更がなければ指示に応えられない場合は、revisions を空にして cannot_apply に理由を書く（保留になります）。"""

INSTRUCTIONS_EN = """\
Apply the person's instructions (inputs.instructions) to the named blocks only (inputs.target_blocks): return new rst,
packet_refs within each block's allowed_refs and a change summary for each target block. Do not touch other blocks, the
sections or the central message. Add no new evidence, URL, section or claim; no headings, no outside-content directives.
If the instruction cannot be met without new evidence or unrequested changes, return no revisions and explain in cannot_apply
(the run is then held)."""


_COMMENT_URL = re.compile(
    r"^(https://[^#\s]+/pull/\d+)(?:/files|/commits)?/?#(issuecomment|discussion_r|pullrequestreview)-?(\d+)$"
)
RESUME_REFERENCES = (
    "再開条件: 現在のReview Packet（kh pipeline review）のSHA-256とcommit、そのPRのコメント参照を添えて、"
    "依頼ノートを更新した新しい実行で修正を求める。記事は公開されていない。"
)


def comment_ref_problem(ref: str | None, pr_url: str | None) -> str | None:
    """Why a GitHub comment reference does not point into the candidate's pull request (None: it does).

    Accepted: a bare comment or review id (digits), or a comment URL of the same pull request
    (`…/pull/N#issuecomment-…`, `#discussion_r…`, `#pullrequestreview-…`)."""
    if not ref:
        return None
    ref = ref.strip()
    if ref.isdigit():
        return None
    match = _COMMENT_URL.match(ref)
    if match is None:
        return f"GitHub参照 {ref!r} はPRのコメント・レビューのURLでもIDでもありません"
    if pr_url is None:
        return f"GitHub参照 {ref!r} のPRを照合できません（公開候補にPRがありません）"
    if pr_number(match.group(1)) != pr_number(pr_url) or pr_repository(match.group(1)) != pr_repository(pr_url):
        return f"GitHub参照 {ref!r} は公開候補のPR {pr_url} のものではありません"
    return None


def reference_problems(refs: dict[str, Any]) -> list[str]:
    """The decision's references against the candidate and the draft; empty when all agree."""
    problems: list[str] = []
    if refs["decision_review_sha256"] != refs["review_packet_sha256"]:
        problems.append("判断が示すReview PacketのSHA-256が現在のReview Packetと一致しません")
    commit = refs["candidate_commit"]
    if refs["verified_commit"] != commit or not commit.startswith(refs["decision_commit"] or commit):
        problems.append(f"判断のcommitが公開候補のcommit {commit[:12]} と一致しません")
    if refs["branch_head"] is not None and refs["branch_head"] != commit:
        problems.append(f"公開候補のbranchの先頭 {refs['branch_head'][:12]} がレビューしたcommitではありません")
    if refs["candidate_draft_sha256"] is not None and refs["candidate_draft_sha256"] != refs["draft_sha256"]:
        problems.append("修正前のDraft（SHA-256）が公開候補の作成に使われたDraftと一致しません")
    problem = comment_ref_problem(refs["comment_ref"], refs["pr_url"])
    if problem:
        problems.append(problem)
    return problems


def _branch_head(ctx: OpContext, branch: str) -> str | None:
    try:
        repo = blog_repo(ctx)
        return None if repo is None else repo.branch_head(branch)
    except HarnessError:
        return None


def _done(ctx: OpContext) -> int:
    return sum(1 for r in ctx.records if r.operation == OPERATION and r.result == Result.ADVANCE)


class ApplyFeedback(AgentStep):
    operation = OPERATION
    name = "Apply Feedback"
    transitions = moves({State.REVISION: {State.REVISED, State.DRAFT_READY, State.HOLD}})
    next_in = (State.REVISION,)
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        decision_sha = ctx.artifact_sha("publication_decision")
        decision = ctx.artifact("publication_decision")
        draft = ctx.artifact("draft")
        manifest = ctx.artifact("draft_manifest")
        plan = ctx.artifact("article_plan")
        packet = ctx.artifact("evidence_packet")
        lay = layout(draft["rst"])
        texts = {b.block_id: b for b in lay.blocks}
        allowed = {s["section_id"]: s["packet_refs"] for s in manifest["sections"]}
        excluded = set(manifest.get("excluded_refs", []))
        targets = []
        for bid in decision.get("blocks") or []:
            block = texts.get(bid)
            if block is None:
                continue
            entry = next(b for b in manifest["blocks"] if b["block_id"] == bid)
            targets.append(
                {
                    "block_id": bid,
                    "section_id": block.section_id,
                    "rst": block.text,
                    "sha256": block.sha256,
                    "packet_refs": entry["packet_refs"],
                    "allowed_refs": [r for r in allowed.get(block.section_id, []) if r not in excluded],
                }
            )
        candidate = ctx.artifact("publication_candidate")
        verified = decision.get("verified") or {}
        references = {
            "decision_review_sha256": decision.get("review_packet_sha256"),
            "review_packet_sha256": ctx.artifact("review_packet")["sha256"],
            "decision_commit": decision.get("commit"),
            "verified_commit": verified.get("candidate_commit"),
            "candidate_commit": candidate["commit"],
            "branch_head": _branch_head(ctx, candidate["branch"]),
            "candidate_draft_sha256": candidate.get("draft_sha256"),
            "draft_sha256": draft["sha256"],
            "comment_ref": decision.get("comment_ref"),
            "pr_url": verified.get("pr_url") or candidate.get("pr_url"),
        }
        inputs = {
            "decision_sha256": decision_sha,
            "instructions": decision.get("instructions", ""),
            "comment_ref": decision.get("comment_ref"),
            "target_commit": candidate["commit"],
            "references": references,
            "requested_blocks": decision.get("blocks") or [],
            "target_blocks": targets,
            "other_block_ids": [b.block_id for b in lay.blocks if b.block_id not in {t["block_id"] for t in targets}],
            "draft_sha256": draft["sha256"],
            "draft_rst": draft["rst"],
            "plan": {k: plan[k] for k in ("working_title", "central_message", "sections", "uncertainty_handling")},
            "packet": packet_view(packet),
            "revisions_done": _done(ctx),
        }
        return Prepared(
            inputs=inputs,
            input_refs=[
                f"artifact:publication_decision@sha256:{decision_sha}",
                f"artifact:draft@sha256:{ctx.artifact_sha('draft')}",
            ],
        )

    def program_outcome(self, ctx: OpContext, prepared: Prepared) -> Outcome | None:
        inputs = prepared.inputs
        problems = reference_problems(inputs["references"])
        if problems:
            return Outcome(
                Result.HOLD,
                State.HOLD,
                [ReasonCode.REVISION_REFERENCE_MISMATCH],
                f"修正要求の参照が公開候補と一致しないため、修正せず保留(HOLD)とします（{'。'.join(problems)}）。"
                + RESUME_REFERENCES,
                metrics={"reference_problems": len(problems)},
            )
        if inputs["revisions_done"] >= MAX_AI_REVISIONS:
            return Outcome(
                Result.HOLD,
                State.HOLD,
                [ReasonCode.REVISION_LIMIT_REACHED],
                f"AIによる修正は同一記事{MAX_AI_REVISIONS}回までのため、{inputs['revisions_done'] + 1}回目は実行せず保留(HOLD)とします。"
                "同じ記事について追加の修正判断は求めません。再開条件: 新しい依頼として作り直す。",
                metrics={"revisions_done": inputs["revisions_done"]},
            )
        found = {t["block_id"] for t in inputs["target_blocks"]}
        missing = [b for b in inputs["requested_blocks"] if b not in found]
        if missing or not found:
            return Outcome(
                Result.HOLD,
                State.HOLD,
                [ReasonCode.UNKNOWN_TARGET_BLOCK],
                f"修正対象のブロック {missing} がDraftにないため、対象不明の指示として保留(HOLD)とします。",
            )
        return None

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        refusals: list[Refusal] = []
        targets = {t["block_id"]: t for t in inputs["target_blocks"]}
        if output.get("cannot_apply"):
            if output["revisions"]:
                refusals.append(
                    Refusal(
                        ReasonCode.SUBMISSION_SCHEMA_INVALID, "$.revisions", "With cannot_apply, give no revisions."
                    )
                )
            return refusals
        seen: set[str] = set()
        items = set(packet_items(inputs["packet"]))
        allowed_urls = packet_urls(inputs["packet"])
        for i, rev in enumerate(output["revisions"]):
            path = f"$.revisions[{i}]"
            bid = rev["block_id"]
            if bid not in targets or bid in seen:
                refusals.append(
                    Refusal(ReasonCode.BLOCK_NOT_TARGETED, path, f"{bid!r} is not a (remaining) target block.")
                )
                continue
            seen.add(bid)
            for ref in rev["packet_refs"]:
                if ref not in items or ref not in targets[bid]["allowed_refs"]:
                    refusals.append(
                        Refusal(ReasonCode.BLOCK_REF_NOT_ALLOWED, path, f"{ref!r} is not allowed for block {bid!r}.")
                    )
            dropped = _drops_content(str(targets[bid].get("rst") or ""), rev["rst"], inputs.get("instructions") or "")
            if dropped:
                refusals.append(Refusal(ReasonCode.REVISION_DROPS_CONTENT, f"{path}.rst", dropped))
            for code, message in block_problems(rev["rst"]):
                refusals.append(Refusal(code, f"{path}.rst", message))
            for _, url in urls_in(rev["rst"]):
                if normalize_url(url) not in allowed_urls:
                    refusals.append(
                        Refusal(
                            ReasonCode.URL_NOT_IN_PACKET, f"{path}.rst", f"{url} is new evidence (not in the packet)."
                        )
                    )
            for finding in check_draft(rev["rst"] + "\n", CheckInputs(packet=inputs["packet"])).errors:
                if finding.code in ("DIRECTIVE_FORBIDDEN", "POST_DIRECTIVE_FORBIDDEN", "UNSUPPORTED_VALUE"):
                    refusals.append(Refusal(finding.code, f"{path}.rst", finding.message))
        for bid in targets:
            if bid not in seen:
                refusals.append(
                    Refusal(
                        ReasonCode.TARGET_BLOCK_MISSING, "$.revisions", f"The target block {bid!r} has no revised text."
                    )
                )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        inputs = prepared.inputs
        if output.get("cannot_apply"):
            return Outcome(
                Result.HOLD,
                State.HOLD,
                [ReasonCode.REVISION_CANNOT_APPLY],
                f"修正指示は新しい根拠や未依頼の変更なしには適用できないため保留(HOLD)とします（{output['cannot_apply']}）。",
                producer=Producer.AGENT,
            )
        manifest = ctx.artifact("draft_manifest")
        text = replace_blocks(inputs["draft_rst"], {r["block_id"]: r["rst"] for r in output["revisions"]})
        new_refs = {r["block_id"]: r["packet_refs"] for r in output["revisions"]}
        base = {
            **manifest,
            "blocks": [{**b, "packet_refs": new_refs.get(b["block_id"], b["packet_refs"])} for b in manifest["blocks"]],
        }
        new_manifest = refresh_manifest(text, base)
        after = {b.block_id: b.sha256 for b in layout(text).blocks}
        number = inputs["revisions_done"] + 1
        revision = {
            "revision": number,
            "decision_sha256": inputs["decision_sha256"],
            "instructions": inputs["instructions"],
            "comment_ref": inputs["comment_ref"],
            "target_commit": inputs["target_commit"],
            "references_verified": inputs["references"],
            "draft_sha256_before": inputs["draft_sha256"],
            "draft_sha256_after": sha256_text(text),
            "blocks": [
                {
                    "block_id": r["block_id"],
                    "request": inputs["instructions"],
                    "change_summary_ja": r["change_summary_ja"],
                    "packet_refs": r["packet_refs"],
                    "sha256_before": next(
                        t["sha256"] for t in inputs["target_blocks"] if t["block_id"] == r["block_id"]
                    ),
                    "sha256_after": after[r["block_id"]],
                }
                for r in output["revisions"]
            ],
        }
        return Outcome(
            Result.ADVANCE,
            State.REVISED,
            [ReasonCode.REVISION_APPLIED],
            f"修正しました。再検証します（{number}回目のAI修正、対象ブロック {', '.join(r['block_id'] for r in output['revisions'])}）。",
            artifacts={
                "draft": {"rst": text, "sha256": sha256_text(text)},
                "draft_manifest": new_manifest,
                "revision_manifest": revision,
            },
            metrics={"revision": number, "blocks": len(output["revisions"])},
            producer=Producer.AGENT,
            text_files={
                "draft.rst": text,
                "draft_manifest.json": json.dumps(new_manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                f"revision_manifest_{number}.json": json.dumps(revision, ensure_ascii=False, indent=2, sort_keys=True)
                + "\n",
            },
        )


_DELETE_ASKED = re.compile(r"削除|削って|消して|取り除|省いて|短く|要約|remove|delete|drop|shorten", re.I)
# a rewrite keeps at least this share of the block's text (non-space characters) unless the person
# asked to delete or shorten
KEEP_SHARE = 0.3


def _drops_content(before: str, after: str, instructions: str) -> str | None:
    """Why a revision drops the block's content (「変更」 for a paragraph), or None."""
    old = len("".join(before.split()))
    new = len("".join(after.split()))
    if old == 0 or new >= max(20, KEEP_SHARE * old) or _DELETE_ASKED.search(instructions):
        return None
    return (
        f"The revision keeps {new} of the block's {old} characters: rewrite the block following the instructions "
        "instead of replacing its content (the instructions did not ask to delete or shorten it)."
    )
