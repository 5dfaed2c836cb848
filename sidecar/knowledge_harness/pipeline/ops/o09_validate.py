"""O-09 Validate Draft: program checks, then five AI-judge axes through the agent door.

Program (pipeline/drafts.py, the same checks as `kh pipeline check-draft`): manifest and
SHA-256 consistency, reStructuredText parsed alone (docutils) with line numbers, metadata,
external URLs only from the packet (nothing is fetched), local references inside the blog
repository (traversal and missing targets are errors), a normalized title equal to an existing
article's (error), body similarity ≥ 0.85 (a duplicate candidate for the judge), secrets,
private markers, unmasked e-mail addresses and phone numbers. Trailing whitespace, the final
newline and heading underline lengths are fixed once and the draft re-checked; nothing else is
ever changed. Program errors that remain → HOLD without asking the judge. Otherwise the judge
rates five axes (PASS / FAIL / UNCERTAIN, confidence, reasons, existing block and packet
references); VALIDATED only when all are PASS with confidence ≥ 0.70, else HOLD.
"""

from __future__ import annotations

import json
from typing import Any

from ..agents import Refusal
from ..blog import blog_repo
from ..contract import Producer, ReasonCode, Result, State, Uncertainty
from ..draft_checks import CheckInputs, blog_rules, check_draft
from ..drafts import FIXABLE, autofix, layout, refresh_manifest, sha256_text
from ..judging import apply_rule, axis_schema, axis_uncertainties, describe
from ..packets import judge_refs, packet_view
from .base import AgentStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-09"
AXES = ("factual_support", "no_leap", "reader_value", "plan_consistency", "uncertainty_treatment")
LABELS = {
    "factual_support": "事実的主張がPacket根拠で支えられているか",
    "no_leap": "根拠から中心メッセージへの意味の飛躍がないか",
    "reader_value": "対象読者が再利用できる価値を維持しているか",
    "plan_consistency": "Planの中心メッセージ・節順・除外事項との整合",
    "uncertainty_treatment": "不確実性をPlanどおり明示・限定・除外しているか",
    "duplicate": "既存記事との重複",
}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Validation axes (O-09)",
    "type": "object",
    "additionalProperties": False,
    "required": ["axes"],
    "properties": {
        "axes": {
            "type": "object",
            "additionalProperties": False,
            "required": list(AXES),
            "properties": {axis: axis_schema("block_refs", "packet_refs") for axis in AXES},
        },
        "duplicate_assessment": axis_schema("block_refs"),
        "policy_candidate": {
            "type": ["object", "null"],
            "additionalProperties": False,
            "required": ["problem", "options", "impact"],
            "properties": {
                "problem": {"type": "string", "minLength": 1},
                "options": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 3},
                "impact": {"type": "string", "minLength": 1},
            },
        },
    },
}

INSTRUCTIONS_JA = """\
Draft（inputs.draft_rst、ブロックは inputs.block_ids）、Article Plan（inputs.plan）、Evidence Packet（inputs.packet）を読み、次の5軸を独立に評価してください。
各軸は verdict（PASS / FAIL / UNCERTAIN）、confidence（0〜1）、reasons、block_refs（実在するDraftブロックID）、packet_refs（実在するPacket項目ID）を持ちます。
- factual_support: 事実的主張がPacket根拠で支えられているか
- no_leap: 根拠から中心メッセージへの意味の飛躍がないか
- reader_value: 対象読者が再利用できる価値を維持しているか
- plan_consistency: Planの中心メッセージ、節順、除外事項に整合しているか
- uncertainty_treatment: 不確実性をPlanどおり明示・限定・除外しているか
inputs.duplicate_candidates がある場合は duplicate_assessment（既存記事との重複でないならPASS）も必須です。
Programの検査結果は inputs.program_report にあります。本文を修正せず、人間へ技術的事実を質問しないでください。
新しい恒久方針が本当に必要な場合だけ policy_candidate（問題、2〜3の選択肢、影響）を書きます。単発の表現調整は方針にしません。"""

INSTRUCTIONS_EN = """\
Read the draft (inputs.draft_rst; blocks in inputs.block_ids), the plan (inputs.plan) and the evidence packet (inputs.packet)
and rate five axes independently, each with verdict PASS / FAIL / UNCERTAIN, confidence 0–1, reasons, block_refs (existing
draft blocks) and packet_refs (existing packet items): factual_support, no_leap (no leap from evidence to the central message),
reader_value, plan_consistency (central message, section order, exclusions), uncertainty_treatment (disclosed / limited /
excluded as planned). When inputs.duplicate_candidates is not empty, duplicate_assessment is required (PASS when it is not a
duplicate of an existing article). The program's findings are in inputs.program_report. Do not edit the text; never ask the
person technical facts. Only when a new permanent policy is really needed, add policy_candidate (problem, 2–3 options, impact)."""


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


class ValidateDraft(AgentStep):
    operation = OPERATION
    name = "Validate Draft"
    transitions = moves(
        {
            State.DRAFT_READY: {State.VALIDATED, State.HOLD},
            State.REVISED: {State.VALIDATED, State.HOLD},
        }
    )
    next_in = (State.DRAFT_READY, State.REVISED)
    judges = ("O-08", "O-12")
    kind = "ai_judge"
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        draft_sha = ctx.artifact_sha("draft")
        draft = ctx.artifact("draft")
        manifest = ctx.artifact("draft_manifest")
        packet_sha = ctx.artifact_sha("evidence_packet")
        packet = ctx.artifact("evidence_packet")
        plan_sha = ctx.artifact_sha("article_plan")
        plan = ctx.artifact("article_plan")
        repo = blog_repo(ctx)
        posts = repo.posts() if repo is not None else []
        cfg = CheckInputs(
            manifest=manifest,
            packet=packet,
            draft_dir=ctx.config.blog.posts_dir,
            local_exists=repo.exists if repo is not None else None,
            past_posts=posts,
            similarity_threshold=ctx.config.blog.similarity_threshold,
            **blog_rules(ctx.config),
        )
        text = draft["rst"]
        first = check_draft(text, cfg)
        fixes: list[dict[str, Any]] = []
        final_text, final_manifest, final = text, manifest, first
        if any(f.code in FIXABLE for f in first.errors) or any(f.code in FIXABLE for f in first.warnings):
            final_text, fixes = autofix(text)
            final_manifest = refresh_manifest(final_text, manifest)
            cfg.manifest = final_manifest
            final = check_draft(final_text, cfg)
        report = {
            "draft_sha256_before": sha256_text(text),
            "draft_sha256": sha256_text(final_text),
            "first_pass": first.as_json(),
            "autofix": fixes,
            "errors": final.as_json()["errors"],
            "warnings": final.as_json()["warnings"],
            "duplicates": final.duplicates,
        }
        inputs = {
            "draft_sha256": sha256_text(final_text),
            "draft_rst": final_text,
            "block_ids": [b.block_id for b in layout(final_text).blocks],
            "manifest": final_manifest,
            "plan_sha256": plan_sha,
            "plan": plan,
            "packet_sha256": packet_sha,
            "packet": packet_view(packet),
            "packet_refs": sorted(judge_refs(packet)),
            "program_report": report,
            "duplicate_candidates": final.duplicates,
        }
        refs = [
            f"artifact:draft@sha256:{draft_sha}",
            f"artifact:article_plan@sha256:{plan_sha}",
            f"artifact:evidence_packet@sha256:{packet_sha}",
        ]
        refs += [f"blog:{p.path}@sha256:{p.sha256}" for p in posts]
        return Prepared(inputs=inputs, input_refs=refs)

    def _artifacts(self, prepared: Prepared, report: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        inputs = prepared.inputs
        artifacts: dict[str, Any] = {"validation_report": report}
        files: dict[str, str] = {}
        if inputs["program_report"]["autofix"]:
            artifacts["draft"] = {"rst": inputs["draft_rst"], "sha256": inputs["draft_sha256"]}
            artifacts["draft_manifest"] = inputs["manifest"]
            files = {"draft.rst": inputs["draft_rst"], "draft_manifest.json": _json_text(inputs["manifest"])}
        return artifacts, files

    def program_outcome(self, ctx: OpContext, prepared: Prepared) -> Outcome | None:
        """Unresolved program errors: HOLD without an AI judge task."""
        program = prepared.inputs["program_report"]
        if not program["errors"]:
            return None
        codes = [ReasonCode.DRAFT_PROGRAM_ERRORS]
        if program["autofix"]:
            codes.append(ReasonCode.AUTOFIX_APPLIED)
        for error in program["errors"]:
            if error["code"] in ReasonCode.__members__ and ReasonCode(error["code"]) not in codes:
                codes.append(ReasonCode(error["code"]))
        report = {**program, "axes": None, "decision": "HOLD"}
        artifacts, files = self._artifacts(prepared, report)
        return Outcome(
            Result.HOLD,
            State.HOLD,
            codes,
            f"Programの検査エラーが{len(program['errors'])}件残るため保留(HOLD)とします（自動修正{len(program['autofix'])}件のあと再検査）。"
            "本文の意味・事実・リンク先は自動修正しません。",
            uncertainties=[
                Uncertainty(
                    item=f"{e['code']} (line {e['line']}): {e['message']}", impact="公開候補にしない", code=e["code"]
                )
                for e in program["errors"][:20]
                if e["code"] in ReasonCode.__members__
            ],
            artifacts=artifacts,
            metrics={"program_errors": len(program["errors"]), "autofix": len(program["autofix"])},
            text_files=files,
        )

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        blocks = set(inputs["block_ids"])
        refs = set(inputs["packet_refs"])
        refusals: list[Refusal] = []
        for key, axis in output["axes"].items():
            for ref in axis["block_refs"]:
                if ref not in blocks:
                    refusals.append(
                        Refusal(
                            ReasonCode.UNKNOWN_BLOCK_REF, f"$.axes.{key}.block_refs", f"{ref!r} is not a draft block."
                        )
                    )
            for ref in axis["packet_refs"]:
                if ref not in refs:
                    refusals.append(
                        Refusal(
                            ReasonCode.UNKNOWN_PACKET_REF, f"$.axes.{key}.packet_refs", f"{ref!r} is not a packet item."
                        )
                    )
        if inputs["duplicate_candidates"] and not output.get("duplicate_assessment"):
            refusals.append(
                Refusal(
                    ReasonCode.DUPLICATE_ASSESSMENT_MISSING,
                    "$.duplicate_assessment",
                    "There are duplicate candidates (similarity ≥ 0.85): assess them.",
                )
            )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        axes = dict(output["axes"])
        if prepared.inputs["duplicate_candidates"]:
            axes["duplicate"] = output["duplicate_assessment"]
        verdict = apply_rule(axes)
        program = prepared.inputs["program_report"]
        codes: list[ReasonCode] = []
        if program["autofix"]:
            codes.append(ReasonCode.AUTOFIX_APPLIED)
        if program["duplicates"]:
            codes.append(ReasonCode.DUPLICATE_CANDIDATE)
        report = {**program, "axes": axes, "decision": "VALIDATED" if verdict.decision == "PASS" else "HOLD"}
        artifacts, files = self._artifacts(prepared, report)
        proposals: list[tuple[str, str]] = []
        policy = output.get("policy_candidate")
        if policy:
            codes.append(ReasonCode.POLICY_PROPOSAL_RECORDED)
            pid = f"policy-{ctx.run.run_id}-o09-{prepared.inputs['draft_sha256'][:8]}"
            options = "\n".join(f"  ({i}) {o}" for i, o in enumerate(policy["options"], start=1))
            proposals.append(
                (
                    pid,
                    f"## 提案: O-09で見つかった恒久方針の候補（run {ctx.run.run_id}）\n\n- 問題: {policy['problem']}\n"
                    f"- 選択肢:\n{options}\n- 影響: {policy['impact']}\n- 現行方針を維持したまま記録。自動採用しない。",
                )
            )
        common: dict[str, Any] = {
            "uncertainties": axis_uncertainties(axes, LABELS),
            "artifacts": artifacts,
            "metrics": {
                "axes": {k: {"verdict": a["verdict"], "confidence": a["confidence"]} for k, a in axes.items()},
                "autofix": len(program["autofix"]),
                "warnings": len(program["warnings"]),
            },
            "producer": Producer.AI_JUDGE,
            "text_files": files,
            "proposals": proposals,
        }
        if verdict.decision == "PASS":
            return Outcome(
                Result.ADVANCE,
                State.VALIDATED,
                [ReasonCode.VALIDATION_PASSED, *codes],
                "検証に合格しました（Programエラーなし、5軸すべて確信度0.70以上のPASS）。",
                **common,
            )
        return Outcome(
            Result.HOLD,
            State.HOLD,
            [*verdict.codes, *codes],
            f"検証を通らないため保留(HOLD)とします（{describe(verdict, LABELS)}）。人間へ技術的事実は質問しません。",
            **common,
        )
