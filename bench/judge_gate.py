"""The quote gate under STAND-IN judges (rules, not models), through the real doors.

Three stand-ins answer every pair of ../shared/judge-data (WiCE dev, JNLI valid, contrast-dev):

  oracle       the gold label; its quotes are the sentences of WiCE's `supporting_sentence_sets`
               (all sets, when they are at most 8 sentences; else the first) and JNLI's premise (for a contrast row: the sentences that supported the claim before its edit)
  fabricating  `supported` for every pair, quoting the claim itself (text it made up), or, where the page
               writes the claim word for word, the claim with words of its own before it (a quote that IS
               the page's sentence is a true quote, not a made-up one)
  careless     `supported` for every pair, quoting the page sentence that shares the most words
               (Japanese: characters) with the claim

each through two doors: as an MCP agent (the official SDK client over stdio to a real `kh mcp VAULT`,
taking the judge tasks a validation with the `agent` judge posts: judge_next_task, judge_evidence
page by page, judge_submit) and as the "model" behind the `openai_compat` judge (a local server
speaking the chat-completions protocol). Pairs go 100 to a validation request, one claim and its
own page each (`source_ids`), so each finding is decided as a single pair would be. A pair ends
`pass` when its finding is `supported` after the gate. The embedded judge is run on the same
requests for comparison.

    .venv/bin/python -m bench.judge_gate [--limit N]       (KH_JUDGE_DATA=DIR for the data)
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import Implementation, TextContent

from bench.judge_train import data_dir
from knowledge_harness.trust.validate.judge_queue import VaultTaskQueue
from knowledge_harness.trust.validate.judges import get_judge
from knowledge_harness.trust.validate.judges.agent import AgentJudge
from knowledge_harness.trust.validate.judges.openai_compat import OpenAICompatJudge
from knowledge_harness.trust.validate.quotes import MAX_QUOTES, SourceText
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate
from knowledge_harness.vault.paths import Vault

REPO = Path(__file__).resolve().parent.parent
KH = REPO / ".venv" / "bin" / "kh"
PER_REQUEST = 100
MAX_CHARS = 4_000_000
STRATEGIES = ("oracle", "fabricating", "careless")


def _sentences(text: str) -> list[str]:
    return [
        m.group().strip() for m in re.finditer(r"[^\n。！？!?]+(?:[。！？!?]|\.(?=\s|$))?", text) if m.group().strip()
    ]


def _listed(value: Any) -> list[Any]:
    return list(ast.literal_eval(value) if isinstance(value, str) else value)


def load_pairs(limit: int | None) -> list[dict[str, Any]]:
    folder = data_dir()
    pairs: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for name, corpus in (("wice-claim-dev.jsonl", "wice"), ("jnli-v1.3-valid.jsonl", "jnli")):
        for line in (folder / name).read_text(encoding="utf-8").splitlines()[:limit]:
            row = json.loads(line)
            if corpus == "wice":
                sentences = _listed(row["evidence_sentences"])
                sets = _listed(row["supporting_sentence_sets"])
                union = sorted({i for chosen in sets for i in chosen})
                gold = [sentences[i] for i in (union if len(union) <= MAX_QUOTES else sets[0][:MAX_QUOTES])]
            else:
                sentences, gold = _sentences(row["evidence"]), [row["evidence"]]
            pair = {**row, "corpus": corpus, "kind": "natural", "sentences": sentences, "gold": gold}
            pairs.append(pair)
            by_id[row["id"]] = pair
    for line in (folder / "contrast-dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        origin = by_id.get(row["from"])
        if origin is None:
            continue
        pairs.append({**row, "corpus": "contrast", "sentences": origin["sentences"], "gold": origin["gold"]})
    return pairs


def _overlap(claim: str, sentence: str) -> int:
    wanted = set(re.findall(r"\w+", claim.lower())) | set(claim)
    return len(wanted & (set(re.findall(r"\w+", sentence.lower())) | set(sentence)))


def answer(strategy: str, pair: dict[str, Any], page: str) -> dict[str, Any]:
    """One finding of a stand-in for one pair (its claim id is the pair's id; its source is s-<id>)."""
    sid = f"s-{pair['id']}"
    if strategy == "oracle":
        verdict = {"supported": "supported", "contradicted": "contradicted"}.get(pair["label"], "unsupported")
        quotes = pair["gold"] if verdict != "unsupported" else []
    elif strategy == "fabricating":
        # made up: the claim itself, unless the page writes the claim word for word (then quoting it would be
        # the page's own sentence, a true quote): then words of its own around it
        made_up = pair["claim"]
        if SourceText(page).find(made_up) is not None:
            made_up = ("確かな筋によれば、" if pair.get("lang") == "ja" else "Reliable sources say that ") + made_up
        verdict, quotes = "supported", [made_up]
    else:
        sentences = [s for s in (_sentences(page) or [page]) if s.strip()]
        verdict, quotes = "supported", [max(sentences, key=lambda s: _overlap(pair["claim"], s))]
    return {"claim_id": pair["id"], "verdict": verdict, "source_id": sid, "quotes": quotes, "reason": "stand-in"}


def requests(pairs: list[dict[str, Any]]) -> Iterator[ValidationRequest]:
    chunk: list[dict[str, Any]] = []
    size = 0
    for pair in [*pairs, None]:
        if pair is None or len(chunk) == PER_REQUEST or size + len(pair["evidence"]) > MAX_CHARS:
            if chunk:
                yield ValidationRequest(
                    claims=[ClaimIn(id=p["id"], text=p["claim"], source_ids=[f"s-{p['id']}"]) for p in chunk],
                    evidence=[EvidenceIn(source_id=f"s-{p['id']}", text=p["evidence"]) for p in chunk],
                )
            chunk, size = [], 0
        if pair is not None:
            chunk.append(pair)
            size += len(pair["evidence"])


# -- the openai_compat door: a local server speaking chat completions --------------------------


class ChatStandIn:
    """A STAND-IN chat-completions server: the model name is the strategy."""

    def __init__(self, pairs: dict[str, dict[str, Any]]) -> None:
        standin = self
        self.pairs = pairs

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                user = json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))
                pages = {e["source_id"]: e["text"] for e in user["evidence"]}
                findings = [
                    answer(body["model"], standin.pairs[c["id"]], pages[c["source_ids"][0]]) for c in user["claims"]
                ]
                content = json.dumps({"verdict": "warn", "score": 0, "confidence": 0.9, "findings": findings})
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def run_openai(pairs: list[dict[str, Any]], strategy: str, server: ChatStandIn) -> dict[str, str]:
    judge = OpenAICompatJudge(base_url=server.base_url, model=strategy, timeout_seconds=120)
    return _outcomes(judge, pairs)


def _outcomes(judge: Any, pairs: list[dict[str, Any]]) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for request in requests(pairs):
        for finding in validate(request, judge).findings:
            outcomes[finding.claim_id] = finding.reason_code or finding.verdict
    return outcomes


# -- the agent door: a stand-in MCP agent over `kh mcp VAULT` ---------------------------------


def run_agent(pairs: list[dict[str, Any]], strategy: str, vault: Path) -> dict[str, str]:
    by_id = {p["id"]: p for p in pairs}
    reqs = list(requests(pairs))
    outcomes: dict[str, str] = {}
    done = threading.Event()

    def waiting_side() -> None:
        judge = AgentJudge(VaultTaskQueue(Vault.open(vault)), wait_seconds=600)
        for request in reqs:
            for finding in validate(request, judge).findings:
                outcomes[finding.claim_id] = finding.reason_code or finding.verdict
        done.set()

    async def agent() -> None:
        params = StdioServerParameters(command=str(KH), args=["mcp", str(vault)], env=dict(os.environ))
        info = Implementation(name=f"standin-{strategy}", version="1.0")
        async with (
            stdio_client(params) as streams,
            ClientSession(streams[0], streams[1], client_info=info) as session,
        ):
            await session.initialize()
            for _ in reqs:
                task = (await _call(session, "judge_next_task", wait_seconds=60))["task"]
                findings = []
                for claim in task["claims"]:
                    source = next(s for s in task["sources"] if s["source_id"] == claim["source_ids"][0])
                    text = ""
                    for page in range(1, source["pages"] + 1):
                        got = await _call(
                            session, "judge_evidence", task_id=task["task_id"], source_id=source["source_id"], page=page
                        )
                        text += got["text"]
                    findings.append(answer(strategy, by_id[claim["id"]], text))
                submitted = await _call(
                    session, "judge_submit", task_id=task["task_id"], answer={"findings": findings, "confidence": 0.9}
                )
                assert submitted.get("accepted"), submitted

    thread = threading.Thread(target=waiting_side, daemon=True)
    thread.start()
    anyio.run(agent)
    done.wait(600)
    return outcomes


async def _call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    first = result.content[0]
    assert isinstance(first, TextContent)
    body: dict[str, Any] = json.loads(first.text)
    if result.is_error:
        raise RuntimeError(body)
    return body


# -- figures ------------------------------------------------------------------------------------


def rates(pairs: list[dict[str, Any]], outcomes: dict[str, str]) -> dict[str, tuple[int, int]]:
    """(passed, total) per group: supported pairs, not-supported natural pairs, each contrast kind."""
    groups: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for pair in pairs:
        if pair["kind"] == "natural":
            key = f"{pair['corpus']} {'supported' if pair['label'] == 'supported' else 'not supported'}"
        else:
            key = f"contrast {pair['kind']}"
        groups[key][0] += outcomes.get(pair["id"]) == "supported"
        groups[key][1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(groups.items())}


def table(results: dict[str, dict[str, tuple[int, int]]]) -> str:
    columns = list(results)
    keys = sorted({k for r in results.values() for k in r})
    out = ["| pairs ending `pass` | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for key in keys:
        cells = []
        for column in columns:
            passed, total = results[column].get(key, (0, 0))
            cells.append(f"{100 * passed / total:.1f} % ({passed}/{total})" if total else "—")
        out.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="rows of each natural file (for a quick look)")
    parser.add_argument("--vault", type=Path, default=Path(f"/tmp/kh-judge-gate-{os.getpid()}"))
    args = parser.parse_args(argv)
    pairs = load_pairs(args.limit)
    args.vault.mkdir(parents=True, exist_ok=True)
    server = ChatStandIn({p["id"]: p for p in pairs})
    results: dict[str, dict[str, tuple[int, int]]] = {}
    reasons: dict[str, collections.Counter[str]] = {}
    started = time.time()
    results["embedded lexical"] = rates(pairs, _outcomes(get_judge("lexical"), pairs))
    for strategy in STRATEGIES:
        for door in ("MCP agent", "openai_compat"):
            t0 = time.time()
            if door == "MCP agent":
                outcomes = run_agent(pairs, strategy, args.vault)
            else:
                outcomes = run_openai(pairs, strategy, server)
            name = f"{strategy} ({door})"
            results[name] = rates(pairs, outcomes)
            reasons[name] = collections.Counter(outcomes.values())
            print(f"{name}: {time.time() - t0:.0f} s {dict(reasons[name])}", file=sys.stderr, flush=True)
    print(table(results))
    print()
    for name, counter in reasons.items():
        print(f"- {name}: " + ", ".join(f"{k} {v}" for k, v in counter.most_common()))
    print(f"\n{len(pairs)} pairs; {time.time() - started:.0f} s in all.")


if __name__ == "__main__":
    main()
