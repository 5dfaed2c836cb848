#!/usr/bin/env python3
"""Record real sidecar responses for the plugin's view and modal tests.

Starts `kh serve` on a temporary copy of examples/vault (and the local evidence site on
127.0.0.1:8731 unless something already serves it there), drives the HTTP API the way the
plugin does, and writes each JSON answer to obsidian-plugin/tests/fixtures/recorded/<name>.json.
`index.json` there lists what was recorded and which routes the sidecar did not serve.

The pipeline run is driven to its review the way an external agent would (GET
/v1/pipeline/tasks/next, POST …/submit with the outputs below), against a throwaway blog git
repository in the temporary folder, so the Review Packet, the refused approval (409: not merged)
and a recorded decision come from the real sidecar too. Error answers the plugin shows are kept
as `<name>.json` holding `{"status": N, "body": {...}}`.

Run it again after the sidecar changes:  .venv/bin/python scripts/capture-fixtures.py
Only the first look at a plain vault (GET /v1/trust/init, its write) and the example vault's audit,
stale list and candidates, keeping the other recordings:  .venv/bin/python scripts/capture-fixtures.py --first-look
Never run by `make test`; the tests only read the recorded files.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "obsidian-plugin" / "tests" / "fixtures" / "recorded"
KH = Path(os.environ.get("KH_BIN") or ROOT / ".venv" / "bin" / "kh")
EVIDENCE_PORT = 8731
REQUEST_NOTE = "Requests/メタデータ限定更新の記事.md"
OLD_POST = """\
.. post:: 2026-03-02
   :tags: cooking
   :language: ja

カレーの作り方
==============

玉ねぎをよく炒めてから、スパイスを加えて煮込みます。
"""


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=Fixture Person", "-c", "user.email=person@example.invalid", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return proc.stdout.strip()


def make_blog(root: Path) -> Path:
    """A throwaway blog repository (main branch, one old post) for O-06's past articles and O-10's candidate."""
    blog = root / "blog"
    posts = blog / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    git(blog, "init", "-q", "-b", "main")
    (posts / "2026-03-02-curry.rst").write_text(OLD_POST, encoding="utf-8")
    (blog / "docs" / "index.rst").write_text("Blog\n====\n", encoding="utf-8")
    git(blog, "add", "-A")
    git(blog, "commit", "-q", "-m", "initial")
    return blog


# -- what the external agent submits for each operation (valid outputs, see docs/pipeline.md) --------
def axis(verdict: str = "PASS", confidence: float = 0.9, **refs: list[str]) -> dict[str, Any]:
    return {"verdict": verdict, "confidence": confidence, "reasons": "Packetの出典が論点を支えている。", **refs}


def agent_output(task: dict[str, Any]) -> dict[str, Any]:
    op, inputs = task["operation"], task["inputs"]
    if op == "O-05":
        usable = [s for s in inputs["sources"] if s["source_class"] in ("primary", "secondary")]
        sid = usable[0]["source_id"]
        return {
            "issues": [
                {
                    "issue_id": "I1",
                    "title": "反映範囲を verification と evidence に限定する理由",
                    "facts": [
                        {
                            "id": "F1",
                            "statement": "メタデータ限定更新では反映処理が変更できるのは verification と evidence だけである。",
                            "source_ids": [sid],
                        }
                    ],
                    "inferences": [
                        {
                            "id": "N1",
                            "statement": "本文が変わらないため意図しない改変が起きにくい。",
                            "source_ids": [sid],
                        }
                    ],
                    "unknowns": [{"id": "U1", "statement": "対象バージョンは未確認。", "source_ids": [sid]}],
                    "reactions": [],
                    "contradictions": [],
                }
            ],
            "uncertainties": [
                {"id": "X1", "item": "対象バージョンが未確認", "impact": "記事では版を限定しない", "source_ids": [sid]}
            ],
            "past_articles": None,
            "source_summaries": [
                {
                    "source_id": sid,
                    "summary_ja": "この出典は、反映処理が変更できる範囲を verification と evidence に限る理由を説明している。",
                }
            ],
        }
    if op == "O-06":
        reader = axis(packet_refs=["F1"])
        reader["aspects"] = {
            "reproducibility": "運用ルールとして再現できる",
            "transferability": "他の知識ベースにも使える",
            "search_motive": "AIに直させる範囲で検索される",
        }
        return {
            "axes": {
                "evidence_sufficiency": axis(packet_refs=["F1"]),
                "novelty": axis(packet_refs=["F1"]),
                "reader_value": reader,
                "author_question": axis(packet_refs=["I1"]),
            },
            "uncertainty_impact": {
                "level": "LOW",
                "reasons": "対象バージョンは未確認だが核心ではない。",
                "packet_refs": ["X1"],
            },
            "central_claim": "検証結果の反映を verification と evidence に限ると本文の意図しない改変を防げる。",
        }
    if op == "O-07":
        handling = [
            {
                "uncertainty_id": u["id"],
                "treatment": {"X1": "DISCLOSE", "U1": "LIMIT_CLAIM"}.get(u["id"], "EXCLUDE"),
                "reason": "記事の主張の範囲を明確にするため。",
            }
            for u in inputs["uncertainties"]
        ]
        return {
            "working_title": "メタデータ限定更新はなぜ安全か",
            "central_message": "検証結果の反映を verification と evidence に限ると、本文を守ったまま検証を回せる。",
            "audience": "Obsidian と AI エージェントで知識ベースを育てている人",
            "search_motive": "AIに検証結果を書き戻させるときの安全な範囲を知りたい",
            "structure_type": "CONCEPT_EXPLANATION",
            "exclusions": [{"what": "PROV-O の詳細", "reason": "中心メッセージに不要"}],
            "sections": [
                {
                    "id": "S1",
                    "heading": "反映できる範囲",
                    "purpose": "ルールを示す",
                    "reader_gain": "何が変わり何が変わらないか分かる",
                    "packet_refs": ["F1", "X1"],
                },
                {
                    "id": "S2",
                    "heading": "まとめ",
                    "purpose": "利点と限界",
                    "reader_gain": "運用に取り入れる判断ができる",
                    "packet_refs": ["N1", "U1"],
                },
            ],
            "uncertainty_handling": handling,
            "author_question": None,
        }
    if op == "O-08":
        return {
            "ai_scope_ja": "この下書きは AI が Evidence Packet と Article Plan から作成しました。事実の最終確認と公開判断は人間が行います。",
            "target_version": "未確認",
            "blocks": [
                {
                    "block_id": "B1",
                    "section_id": "S1",
                    "rst": "反映処理が変更できるのは frontmatter の verification と evidence だけです。\n\n"
                    "対象バージョンは未確認のため、版による違いは断定しません。",
                    "packet_refs": ["F1", "X1"],
                },
                {
                    "block_id": "B2",
                    "section_id": "S2",
                    "rst": "本文が変わらないので、意図しない改変が起きにくくなります。\n\n"
                    "ただし、この結論は確認できた範囲に限ります。",
                    "packet_refs": ["N1", "U1"],
                },
            ],
        }
    if op == "O-09":
        names = ("factual_support", "no_leap", "reader_value", "plan_consistency", "uncertainty_treatment")
        return {"axes": {name: axis(block_refs=["B1"], packet_refs=["F1"]) for name in names}}
    if op == "O-10":
        return {
            "title": "メタデータ限定更新はなぜ安全か",
            "slug": "metadata-only-validation",
            "tags": ["obsidian", "ai"],
            "pr_description_ja": "中心メッセージ: 反映は verification と evidence だけ。主要根拠: vault のノート。無回答なら公開しません。",
        }
    raise SystemExit(f"no fixture output for {op}")


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Sidecar:
    def __init__(self, vault: Path) -> None:
        self.token = secrets.token_hex(32)
        env = {**os.environ, "KH_TOKEN": self.token}
        self.proc = subprocess.Popen(
            [str(KH), "serve", "--vault", str(vault), "--port", "0", "--exit-on-stdin-close"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("kh serve exited before listening")
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "listening":
                self.base = f"http://127.0.0.1:{event['port']}"
                return
        raise SystemExit("kh serve did not print its listening line")

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> tuple[int, Any]:
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 - http://127.0.0.1 only
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text

    def stop(self) -> None:
        with contextlib.suppress(Exception):  # best effort; terminate below
            self.call("POST", "/v1/shutdown")
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(timeout=5)


PLAIN_NOTES = {
    "Research/asyncio.md": "# asyncio のタイムアウト\n\nasyncio.timeout() で期限を設定する。\n\n## Sources\n\n"
    "- https://docs.python.org/3/library/asyncio-task.html\n",
    "Research/git.md": "# Git quotePath\n\ncore.quotePath=false shows UTF-8 names.\n\n"
    "Sources: https://git-scm.com/docs/git-config\n",
    "調査/鮮度管理.md": "---\ntags: [調査]\n---\n# 鮮度管理\n\n検証から 90 日で見直す。\n\n## 参考資料\n\n"
    "- https://www.rfc-editor.org/rfc/rfc9111\n",
    "日記/2026-12-01.md": "# 2026-12-01\n\n散歩した。\n",
}


def record_onboarding(tmp: Path, save: Any, save_error: Any) -> None:
    """The first look at a vault of plain notes nobody prepared (GET /v1/trust/init and its write)."""
    for name, policy in (("plain", None), ("plain-with-policy", "ttl_days = 30\n")):
        vault = tmp / name
        for path, text in PLAIN_NOTES.items():
            (vault / path).parent.mkdir(parents=True, exist_ok=True)
            (vault / path).write_text(text, encoding="utf-8")
        if policy is not None:
            (vault / ".harness").mkdir()
            (vault / ".harness" / "policy.toml").write_text(policy, encoding="utf-8")
        s = Sidecar(vault)
        try:
            if policy is None:
                save("init-audit", "GET /v1/trust/audit (plain vault)", *s.call("GET", "/v1/trust/audit"))
                report = save("init-report", "GET /v1/trust/init (plain vault)", *s.call("GET", "/v1/trust/init"))
                status, body = s.call("POST", "/v1/trust/init/write", {"proposed_toml": "[keywords]\n"})
                save_error("init-write-changed", "POST /v1/trust/init/write (not the proposal)", status, body)
                save(
                    "init-write",
                    "POST /v1/trust/init/write (plain vault)",
                    *s.call("POST", "/v1/trust/init/write", {"proposed_toml": report["proposed_toml"]}),
                )
                save("init-audit-after", "GET /v1/trust/audit (after the write)", *s.call("GET", "/v1/trust/audit"))
                save(
                    "candidates-after-init",
                    "GET /v1/trust/candidates (after the write)",
                    *s.call("GET", "/v1/trust/candidates"),
                )
            else:
                report = save(
                    "init-report-existing", "GET /v1/trust/init (existing policy)", *s.call("GET", "/v1/trust/init")
                )
                status, body = s.call("POST", "/v1/trust/init/write", {"proposed_toml": report["proposed_toml"]})
                save_error("init-write-refused", "POST /v1/trust/init/write (existing policy, no force)", status, body)
        finally:
            s.stop()


def quote(path: str) -> str:
    return urllib.parse.quote(path, safe="/")


def record_first_look() -> int:
    """`--first-look`: only the answers of the first look at a vault (GET /v1/trust/init, its write) and of
    the example vault's audit, stale list and candidates, without re-recording the others."""
    recorded: dict[str, str] = {}

    def save(name: str, route: str, status: int, body: Any) -> Any:
        if status >= 400:
            raise SystemExit(f"{route} answered {status}: {body}")
        (OUT / f"{name}.json").write_text(
            json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        recorded[name] = route
        print(f"  + {name}: {route}")
        return body

    def save_error(name: str, route: str, status: int, body: Any) -> None:
        (OUT / f"{name}.json").write_text(
            json.dumps({"status": status, "body": body}, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        recorded[name] = f"{route} → {status}"
        print(f"  + {name}: {route} → {status}")

    tmp = Path(tempfile.mkdtemp(prefix="kh-fixtures-"))
    try:
        vault = tmp / "vault"
        shutil.copytree(ROOT / "examples" / "vault", vault)
        sidecar = Sidecar(vault)
        try:
            # The audit, the stale list and the candidates of one day, so the views agree with each other.
            save("audit", "GET /v1/trust/audit", *sidecar.call("GET", "/v1/trust/audit"))
            save("stale", "GET /v1/trust/stale", *sidecar.call("GET", "/v1/trust/stale"))
            save("candidates", "GET /v1/trust/candidates", *sidecar.call("GET", "/v1/trust/candidates"))
        finally:
            sidecar.stop()
        record_onboarding(tmp, save, save_error)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _add_to_index(recorded)
    return 0


PARTIAL_NOTE = "Keywords/Canaryリリース.md"  # warn on its page: one claim of four is not there


def record_partial_support() -> int:
    """`--partial-support`: only the badge and stale list of a reviewed note after a plan that counted its
    claims (plan and approve through the sidecar on a copy of examples/vault), without re-recording the others."""
    if not port_open(EVIDENCE_PORT):
        raise SystemExit(f"serve examples/evidence-site on 127.0.0.1:{EVIDENCE_PORT} first")
    tmp = Path(tempfile.mkdtemp(prefix="kh-fixtures-"))
    recorded: dict[str, str] = {}
    try:
        vault = tmp / "vault"
        shutil.copytree(ROOT / "examples" / "vault", vault)
        machine = tmp / "machine-config.toml"  # this machine lets the sidecar read the local evidence site
        machine.write_text(f'[evidence]\nallow_private_hosts = ["127.0.0.1:{EVIDENCE_PORT}"]\n', encoding="utf-8")
        os.environ["KH_CONFIG"] = str(machine)
        sidecar = Sidecar(vault)
        try:
            code, plan = sidecar.call("POST", "/v1/batches", {"notes": [PARTIAL_NOTE]})
            if code != 200:
                raise SystemExit(f"POST /v1/batches answered {code}: {plan}")
            challenge = {"challenge": f"APPROVE_PRODUCTION {plan['digest']}"}
            code, run = sidecar.call("POST", f"/v1/batches/{quote(plan['plan_id'])}/approve", challenge)
            if code != 200 or run.get("result") != "APPLIED":
                raise SystemExit(f"the approval answered {code}: {run}")
            for name, route, path in (
                ("badge-partial", "GET /v1/trust/notes/{path} (a reviewed note, claims counted)", "/v1/trust/notes/"),
                ("stale-partial", "GET /v1/trust/stale (that note, edited after the run)", "/v1/trust/stale"),
            ):
                if name == "stale-partial":  # the person edits it: content_changed puts it in the stale list
                    with (vault / PARTIAL_NOTE).open("a", encoding="utf-8") as note:
                        note.write("\n追記。\n")
                code, body = sidecar.call("GET", path + (quote(PARTIAL_NOTE) if path.endswith("/") else ""))
                if code != 200:
                    raise SystemExit(f"{route} answered {code}: {body}")
                (OUT / f"{name}.json").write_text(
                    json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
                )
                recorded[name] = route
                print(f"  + {name}: {route}")
        finally:
            sidecar.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _add_to_index(recorded)
    return 0


def _add_to_index(recorded: dict[str, str]) -> None:
    """Name the newly recorded fixtures in index.json, keeping the ones already there."""
    index_file = OUT / "index.json"
    index = json.loads(index_file.read_text(encoding="utf-8"))
    index["recorded"].update(recorded)
    index_file.write_text(json.dumps(index, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main() -> int:
    if not KH.exists():
        print(f"sidecar binary not found: {KH}", file=sys.stderr)
        return 2
    if "--first-look" in sys.argv[1:]:
        return record_first_look()
    if "--partial-support" in sys.argv[1:]:
        return record_partial_support()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    recorded: dict[str, str] = {}
    missing: dict[str, str] = {}

    def save_error(name: str, route: str, status: int, body: Any) -> None:
        """An error answer the plugin must show (kept with its status)."""
        (OUT / f"{name}.json").write_text(
            json.dumps({"status": status, "body": body}, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        recorded[name] = f"{route} → {status}"
        print(f"  + {name}: {route} → {status}")

    def save(name: str, route: str, status: int, body: Any) -> Any:
        if status >= 400:
            message = body.get("error", {}).get("message", "") if isinstance(body, dict) else str(body)
            missing[name] = f"{route} → {status} {message}"
            print(f"  - {name}: {route} answered {status}: {message}")
            return None
        (OUT / f"{name}.json").write_text(
            json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        recorded[name] = route
        print(f"  + {name}: {route}")
        return body

    evidence = None
    if not port_open(EVIDENCE_PORT):
        evidence = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "http.server",
                str(EVIDENCE_PORT),
                "--bind",
                "127.0.0.1",
                "--directory",
                str(ROOT / "examples" / "evidence-site"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(50):
            if port_open(EVIDENCE_PORT):
                break
            time.sleep(0.1)

    tmp = Path(tempfile.mkdtemp(prefix="kh-fixtures-"))
    vault = tmp / "vault"
    shutil.copytree(ROOT / "examples" / "vault", vault)
    blog = make_blog(tmp)
    (vault / ".harness" / "pipeline.toml").write_text('[blog]\nname = "fixtures"\n', encoding="utf-8")
    machine = tmp / "machine-config.toml"  # the blog is registered here; the vault only names it
    machine.write_text(f'[blogs.fixtures]\nrepo = "{blog.resolve().as_posix()}"\n', encoding="utf-8")
    os.environ["KH_CONFIG"] = str(machine)
    sidecar = Sidecar(vault)
    try:
        s = sidecar
        save("health", "GET /health", *s.call("GET", "/health"))
        openapi_status, openapi = s.call("GET", "/openapi.json")
        served = set(openapi.get("paths", {})) if openapi_status == 200 else set()
        save("audit", "GET /v1/trust/audit", *s.call("GET", "/v1/trust/audit"))
        save("stale", "GET /v1/trust/stale", *s.call("GET", "/v1/trust/stale"))
        save("candidates", "GET /v1/trust/candidates", *s.call("GET", "/v1/trust/candidates"))
        status, notes = s.call("GET", "/v1/notes")
        badges: dict[str, Any] = {}
        if status == 200:
            for note in notes["notes"]:
                code, badge = s.call("GET", f"/v1/trust/notes/{quote(note['path'])}")
                if code == 200:
                    badges[note["path"]] = badge
        save("badges", "GET /v1/trust/notes/{path} (every note)", 200 if badges else 404, badges)
        verified = next((p for p, b in badges.items() if b["status"] == "verified" and b["fresh_l2"]), None)
        if verified:
            save("note-verified", "GET /v1/notes/{path}", *s.call("GET", f"/v1/notes/{quote(verified)}"))
        disputed = next((p for p, b in badges.items() if b["status"] == "disputed"), None)
        if disputed:
            save("note-disputed", "GET /v1/notes/{path}", *s.call("GET", f"/v1/notes/{quote(disputed)}"))
        unverified = next(
            (
                p
                for p, b in badges.items()
                if b["status"] == "unverified" and b["evidence_capable"] and not b.get("error")
            ),
            None,
        )
        if unverified:
            save(
                "validate-unverified",
                "POST /v1/trust/notes/{path}/validate?dry_run=true",
                *s.call("POST", f"/v1/trust/notes/{quote(unverified)}/validate", query={"dry_run": "true"}),
            )
        if disputed:
            save(
                "validate-disputed",
                "POST /v1/trust/notes/{path}/validate?dry_run=true",
                *s.call("POST", f"/v1/trust/notes/{quote(disputed)}/validate", query={"dry_run": "true"}),
            )

        # reasoning index
        save("index-build", "POST /v1/index/build", *s.call("POST", "/v1/index/build"))
        save("index-check", "GET /v1/index/check", *s.call("GET", "/v1/index/check"))
        save(
            "index-search",
            "GET /v1/index/search?q=鮮度",
            *s.call("GET", "/v1/index/search", query={"q": "鮮度", "limit": 10}),
        )
        save(
            "index-headings",
            "GET /v1/index/notes/{path}/headings",
            *s.call("GET", f"/v1/index/notes/{quote('Keywords/鮮度管理.md')}/headings"),
        )

        # the approval gate: two plans (the second for the "another plan's digest" test), then approve the first
        plan = save("batch-plan", "POST /v1/batches (canary)", *s.call("POST", "/v1/batches", {"stage": "canary"}))
        save("batch-plan-other", "POST /v1/batches (pilot)", *s.call("POST", "/v1/batches", {"stage": "pilot"}))
        if plan:
            save("batch-get", "GET /v1/batches/{id}", *s.call("GET", f"/v1/batches/{quote(plan['plan_id'])}"))
            save(
                "batch-approve",
                "POST /v1/batches/{id}/approve",
                *s.call(
                    "POST",
                    f"/v1/batches/{quote(plan['plan_id'])}/approve",
                    {"challenge": f"APPROVE_PRODUCTION {plan['digest']}"},
                ),
            )
            save(
                "badges-after-approve",
                "GET /v1/trust/notes/{path} (targets)",
                200,
                {t["path"]: s.call("GET", f"/v1/trust/notes/{quote(t['path'])}")[1] for t in plan["targets"]},
            )

        # the pipeline: capture → authorize → advance → status
        run = save(
            "pipeline-capture", "POST /v1/pipeline/runs", *s.call("POST", "/v1/pipeline/runs", {"note": REQUEST_NOTE})
        )
        if run:
            rid = quote(run["run_id"])
            save("pipeline-status-captured", "GET /v1/pipeline/runs/{id}", *s.call("GET", f"/v1/pipeline/runs/{rid}"))
            save(
                "pipeline-authorization",
                "GET /v1/pipeline/runs/{id}/authorization",
                *s.call("GET", f"/v1/pipeline/runs/{rid}/authorization"),
            )
            save(
                "pipeline-authorize",
                "POST /v1/pipeline/runs/{id}/authorize",
                *s.call("POST", f"/v1/pipeline/runs/{rid}/authorize", {"via": "plugin"}),
            )
            save(
                "pipeline-advance",
                "POST /v1/pipeline/runs/{id}/advance",
                *s.call("POST", f"/v1/pipeline/runs/{rid}/advance"),
            )
            save("pipeline-status", "GET /v1/pipeline/runs/{id}", *s.call("GET", f"/v1/pipeline/runs/{rid}"))
            save("pipeline-list", "GET /v1/pipeline/runs", *s.call("GET", "/v1/pipeline/runs"))
            save("pipeline-task-next", "GET /v1/pipeline/tasks/next", *s.call("GET", "/v1/pipeline/tasks/next"))
            save(
                "pipeline-detail",
                "GET /v1/pipeline/runs/{id}/detail",
                *s.call("GET", f"/v1/pipeline/runs/{rid}/detail"),
            )

            # the external agent: O-05 … O-10, until the run waits for the person's decision
            for _ in range(12):
                code, nxt = s.call("GET", "/v1/pipeline/tasks/next")
                task = nxt.get("task") if code == 200 else None
                if task is None:
                    break
                code, answer = s.call(
                    "POST", f"/v1/pipeline/tasks/{quote(task['task_id'])}/submit", {"output": agent_output(task)}
                )
                if code != 200:
                    raise SystemExit(f"the sidecar refused the fixture output for {task['operation']}: {answer}")
                if task["operation"] == "O-10":
                    save("pipeline-submit", "POST /v1/pipeline/tasks/{id}/submit (O-10)", code, answer)
            save(
                "pipeline-detail-review",
                "GET /v1/pipeline/runs/{id}/detail (REVIEW_READY)",
                *s.call("GET", f"/v1/pipeline/runs/{rid}/detail"),
            )
            save(
                "pipeline-decision-choices",
                "GET /v1/pipeline/decision-choices",
                *s.call("GET", "/v1/pipeline/decision-choices"),
            )
            review = save(
                "pipeline-review",
                "GET /v1/pipeline/runs/{id}/review",
                *s.call("GET", f"/v1/pipeline/runs/{rid}/review"),
            )
            if review:
                sha, commit = review["review_packet_sha256"], review["review_packet"]["commit"]
                code, body = s.call(
                    "POST",
                    f"/v1/pipeline/runs/{rid}/decision",
                    {"choice": "approve", "commit": commit, "review_packet_sha256": sha, "via": "plugin"},
                )
                save_error(
                    "pipeline-decision-refused",
                    "POST /v1/pipeline/runs/{id}/decision (approve, not merged)",
                    code,
                    body,
                )
                save(
                    "pipeline-decision",
                    "POST /v1/pipeline/runs/{id}/decision (revise)",
                    *s.call(
                        "POST",
                        f"/v1/pipeline/runs/{rid}/decision",
                        {
                            "choice": "revise",
                            "instructions": "B2 の結論の前に、限界をもう一文だけ具体的に書いてください。",
                            "blocks": ["B2"],
                            "review_packet_sha256": sha,
                            "via": "plugin",
                        },
                    ),
                )

        record_onboarding(tmp, save, save_error)

        (OUT / "index.json").write_text(
            json.dumps(
                {
                    "comment": "Written by scripts/capture-fixtures.py from the real sidecar on a copy of examples/vault. Do not edit.",
                    "recorded": recorded,
                    "missing": missing,
                    "served_paths": sorted(served),
                },
                ensure_ascii=False,
                indent=2,
                sort_keys=True,
            )
            + "\n",
            encoding="utf-8",
        )
        record_partial_support()  # its own copy of the vault and sidecar; adds to index.json
    finally:
        sidecar.stop()
        if evidence:
            evidence.terminate()
            evidence.wait(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"recorded {len(recorded)} responses into {OUT.relative_to(ROOT)}; {len(missing)} not served")
    return 0


if __name__ == "__main__":
    sys.exit(main())
