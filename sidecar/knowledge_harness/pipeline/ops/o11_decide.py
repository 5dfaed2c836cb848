"""O-11 Decide Publication: the person's one structured decision, checked against the facts.

Four choices, shown in Japanese: 「公開を承認する」 (approve), 「今回だけ修正を求める」 (revise),
「公開しない」 (reject), 「今後の方針として検討する」 (policy); a door accepts the label or the code.
Every decision names the Review Packet it was made on (its SHA-256); an approval also names the
candidate commit. Approval requires the merge fact: after fetching the configured remote, the
candidate commit is reachable from the base branch, or the base branch holds the candidate file
with the candidate's exact bytes (squash and rebase merges). With `[blog] pull_request = "gh"`
the pull request's number, base, head and head commit are checked with `gh pr view` against what
O-10 prepared. A revision needs concrete Japanese instructions and existing target blocks, and
an AI revision left (two per article).

A decision that cannot be accepted as given — an unknown choice, one no longer offered, a missing
or mistyped SHA-256 or commit, another PR URL, a contradiction, missing instructions, unknown
blocks, a decider outside `[decision] deciders`, a candidate that changed after review, an
approval before the merge, anything but an approval once merged, a remote or PR that cannot be
reached — is refused with its reason (`DecisionRefused`): nothing is recorded and the run stays
REVIEW_READY, so the person can correct it. Facts that contradict the prepared review (the PR's
number, base or head) end the run in HOLD; so do a second, different decision on the same Review
Packet (both are kept) and no decision within `[decision] wait_days`. Every HOLD names its
resume condition. The same decision again returns the stored record.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ...core.clock import parse_utc_z, utc_z
from ...errors import BlogRepoError, Conflict, DecisionRefused, HarnessError
from ..blog import blog_repo
from ..blog_repo import BlogRepo, MergeFact, PullRequest, pr_number
from ..contract import (
    DECISION_CHOICES,
    HUMAN_DECISION,
    MAX_AI_REVISIONS,
    Producer,
    ReasonCode,
    Result,
    State,
    offered_choices,
)
from ..drafts import sha256_text
from ..proposals import ProposalSpec
from .base import DecisionStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-11"
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MESSAGES = {code: message for code, (_, _, message) in DECISION_CHOICES.items()}
REFUSED_MESSAGE = "判断を受け付けませんでした。実行は{state}のままです"
WAITING_FOR_DECISION = "公開候補の確認待ち（REVIEW_READY）"
CONFLICT_MESSAGE = "判断が矛盾するため保留します"
TIMEOUT_MESSAGE = "判断がないため保留します"
DEFAULT_POLICY_OPTIONS = (
    "現行方針を維持する",
    "この問題への恒久方針を追加する",
    "今回だけの例外として扱い、方針は変えない",
)
# the parts of a decision that make it the same decision (who gave it and through which door do not)
DECISION_KEYS = ("choice", "instructions", "blocks", "comment_ref", "policy_options", "pr_url")

RESUME_REJECT = "再開条件: 公開する場合は、依頼ノートを更新して新しい実行として取り込む（kh pipeline capture）。"
RESUME_REVISION_LIMIT = (
    "再開条件: 人間が公開候補のbranchを直接直してmergeし、新しい実行として取り込むか、"
    "依頼ノートを更新して新しい実行として取り込む（kh pipeline capture）。"
)
RESUME_POLICY = (
    "再開条件: 人間が方針候補を採用または不採用と決める（kh pipeline policy accept|decline）。"
    "そのうえで公開する場合は新しい実行として取り込む。"
)
RESUME_PR = (
    "再開条件: PRの番号・base・headを公開候補のbranchとcommitに合わせる（または新しい実行で作り直す）。"
    "記事は公開されていない。"
)
RESUME_CONFLICT = (
    "再開条件: 判断者どうしでどちらの判断にするか決め、依頼ノートを更新して新しい実行として取り込む。"
    "記事は公開されていない。"
)
RESUME_TIMEOUT = (
    "再開条件: 人間が公開候補を確認できるときに、依頼ノートを更新して新しい実行として取り込む"
    "（kh pipeline capture）。記事は公開されていない。"
)


def refuse(
    reason: ReasonCode, message_ja: str, *, state: State | None = State.REVIEW_READY, **detail: Any
) -> DecisionRefused:
    """Nothing is written: the message names the state the run stays in (a decision on a packet that was
    already decided may come after the run moved on)."""
    where = WAITING_FOR_DECISION if state == State.REVIEW_READY else f"{state or '未開始'}"
    return DecisionRefused(
        f"{REFUSED_MESSAGE.format(state=where)}（{reason.value}）: {message_ja}",
        detail={"reason": reason.value, "message_ja": message_ja, "state": str(state), **detail},
    )


def concrete_japanese(text: str | None) -> bool:
    return bool(text) and len("".join((text or "").split())) >= 5 and _JAPANESE.search(text or "") is not None


def same_decision(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same decision again. The commit does not tell decisions apart: one named on a Review Packet
    was checked to be (a prefix of) that packet's candidate commit, so any two agree."""
    return all((a.get(k) or None) == (b.get(k) or None) for k in DECISION_KEYS)


def _merge_fact(repo: BlogRepo, cand: dict[str, Any]) -> MergeFact:
    """The merge fact after fetching the configured remote; a remote that cannot be fetched refuses."""
    try:
        repo.fetch()
    except BlogRepoError as exc:
        raise refuse(
            ReasonCode.MERGE_UNVERIFIED,
            f"リモート {repo.remote} を取得できないためmerge事実を確認できません（{exc.message}）。後で再試行してください。",
        ) from exc
    return repo.merge_fact(cand["commit"], cand["path"], cand["sha256"])


def check_form(ctx: OpContext, d: dict[str, Any]) -> list[str]:
    """The checks a decision must pass whatever the run's state; returns the choices still offered."""
    choice = d.get("choice")
    offered = offered_choices(ctx.records)
    state = ctx.run.state
    if choice not in DECISION_CHOICES:
        labels = "、".join(f"「{DECISION_CHOICES[c][0]}」（{c}）" for c in offered)
        raise refuse(
            ReasonCode.DECISION_UNKNOWN,
            f"判断の種類 {choice!r} が分かりません。{labels} から選んでください。",
            state=state,
        )
    allowed = ctx.config.decision.deciders
    account = str(d.get("decider") or "").split(" via ", 1)[0]
    if allowed and account not in allowed:
        raise refuse(
            ReasonCode.DECIDER_NOT_ALLOWED,
            f"判断者 {d.get('decider')!r} は [decision] deciders に含まれていません。",
            state=state,
        )
    if not d.get("review_packet_sha256"):
        raise refuse(
            ReasonCode.DECISION_INCOMPLETE,
            "どの判断にもReview PacketのSHA-256（--review-sha256、REST の review_packet_sha256）が必要です。",
            state=state,
        )
    if choice == "approve" and not d.get("commit"):
        raise refuse(ReasonCode.DECISION_INCOMPLETE, "承認には対象commit（--commit）も必要です。", state=state)
    return offered


class DecidePublication(DecisionStep):
    operation = OPERATION
    name = "Decide Publication"
    transitions = moves(
        {
            State.REVIEW_READY: {State.APPROVED, State.REVISION, State.HOLD},
            # a second, conflicting decision arrives while the first one's revision is under way → HOLD
            State.REVISION: {State.HOLD},
            State.REVISED: {State.HOLD},
            State.VALIDATED: {State.HOLD},
        }
    )
    next_in = (State.REVIEW_READY,)

    def _open_question(self, ctx: OpContext) -> Any:
        return next(
            (q for q in reversed(ctx.run.questions) if q.kind == "publication_decision" and q.answer is None), None
        )

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        question = self._open_question(ctx)
        waiting = Wait(f"human:{question.question_id} publication_decision" if question else f"human:{HUMAN_DECISION}")
        wait_days = ctx.config.decision.wait_days
        if question is None or not wait_days:
            return waiting
        deadline = parse_utc_z(question.asked_at) + dt.timedelta(days=wait_days)
        if ctx.clock() < deadline:
            return waiting
        merged: bool | None = None
        try:
            repo = blog_repo(ctx)
            if repo is not None:
                cand = ctx.artifact("publication_candidate")
                merged = _merge_fact(repo, cand).merged
        except HarnessError:
            merged = None
        if merged:
            # merged on GitHub but not yet approved: never call that "not published"; wait for the person
            return waiting
        return Prepared(
            inputs={
                "timeout": {
                    "question_id": question.question_id,
                    "asked_at": question.asked_at,
                    "wait_days": wait_days,
                    "deadline": utc_z(deadline),
                    "merged": merged,
                }
            },
            input_refs=[f"artifact:review_packet@sha256:{ctx.artifact_sha('review_packet')}"],
        )

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        timeout = prepared.inputs.get("timeout")
        if not timeout:
            raise Conflict("O-11 runs only with the person's decision (kh pipeline decide, REST, the plugin).")
        unknown = "（merge事実は確認できませんでした）" if timeout["merged"] is None else ""
        return Outcome(
            Result.HOLD,
            State.HOLD,
            [ReasonCode.DECISION_TIMEOUT],
            f"{TIMEOUT_MESSAGE}。{timeout['question_id']}（{timeout['asked_at']}）から{timeout['wait_days']:g}日以内に"
            f"公開判断がなかったため、公開せず保留(HOLD)とします{unknown}。{RESUME_TIMEOUT}",
            artifacts={"decision_timeout": {**timeout, "resume_condition_ja": RESUME_TIMEOUT}},
            metrics={"wait_days": timeout["wait_days"]},
        )

    def prepare_decision(self, ctx: OpContext, decision: dict[str, Any]) -> Prepared:
        review = ctx.artifact("review_packet")
        candidate = ctx.artifact("publication_candidate")
        inputs = {
            "decision": decision,
            "review_packet_sha256": review["sha256"],
            "candidate": {
                "path": candidate["path"],
                "sha256": candidate["sha256"],
                "branch": candidate["branch"],
                "base_branch": candidate["base_branch"],
                "commit": candidate["commit"],
                "pr_url": candidate.get("pr_url"),
            },
        }
        return Prepared(
            inputs=inputs,
            input_refs=[
                f"artifact:review_packet@sha256:{ctx.artifact_sha('review_packet')}",
                f"blog:{candidate['branch']}@{candidate['commit']}",
                f"human:{decision.get('decider', '')} via {decision.get('via', '')}",
            ],
        )

    def conflict(self, ctx: OpContext, first: dict[str, Any], second: dict[str, Any], decided_at: str) -> Outcome:
        """A second, different decision on a Review Packet already decided: both kept, the run held."""
        record = {
            **second,
            "decided_at": decided_at,
            "choice_label_ja": DECISION_CHOICES[second["choice"]][0],
            "result": str(Result.HOLD),
            "reason_code": ReasonCode.DECISION_CONFLICT.value,
            "message_ja": CONFLICT_MESSAGE,
            "resume_condition_ja": RESUME_CONFLICT,
        }
        labels = f"「{first.get('choice_label_ja')}」（{first.get('decider')}）と「{record['choice_label_ja']}」（{second.get('decider')}）"
        return Outcome(
            Result.HOLD,
            State.HOLD,
            [ReasonCode.DECISION_CONFLICT],
            f"{CONFLICT_MESSAGE}。同じReview Packetに{labels}の異なる判断があり、両方を記録して公開せず保留(HOLD)とします。"
            f"{RESUME_CONFLICT}",
            artifacts={
                "publication_decision": record,
                "decision_conflict": {
                    "review_packet_sha256": second.get("review_packet_sha256"),
                    "decisions": [first, record],
                    "resume_condition_ja": RESUME_CONFLICT,
                },
            },
            metrics={"choice": second["choice"], "decider": second.get("decider"), "conflict_with": first["choice"]},
            producer=Producer.HUMAN,
        )

    def decide(self, ctx: OpContext, prepared: Prepared, decided_at: str) -> tuple[Outcome, str]:
        decision = _Decision(ctx, prepared, decided_at)
        pr_url = _refuse_unacceptable(decision)
        repo = blog_repo(ctx)
        if repo is None:
            raise refuse(
                ReasonCode.BLOG_REPO_NOT_CONFIGURED, "ブログリポジトリが設定されていないためmerge事実を確認できません。"
            )
        cand = decision.cand
        fact = _merge_fact(repo, cand)
        head = repo.branch_head(cand["branch"])
        decision.facts.update(
            {
                "merged": fact.merged,
                "merged_how": fact.how,
                "base_ref": fact.base_ref,
                "branch_head": head,
                "base_head": fact.base_head,
            }
        )
        merged = fact.merged
        if ctx.config.blog.pull_request == "gh" and pr_url:
            pr = _pull_request(decision, repo, pr_url)
            mismatch = _pull_request_mismatch(decision, pr, pr_url)
            if mismatch:
                return decision.outcome(
                    Result.HOLD,
                    State.HOLD,
                    [ReasonCode.PR_MISMATCH],
                    f"PRがReview Packetの準備情報と一致しないため、判断を記録して公開せず保留(HOLD)とします（{mismatch}）。",
                    "公開しません",
                    RESUME_PR,
                )
            # GitHub's record of the PR is the merge fact's other half: an approval needs both, and
            # a PR merged on GitHub rules out every other choice
            pr_merged = pr.state == "MERGED"
            merged = (merged and pr_merged) if decision.choice == "approve" else (merged or pr_merged)
        if decision.choice == "approve":
            return _approve(decision, fact, head, merged)
        if merged:
            raise refuse(
                ReasonCode.DECISION_CONTRADICTORY,
                f"公開候補は既に {cand['base_branch']} へmergeされています。承認するか、mergeを取り消してから判断してください。",
                merged=True,
            )
        return _not_approved(decision)


class _Decision:
    """A decision being checked: what the person gave, the candidate O-10 prepared, the facts found."""

    def __init__(self, ctx: OpContext, prepared: Prepared, decided_at: str) -> None:
        self.ctx = ctx
        self.given: dict[str, Any] = prepared.inputs["decision"]
        self.cand: dict[str, Any] = prepared.inputs["candidate"]
        self.want_sha: str = prepared.inputs["review_packet_sha256"]
        self.decided_at = decided_at
        self.choice = self.given.get("choice")
        self.limit_reached = False
        self.blocks: list[str] = self.given.get("blocks") or []
        self.instructions: str = (self.given.get("instructions") or "").strip()
        self.facts: dict[str, Any] = {
            "review_packet_sha256": self.want_sha,
            "candidate_commit": self.cand["commit"],
            "pr_url": self.cand.get("pr_url"),
        }

    def outcome(
        self,
        result: Result,
        state: State,
        codes: list[ReasonCode],
        summary: str,
        message: str,
        resume: str | None = None,
    ) -> tuple[Outcome, str]:
        """The recorded decision (with the verified facts) and the message for the person."""
        record = {
            **self.given,
            "decided_at": self.decided_at,
            "choice_label_ja": DECISION_CHOICES[self.choice][0] if self.choice in DECISION_CHOICES else None,
            "result": str(result),
            "reason_code": str(codes[0]),
            "message_ja": message,
            "verified": self.facts,
            "resume_condition_ja": resume,
        }
        proposals: list[tuple[str, str] | ProposalSpec] = []
        if codes[0] == ReasonCode.DECISION_POLICY:
            proposals.append(self._policy_proposal())
        return (
            Outcome(
                result,
                state,
                codes,
                f"{message}。{summary}" + (resume or ""),
                artifacts={"publication_decision": record},
                metrics={"choice": self.choice, "decider": self.given.get("decider")},
                producer=Producer.HUMAN,
                proposals=proposals,
            ),
            message,
        )

    def _policy_proposal(self) -> ProposalSpec:
        run_id, instructions = self.ctx.run.run_id, self.instructions
        options = list(self.given.get("policy_options") or DEFAULT_POLICY_OPTIONS)[:3]
        listed = "\n".join(f"  ({i}) {o}" for i, o in enumerate(options, start=1))
        return ProposalSpec(
            f"policy-{run_id}-o11-{sha256_text(instructions)[:8]}",
            f"## 提案: 公開判断で示された方針候補（run {run_id}）\n\n- 問題: {instructions or '（記載なし）'}\n"
            f"- 選択肢:\n{listed}\n- 影響: 採用すると同種の記事の公開判断が変わる。今回の記事は公開せずHOLD。\n"
            f"- 判断者: {self.given.get('decider')}（{self.decided_at}）。自動採用しない。",
            kind="policy",
            title_ja=f"公開判断で示された方針候補: {instructions[:80] or '（記載なし）'}",
            options=options,
            source_runs=[run_id],
        )


def _refuse_unacceptable(decision: _Decision) -> str | None:
    """Refuse a decision that cannot be accepted as given (before any repository is asked); returns
    the pull request it is about (given or prepared), also kept in the verified facts."""
    d, cand, choice, blocks = decision.given, decision.cand, decision.choice, decision.blocks
    offered = check_form(decision.ctx, d)
    # a revision past the limit is the design's "limit reached → HOLD" edge (recorded in `_not_approved`)
    decision.limit_reached = choice == "revise" and choice not in offered
    given_sha = (d.get("review_packet_sha256") or "").lower()
    given_commit = (d.get("commit") or "").lower()
    if given_sha != decision.want_sha:
        raise refuse(
            ReasonCode.DECISION_SHA_MISMATCH,
            "示されたReview PacketのSHA-256が準備したものと一致しません（`kh pipeline review` の表示を確認してください）。",
        )
    if given_commit and (len(given_commit) < 7 or not cand["commit"].startswith(given_commit)):
        raise refuse(
            ReasonCode.DECISION_COMMIT_MISMATCH,
            f"示されたcommitが公開候補のcommit {cand['commit'][:12]} と一致しません（7桁以上で指定）。",
        )
    given_pr = (d.get("pr_url") or "").strip().rstrip("/")
    prepared_pr = (cand.get("pr_url") or "").strip().rstrip("/")
    if given_pr and (pr_number(given_pr) is None or (prepared_pr and given_pr != prepared_pr)):
        raise refuse(
            ReasonCode.DECISION_PR_MISMATCH,
            f"示されたPR URL {given_pr} は公開候補のPR {prepared_pr or '（なし）'} ではありません。",
        )
    pr_url = given_pr or prepared_pr or None
    decision.facts["pr_url"] = pr_url
    if choice == "approve" and (decision.instructions or blocks):
        raise refuse(ReasonCode.DECISION_CONTRADICTORY, "承認に修正指示・対象ブロックが付いており矛盾しています。")
    if choice in ("reject", "policy") and blocks:
        raise refuse(
            ReasonCode.DECISION_CONTRADICTORY,
            "公開しない・方針検討の判断に対象ブロックが付いており矛盾しています。",
        )
    if choice == "revise":
        _refuse_unclear_revision(decision)
    return pr_url


def _refuse_unclear_revision(decision: _Decision) -> None:
    """A revision needs concrete Japanese instructions and target blocks the draft has."""
    blocks = decision.blocks
    if not concrete_japanese(decision.instructions) or not blocks:
        raise refuse(
            ReasonCode.DECISION_INCOMPLETE,
            "修正要求には具体的な日本語の指示（5文字以上、--instructions）と対象ブロック（--blocks B1,B2）が必要です。",
        )
    manifest_blocks = {b["block_id"] for b in decision.ctx.artifact("draft_manifest")["blocks"]}
    unknown = [b for b in blocks if b not in manifest_blocks]
    if unknown:
        raise refuse(
            ReasonCode.UNKNOWN_TARGET_BLOCK,
            f"対象ブロック {unknown} は存在しません（ある: {', '.join(sorted(manifest_blocks))}）。",
        )


def _pull_request(decision: _Decision, repo: BlogRepo, pr_url: str) -> PullRequest:
    """The pull request as GitHub records it (`gh pr view`), kept in the verified facts."""
    try:
        pr = repo.pr_view(pr_url)
    except BlogRepoError as exc:
        raise refuse(
            ReasonCode.PR_UNVERIFIED,
            f"PR {pr_url} をghで確認できません（{exc.message}）。後で再試行してください。",
        ) from exc
    decision.facts["pull_request"] = {
        "number": pr.number,
        "url": pr.url,
        "base": pr.base,
        "head": pr.head,
        "head_commit": pr.head_commit,
        "state": pr.state,
        "merged_at": pr.merged_at,
    }
    return pr


def _pull_request_mismatch(decision: _Decision, pr: PullRequest, pr_url: str) -> str:
    """How the PR differs from what O-10 prepared (number, base, head, head commit); "" when it does not."""
    cand = decision.cand
    expected = {
        "number": pr_number(pr_url),
        "base": cand["base_branch"],
        "head": cand["branch"],
        "head_commit": cand["commit"],
    }
    found = {"number": pr.number, "base": pr.base, "head": pr.head, "head_commit": pr.head_commit}
    differs = [k for k in expected if expected[k] != found[k]]
    if not differs:
        return ""
    decision.facts["pull_request_mismatch"] = {k: {"prepared": expected[k], "github": found[k]} for k in differs}
    return "、".join(f"{k}: 準備 {expected[k]} / GitHub {found[k]}" for k in differs)


def _approve(decision: _Decision, fact: MergeFact, head: str | None, merged: bool) -> tuple[Outcome, str]:
    """An approval stands on the merge fact: the reviewed commit merged, the reviewed bytes on the base."""
    cand = decision.cand
    if head is not None and head != cand["commit"]:
        raise refuse(
            ReasonCode.CANDIDATE_CHANGED_AFTER_REVIEW,
            f"レビュー後に公開候補のbranch {cand['branch']} へ別のcommitが加わりました。",
        )
    if not merged:
        raise Conflict(
            f"公開候補のcommit {cand['commit'][:12]} はまだ {cand['base_branch']} へmergeされていません"
            f"（{fact.base_ref} を確認）。mergeしてから承認してください。",
            detail={
                "reason": ReasonCode.MERGE_NOT_FOUND.value,
                "commit": cand["commit"],
                "branch": cand["branch"],
                "base_ref": fact.base_ref,
            },
        )
    decision.facts["published_sha256"] = fact.published_sha256
    if fact.published_sha256 != cand["sha256"]:
        raise refuse(
            ReasonCode.CANDIDATE_CHANGED_AFTER_REVIEW,
            f"{cand['base_branch']} にある {cand['path']} の内容がレビューしたものと一致しません。",
        )
    codes = [ReasonCode.DECISION_APPROVED]
    how = "merge"
    if fact.how == "content":
        codes.append(ReasonCode.MERGED_BY_CONTENT)
        how = "squashまたはrebaseによるmerge（baseに同じ内容）"
    return decision.outcome(
        Result.ADVANCE,
        State.APPROVED,
        codes,
        f"merge事実を確認しました（{how}、{cand['branch']} → {fact.base_ref}、commit {cand['commit'][:12]}）。"
        f"判断者 {decision.given.get('decider')}。",
        MESSAGES["approve"],
    )


def _not_approved(decision: _Decision) -> tuple[Outcome, str]:
    """Revise (the run goes to REVISION), reject or policy (HOLD, each with its resume condition)."""
    if decision.choice == "revise" and decision.limit_reached:
        return decision.outcome(
            Result.HOLD,
            State.HOLD,
            [ReasonCode.REVISION_LIMIT_REACHED],
            f"AIによる修正は同一記事{MAX_AI_REVISIONS}回までで、既に{MAX_AI_REVISIONS}回修正しました。"
            f"修正指示（対象 {', '.join(decision.blocks) or '—'}）は記録しましたが、AIは修正しません。",
            "修正回数の上限に達したため公開せず保留します",
            RESUME_REVISION_LIMIT,
        )
    if decision.choice == "revise":
        return decision.outcome(
            Result.ADVANCE,
            State.REVISION,
            [ReasonCode.DECISION_REVISION_REQUESTED],
            f"対象ブロック {', '.join(decision.blocks)} への修正指示を保存しました。",
            MESSAGES["revise"],
        )
    if decision.choice == "reject":
        return decision.outcome(
            Result.HOLD,
            State.HOLD,
            [ReasonCode.DECISION_REJECTED],
            f"理由: {decision.instructions.rstrip('。') or '（記載なし）'}。",
            MESSAGES["reject"],
            RESUME_REJECT,
        )
    return decision.outcome(
        Result.HOLD,
        State.HOLD,
        [ReasonCode.DECISION_POLICY],
        "方針候補をDECISIONS.mdへ記録しました（自動採用しない）。",
        MESSAGES["policy"],
        RESUME_POLICY,
    )
