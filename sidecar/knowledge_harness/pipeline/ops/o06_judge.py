"""O-06 Judge Candidate: an AI-judge step; the program applies the design's rule (docs/design/pipeline.md) to its axes.

Required axes: evidence sufficiency, novelty against past articles, reader value, the author's
own question or judgment — each PASS / FAIL / UNCERTAIN with a confidence 0–1, reasons and the
packet items it looked at — plus the impact of unresolved uncertainty (LOW / MEDIUM / HIGH).
Any FAIL → NO_CANDIDATE; an UNCERTAIN, a PASS below 0.70 or a HIGH impact → HOLD; else
CANDIDATE_ACCEPTED. Past articles come from the blog repository's posts folder (base branch);
with no blog configured there is no reference and novelty must be UNCERTAIN.
"""

from __future__ import annotations

from typing import Any

from ..agents import Refusal
from ..blog import past_article_refs, past_posts
from ..contract import Producer, ReasonCode, Result, State
from ..judging import IMPACTS, apply_rule, axis_schema, axis_uncertainties, describe
from ..packets import PAST_KEYS, judge_refs, packet_view
from .base import AgentStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-06"
AXES = ("evidence_sufficiency", "novelty", "reader_value", "author_question")
LABELS = {
    "evidence_sufficiency": "根拠充足性",
    "novelty": "過去記事からの新規性",
    "reader_value": "外部読者が再利用できる価値",
    "author_question": "著者固有の問いまたは判断",
}
_READER_ASPECTS = {
    "aspects": {
        "type": "object",
        "additionalProperties": False,
        "required": ["reproducibility", "transferability", "search_motive"],
        "properties": {
            k: {"type": "string", "minLength": 1} for k in ("reproducibility", "transferability", "search_motive")
        },
    }
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Candidate Decision (O-06)",
    "type": "object",
    "additionalProperties": False,
    "required": ["axes", "uncertainty_impact", "central_claim"],
    "properties": {
        "axes": {
            "type": "object",
            "additionalProperties": False,
            "required": list(AXES),
            "properties": {
                "evidence_sufficiency": axis_schema("packet_refs"),
                "novelty": axis_schema("packet_refs"),
                "reader_value": axis_schema("packet_refs", extra=_READER_ASPECTS),
                "author_question": axis_schema("packet_refs"),
            },
        },
        "uncertainty_impact": {
            "type": "object",
            "additionalProperties": False,
            "required": ["level", "reasons", "packet_refs"],
            "properties": {
                "level": {"enum": list(IMPACTS)},
                "reasons": {"type": "string", "minLength": 1},
                "packet_refs": {"type": "array", "items": {"type": "string"}},
            },
        },
        "central_claim": {"type": "string", "minLength": 1, "maxLength": 1000},
    },
}

INSTRUCTIONS_JA = """\
Evidence Packet（inputs.packet）、依頼（inputs.request）、過去記事（inputs.past_articles）だけを見て、次の各軸を独立に評価してください。
各軸は verdict（PASS / FAIL / UNCERTAIN）、confidence（0〜1）、reasons（理由）、packet_refs（参照したPacket項目ID、inputs.packet_refs にあるもの）を持ちます。
- evidence_sufficiency 根拠充足性: 一次情報の件数ではなく、中心的な論点をPacketの出典が支えているか。facts の support が secondary_explanation のものは一次情報で確認されていない説明として扱う。
- novelty 過去記事からの新規性: 過去記事との差分が確認できる場合だけPASS。inputs.past_articles（ref_id P1, P2, …、タイトル・slug・日付・要約・抜粋）と Packet の past_articles 項目を比べ、既存記事があるときは比べた記事の ref_id（またはPacketの過去記事項目ID）を novelty.packet_refs に入れる。inputs.past_articles が null なら必ず UNCERTAIN。
- reader_value 外部読者が再利用できる価値: aspects に再現可能性・転用可能性・検索動機を理由付きで書く。
- author_question 著者固有の問いまたは判断: 依頼とPacketから復元できる場合だけPASS。
- uncertainty_impact: 未解決の不確実性が核心主張へ与える影響を LOW / MEDIUM / HIGH で。
- central_claim: 候補となる中心的な論点を一文で。
採否はプログラムが規則で決めます（FAILが一つでもあれば公開候補なし、UNCERTAIN・確信度0.70未満のPASS・影響HIGHは保留）。
人間へ追加調査や技術的事実の推測を依頼せず、記事数を増やす目的で甘く評価しないでください。"""

INSTRUCTIONS_EN = """\
Using only the evidence packet (inputs.packet), the request (inputs.request) and the past articles (inputs.past_articles),
judge each axis independently: verdict PASS / FAIL / UNCERTAIN, confidence 0–1, reasons, and packet_refs (ids from
inputs.packet_refs).
- evidence_sufficiency: do the packet's sources support the central point (not: how many primary sources)? Facts whose
  support is secondary_explanation are not confirmed by a primary source.
- novelty: PASS only when a difference from past articles is confirmed. Compare inputs.past_articles (ref_id P1, P2, …,
  title, slug, date, summary, excerpt) and the packet's past_articles items; when there are past articles, cite the ones
  you compared (their ref_id, or the packet's past-article item ids) in novelty.packet_refs. When inputs.past_articles is
  null it MUST be UNCERTAIN.
- reader_value: give reasons for reproducibility, transferability and search motive in `aspects`.
- author_question: PASS only when the author's own question or judgment can be recovered from the request and the packet.
- uncertainty_impact: LOW / MEDIUM / HIGH impact of unresolved uncertainty on the central claim.
- central_claim: the candidate central point in one sentence.
The program decides (any FAIL → no candidate; UNCERTAIN, PASS below 0.70 or HIGH impact → hold). Never ask the person to
research or guess facts, and never lower the bar to get more articles."""


class JudgeCandidate(AgentStep):
    operation = OPERATION
    name = "Judge Candidate"
    transitions = moves({State.EVIDENCE_READY: {State.CANDIDATE_ACCEPTED, State.NO_CANDIDATE, State.HOLD}})
    next_in = (State.EVIDENCE_READY,)
    judges = ("O-05",)
    kind = "ai_judge"
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        packet_sha = ctx.artifact_sha("evidence_packet")
        packet = ctx.artifact("evidence_packet")
        screened = ctx.artifact("screened_request")
        posts = past_posts(ctx)
        past: list[dict[str, Any]] | None = None
        if posts is not None:
            # the references O-05 saw (same ids as the packet's past-article items), with an excerpt
            by_path = {p.path: p for p in posts}
            seen = packet.get("past_article_refs")
            refs_seen = seen if seen is not None else past_article_refs(posts)
            past = [
                {**ref, "excerpt": by_path[ref["path"]].text[:1500] if ref["path"] in by_path else ""}
                for ref in refs_seen
            ]
        inputs = {
            "packet_sha256": packet_sha,
            "packet": packet_view(packet),
            "packet_refs": sorted(judge_refs(packet) | {p["ref_id"] for p in past or []}),
            "request": {"title": screened.get("title_masked", ""), "question": screened.get("question_masked", "")},
            "past_articles": past,
        }
        refs = [f"artifact:evidence_packet@sha256:{packet_sha}"]
        refs += [f"blog:{p['path']}@sha256:{p['sha256']}" for p in past or []]
        return Prepared(inputs=inputs, input_refs=refs)

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        known = set(inputs["packet_refs"])
        refusals: list[Refusal] = []
        for key, axis in output["axes"].items():
            for ref in axis["packet_refs"]:
                if ref not in known:
                    refusals.append(
                        Refusal(
                            ReasonCode.UNKNOWN_PACKET_REF, f"$.axes.{key}.packet_refs", f"{ref!r} is not a packet item."
                        )
                    )
        for ref in output["uncertainty_impact"]["packet_refs"]:
            if ref not in known:
                refusals.append(
                    Refusal(
                        ReasonCode.UNKNOWN_PACKET_REF,
                        "$.uncertainty_impact.packet_refs",
                        f"{ref!r} is not a packet item.",
                    )
                )
        novelty = output["axes"]["novelty"]
        if inputs["past_articles"] is None and novelty["verdict"] != "UNCERTAIN":
            refusals.append(
                Refusal(
                    ReasonCode.NOVELTY_WITHOUT_PAST_ARTICLES,
                    "$.axes.novelty.verdict",
                    "There are no past-article references (no blog posts folder configured): novelty must be UNCERTAIN.",
                )
            )
        elif inputs["past_articles"] and novelty["verdict"] != "UNCERTAIN":
            compared = {p["ref_id"] for p in inputs["past_articles"]}
            packet_past = inputs["packet"].get("past_articles") or {}
            compared |= {item["id"] for key in PAST_KEYS for item in packet_past.get(key) or []}
            if not compared & set(novelty["packet_refs"]):
                refusals.append(
                    Refusal(
                        ReasonCode.NOVELTY_WITHOUT_PAST_ARTICLES,
                        "$.axes.novelty.packet_refs",
                        "Novelty is judged against the past articles: cite the ones compared (ref_id P1, … or the "
                        "packet's past-article items).",
                    )
                )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        axes = output["axes"]
        impact = output["uncertainty_impact"]["level"]
        verdict = apply_rule(axes, impact)
        codes = list(verdict.codes)
        if prepared.inputs["past_articles"] is None:
            codes.append(ReasonCode.NO_PAST_ARTICLES)
        decision = {
            "packet_sha256": prepared.inputs["packet_sha256"],
            "axes": axes,
            "uncertainty_impact": output["uncertainty_impact"],
            "central_claim": output["central_claim"],
            "decision": verdict.decision,
            "rule": "any FAIL → NO_CANDIDATE; UNCERTAIN, PASS < 0.70 or impact HIGH → HOLD; else CANDIDATE_ACCEPTED",
            "past_articles": None
            if prepared.inputs["past_articles"] is None
            else [p["path"] for p in prepared.inputs["past_articles"]],
        }
        uncertainties = axis_uncertainties(axes, LABELS)
        metrics = {
            "axes": {k: {"verdict": a["verdict"], "confidence": a["confidence"]} for k, a in axes.items()},
            "uncertainty_impact": impact,
            "past_articles": len(prepared.inputs["past_articles"] or []),
        }
        why = describe(verdict, LABELS)
        if verdict.decision == "FAIL":
            result, state = Result.NO_CANDIDATE, State.NO_CANDIDATE
            summary = f"公開候補なしとします（{why}）。人間への確認は行いません。"
        elif verdict.decision == "HOLD":
            result, state = Result.HOLD, State.HOLD
            summary = f"候補判定を保留(HOLD)とします（{why}）。人間へ技術的事実は質問しません。再開条件: 根拠・過去記事参照の追加。"
        else:
            result, state = Result.ADVANCE, State.CANDIDATE_ACCEPTED
            summary = f"記事候補として採用しました（全必須軸が確信度0.70以上のPASS、不確実性の影響{impact}）。中心的な論点: {output['central_claim']}"
        return Outcome(
            result,
            state,
            codes,
            summary,
            uncertainties=uncertainties,
            artifacts={"candidate_decision": decision},
            metrics=metrics,
            producer=Producer.AI_JUDGE,
        )
