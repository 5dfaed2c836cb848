"""O-08 Draft Article: the agent writes blocks; the program assembles and checks the draft.

Input: the plan (PLAN_READY) and the same run's evidence packet only. The agent returns, per
plan section, blocks with a unique id, reStructuredText text and the packet items each uses,
plus the AI/human split and the target version. The program assembles `draft.rst` (the working
title, the metadata 公開日 = 未確定, 情報基準日 = the evidence collection date, 対象バージョン,
記事状態 = 下書き, the AI/human note, then the sections in plan order) and `draft_manifest.json`,
and refuses an output where a plan section is missing, repeated or out of order, a block cites
an item its section does not allow or an EXCLUDE item, a planned item is used by no block, a
DISCLOSE/LIMIT_CLAIM uncertainty is not reflected, a block holds a heading, a directive pulls in
outside content (raw, include, literalinclude, …) or a `post` directive appears, the AI/human
split is missing, or an unknown date or version is not written 未確認 / 未確定 — and every other
program error O-09 would hold the run for and the agent can fix (the draft's or a section's
language, a URL that is not a packet source, reStructuredText syntax, a role or directive the blog
does not allow, secrets, personal data, private markers), each with how to fix it. What O-09 fixes
itself (whitespace, underline lengths) is not refused; meaning (facts, leaps) is the judge's.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from ...core.clock import parse_utc_z
from ..agents import Refusal
from ..contract import Producer, ReasonCode, Result, State
from ..draft_checks import CheckInputs, blog_rules, check_draft
from ..drafts import DRAFT_STATUS, FIXABLE, assemble, block_problems, manifest_for, sha256_text
from ..packets import packet_corpus, packet_items, packet_view
from .base import AgentStep, OpContext, Outcome, Prepared, Wait, moves

OPERATION = "O-08"
TOKYO = ZoneInfo("Asia/Tokyo")
# how the agent fixes what O-09 would otherwise hold the run for (refused at submit instead)
FIX_HINTS: dict[str, str] = {
    "DRAFT_LANGUAGE_MISMATCH": "Write the blocks in Japanese (English product names, code and URLs are fine).",
    "DRAFT_SECTION_LANGUAGE_MISMATCH": "Rewrite this section's blocks in Japanese; only code, URLs and names may stay English.",
    "URL_NOT_IN_PACKET": (
        "Link only to the packet's source URLs (inputs.packet.sources[].url); remove any other link, however helpful, "
        "or write the page's name without a URL."
    ),
    "RST_SYNTAX": (
        "Fix the reStructuredText: close every ``literal`` / `link`_ / *emphasis*, keep a blank line before and "
        "after lists and directives, indent directive bodies by three spaces."
    ),
    "ROLE_NOT_ALLOWED": "Use only the blog's roles (or plain text / ``literal``).",
    "DIRECTIVE_FORBIDDEN": "Use only the blog's directives; nothing that pulls in outside content.",
    "SECRET_IN_DRAFT": "Remove the secret-like value; describe it (e.g. 「アクセスキー」) instead.",
    "PERSONAL_INFO_IN_DRAFT": "Remove the personal information; never copy it from the sources.",
    "COMPANY_INFO_IN_DRAFT": "Remove the company information.",
    "PRIVATE_MARKER_IN_DRAFT": "Remove the private content or the marker word used in a non-technical sense.",
    "UNSUPPORTED_VALUE": "Write only dates and versions the packet states; otherwise 未確認.",
}
# what O-09 decides with what O-08 cannot see (the blog's files, past posts) or fixes itself, and the
# draft/manifest agreement (O-08 builds both from the same output)
NOT_REFUSED_AT_O08 = FIXABLE | {
    "TITLE_DUPLICATE",
    "LOCAL_REF_OUTSIDE",
    "LOCAL_REF_MISSING",
    "DRAFT_SHA_MISMATCH",
    "MANIFEST_MISMATCH",
}

# what a single block can carry on its own (checked per block when the draft cannot be assembled)
BLOCK_CODES = frozenset({"DIRECTIVE_FORBIDDEN", "POST_DIRECTIVE_FORBIDDEN", "UNSUPPORTED_VALUE"})
_ID = {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,40}$"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Draft blocks (O-08)",
    "type": "object",
    "additionalProperties": False,
    "required": ["ai_scope_ja", "target_version", "blocks"],
    "properties": {
        "ai_scope_ja": {"type": "string", "minLength": 1, "maxLength": 2000},
        "target_version": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\n]+$"},
        "blocks": {
            "type": "array",
            "minItems": 1,
            "maxItems": 200,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["block_id", "section_id", "rst", "packet_refs"],
                "properties": {
                    "block_id": _ID,
                    "section_id": _ID,
                    "rst": {"type": "string", "minLength": 1, "maxLength": 20000},
                    "packet_refs": {"type": "array", "items": _ID, "minItems": 1},
                },
            },
        },
    },
}

INSTRUCTIONS_JA = """\
Article Plan（inputs.plan）と同じ実行のEvidence Packet（inputs.packet）だけを使い、日本語のreStructuredText本文をブロック単位で書いてください。
- Planの各節（inputs.plan.sections）を同じIDと順序で一回ずつ扱い、節ごとに一つ以上のブロック（一意な block_id、section_id、rst、packet_refs）を書く。
- packet_refs はその節で許可された参照（inputs.allowed_refs[節ID]）の範囲内。各節の計画済み参照は少なくとも一つのブロックで使う。EXCLUDE項目（inputs.excluded_refs）は使わない。
- DISCLOSE / LIMIT_CLAIM の不確実性（inputs.reflect_uncertainties）を本文に明示・限定として反映し、そのIDを packet_refs に入れる。
- 見出しはプログラムが付けるのでブロックに見出しを書かない。raw、include、literalinclude、image など外部内容を取り込むdirectiveと post directive は使わない。
- リンクの規則: URLは inputs.packet.sources の url だけ。それ以外のURL（公式ヘルプなど役に立つものでも）は書かない（提出時に拒否される）。
- 各節を日本語で書く（コード・URL・製品名の英字は可）。英語だけの節は提出時に拒否される。reStructuredText の構文（``リテラル``の閉じ忘れなど）も提出時に検査される。
- ai_scope_ja に「AIが担当した範囲」と「人間が確認する範囲」を書く（記事冒頭に置かれる）。
- 対象バージョンなど確認できない値は推測せず「未確認」、公開日は「未確定」。Packetにない日付やバージョンを書かない。
- 原文、根拠、Planにない事実・節・著者意図を追加しない。"""

INSTRUCTIONS_EN = """\
Using only the plan (inputs.plan) and the same run's evidence packet (inputs.packet), write the Japanese reStructuredText body
as blocks. Cover every plan section once, same ids, same order, with one or more blocks (unique block_id, section_id, rst,
packet_refs). packet_refs stay within inputs.allowed_refs[section]; every planned ref of a section is used by at least one
block; never use EXCLUDE items (inputs.excluded_refs). Reflect the DISCLOSE / LIMIT_CLAIM uncertainties
(inputs.reflect_uncertainties) in the text and cite their ids. Write no headings (the program adds them), no directive that
pulls in outside content (raw, include, literalinclude, image, …) and no post directive. Link rule: the only URLs allowed
are the packet's source URLs (inputs.packet.sources[].url); any other URL, however helpful (an official help page), is
refused at submit. Write every section in Japanese (code, URLs and product names may stay English); a section in English
and broken reStructuredText (an unclosed ``literal``) are refused at submit. State in ai_scope_ja what the AI
did and what the person checks (it goes at the top). Unknown values are 未確認 (never guessed); write no date or version
that is not in the packet. Add no fact, section or author intent beyond the plan and the packet."""


def information_date(ctx: OpContext) -> str:
    """The evidence collection date (Asia/Tokyo) of the run: the draft's 情報基準日."""
    for record in reversed(ctx.records):
        if record.operation == "O-04" and record.result.value == "ADVANCE":
            when = parse_utc_z(record.created_at)
            return when.astimezone(TOKYO).date().isoformat()
    return "未確認"


def build(inputs: dict[str, Any], output: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    plan = inputs["plan"]
    metadata = {
        "公開日": "未確定",
        "情報基準日": inputs["information_date"],
        "対象バージョン": output["target_version"],
        "記事状態": DRAFT_STATUS,
    }
    text = assemble(plan["working_title"], metadata, output["ai_scope_ja"], plan["sections"], output["blocks"])
    manifest = manifest_for(
        text,
        plan["sections"],
        {b["block_id"]: b["packet_refs"] for b in output["blocks"]},
        run_id=inputs["run_id"],
        plan_sha256=inputs["plan_sha256"],
        packet_sha256=inputs["packet_sha256"],
        excluded_refs=inputs["excluded_refs"],
    )
    return text, manifest


class DraftArticle(AgentStep):
    operation = OPERATION
    name = "Draft Article"
    transitions = moves({State.PLAN_READY: {State.DRAFT_READY, State.HOLD}})
    next_in = (State.PLAN_READY,)
    instructions_ja = INSTRUCTIONS_JA
    instructions_en = INSTRUCTIONS_EN
    schema = SCHEMA

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        plan_sha = ctx.artifact_sha("article_plan")
        packet_sha = ctx.artifact_sha("evidence_packet")
        plan = ctx.artifact("article_plan")
        packet = ctx.artifact("evidence_packet")
        treatments = {e["uncertainty_id"]: e["treatment"] for e in plan["uncertainty_handling"]}
        inputs = {
            "run_id": ctx.run.run_id,
            "plan_sha256": plan_sha,
            "packet_sha256": packet_sha,
            "plan": plan,
            "packet": packet_view(packet),
            "allowed_refs": {s["id"]: s["packet_refs"] for s in plan["sections"]},
            "excluded_refs": plan.get("excluded_refs", []),
            "reflect_uncertainties": sorted(k for k, t in treatments.items() if t in ("DISCLOSE", "LIMIT_CLAIM")),
            "information_date": information_date(ctx),
            "blog_rules": {
                k: list(v) if v is not None and not isinstance(v, str) else v for k, v in blog_rules(ctx.config).items()
            },
        }
        return Prepared(
            inputs=inputs,
            input_refs=[f"artifact:article_plan@sha256:{plan_sha}", f"artifact:evidence_packet@sha256:{packet_sha}"],
        )

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        plan_ids = [s["id"] for s in inputs["plan"]["sections"]]
        allowed = {k: set(v) for k, v in inputs["allowed_refs"].items()}
        excluded = set(inputs["excluded_refs"])
        items = set(packet_items(inputs["packet"]))
        refusals: list[Refusal] = []
        seen: set[str] = set()
        order: list[str] = []
        used: dict[str, set[str]] = {sid: set() for sid in plan_ids}
        for i, block in enumerate(output["blocks"]):
            path = f"$.blocks[{i}]"
            if block["block_id"] in seen:
                refusals.append(
                    Refusal(ReasonCode.DUPLICATE_BLOCK_ID, path, f"The block id {block['block_id']!r} is used twice.")
                )
            seen.add(block["block_id"])
            sid = block["section_id"]
            if sid not in allowed:
                refusals.append(Refusal(ReasonCode.UNKNOWN_SECTION, path, f"{sid!r} is not a plan section."))
                continue
            if not order or order[-1] != sid:
                order.append(sid)
            for ref in block["packet_refs"]:
                if ref in excluded:
                    refusals.append(
                        Refusal(ReasonCode.EXCLUDED_ITEM_REFERENCED, path, f"{ref!r} is EXCLUDE in the plan.")
                    )
                elif ref not in items:
                    refusals.append(Refusal(ReasonCode.UNKNOWN_PACKET_REF, path, f"{ref!r} is not a packet item."))
                elif ref not in allowed[sid]:
                    refusals.append(
                        Refusal(ReasonCode.BLOCK_REF_NOT_ALLOWED, path, f"{ref!r} is not allowed in section {sid!r}.")
                    )
                used[sid].add(ref)
            for code, message in block_problems(block["rst"]):
                refusals.append(Refusal(code, f"{path}.rst", message))
        for sid in plan_ids:
            if sid not in order:
                refusals.append(
                    Refusal(ReasonCode.SECTION_MISSING, "$.blocks", f"The plan section {sid!r} has no block.")
                )
        if [s for s in order if s in plan_ids] != [s for s in plan_ids if s in order] or len(order) != len(set(order)):
            refusals.append(
                Refusal(
                    ReasonCode.SECTION_ORDER,
                    "$.blocks",
                    "Sections must appear once each, in plan order, blocks grouped by section.",
                )
            )
        for sid in plan_ids:
            for ref in sorted(allowed[sid] - excluded - used[sid]):
                refusals.append(
                    Refusal(
                        ReasonCode.PLANNED_REF_UNUSED,
                        "$.blocks",
                        f"The planned ref {ref!r} of section {sid!r} is used by no block.",
                    )
                )
        cited = {ref for refs in used.values() for ref in refs}
        for uid in inputs["reflect_uncertainties"]:
            if uid not in cited:
                refusals.append(
                    Refusal(
                        ReasonCode.UNCERTAINTY_NOT_REFLECTED,
                        "$.blocks",
                        f"The uncertainty {uid!r} is not reflected (cite it).",
                    )
                )
        version = output["target_version"]
        if version not in ("未確認", "未確定") and version not in packet_corpus(inputs["packet"]):
            refusals.append(
                Refusal(
                    ReasonCode.UNSUPPORTED_VALUE, "$.target_version", f"{version!r} is not in the packet: write 未確認."
                )
            )
        if refusals:
            # the draft cannot be assembled; still report what each block carries, so one try shows all
            for i, block in enumerate(output["blocks"]):
                block_report = check_draft(block["rst"] + "\n", CheckInputs(packet=inputs["packet"]))
                for finding in block_report.errors:
                    if finding.code in BLOCK_CODES:
                        refusals.append(Refusal(finding.code, f"$.blocks[{i}].rst", finding.message))
            return refusals
        text, manifest = build(inputs, output)
        rules = inputs.get("blog_rules") or {}
        report = check_draft(text, CheckInputs(manifest=manifest, packet=inputs["packet"], **rules))
        starts = [(b["start_line"], b["block_id"]) for b in manifest["blocks"]]
        for finding in report.errors:
            if finding.code in NOT_REFUSED_AT_O08:
                continue
            if finding.code == "DRAFT_SECTION_LANGUAGE_MISMATCH":
                # the finding names the heading line: the section's first block follows it
                owner = next((bid for start, bid in starts if start > finding.line), None)
            else:
                owner = next((bid for start, bid in reversed(starts) if finding.line >= start), None)
            index = next((i for i, b in enumerate(output["blocks"]) if b["block_id"] == owner), None)
            where = f"$.blocks[{index}].rst" if index is not None else "$"
            hint = FIX_HINTS.get(finding.code, "")
            refusals.append(
                Refusal(finding.code, where, f"line {finding.line}: {finding.message}" + (f" {hint}" if hint else ""))
            )
        return refusals

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome:
        text, manifest = build(prepared.inputs, output)
        draft = {"rst": text, "sha256": sha256_text(text)}
        return Outcome(
            Result.ADVANCE,
            State.DRAFT_READY,
            [ReasonCode.DRAFT_BUILT],
            f"draft.rst（{len(output['blocks'])}ブロック、{len(prepared.inputs['plan']['sections'])}節）とdraft_manifest.jsonを作成しました。",
            artifacts={"draft": draft, "draft_manifest": manifest},
            metrics={"blocks": len(output["blocks"]), "chars": len(text)},
            producer=Producer.AGENT,
            text_files={"draft.rst": text, "draft_manifest.json": _json(manifest)},
        )


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
