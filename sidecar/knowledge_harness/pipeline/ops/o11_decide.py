"""O-11 Decide Publication: the person's one structured decision, checked against the facts.

Four choices, shown in Japanese: 「公開を承認する」 (approve), 「今回だけ修正を求める」 (revise),
「公開しない」 (reject), 「今後の方針として検討する」 (policy); a door accepts the label or the code.
Approval requires the merge fact — the candidate commit is reachable from the base branch of the
blog repository, verified with git — and the decision must name the candidate commit and the
SHA-256 of the Review Packet. A revision needs concrete Japanese instructions and existing target
blocks, and an AI revision left (two per article).

A decision that cannot be accepted as given — an unknown choice, one no longer offered, a
mistyped SHA-256 or commit, a contradiction, missing instructions, unknown blocks, a decider
outside `[decision] deciders`, a candidate that changed after review, an approval before the
merge, anything but an approval once merged — is refused with its reason (`DecisionRefused`):
nothing is recorded and the run stays REVIEW_READY, so the person can correct it. Only a valid
decision is recorded: APPROVED, REVISION, or HOLD for 「公開しない」/「今後の方針として検討する」 on an
unmerged candidate (the merge fact is checked with git for every choice, so a record never says
HOLD for a merged article). The same decision again returns the stored record.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import Conflict, Refused
from ..blog import blog_repo
from ..contract import DECISION_CHOICES, MAX_AI_REVISIONS, Producer, ReasonCode, Result, State, offered_choices
from ..drafts import sha256_text
from .base import OpContext, Outcome, Prepared, Wait

OPERATION = "O-11"
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MESSAGES = {code: message for code, (_, _, message) in DECISION_CHOICES.items()}
REFUSED_MESSAGE = "判断を受け付けませんでした。実行は公開候補の確認待ち（REVIEW_READY）のままです"


class DecisionRefused(Refused):
    """A decision that cannot be accepted as given: nothing is recorded, the run stays where it was."""

    code = "decision_refused"
    http_status = 422
    exit_code = 1


def refuse(reason: ReasonCode, message_ja: str, **detail: Any) -> DecisionRefused:
    return DecisionRefused(
        f"{REFUSED_MESSAGE}（{reason.value}）: {message_ja}",
        detail={"reason": reason.value, "message_ja": message_ja, **detail},
    )


def concrete_japanese(text: str | None) -> bool:
    return bool(text) and len("".join((text or "").split())) >= 5 and _JAPANESE.search(text or "") is not None


class DecidePublication:
    operation = OPERATION

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        question = next(
            (q for q in reversed(ctx.run.questions) if q.kind == "publication_decision" and q.answer is None), None
        )
        return Wait(f"human:{question.question_id} publication_decision" if question else "human:HUMAN_DECISION")

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        raise Conflict("O-11 runs only with the person's decision (kh pipeline decide, REST, the plugin).")

    def prepare_decision(self, ctx: OpContext, decision: dict[str, Any]) -> Prepared:
        review = ctx.artifact("review_packet")
        candidate = ctx.artifact("publication_candidate")
        inputs = {
            "decision": decision,
            "review_packet_sha256": review["sha256"],
            "candidate": {k: candidate[k] for k in ("path", "sha256", "branch", "base_branch", "commit")},
        }
        return Prepared(
            inputs=inputs,
            input_refs=[
                f"artifact:review_packet@sha256:{ctx.artifact_sha('review_packet')}",
                f"blog:{candidate['branch']}@{candidate['commit']}",
                f"human:{decision.get('decider', '')} via {decision.get('via', '')}",
            ],
        )

    def decide(self, ctx: OpContext, prepared: Prepared, decided_at: str) -> tuple[Outcome, str]:
        d: dict[str, Any] = prepared.inputs["decision"]
        cand: dict[str, Any] = prepared.inputs["candidate"]
        want_sha = prepared.inputs["review_packet_sha256"]
        choice = d.get("choice")
        blocks = d.get("blocks") or []
        instructions = (d.get("instructions") or "").strip()
        facts: dict[str, Any] = {"review_packet_sha256": want_sha, "candidate_commit": cand["commit"]}

        def outcome(result: Result, state: State, code: ReasonCode, summary: str, message: str) -> tuple[Outcome, str]:
            record = {
                **d,
                "decided_at": decided_at,
                "choice_label_ja": DECISION_CHOICES[choice][0] if choice in DECISION_CHOICES else None,
                "result": str(result),
                "reason_code": str(code),
                "message_ja": message,
                "verified": facts,
            }
            proposals: list[tuple[str, str]] = []
            if code == ReasonCode.DECISION_POLICY:
                options = d.get("policy_options") or [
                    "現行方針を維持する",
                    "この問題への恒久方針を追加する",
                    "今回だけの例外として扱い、方針は変えない",
                ]
                listed = "\n".join(f"  ({i}) {o}" for i, o in enumerate(options[:3], start=1))
                proposals.append(
                    (
                        f"policy-{ctx.run.run_id}-o11-{sha256_text(instructions)[:8]}",
                        f"## 提案: 公開判断で示された方針候補（run {ctx.run.run_id}）\n\n- 問題: {instructions or '（記載なし）'}\n"
                        f"- 選択肢:\n{listed}\n- 影響: 採用すると同種の記事の公開判断が変わる。今回の記事は公開せずHOLD。\n"
                        f"- 判断者: {d.get('decider')}（{decided_at}）。自動採用しない。",
                    )
                )
            return (
                Outcome(
                    result,
                    state,
                    [code],
                    f"{message}。{summary}",
                    artifacts={"publication_decision": record},
                    metrics={"choice": choice, "decider": d.get("decider")},
                    producer=Producer.HUMAN,
                    proposals=proposals,
                ),
                message,
            )

        offered = offered_choices(ctx.records)
        if choice not in DECISION_CHOICES:
            labels = "、".join(f"「{DECISION_CHOICES[c][0]}」（{c}）" for c in offered)
            raise refuse(
                ReasonCode.DECISION_UNKNOWN, f"判断の種類 {choice!r} が分かりません。{labels} から選んでください。"
            )
        if choice not in offered:
            raise refuse(
                ReasonCode.REVISION_LIMIT_REACHED,
                f"AIによる修正は同一記事{MAX_AI_REVISIONS}回までで、既に{MAX_AI_REVISIONS}回修正しました。"
                "「今回だけ修正を求める」は選べません。公開を承認する・公開しない・今後の方針として検討する から選んでください。",
                offered=offered,
            )
        allowed = ctx.config.decision.deciders
        account = str(d.get("decider") or "").split(" via ", 1)[0]
        if allowed and account not in allowed:
            raise refuse(
                ReasonCode.DECIDER_NOT_ALLOWED,
                f"判断者 {d.get('decider')!r} は [decision] deciders に含まれていません。",
            )
        given_sha = (d.get("review_packet_sha256") or "").lower()
        given_commit = (d.get("commit") or "").lower()
        if choice == "approve" and (not given_sha or not given_commit):
            raise refuse(
                ReasonCode.DECISION_INCOMPLETE,
                "承認には対象commit（--commit）とReview PacketのSHA-256（--review-sha256）が必要です。",
            )
        if given_sha and given_sha != want_sha:
            raise refuse(
                ReasonCode.DECISION_SHA_MISMATCH,
                "示されたReview PacketのSHA-256が準備したものと一致しません（`kh pipeline review` の表示を確認してください）。",
            )
        if given_commit and (len(given_commit) < 7 or not cand["commit"].startswith(given_commit)):
            raise refuse(
                ReasonCode.DECISION_COMMIT_MISMATCH,
                f"示されたcommitが公開候補のcommit {cand['commit'][:12]} と一致しません（7桁以上で指定）。",
            )
        if choice == "approve" and (instructions or blocks):
            raise refuse(ReasonCode.DECISION_CONTRADICTORY, "承認に修正指示・対象ブロックが付いており矛盾しています。")
        if choice in ("reject", "policy") and blocks:
            raise refuse(
                ReasonCode.DECISION_CONTRADICTORY,
                "公開しない・方針検討の判断に対象ブロックが付いており矛盾しています。",
            )
        if choice == "revise":
            if not concrete_japanese(instructions) or not blocks:
                raise refuse(
                    ReasonCode.DECISION_INCOMPLETE,
                    "修正要求には具体的な日本語の指示（5文字以上、--instructions）と対象ブロック（--blocks B1,B2）が必要です。",
                )
            manifest_blocks = {b["block_id"] for b in ctx.artifact("draft_manifest")["blocks"]}
            unknown = [b for b in blocks if b not in manifest_blocks]
            if unknown:
                raise refuse(
                    ReasonCode.UNKNOWN_TARGET_BLOCK,
                    f"対象ブロック {unknown} は存在しません（ある: {', '.join(sorted(manifest_blocks))}）。",
                )
        repo = blog_repo(ctx)
        if repo is None:
            raise refuse(
                ReasonCode.BLOG_REPO_NOT_CONFIGURED, "ブログリポジトリが設定されていないためmerge事実を確認できません。"
            )
        merged = repo.is_merged(cand["commit"])
        head = repo.branch_head(cand["branch"])
        facts.update({"merged": merged, "branch_head": head, "base_head": repo.base_commit()})
        if choice == "approve":
            if head is not None and head != cand["commit"]:
                raise refuse(
                    ReasonCode.CANDIDATE_CHANGED_AFTER_REVIEW,
                    f"レビュー後に公開候補のbranch {cand['branch']} へ別のcommitが加わりました。",
                )
            if not merged:
                raise Conflict(
                    f"公開候補のcommit {cand['commit'][:12]} はまだ {cand['base_branch']} へmergeされていません。mergeしてから承認してください。",
                    detail={
                        "reason": ReasonCode.MERGE_NOT_FOUND.value,
                        "commit": cand["commit"],
                        "branch": cand["branch"],
                    },
                )
            published = repo.file_at(f"refs/heads/{cand['base_branch']}", cand["path"])
            published_sha = None if published is None else sha256_text(published.decode("utf-8", "replace"))
            facts["published_sha256"] = published_sha
            if published_sha != cand["sha256"]:
                raise refuse(
                    ReasonCode.CANDIDATE_CHANGED_AFTER_REVIEW,
                    f"{cand['base_branch']} にある {cand['path']} の内容がレビューしたものと一致しません。",
                )
            return outcome(
                Result.ADVANCE,
                State.APPROVED,
                ReasonCode.DECISION_APPROVED,
                f"merge事実を確認しました（{cand['branch']} → {cand['base_branch']}、commit {cand['commit'][:12]}）。判断者 {d.get('decider')}。",
                MESSAGES["approve"],
            )
        if merged:
            raise refuse(
                ReasonCode.DECISION_CONTRADICTORY,
                f"公開候補は既に {cand['base_branch']} へmergeされています。承認するか、mergeを取り消してから判断してください。",
                merged=True,
            )
        if choice == "revise":
            return outcome(
                Result.ADVANCE,
                State.REVISION,
                ReasonCode.DECISION_REVISION_REQUESTED,
                f"対象ブロック {', '.join(blocks)} への修正指示を保存しました。",
                MESSAGES["revise"],
            )
        if choice == "reject":
            return outcome(
                Result.HOLD,
                State.HOLD,
                ReasonCode.DECISION_REJECTED,
                f"理由: {instructions or '（記載なし）'}",
                MESSAGES["reject"],
            )
        return outcome(
            Result.HOLD,
            State.HOLD,
            ReasonCode.DECISION_POLICY,
            "方針候補をDECISIONS.mdへ記録しました（自動採用しない）。",
            MESSAGES["policy"],
        )
