"""O-07 Plan Article: an agent step the program validates.

Input: the accepted candidate and the same run's evidence packet only. The plan has a working
title, one central message (one sentence), audience, search motive, a structure type (TUTORIAL,
CONCEPT_EXPLANATION, CHANGE_ANALYSIS, TROUBLESHOOTING, DECISION_RECORD), exclusions with
reasons, sections with unique ids mapped to existing packet items, and a treatment (DISCLOSE,
LIMIT_CLAIM, EXCLUDE) with a reason for every uncertainty. Nothing outside the packet (no URL
that is not a packet source). The one allowed question to the person: only when the author's
motive is essential to the central message and cannot be recovered from the request and the
packet, once per run, at most three questions about the author's publishable intent. Then the
run waits (result HOLD, state unchanged) and continues when the person answers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...core.urls import normalize_url
from ...errors import Conflict
from ..agents import Refusal
from ..contract import Producer, ReasonCode, Result, State, Uncertainty
from ..draft_checks import external_urls
from ..packets import packet_items, packet_urls, packet_view, uncertainty_ids
from .base import AgentStep, OpContext, Outcome, Prepared, QuestionSpec, Wait, moves

OPERATION = "O-07"
STRUCTURE_TYPES = ("TUTORIAL", "CONCEPT_EXPLANATION", "CHANGE_ANALYSIS", "TROUBLESHOOTING", "DECISION_RECORD")
TREATMENTS = ("DISCLOSE", "LIMIT_CLAIM", "EXCLUDE")
_ID = {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 2000}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Article Plan (O-07)",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "working_title",
        "central_message",
        "audience",
        "search_motive",
        "structure_type",
        "exclusions",
        "sections",
        "uncertainty_handling",
    ],
    "properties": {
        "working_title": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\n]+$"},
        "central_message": _TEXT,
        "audience": _TEXT,
        "search_motive": _TEXT,
        "structure_type": {"enum": list(STRUCTURE_TYPES)},
        "exclusions": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["what", "reason"],
                "properties": {"what": _TEXT, "reason": _TEXT},
            },
        },
        "sections": {
            "type": "array",
            "minItems": 1,
            "maxItems": 30,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "heading", "purpose", "reader_gain", "packet_refs"],
                "properties": {
                    "id": _ID,
                    "heading": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\n]+$"},
                    "purpose": _TEXT,
                    "reader_gain": _TEXT,
                    "packet_refs": {"type": "array", "items": _ID, "minItems": 1},
                },
            },
        },
        "uncertainty_handling": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["uncertainty_id", "treatment", "reason"],
                "properties": {"uncertainty_id": _ID, "treatment": {"enum": list(TREATMENTS)}, "reason": _TEXT},
            },
        },
        "author_question": {
            "type": ["object", "null"],
            "additionalProperties": False,
            "required": ["essential_to_central_message", "recoverable_from_request_and_packet", "questions_ja"],
            "properties": {
                "essential_to_central_message": {"type": "boolean"},
                "recoverable_from_request_and_packet": {"type": "boolean"},
                "questions_ja": {"type": "array", "items": _TEXT, "minItems": 1, "maxItems": 3},
            },
        },
    },
}

INSTRUCTIONS_JA = """\
採用された候補（inputs.candidate）と同じ実行のEvidence Packet（inputs.packet）だけを使い、Article Planを作ってください。
- 仮題、記事全体の中心メッセージ（一文）、対象読者、検索動機、構成型（TUTORIAL / CONCEPT_EXPLANATION / CHANGE_ANALYSIS / TROUBLESHOOTING / DECISION_RECORD）、含めない内容と理由。
- 各節に一意なID、見出し、目的、読者が得るもの、実在するPacket項目ID（inputs.packet_item_ids）を対応付ける。ログ順ではなく読者に伝わる順に並べる。
- inputs.uncertainties の不確実性すべて（矛盾 contradiction、対象範囲の曖昧さ SCOPE_AMBIGUOUS、古い出典 SOURCE_STALE、取得不能などを含む。code が種類）に DISCLOSE / LIMIT_CLAIM / EXCLUDE と理由を付ける。DISCLOSE と LIMIT_CLAIM はどこかの節の packet_refs に入れ、EXCLUDE はどの節にも入れない。
- Packetにない事実・URLを追加せず、O-06の採否を再判定しない。
- author_question は、著者固有の動機が中心メッセージに不可欠で、依頼とPacketから復元できない場合だけ（この実行で一回、最大3問、公開可能な著者の意図だけ）。技術的事実・根拠不足・構成の好みのためには使わない。回答がなくても計画できるなら null にして不確実性を残す。
- inputs.author_answer があればそれを使い、再び質問しない。"""

INSTRUCTIONS_EN = """\
Using only the accepted candidate (inputs.candidate) and the same run's evidence packet (inputs.packet), write the article plan:
working title, one-sentence central message, audience, search motive, structure type, exclusions with reasons; sections with
unique ids, heading, purpose, reader gain and existing packet item ids (inputs.packet_item_ids), in the order that serves the
reader. Give every uncertainty in inputs.uncertainties (contradictions, SCOPE_AMBIGUOUS, SOURCE_STALE, fetch failures, …;
`code` says which) a treatment (DISCLOSE / LIMIT_CLAIM / EXCLUDE) and a reason; put
DISCLOSE and LIMIT_CLAIM items into some section's packet_refs and EXCLUDE items into none. Add no fact or URL that is not in
the packet; do not re-judge the candidate. Use author_question only when the author's motive is essential to the central
message and cannot be recovered from the request and packet (once per run, at most three questions, about publishable intent
only); otherwise set it to null and keep the uncertainty. If inputs.author_answer is present, use it and do not ask again."""


def _sentences(text: str) -> int:
    parts = [p for p in re.split(r"[。．！？!?]|\.(?:\s|$)", text.strip()) if p.strip()]
    return len(parts)


class PlanArticle(AgentStep):
    operation = OPERATION
    name = "Plan Article"
    transitions = moves({State.CANDIDATE_ACCEPTED: {State.PLAN_READY, State.HOLD, State.CANDIDATE_ACCEPTED}})
    next_in = (State.CANDIDATE_ACCEPTED,)
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        packet_sha = ctx.artifact_sha("evidence_packet")
        candidate_sha = ctx.artifact_sha("candidate_decision")
        packet = ctx.artifact("evidence_packet")
        candidate = ctx.artifact("candidate_decision")
        if candidate.get("packet_sha256") != packet_sha:
            raise Conflict("The candidate decision is not about this run's evidence packet.")
        screened = ctx.artifact("screened_request")
        asked = [q for q in ctx.run.questions if q.kind == "author_motive"]
        answer = ctx.answered("author_motive")
        if asked and answer is None:
            return Wait(f"human:{asked[-1].question_id} author_motive")
        inputs = {
            "packet_sha256": packet_sha,
            "candidate_sha256": candidate_sha,
            "candidate": {"central_claim": candidate["central_claim"], "axes": candidate["axes"]},
            "request": {"title": screened.get("title_masked", ""), "question": screened.get("question_masked", "")},
            "packet": packet_view(packet),
            "packet_item_ids": sorted(packet_items(packet)),
            "uncertainties": uncertainty_ids(packet),
            "author_question_allowed": not asked,
            "author_answer": answer.answer if answer else None,
        }
        refs = [f"artifact:evidence_packet@sha256:{packet_sha}", f"artifact:candidate_decision@sha256:{candidate_sha}"]
        if answer:
            refs.append(f"answer:{answer.question_id}")
        return Prepared(inputs=inputs, input_refs=refs)

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        items = set(inputs["packet_item_ids"])
        unc_ids = [u["id"] for u in inputs["uncertainties"]]
        refusals: list[Refusal] = []
        seen: set[str] = set()
        placed: set[str] = set()
        for i, section in enumerate(output["sections"]):
            path = f"$.sections[{i}]"
            if section["id"] in seen:
                refusals.append(
                    Refusal(ReasonCode.DUPLICATE_SECTION_ID, path, f"The section id {section['id']!r} is used twice.")
                )
            seen.add(section["id"])
            for ref in section["packet_refs"]:
                if ref not in items:
                    refusals.append(
                        Refusal(ReasonCode.UNKNOWN_PACKET_REF, f"{path}.packet_refs", f"{ref!r} is not a packet item.")
                    )
                placed.add(ref)
        handled: dict[str, str] = {}
        for j, entry in enumerate(output["uncertainty_handling"]):
            uid = entry["uncertainty_id"]
            if uid not in unc_ids:
                refusals.append(
                    Refusal(
                        ReasonCode.UNCERTAINTY_UNKNOWN,
                        f"$.uncertainty_handling[{j}]",
                        f"{uid!r} is not an uncertainty of the packet.",
                    )
                )
            elif uid in handled:
                refusals.append(
                    Refusal(
                        ReasonCode.UNCERTAINTY_UNHANDLED, f"$.uncertainty_handling[{j}]", f"{uid!r} is treated twice."
                    )
                )
            handled[uid] = entry["treatment"]
        for uid in unc_ids:
            if uid not in handled:
                refusals.append(
                    Refusal(
                        ReasonCode.UNCERTAINTY_UNHANDLED,
                        "$.uncertainty_handling",
                        f"The uncertainty {uid!r} has no treatment.",
                    )
                )
            elif handled[uid] == "EXCLUDE" and uid in placed:
                refusals.append(
                    Refusal(
                        ReasonCode.EXCLUDED_ITEM_REFERENCED,
                        "$.sections",
                        f"{uid!r} is EXCLUDE but mapped to a section.",
                    )
                )
            elif handled[uid] in ("DISCLOSE", "LIMIT_CLAIM") and uid not in placed:
                refusals.append(
                    Refusal(
                        ReasonCode.UNCERTAINTY_NOT_PLACED,
                        "$.sections",
                        f"{uid!r} is {handled[uid]} but mapped to no section, so the draft could not reflect it.",
                    )
                )
        if _sentences(output["central_message"]) != 1:
            refusals.append(
                Refusal(
                    ReasonCode.CENTRAL_MESSAGE_NOT_ONE_SENTENCE,
                    "$.central_message",
                    "The central message must be one sentence.",
                )
            )
        allowed_urls = packet_urls(inputs["packet"])
        for _, url in external_urls(json.dumps(output, ensure_ascii=False)):
            if normalize_url(url) not in allowed_urls:
                refusals.append(Refusal(ReasonCode.URL_NOT_IN_PACKET, "$", f"{url} is not a source of the packet."))
        question = output.get("author_question")
        if question is not None:
            if not inputs["author_question_allowed"] or inputs.get("author_answer") is not None:
                refusals.append(
                    Refusal(
                        ReasonCode.AUTHOR_QUESTION_NOT_ALLOWED,
                        "$.author_question",
                        "The author was already asked in this run.",
                    )
                )
            elif not question["essential_to_central_message"] or question["recoverable_from_request_and_packet"]:
                refusals.append(
                    Refusal(
                        ReasonCode.AUTHOR_QUESTION_NOT_ALLOWED,
                        "$.author_question",
                        "Ask only when the motive is essential to the central message and not recoverable; else set null.",
                    )
                )
            else:
                for i, text in enumerate(question["questions_ja"]):
                    if asks_a_fact(text):
                        refusals.append(
                            Refusal(
                                ReasonCode.AUTHOR_QUESTION_ASKS_FACT,
                                f"$.author_question.questions_ja[{i}]",
                                "This asks the person a fact (a version, a date, a setting, a number, what something is). "
                                "Facts come from the evidence: leave it as an uncertainty (DISCLOSE / LIMIT_CLAIM) and ask "
                                "only about the author's motive or intent (why, for whom, what to stress), or set null.",
                            )
                        )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        handling = {e["uncertainty_id"]: e for e in output["uncertainty_handling"]}
        uncertainties = [
            Uncertainty(
                item=f"{u['id']}: {u['item']}",
                impact=f"{handling[u['id']]['treatment']}: {handling[u['id']]['reason']}",
            )
            for u in prepared.inputs["uncertainties"]
            if u["id"] in handling
        ]
        plan = {
            **{k: v for k, v in output.items() if k != "author_question"},
            "packet_sha256": prepared.inputs["packet_sha256"],
            "candidate_sha256": prepared.inputs["candidate_sha256"],
            "author_answer": prepared.inputs.get("author_answer"),
            "excluded_refs": sorted(k for k, e in handling.items() if e["treatment"] == "EXCLUDE"),
        }
        metrics = {"sections": len(output["sections"]), "structure_type": output["structure_type"]}
        question = output.get("author_question")
        if question is not None:
            return Outcome(
                Result.HOLD,
                State.CANDIDATE_ACCEPTED,
                [ReasonCode.AUTHOR_QUESTION_ASKED],
                "著者固有の動機が中心メッセージに不可欠で、依頼とPacketから復元できないため、著者の意図だけを一回確認します。回答がなければ本文生成へ進みません。",
                uncertainties=uncertainties,
                artifacts={"article_plan_pending": plan},
                metrics=metrics,
                producer=Producer.AGENT,
                question=QuestionSpec(
                    kind="author_motive",
                    question_ja="\n".join(question["questions_ja"]),
                    question_en="The author's motive is essential to the article's central message and cannot be recovered "
                    "from the request and the evidence. Please describe your publishable intent (free text).",
                    choices=[],
                ),
            )
        return Outcome(
            Result.ADVANCE,
            State.PLAN_READY,
            [ReasonCode.PLAN_BUILT],
            f"Article Planを作成しました（{output['structure_type']}、{len(output['sections'])}節）。中心メッセージ: {output['central_message']}",
            uncertainties=uncertainties,
            artifacts={"article_plan": plan},
            metrics=metrics,
            producer=Producer.AGENT,
        )


# a question about the author's motive or intent names it; one about a fact asks for a value
_MOTIVE = re.compile(
    r"動機|意図|目的|狙い|きっかけ|理由|なぜ|どうして|誰に|読者|伝えたい|強調|重視|立場|経験|背景|"
    r"motive|intent|purpose|why|audience|reader|emphasi[sz]e|experience",
    re.I,
)
_FACT = re.compile(
    r"バージョン|版数|最新|リリース|いつ|何年|何月|日付|何個|何件|いくつ|何％|何%|仕様|設定値|デフォルト|既定値|"
    r"コマンド|手順|どのように設定|とは何|は何ですか|何でしょう|どれですか|"
    r"version|latest|release|when|how many|default|which setting|what is",
    re.I,
)


def asks_a_fact(question: str) -> bool:
    """A question to the author about a technical fact, not their motive: 「Obsidianの最新バージョンは
    何ですか？」. A question that names the motive or intent is not one, whatever else it mentions."""
    return _FACT.search(question) is not None and _MOTIVE.search(question) is None
