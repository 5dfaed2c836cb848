"""O-05 Build Evidence Packet: an agent step, checked by the program.

The agent separates, per issue, facts / inferences / unknowns / reactions / contradictions, each
statement citing one or more source_ids that exist in the evidence set, and writes a Japanese
summary of every source it cites (`source_summaries`; the program's excerpt stays apart as 抜粋).
The program refuses an output that cites an unknown source, states a fact without a primary or
secondary source, cites a discovery-only source, reuses an id, puts the same statement in two
categories, claims differences from past articles without past-article references, or lacks a
Japanese, non-copied summary of a cited source. It labels a fact that cites no primary source a
secondary explanation, turns contradictions into uncertainties the plan must treat, appends the
evidence set's own uncertainties (none is lost) and counts contradictions, scope ambiguity and
staleness in the metrics. A packet with no supported fact at all is the diagram's
EVIDENCE_READY → NO_CANDIDATE edge (根拠不足).
"""

from __future__ import annotations

import re
from typing import Any

from ..agents import Refusal
from ..blog import past_articles
from ..contract import Producer, ReasonCode, Result, State, Uncertainty
from ..language import is_japanese
from .base import AgentStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-05"
CATEGORIES = ("facts", "inferences", "unknowns", "reactions", "contradictions")
# what kind of uncertainty the agent records (the plan treats every one; the metrics count them)
UNCERTAINTY_CODES = (
    ReasonCode.CONTRADICTION_FOUND.value,
    ReasonCode.SCOPE_AMBIGUOUS.value,
    ReasonCode.SOURCE_STALE.value,
    ReasonCode.FETCH_FAILED.value,
    ReasonCode.PRIMARY_TARGET_UNMET.value,
    ReasonCode.REACTION_TARGET_UNMET.value,
)
SUMMARY_COPY_CHARS = 30

_ITEM = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "statement", "source_ids"],
    "properties": {
        "id": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"},
        "statement": {"type": "string", "minLength": 1, "maxLength": 2000},
        "source_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "note": {"type": "string", "maxLength": 1000},
    },
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Evidence Packet (O-05)",
    "type": "object",
    "additionalProperties": False,
    "required": ["issues"],
    "properties": {
        "issues": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["issue_id", "title", *CATEGORIES],
                "properties": {
                    "issue_id": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"},
                    "title": {"type": "string", "minLength": 1, "maxLength": 300},
                    **{c: {"type": "array", "items": _ITEM} for c in CATEGORIES},
                },
            },
        },
        "uncertainties": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "item", "impact", "source_ids"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"},
                    "item": {"type": "string", "minLength": 1},
                    "impact": {"type": "string", "minLength": 1},
                    "source_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "code": {"enum": list(UNCERTAINTY_CODES)},
                },
            },
        },
        "source_summaries": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["source_id", "summary_ja"],
                "properties": {
                    "source_id": {"type": "string"},
                    "summary_ja": {"type": "string", "minLength": 1, "maxLength": 1000},
                },
            },
        },
        "past_articles": {
            "type": ["object", "null"],
            "additionalProperties": False,
            "properties": {
                "known": {"type": "array", "items": _ITEM},
                "diff_candidates": {"type": "array", "items": _ITEM},
                "recheck": {"type": "array", "items": _ITEM},
            },
        },
    },
}

INSTRUCTIONS_JA = """\
Evidence Set（inputs.sources）だけを使い、論点ごとに「事実」「推測」「未確認事項」「世間的反応」「矛盾」を分けたEvidence Packetを作ってください。
- 各記述に inputs.sources に実在する source_id を一つ以上付ける。
- 事実(facts)は一次(primary)または二次(secondary)情報に基づくものだけ。コミュニティ情報の説明や評価は reactions へ。discovery_only は引用しない。一次情報を引用しない事実は、プログラムが「二次情報による説明」(support: secondary_explanation)として区別する。
- 矛盾(contradictions)には対立する出典を二件以上付け、黙って解消しない。矛盾は不確実性として計画(O-07)で扱われる。
- source_summaries: 引用したすべての出典について、その出典が何を述べているかを日本語で要約する（summary_ja）。inputs.sources の excerpt（プログラムの抜粋）や本文を写さず、自分の言葉で書く。
- uncertainties の code には種類を付ける: 矛盾 CONTRADICTION_FOUND、対象範囲（バージョン・環境）の曖昧さ SCOPE_AMBIGUOUS、古さ SOURCE_STALE、取得不能 FETCH_FAILED。
- 根拠のない補完、記事候補の採否判断はしない。根拠充足性・新規性・読者価値はO-06が判断する。
- inputs.past_articles はブログの既存記事（ref_id P1, P2, …、タイトル・slug・日付・タグ・要約）。関係する記事があれば past_articles の known（既に書いたこと）・diff_candidates（今回の差分候補）・recheck（再確認が必要なこと）に、記事の ref_id（と必要なら source_id）を source_ids に付けて書く。
- 過去記事参照（inputs.past_articles）が null の場合は past_articles を null とし、差分を推測しない。
- 取得不能・範囲の曖昧さ・古さ・矛盾は uncertainties に残す（Evidence Setの不確実性はプログラムが自動で引き継ぐ）。
- PDFは権威として扱わず、運用者本人の疑問や判断の記録として扱う。"""

INSTRUCTIONS_EN = """\
Using only the evidence set (inputs.sources), build an evidence packet that keeps, per issue, facts, inferences,
unknowns, reactions and contradictions apart.
- Every statement cites one or more source_ids that exist in inputs.sources.
- Facts rest on primary or secondary sources only; explanations and opinions from community sources go to reactions;
  never cite discovery_only sources.
- A contradiction cites at least two sources and is not silently resolved; the plan (O-07) must treat it as an uncertainty.
- A fact that cites no primary source is labelled a secondary explanation (support: secondary_explanation) by the program.
- source_summaries: for every source you cite, a Japanese summary (summary_ja) of what that source says, in your own words
  (not a copy of the program's excerpt or of the text).
- Give uncertainties a code for their kind: CONTRADICTION_FOUND, SCOPE_AMBIGUOUS (version/environment unclear),
  SOURCE_STALE, FETCH_FAILED.
- Do not fill gaps without evidence and do not judge whether this is an article candidate (O-06 does).
- inputs.past_articles lists the blog's existing posts (ref_id P1, P2, …, title, slug, date, tags, summary). When some
  are related, fill past_articles.known (already written), diff_candidates (what is new now) and recheck (what needs
  checking again), citing the post's ref_id (and source_ids where needed) in source_ids.
- Without past-article references (inputs.past_articles is null) set past_articles to null; do not guess differences.
- Keep unreachable sources, unclear scope, staleness and contradictions as uncertainties (the evidence set's own
  uncertainties are carried over by the program).
- Treat PDFs not as authority but as records of the operator's own questions and decisions."""


def _norm(text: str) -> str:
    return re.sub(r"[\s、。,.!?！？「」『』()（）]+", "", text).lower()


def cited_source_ids(output: dict[str, Any], classes: dict[str, str]) -> set[str]:
    """Every evidence-set source the packet cites (issues, uncertainties, past-article items)."""
    cited: set[str] = set()
    for issue in output.get("issues") or []:
        for category in CATEGORIES:
            for item in issue.get(category) or []:
                cited.update(item.get("source_ids") or [])
    for unc in output.get("uncertainties") or []:
        cited.update(unc.get("source_ids") or [])
    for key in ("known", "diff_candidates", "recheck"):
        for item in (output.get("past_articles") or {}).get(key) or []:
            cited.update(item.get("source_ids") or [])
    return {sid for sid in cited if sid in classes}


def _check_summaries(inputs: dict[str, Any], output: dict[str, Any], classes: dict[str, str]) -> list[Refusal]:
    """A Japanese summary, written not copied, for every cited source (the excerpt stays the program's)."""
    refusals: list[Refusal] = []
    texts = {s["source_id"]: _norm(f"{s.get('text') or ''}{s.get('excerpt') or ''}") for s in inputs["sources"]}
    given: dict[str, str] = {}
    for j, entry in enumerate(output.get("source_summaries") or []):
        path = f"$.source_summaries[{j}]"
        sid, summary = entry["source_id"], entry["summary_ja"]
        if sid not in classes:
            refusals.append(
                Refusal(ReasonCode.UNKNOWN_SOURCE_ID, path, f"{sid!r} is not a source_id of the evidence set.")
            )
            continue
        if sid in given:
            refusals.append(Refusal(ReasonCode.DUPLICATE_ITEM_ID, path, f"{sid!r} is summarized twice."))
        given[sid] = summary
        if not is_japanese(summary):
            refusals.append(
                Refusal(ReasonCode.SUMMARY_NOT_JAPANESE, f"{path}.summary_ja", "Write the summary in Japanese.")
            )
        normalized = _norm(summary)
        if len(normalized) >= SUMMARY_COPY_CHARS and normalized in texts.get(sid, ""):
            refusals.append(
                Refusal(
                    ReasonCode.SUMMARY_IS_EXCERPT,
                    f"{path}.summary_ja",
                    "The summary copies the source's text; summarize what the source says in your own words.",
                )
            )
    for sid in sorted(cited_source_ids(output, classes) - set(given)):
        refusals.append(
            Refusal(
                ReasonCode.SUMMARY_MISSING,
                "$.source_summaries",
                f"The cited source {sid!r} has no Japanese summary (source_summaries).",
            )
        )
    return refusals


class _PacketChecker:
    """The program's rules on a packet's items, visited in order: ids unique, every statement cites
    sources of the evidence set (facts a primary or secondary one, contradictions two), no statement
    in two categories, past-article items cite past articles."""

    def __init__(self, classes: dict[str, str]) -> None:
        self.classes = classes  # source_id -> source class
        self.refusals: list[Refusal] = []
        self.ids: set[str] = set()
        self.statements: dict[str, str] = {}  # normalized statement -> its first category

    def _unique(self, path: str, item_id: str) -> None:
        if item_id in self.ids:
            self.refusals.append(Refusal(ReasonCode.DUPLICATE_ITEM_ID, path, f"The id {item_id!r} is used twice."))
        self.ids.add(item_id)

    def visit(self, path: str, item: dict[str, Any], category: str) -> None:
        classes, refusals = self.classes, self.refusals
        self._unique(path, item["id"])
        cited = item.get("source_ids", [])
        if not cited:
            refusals.append(Refusal(ReasonCode.MISSING_SOURCE_ID, path, "The statement cites no source_id."))
        for sid in cited:
            if sid not in classes:
                refusals.append(
                    Refusal(ReasonCode.UNKNOWN_SOURCE_ID, path, f"{sid!r} is not a source_id of the evidence set.")
                )
            elif classes[sid] == "discovery_only":
                refusals.append(
                    Refusal(
                        ReasonCode.DISCOVERY_ONLY_CITED,
                        path,
                        f"{sid!r} is discovery-only (a snippet, not evidence).",
                    )
                )
        if category == "facts" and cited and not any(classes.get(s) in ("primary", "secondary") for s in cited):
            refusals.append(
                Refusal(
                    ReasonCode.FACT_WITHOUT_PRIMARY_OR_SECONDARY,
                    path,
                    "A fact must cite a primary or secondary source; opinions go to reactions.",
                )
            )
        if category == "contradictions" and len(set(cited)) < 2:
            refusals.append(
                Refusal(ReasonCode.CONTRADICTION_NEEDS_TWO_SOURCES, path, "A contradiction cites at least two sources.")
            )
        if "statement" in item:
            key = _norm(item["statement"])
            if key in self.statements and self.statements[key] != category:
                refusals.append(
                    Refusal(
                        ReasonCode.STATEMENT_IN_TWO_CATEGORIES,
                        path,
                        f"The same statement is also under {self.statements[key]}.",
                    )
                )
            self.statements.setdefault(key, category)

    def past_articles(self, given: list[dict[str, Any]] | None, past: dict[str, Any] | None) -> None:
        """Without past-article references no difference is guessed; with them each item cites one."""
        references = {p["ref_id"] for p in given or []}
        if given is None and past and any(past.get(k) for k in ("known", "diff_candidates", "recheck")):
            self.refusals.append(
                Refusal(
                    ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE,
                    "$.past_articles",
                    "There are no past-article references: set past_articles to null and do not guess differences.",
                )
            )
            return
        if not past:
            return
        for key in ("known", "diff_candidates", "recheck"):
            for j, item in enumerate(past.get(key) or []):
                path = f"$.past_articles.{key}[{j}]"
                self._unique(path, item["id"])
                cited = item.get("source_ids", [])
                if not any(sid in references for sid in cited):
                    self.refusals.append(
                        Refusal(
                            ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE,
                            f"{path}.source_ids",
                            "A past-article item cites at least one past article (its ref_id, e.g. 'P1').",
                        )
                    )
                for sid in cited:
                    if sid not in references and sid not in self.classes:
                        self.refusals.append(
                            Refusal(
                                ReasonCode.UNKNOWN_SOURCE_ID,
                                f"{path}.source_ids",
                                f"{sid!r} is neither a past article (inputs.past_articles) nor a source_id.",
                            )
                        )


class BuildEvidencePacket(AgentStep):
    operation = OPERATION
    name = "Build Evidence Packet"
    transitions = moves({State.EVIDENCE_READY: {State.EVIDENCE_READY, State.NO_CANDIDATE}})
    in_place = (State.EVIDENCE_READY,)
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        sha = ctx.artifact_sha("evidence_set")
        evidence = ctx.artifact("evidence_set")
        sources = [
            {
                k: s.get(k)
                for k in (
                    "source_id",
                    "source_class",
                    "title",
                    "url",
                    "repository_ref",
                    "publisher",
                    "author",
                    "published_at",
                    "modified_at",
                    "fetched_at",
                    "target_version",
                    "locator",
                    "confidence",
                    "excerpt",
                    "text",
                )
            }
            for s in evidence["sources"]
        ]
        inputs = {
            "evidence_set_sha256": sha,
            "request": {"title": evidence["title_masked"], "question": evidence["question_masked"]},
            "sources": sources,
            "uncertainties": evidence["uncertainties"],
            "past_articles": past_articles(ctx),
        }
        refs = [f"artifact:evidence_set@sha256:{sha}"]
        refs += [f"blog:{p['path']}@sha256:{p['sha256']}" for p in inputs["past_articles"] or []]
        return Prepared(inputs=inputs, input_refs=refs)

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        checker = _PacketChecker({s["source_id"]: s["source_class"] for s in inputs["sources"]})
        issue_ids: set[str] = set()
        for i, issue in enumerate(output["issues"]):
            if issue["issue_id"] in issue_ids:
                checker.refusals.append(
                    Refusal(
                        ReasonCode.DUPLICATE_ITEM_ID,
                        f"$.issues[{i}]",
                        f"The issue id {issue['issue_id']!r} is used twice.",
                    )
                )
            issue_ids.add(issue["issue_id"])
            for category in CATEGORIES:
                for j, item in enumerate(issue[category]):
                    checker.visit(f"$.issues[{i}].{category}[{j}]", item, category)
        for j, unc in enumerate(output.get("uncertainties", [])):
            checker.visit(f"$.uncertainties[{j}]", {"id": unc["id"], "source_ids": unc["source_ids"]}, "uncertainties")
        checker.past_articles(inputs.get("past_articles"), output.get("past_articles"))
        return checker.refusals + _check_summaries(inputs, output, checker.classes)

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        carried = prepared.inputs["uncertainties"]
        sources = prepared.inputs["sources"]
        classes = {src["source_id"]: src["source_class"] for src in sources}
        summaries = {e["source_id"]: e["summary_ja"] for e in output.get("source_summaries") or []}
        issues = [_label_facts(issue, classes) for issue in output["issues"]]
        packet = {
            "evidence_set_sha256": prepared.inputs["evidence_set_sha256"],
            "issues": issues,
            "uncertainties": output.get("uncertainties", []),
            "carried_uncertainties": carried,
            "past_articles": output.get("past_articles"),
            "past_article_refs": prepared.inputs.get("past_articles"),
            "sources": [
                {
                    **{
                        k: src.get(k)
                        for k in (
                            "source_id",
                            "source_class",
                            "url",
                            "repository_ref",
                            "title",
                            "publisher",
                            "author",
                            "published_at",
                            "modified_at",
                            "target_version",
                            "excerpt",
                        )
                    },
                    "summary_ja": summaries.get(src["source_id"], "未確認"),
                }
                for src in sources
            ],
        }
        counts = {c: sum(len(issue[c]) for issue in issues) for c in CATEGORIES}
        secondary_only = [f for issue in issues for f in issue["facts"] if f["support"] == "secondary_explanation"]
        uncertainties = [
            Uncertainty(item=u["item"], impact=u["impact"], source_ids=u["source_ids"], code=u.get("code"))
            for u in output.get("uncertainties", [])
        ]
        for issue in issues:
            for item in issue["contradictions"]:
                uncertainties.append(
                    Uncertainty(
                        item=f"矛盾 {item['id']}: {item['statement']}",
                        impact="黙って解消しない。計画(O-07)で開示・限定・除外のいずれかを決める",
                        code=ReasonCode.CONTRADICTION_FOUND,
                        source_ids=item["source_ids"],
                    )
                )
        uncertainties += [Uncertainty.model_validate(u) for u in carried]

        def coded(code: ReasonCode) -> int:
            return sum(1 for u in output.get("uncertainties", []) if u.get("code") == code) + sum(
                1 for u in carried if u.get("code") == code
            )

        metrics = {
            "issues": len(issues),
            **counts,
            "facts_with_primary": counts["facts"] - len(secondary_only),
            "secondary_explanations": len(secondary_only),
            "contradictions": counts["contradictions"] + coded(ReasonCode.CONTRADICTION_FOUND),
            "scope_ambiguities": coded(ReasonCode.SCOPE_AMBIGUOUS),
            "stale_sources": coded(ReasonCode.SOURCE_STALE),
            "unreachable": coded(ReasonCode.FETCH_FAILED),
            "summaries": len(summaries),
            "uncertainties": len(uncertainties),
        }
        packet["metrics"] = metrics
        codes: list[ReasonCode] = []
        if secondary_only:
            codes.append(ReasonCode.FACT_SECONDARY_EXPLANATION)
        for code, metric in (
            (ReasonCode.CONTRADICTION_FOUND, "contradictions"),
            (ReasonCode.SCOPE_AMBIGUOUS, "scope_ambiguities"),
            (ReasonCode.SOURCE_STALE, "stale_sources"),
        ):
            if metrics[metric]:
                codes.append(code)
        if counts["facts"] == 0:
            return Outcome(
                Result.NO_CANDIDATE,
                State.NO_CANDIDATE,
                [ReasonCode.PACKET_NO_FACTS, *codes],
                "Evidence Packetに根拠で支えられる事実が一つもないため、根拠不足として公開候補なしで終了します。",
                uncertainties=uncertainties,
                artifacts={"evidence_packet": packet},
                metrics=metrics,
                producer=Producer.AGENT,
            )
        return Outcome(
            Result.ADVANCE,
            State.EVIDENCE_READY,
            [ReasonCode.PACKET_BUILT, *codes],
            f"Evidence Packetを作成しました（論点{len(issues)}件、事実{counts['facts']}件"
            f"（うち一次情報のない二次情報による説明{len(secondary_only)}件）、推測{counts['inferences']}件、"
            f"未確認{counts['unknowns']}件、反応{counts['reactions']}件、矛盾{metrics['contradictions']}件、"
            f"範囲の曖昧さ{metrics['scope_ambiguities']}件、古い出典{metrics['stale_sources']}件）。",
            uncertainties=uncertainties,
            artifacts={"evidence_packet": packet},
            metrics=metrics,
            producer=Producer.AGENT,
        )


def _label_facts(issue: dict[str, Any], classes: dict[str, str]) -> dict[str, Any]:
    """A fact stands on a primary source; one that cites none is a secondary explanation."""
    facts = []
    for fact in issue["facts"]:
        primary = any(classes.get(sid) == "primary" for sid in fact["source_ids"])
        facts.append({**fact, "support": "primary" if primary else "secondary_explanation"})
    return {**issue, "facts": facts}
