"""O-01 Capture Request: a request note (or an API request) becomes a run in CAPTURED.

Success: the request has at least one sentence of "what I want to know" and its publishability
is confirmed. Missing publishability is the only question to the person. Capturing never starts
processing. Only masked text is stored (secrets, personal and company information): the note stays
the source, the artifact holds the masked copy, the findings (kind, line, length) and hashes.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ...errors import InvalidNote
from ..contract import ReasonCode, Result, State
from ..safety import mask_sensitive
from .base import OpContext, Outcome, Prepared, ProgramStep, QuestionSpec, Wait, moves

OPERATION = "O-01"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+.*$", re.M)


def question_text(body: str) -> str:
    """The request's question: the body without headings and blank padding."""
    text = _HEADING.sub("", body)
    return "\n".join(line.rstrip() for line in text.strip().splitlines()).strip()


def require_question(text: str) -> None:
    if len(re.sub(r"[\s\W_]", "", text)) < 2:
        raise InvalidNote("The request has no question: write at least one sentence of what you want to know.")


def api_request_artifact(title: str, question: str) -> dict[str, Any]:
    require_question(question)
    masked_title, title_findings = mask_sensitive(title)
    masked, findings = mask_sensitive(question)
    return {
        "title": masked_title,
        "question_masked": masked,
        "question_sha256": hashlib.sha256(question.encode("utf-8")).hexdigest(),
        "findings": [f.public() for f in [*title_findings, *findings]],
    }


class CaptureRequest(ProgramStep):
    operation = OPERATION
    name = "Capture Request"
    transitions = moves(
        {
            None: {State.CAPTURED, State.REJECTED},
            State.CAPTURED: {State.CAPTURED, State.REJECTED},
        }
    )
    in_place = (State.CAPTURED,)

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        answer = ctx.answered("publishability")
        answer_part = {"question_id": answer.question_id, "answer": answer.answer} if answer else None
        note = ctx.request_note()
        if note is not None:
            if note.problem is not None:
                raise InvalidNote(
                    f"The request note cannot be read: {note.problem.message}", detail=note.problem.as_dict()
                )
            question = question_text(note.body)
            require_question(question)
            masked_title, title_findings = mask_sensitive(note.title)
            masked, findings = mask_sensitive(question)
            request: dict[str, Any] = {
                "source": "note",
                "path": note.path,
                "note_sha256": note.sha256,
                "title": masked_title,
                "question_masked": masked,
                "question_sha256": hashlib.sha256(question.encode("utf-8")).hexdigest(),
                "findings": [f.public() for f in [*title_findings, *findings]],
            }
            refs = [f"note:{note.path}@sha256:{note.sha256}"]
        else:
            api = ctx.artifact("api_request")
            request = {"source": "api", **{k: v for k, v in api.items() if k != "publishable"}}
            refs = [f"artifact:api_request@sha256:{ctx.artifact_sha('api_request')}"]
        # publishability is the person's answer kept on the run (engine.capture_note / answer), never
        # the note's property as it reads now: an agent can edit the note after capture
        given = ctx.run.publishability
        request["publishable"] = given.publishable if given else None
        request["publishability"] = given.model_dump(mode="json") if given else None
        if answer:
            refs.append(f"answer:{answer.question_id}")
        if given:
            refs.append(f"publishability:{given.how}:{given.by}")
        return Prepared(inputs={"request": request, "answer": answer_part}, input_refs=refs)

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        request: dict[str, Any] = prepared.inputs["request"]
        answer = prepared.inputs["answer"]
        publishable = request.get("publishable")
        codes = [ReasonCode.REQUEST_CAPTURED]
        if answer and (request.get("publishability") or {}).get("how") == "answer":
            codes.append(ReasonCode.PUBLISHABILITY_CONFIRMED)
        artifacts = {"request": request}
        if publishable is False:
            return Outcome(
                Result.REJECTED,
                State.REJECTED,
                [*codes, ReasonCode.NOT_PUBLISHABLE],
                f"依頼「{request['title']}」は公開不可のため対象外として終了しました。",
                artifacts=artifacts,
            )
        if publishable is None:
            return Outcome(
                Result.HOLD,
                State.CAPTURED,
                [*codes, ReasonCode.PUBLISHABILITY_UNKNOWN],
                f"依頼「{request['title']}」を受け付けました。公開可能性が明示されていないため、公開してよいかだけを確認します。",
                artifacts=artifacts,
                question=QuestionSpec(
                    kind="publishability",
                    question_ja="この依頼の内容を公開の場（公開Issueや公開記事の検討材料）に置いてよいですか。",
                    question_en="May the content of this request be placed in public (a public issue, material for a public article)?",
                    choices=["publishable", "not_publishable"],
                ),
            )
        return Outcome(
            Result.ADVANCE,
            State.CAPTURED,
            codes,
            f"依頼「{request['title']}」を受け付けました。実行ラベルが付くまで処理は開始しません。"
            + (f"公開可否: {ctx.run.publishability.describe_ja()}。" if ctx.run.publishability else ""),
            artifacts=artifacts,
        )
