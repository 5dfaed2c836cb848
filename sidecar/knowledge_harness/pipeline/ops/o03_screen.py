"""O-03 Screen Safety: secrets, personal information, company/private markers.

Clearly private (the note's private flag or tag, a marker word used as a label, a marker word next
to a private identifier, one person's private matters) → REJECTED; masking suffices → only the
masked request goes on; a marker word in its technical sense (機密情報, 非公開リポジトリ) → goes on
and the record says so; undecidable → the person is asked once — unless the person already
answered the publishability question at O-01, which settles it (one question per reason per run).
No secret value is ever stored: findings keep kind and line only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..contract import ReasonCode, Result, State
from ..safety import COMPANY, PERSONAL, SECRET, screen
from .base import OpContext, Outcome, Prepared, ProgramStep, QuestionSpec, Wait, moves
from .o01_capture import question_text

OPERATION = "O-03"


class ScreenSafety(ProgramStep):
    operation = OPERATION
    name = "Screen Safety"
    transitions = moves({State.AUTHORIZED: {State.SCREENED, State.REJECTED, State.AUTHORIZED}})
    next_in = (State.AUTHORIZED,)

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        request = ctx.artifact("request")
        answer = ctx.answered("screening")
        publishability = ctx.answered("publishability")
        note = ctx.request_note()
        properties: dict[str, Any] = {}
        prior = 0
        prior_categories: list[str] = []
        if note is not None:
            title, text, properties = note.title, question_text(note.body), dict(note.properties)
            ref = f"note:{note.path}@sha256:{note.sha256}"
            source_digest = note.sha256
        else:
            title, text = request["title"], request["question_masked"]
            prior_findings = request.get("findings", request.get("secret_findings", []))
            prior = len(prior_findings)
            prior_categories = sorted({str(f.get("category", SECRET)) for f in prior_findings})
            ref = f"artifact:request@sha256:{ctx.artifact_sha('request')}"
            source_digest = str(ctx.artifact_sha("request"))
        inputs = {
            "source": source_digest,
            "answer": {"question_id": answer.question_id, "answer": answer.answer} if answer else None,
            "publishability": (
                {"question_id": publishability.question_id, "answer": publishability.answer} if publishability else None
            ),
            "screening": ctx.config.screening.model_dump(mode="json"),
        }
        refs = [ref] + ([f"answer:{answer.question_id}"] if answer else [])
        payload = {
            "title": title,
            "text": text,
            "properties": properties,
            "prior": prior,
            "prior_categories": prior_categories,
        }
        return Prepared(inputs=inputs, payload=payload, input_refs=refs)

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        p = prepared.payload
        reading = _read_request(ctx, p)
        if "private" in reading.decisions:
            return _rejected_as_private(reading)
        codes = reading.codes
        answer = prepared.inputs["answer"]
        settled_by = prepared.inputs["publishability"]
        if "undecidable" in reading.decisions and answer is None and settled_by is not None:
            # the person answered "publishable" at O-01: the same reason is not asked again
            codes.append(ReasonCode.PUBLISHABILITY_ALREADY_ANSWERED)
        elif "undecidable" in reading.decisions:
            if answer is None:
                return _ask_the_person(reading)
            if answer["answer"] == "private":
                return Outcome(
                    Result.REJECTED,
                    State.REJECTED,
                    [ReasonCode.SCREEN_ANSWERED_PRIVATE],
                    "人間が非公開と回答したため対象外として終了しました。",
                    artifacts={"screening": {**reading.screened, "decision": "private", "question_masked": None}},
                    metrics=reading.metrics,
                )
            codes.append(ReasonCode.SCREEN_ANSWERED_PUBLISHABLE)
        if not codes:
            codes.append(ReasonCode.SCREEN_CLEAN)
        masked_note = "マスク後の参照だけを後段へ渡します。" if reading.screened["findings"] or p["prior"] else ""
        return Outcome(
            Result.ADVANCE,
            State.SCREENED,
            codes,
            f"安全性の確認を終えました（検出{reading.metrics['findings']}件）。{masked_note}",
            artifacts={"screened_request": {**reading.screened, "decision": "publishable"}},
            metrics=reading.metrics,
        )


@dataclass
class _Reading:
    """The screened request (title and body masked) and what the screening found in it."""

    screened: dict[str, Any]
    decisions: set[str]  # publishable | private | undecidable, for the title and the body
    private: list[str]
    review: list[str]
    codes: list[ReasonCode]  # what was masked, marker words read in their technical sense
    metrics: dict[str, Any]


def _read_request(ctx: OpContext, p: dict[str, Any]) -> _Reading:
    cfg = ctx.config.screening
    kwargs: dict[str, Any] = {
        "private_words": cfg.private_markers,
        "review_words": cfg.review_markers,
        "technical_words": cfg.technical_sense_markers,
        "max_masked_ratio": cfg.max_masked_ratio,
    }
    title_s = screen(p["title"], None, **kwargs)
    body_s = screen(p["text"], p["properties"], prior_findings=p["prior"], **kwargs)
    findings = [f.public() for f in title_s.findings] + [f.public() for f in body_s.findings]
    private = sorted(set(title_s.private + body_s.private))
    review = sorted(set(title_s.review + body_s.review))
    technical = sorted(set(title_s.technical + body_s.technical))
    screened = {
        "title_masked": title_s.masked_text,
        "question_masked": body_s.masked_text,
        "findings": findings,
        "private_markers": private,
        "review_markers": review,
        "technical_words": technical,
        "masked_ratio": body_s.masked_ratio,
    }
    codes: list[ReasonCode] = []
    categories = {f["category"] for f in findings} | set(p.get("prior_categories", []))
    if SECRET in categories:
        codes.append(ReasonCode.SECRET_MASKED)
    if PERSONAL in categories:
        codes.append(ReasonCode.PERSONAL_INFO_MASKED)
    if COMPANY in categories:
        codes.append(ReasonCode.COMPANY_INFO_MASKED)
    if technical:
        codes.append(ReasonCode.PRIVATE_WORD_TECHNICAL)
    metrics = {
        "findings": len(findings) + p["prior"],
        "private_markers": len(private),
        "review_markers": len(review),
    }
    return _Reading(screened, {title_s.decision, body_s.decision}, private, review, codes, metrics)


def _rejected_as_private(reading: _Reading) -> Outcome:
    private = reading.private
    private_codes: list[ReasonCode] = []
    if any(m.split(":", 1)[0] in ("property", "tag", "label") for m in private):
        private_codes.append(ReasonCode.PRIVATE_MARKER)
    if any(m.startswith("context:") for m in private):
        private_codes.append(ReasonCode.PRIVATE_IDENTIFIER_CONTEXT)
    if "person_data" in private:
        private_codes.append(ReasonCode.PERSON_DATA)
    return Outcome(
        Result.REJECTED,
        State.REJECTED,
        private_codes,
        f"明らかに非公開の内容（{', '.join(private)}）があるため対象外として終了しました。",
        artifacts={"screening": {**reading.screened, "decision": "private", "question_masked": None}},
        metrics=reading.metrics,
    )


def _ask_the_person(reading: _Reading) -> Outcome:
    """The one screening question: may processing go on with the masked text?"""
    review = reading.review
    return Outcome(
        Result.HOLD,
        State.AUTHORIZED,
        [*reading.codes, ReasonCode.SCREEN_UNDECIDABLE],
        "公開可否を機械的に確定できないため、公開してよいかを人間へ確認します。",
        artifacts={"screening": {**reading.screened, "decision": "undecidable", "question_masked": None}},
        metrics=reading.metrics,
        question=QuestionSpec(
            kind="screening",
            question_ja=(
                "依頼に社内・顧客情報や個人情報の可能性がある記述があります"
                f"（{', '.join(review) or 'マスク対象が多い'}）。マスクした内容で公開前提の処理を続けてよいですか。"
            ),
            question_en=(
                "The request may contain company, customer or personal information "
                f"({', '.join(review) or 'much masked text'}). May processing continue on the masked text?"
            ),
            choices=["publishable", "private"],
        ),
    )
