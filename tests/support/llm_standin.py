"""A STAND-IN for an OpenAI-compatible LLM server (not a model): it speaks the real
chat-completions wire format (POST /v1/chat/completions → {"choices": [{"message": {...}}]})
and answers deterministically according to the requested `model` name:

  valid          a valid ValidationResult JSON: every claim "supported", quoting the sentence of
                 its evidence that shares the most words with it
  contradict     every claim "contradicted", quoting that sentence
  single-quote   as valid, in an older answer's shape (one "quote" string, no "quotes" list)
  fabricated     "supported" with a quote that is not in the evidence
  fenced         valid JSON wrapped in a ```json fence
  invalid-json   text that is not JSON, every time
  invalid-once   not JSON on the first call, valid on the retry
  wrong-shape    JSON of the wrong shape ({"answer": "yes"})
  http500        HTTP 500
  slow           sleeps `slow_seconds` (longer than the judge's timeout)
  no-schema      HTTP 400 when response_format is json_schema, valid without it
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def closest_sentence(claim: str, text: str) -> str:
    """The sentence of `text` sharing the most words (or, in Japanese, characters) with `claim`."""
    sentences = [m.group().strip() for m in re.finditer(r"[^.。!?！？]+[.。!?！？]?", text) if m.group().strip()]
    wanted = set(re.findall(r"\w+", claim.lower())) | set(claim)
    return max(sentences or [text], key=lambda s: len(wanted & (set(re.findall(r"\w+", s.lower())) | set(s))))


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class LLMStandIn:
    def __init__(self, *, slow_seconds: float = 5.0) -> None:
        self.slow_seconds = slow_seconds
        self.requests: list[dict[str, Any]] = []
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                standin._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> LLMStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _answer(self, payload: dict[str, Any], verdict: str, fabricate: bool = False, single: bool = False) -> str:
        findings = []
        evidence = {e["source_id"]: e for e in payload["evidence"]}
        for claim in payload["claims"]:
            sid = (claim.get("source_ids") or list(evidence))[0]
            text = evidence.get(sid, {}).get("text", "")
            quote = "words that the page never says" if fabricate else closest_sentence(claim["text"], text)
            finding = {"claim_id": claim["id"], "verdict": verdict, "source_id": sid, "reason": "stand-in"}
            finding.update({"quote": quote} if single else {"quotes": [quote]})
            findings.append(finding)
        overall = {"supported": "pass", "contradicted": "fail"}.get(verdict, "warn")
        return json.dumps({"verdict": overall, "score": 1.0, "confidence": 0.99, "findings": findings})

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length", "0"))
        body = json.loads(h.rfile.read(length))
        model = body.get("model", "")
        with self._lock:
            self.requests.append({"body": body, "authorization": h.headers.get("Authorization")})
            self.calls[model] = self.calls.get(model, 0) + 1
            count = self.calls[model]
        if h.path != "/v1/chat/completions":
            self._send(h, 404, {"error": {"message": "not found"}})
            return
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        payload = json.loads(user)
        try:
            if model == "valid":
                content = self._answer(payload, "supported")
            elif model == "contradict":
                content = self._answer(payload, "contradicted")
            elif model == "fabricated":
                content = self._answer(payload, "supported", fabricate=True)
            elif model == "single-quote":
                content = self._answer(payload, "supported", single=True)
            elif model == "fenced":
                content = "```json\n" + self._answer(payload, "supported") + "\n```"
            elif model == "invalid-json":
                content = "I think the claims are probably fine!"
            elif model == "invalid-once":
                content = "not json" if count == 1 else self._answer(payload, "supported")
            elif model == "wrong-shape":
                content = json.dumps({"answer": "yes"})
            elif model == "http500":
                self._send(h, 500, {"error": {"message": "internal error"}})
                return
            elif model == "slow":
                time.sleep(self.slow_seconds)
                content = self._answer(payload, "supported")
            elif model == "no-schema":
                if body.get("response_format", {}).get("type") == "json_schema":
                    self._send(h, 400, {"error": {"message": "response_format json_schema is not supported"}})
                    return
                content = self._answer(payload, "supported")
            else:
                self._send(h, 404, {"error": {"message": f"unknown model {model}"}})
                return
            self._send(h, 200, _completion(content, model))
        except (BrokenPipeError, ConnectionResetError):
            pass
