"""O-05 Build Evidence Packet: an agent step, checked by the program.

The agent separates, per issue, facts / inferences / unknowns / reactions / contradictions, each
statement citing one or more source_ids that exist in the evidence set. The program refuses an
output that cites an unknown source, states a fact without a primary or secondary source, cites a
discovery-only source, reuses an id, puts the same statement in two categories, or claims
differences from past articles without past-article references. The evidence set's own
uncertainties are appended by the program, so none is lost. A packet with no supported fact at
all is the diagram's EVIDENCE_READY → NO_CANDIDATE edge (根拠不足).
"""

from __future__ import annotations

import re
from typing import Any

from ..agents import Refusal
from ..blog import past_articles
from ..contract import Producer, ReasonCode, Result, State, Uncertainty
from .base import AgentStep, OpContext, Outcome, Prepared, Wait

OPERATION = "O-05"
CATEGORIES = ("facts", "inferences", "unknowns", "reactions", "contradictions")

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
- 事実(facts)は一次(primary)または二次(secondary)情報に基づくものだけ。コミュニティ情報の説明や評価は reactions へ。discovery_only は引用しない。
- 矛盾(contradictions)には対立する出典を二件以上付け、黙って解消しない。
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
- A contradiction cites at least two sources and is not silently resolved.
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


class BuildEvidencePacket(AgentStep):
    operation = OPERATION
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
                    "published_at",
                    "fetched_at",
                    "target_version",
                    "locator",
                    "confidence",
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
        classes = {s["source_id"]: s["source_class"] for s in inputs["sources"]}
        refusals: list[Refusal] = []
        ids: set[str] = set()
        statements: dict[str, str] = {}

        def visit(path: str, item: dict[str, Any], category: str) -> None:
            if item["id"] in ids:
                refusals.append(Refusal(ReasonCode.DUPLICATE_ITEM_ID, path, f"The id {item['id']!r} is used twice."))
            ids.add(item["id"])
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
                    Refusal(
                        ReasonCode.CONTRADICTION_NEEDS_TWO_SOURCES, path, "A contradiction cites at least two sources."
                    )
                )
            if "statement" in item:
                key = _norm(item["statement"])
                if key in statements and statements[key] != category:
                    refusals.append(
                        Refusal(
                            ReasonCode.STATEMENT_IN_TWO_CATEGORIES,
                            path,
                            f"The same statement is also under {statements[key]}.",
                        )
                    )
                statements.setdefault(key, category)

        issue_ids: set[str] = set()
        for i, issue in enumerate(output["issues"]):
            if issue["issue_id"] in issue_ids:
                refusals.append(
                    Refusal(
                        ReasonCode.DUPLICATE_ITEM_ID,
                        f"$.issues[{i}]",
                        f"The issue id {issue['issue_id']!r} is used twice.",
                    )
                )
            issue_ids.add(issue["issue_id"])
            for category in CATEGORIES:
                for j, item in enumerate(issue[category]):
                    visit(f"$.issues[{i}].{category}[{j}]", item, category)
        for j, unc in enumerate(output.get("uncertainties", [])):
            visit(f"$.uncertainties[{j}]", {"id": unc["id"], "source_ids": unc["source_ids"]}, "uncertainties")
        past = output.get("past_articles")
        references = {p["ref_id"] for p in inputs.get("past_articles") or []}
        if (
            inputs.get("past_articles") is None
            and past
            and any(past.get(k) for k in ("known", "diff_candidates", "recheck"))
        ):
            refusals.append(
                Refusal(
                    ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE,
                    "$.past_articles",
                    "There are no past-article references: set past_articles to null and do not guess differences.",
                )
            )
        elif past:
            for key in ("known", "diff_candidates", "recheck"):
                for j, item in enumerate(past.get(key) or []):
                    path = f"$.past_articles.{key}[{j}]"
                    if item["id"] in ids:
                        refusals.append(
                            Refusal(ReasonCode.DUPLICATE_ITEM_ID, path, f"The id {item['id']!r} is used twice.")
                        )
                    ids.add(item["id"])
                    cited = item.get("source_ids", [])
                    if not any(sid in references for sid in cited):
                        refusals.append(
                            Refusal(
                                ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE,
                                f"{path}.source_ids",
                                "A past-article item cites at least one past article (its ref_id, e.g. 'P1').",
                            )
                        )
                    for sid in cited:
                        if sid not in references and sid not in classes:
                            refusals.append(
                                Refusal(
                                    ReasonCode.UNKNOWN_SOURCE_ID,
                                    f"{path}.source_ids",
                                    f"{sid!r} is neither a past article (inputs.past_articles) nor a source_id.",
                                )
                            )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        carried = prepared.inputs["uncertainties"]
        packet = {
            "evidence_set_sha256": prepared.inputs["evidence_set_sha256"],
            "issues": output["issues"],
            "uncertainties": output.get("uncertainties", []),
            "carried_uncertainties": carried,
            "past_articles": output.get("past_articles"),
            "past_article_refs": prepared.inputs.get("past_articles"),
            "sources": [
                {
                    "source_id": s["source_id"],
                    "source_class": s["source_class"],
                    "url": s["url"],
                    "repository_ref": s["repository_ref"],
                    "title": s["title"],
                }
                for s in prepared.inputs["sources"]
            ],
        }
        counts = {c: sum(len(issue[c]) for issue in output["issues"]) for c in CATEGORIES}
        uncertainties = [
            Uncertainty(item=u["item"], impact=u["impact"], source_ids=u["source_ids"])
            for u in output.get("uncertainties", [])
        ]
        uncertainties += [Uncertainty.model_validate(u) for u in carried]
        metrics = {"issues": len(output["issues"]), **counts, "uncertainties": len(uncertainties)}
        if counts["facts"] == 0:
            return Outcome(
                Result.NO_CANDIDATE,
                State.NO_CANDIDATE,
                [ReasonCode.PACKET_NO_FACTS],
                "Evidence Packetに根拠で支えられる事実が一つもないため、根拠不足として公開候補なしで終了します。",
                uncertainties=uncertainties,
                artifacts={"evidence_packet": packet},
                metrics=metrics,
                producer=Producer.AGENT,
            )
        return Outcome(
            Result.ADVANCE,
            State.EVIDENCE_READY,
            [ReasonCode.PACKET_BUILT],
            f"Evidence Packetを作成しました（論点{len(output['issues'])}件、事実{counts['facts']}件、推測{counts['inferences']}件、"
            f"未確認{counts['unknowns']}件、反応{counts['reactions']}件、矛盾{counts['contradictions']}件）。",
            uncertainties=uncertainties,
            artifacts={"evidence_packet": packet},
            metrics=metrics,
            producer=Producer.AGENT,
        )
