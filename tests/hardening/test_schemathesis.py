"""schemathesis against the LIVE OpenAPI document of a real `kh serve` (with the token).

One sidecar subprocess serves a private copy of examples/vault for the whole module. Every
operation of its `/openapi.json` is exercised with generated requests (valid and invalid):
no answer may be a 5xx, every answer must match its response schema (errors included: the
document's `default` response is the error envelope, api/openapi.py), and afterwards no file
outside `.harness/` has changed.

Excluded by design (documented here, nowhere else):
- `POST /v1/shutdown` stops the server under test.
Nothing else is excluded: `POST /v1/batches/{id}/approve` is exercised with generated plan ids
and challenges (it must refuse them: the typed challenge is `APPROVE_PRODUCTION <digest>` of a
real plan), and `test_approval_without_the_right_challenge_is_refused` below builds a real plan
and tries wrong challenges.

`make test` runs a small example count (bounded to well under a minute and a half);
`make fuzz` (HYPOTHESIS_PROFILE=fuzz) runs a large one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error, response_schema_conformance

from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.scope import Snapshot, changed_between, snapshot

from ..conftest import Sidecar, copy_example_vault, start_sidecar, stop_sidecar

FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" or os.environ.get("KH_FUZZ") == "1"
EXAMPLES = 400 if FUZZ else 6
TOKEN = "schemathesis-token-0123456789abcdef"
EXCLUDED = {("POST", "/v1/shutdown")}


class _Live:
    def __init__(self, sidecar: Sidecar, before: Snapshot) -> None:
        self.sidecar = sidecar
        self.before = before
        self.headers = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Live]:

    vault = tmp_path_factory.mktemp("schemathesis") / "vault"
    copy_example_vault(vault)
    before = snapshot(Vault.open(vault))
    sidecar = start_sidecar(vault, TOKEN)
    try:
        yield _Live(sidecar, before)
    finally:
        stop_sidecar(sidecar)


def error_envelope(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx answer is the documented error envelope (docs/http-api.md, errors)."""
    if response.status_code < 400:
        return None
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, f"{case.operation.label}: {response.text[:300]}"
    err = body["error"]
    assert isinstance(err, dict) and isinstance(err.get("code"), str) and isinstance(err.get("message"), str), (
        f"{case.operation.label}: {response.text[:300]}"
    )
    return True


REAL_NOTES = ["ホーム.md", "Keywords/PageIndex.md"]


def _operations(live: _Live) -> list[Any]:
    api = schemathesis.openapi.from_url(f"{live.sidecar.url}/openapi.json", headers=live.headers)
    ops = []
    for result in api.get_all_operations():
        op = result.ok()
        if (op.method.upper(), op.path) not in EXCLUDED:
            ops.append(op)
    assert len(ops) >= 20, "the live OpenAPI document lost its operations"
    return ops


def _exercise(live: _Live, op: Any, strategy: Any, failures: list[str]) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not FUZZ,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        case.call_and_validate(
            headers=live.headers,
            timeout=60,
            checks=[not_a_server_error, response_schema_conformance, error_envelope],
        )

    try:
        run()
    except Unsatisfiable:
        pass  # nothing in this operation can be made invalid (negative mode): nothing to send
    except (Exception, BaseExceptionGroup) as exc:  # collect every operation's failure, then report them together
        failures.append(f"{op.method.upper()} {op.path}: {type(exc).__name__}: {str(exc)[:1500]}")


@pytest.mark.fuzz
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_live_api_never_fails_and_keeps_its_schema(live: _Live, mode: GenerationMode) -> None:
    failures: list[str] = []
    for op in _operations(live):
        _exercise(live, op, op.as_strategy(generation_mode=mode), failures)
        if mode is GenerationMode.POSITIVE and "{path}" in op.path:
            for note in REAL_NOTES:  # random paths mostly miss: also hit real notes
                _exercise(live, op, op.as_strategy(generation_mode=mode, path_parameters={"path": note}), failures)
    assert live.sidecar.process.poll() is None, "the sidecar died during the run"
    assert not failures, "\n\n".join(failures)


def test_approval_without_the_right_challenge_is_refused(live: _Live) -> None:
    with live.sidecar.client() as client:
        client.headers["Authorization"] = f"Bearer {TOKEN}"
        plan = client.post("/v1/batches", json={"stage": "canary"})
        assert plan.status_code == 200, plan.text
        body = plan.json()
        plan_id, digest = body["plan_id"], body["digest"]
        wrong = [
            "",
            "APPROVE_PRODUCTION",
            f"approve_production {digest}",
            f"APPROVE_PRODUCTION {digest[:-1]}0" if not digest.endswith("0") else f"APPROVE_PRODUCTION {digest[:-1]}1",
            f"APPROVE_PRODUCTION  {digest}",
            f"APPROVE_STAGING {digest}",
            f"APPROVE_PRODUCTION {digest}\u200b",
        ]
        for challenge in wrong:
            answer = client.post(f"/v1/batches/{plan_id}/approve", json={"challenge": challenge})
            assert answer.status_code in (400, 409, 422), (challenge, answer.status_code, answer.text)
            assert "error" in answer.json()
        assert client.get(f"/v1/batches/{plan_id}").status_code == 200
    assert changed_between(live.before, snapshot(Vault.open(live.sidecar.vault))) == set()


def test_no_file_outside_harness_changed(live: _Live) -> None:
    """Runs after the generated requests (file order): the vault's notes are byte-identical."""
    assert live.sidecar.process.poll() is None, "the sidecar died during the run"
    after = snapshot(Vault.open(live.sidecar.vault))
    assert changed_between(live.before, after) == set()


def test_regression_inputs_found_by_fuzzing(live: _Live) -> None:
    """Requests that once needed a look (kept so they stay answered without a 5xx)."""
    with live.sidecar.client() as client:
        client.headers["Authorization"] = f"Bearer {TOKEN}"
        probes = [
            ("GET", "/v1/notes/%00", None),
            ("GET", "/v1/notes/..%2F..%2Fetc%2Fpasswd", None),
            ("GET", "/v1/trust/notes/Keywords", None),
            ("GET", "/v1/trust/notes/%C0%AF.md", None),
            ("GET", "/v1/index/notes/x.md/section?line=5&end_line=1", None),
            ("GET", "/v1/notes?cursor=%FF%FF", None),
            ("GET", "/v1/trust/audit?today=0001-01-01", None),
            ("GET", "/v1/trust/audit?today=9999-12-31", None),
            ("GET", "/v1/trust/notes/%E3%83%9B%E3%83%BC%E3%83%A0.md?today=9999-12-31", None),
            ("GET", "/v1/trust/stale?today=0001-01-01", None),
            ("POST", "/v1/validate", {"claims": [], "evidence": []}),
            ("GET", "/v1/pipeline/runs/..%2F..", None),
            ("GET", "/v1/runs/..%2Fplans", None),
        ]
        for method, url, body in probes:
            answer = client.request(method, url, json=body)
            assert answer.status_code < 500, (method, url, answer.status_code, answer.text[:300])
