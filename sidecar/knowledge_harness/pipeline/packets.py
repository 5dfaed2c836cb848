"""Reading an Evidence Packet (O-05's artifact) the same way in O-06 … O-12 and `check-draft`.

Packet items are the statements of every issue (facts, inferences, unknowns, reactions,
contradictions), the packet's uncertainties, past-article items and the evidence set's carried
uncertainties, which get program ids `CU1`, `CU2`, … in their stored order. A fact carries its
`support`: `primary`, or `secondary_explanation` when it cites no primary source.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.urls import normalize_url
from .contract import ReasonCode

CATEGORIES = ("facts", "inferences", "unknowns", "reactions", "contradictions")
PAST_KEYS = ("known", "diff_candidates", "recheck")


def carried_uncertainties(packet: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": f"CU{i}", "item": u.get("item", ""), "impact": u.get("impact", ""), "code": u.get("code")}
        for i, u in enumerate(packet.get("carried_uncertainties") or [], start=1)
    ]


def packet_items(packet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """id → {kind, statement, source_ids, issue_id} for every referable packet item."""
    items: dict[str, dict[str, Any]] = {}
    for issue in packet.get("issues") or []:
        for category in CATEGORIES:
            for item in issue.get(category) or []:
                items[item["id"]] = {
                    "kind": category,
                    "statement": item.get("statement", ""),
                    "source_ids": item.get("source_ids", []),
                    "issue_id": issue.get("issue_id"),
                    **({"support": item["support"]} if "support" in item else {}),
                }
    for unc in packet.get("uncertainties") or []:
        items[unc["id"]] = {
            "kind": "uncertainty",
            "statement": f"{unc.get('item', '')}（影響: {unc.get('impact', '')}）",
            "source_ids": unc.get("source_ids", []),
            "issue_id": None,
        }
    past = packet.get("past_articles") or {}
    for key in PAST_KEYS:
        for item in past.get(key) or []:
            items[item["id"]] = {
                "kind": f"past_articles.{key}",
                "statement": item.get("statement", ""),
                "source_ids": item.get("source_ids", []),
                "issue_id": None,
            }
    for unc in carried_uncertainties(packet):
        items[unc["id"]] = {
            "kind": "carried_uncertainty",
            "statement": f"{unc['item']}（影響: {unc['impact']}）",
            "source_ids": [],
            "issue_id": None,
        }
    return items


def past_ref_ids(packet: dict[str, Any]) -> set[str]:
    """The ids of the past articles O-05 saw (`P1`, `P2`, …)."""
    return {p["ref_id"] for p in packet.get("past_article_refs") or []}


def judge_refs(packet: dict[str, Any]) -> set[str]:
    """What an AI judge may cite: items, issue ids and past articles."""
    issues = {i.get("issue_id") for i in packet.get("issues") or [] if i.get("issue_id")}
    return set(packet_items(packet)) | issues | past_ref_ids(packet)


def uncertainty_ids(packet: dict[str, Any]) -> list[dict[str, Any]]:
    """Every uncertainty the plan must treat: the packet's uncertainties, unknowns, contradictions
    and those carried from the evidence set (fetch failures, stale sources, scope ambiguity, …).
    `code` says which kind it is (a reason code, or null)."""
    out: list[dict[str, Any]] = []
    for unc in packet.get("uncertainties") or []:
        out.append(
            {
                "id": unc["id"],
                "item": unc.get("item", ""),
                "impact": unc.get("impact", ""),
                "kind": "packet",
                "code": unc.get("code"),
            }
        )
    for issue in packet.get("issues") or []:
        for item in issue.get("unknowns") or []:
            out.append(
                {"id": item["id"], "item": item.get("statement", ""), "impact": "", "kind": "unknown", "code": None}
            )
        for item in issue.get("contradictions") or []:
            out.append(
                {
                    "id": item["id"],
                    "item": item.get("statement", ""),
                    "impact": "出典が食い違う。黙って解消しない",
                    "kind": "contradiction",
                    "code": ReasonCode.CONTRADICTION_FOUND.value,
                }
            )
    for unc in carried_uncertainties(packet):
        out.append(
            {"id": unc["id"], "item": unc["item"], "impact": unc["impact"], "kind": "carried", "code": unc["code"]}
        )
    return out


def packet_urls(packet: dict[str, Any]) -> set[str]:
    """The normalized URLs of the packet's sources: the only external URLs a draft may use."""
    return {normalize_url(s["url"]) for s in packet.get("sources") or [] if s.get("url")}


def packet_corpus(packet: dict[str, Any]) -> str:
    """All packet text (statements, titles, references), to check that dates and versions come from it."""
    return json.dumps(packet, ensure_ascii=False)


def packet_view(packet: dict[str, Any]) -> dict[str, Any]:
    """What agents see of a packet: issues, uncertainties (with ids), sources without bodies."""
    return {
        "issues": packet.get("issues") or [],
        "uncertainties": packet.get("uncertainties") or [],
        "carried_uncertainties": carried_uncertainties(packet),
        "past_articles": packet.get("past_articles"),
        "past_article_refs": packet.get("past_article_refs"),
        "sources": packet.get("sources") or [],
    }


_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]+")


def urls_in(text: str) -> list[tuple[int, str]]:
    """(line, url) of every http(s) URL in a text."""
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        for match in _URL.finditer(line):
            out.append((n, match.group(0).rstrip(".,;:!?'")))
    return out
