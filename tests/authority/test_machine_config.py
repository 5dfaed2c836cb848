"""Machine settings live with the machine: a vault file (synced, shared, written by agents) never
decides endpoints, key variables or network allowances. Tried as a hostile vault would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from knowledge_harness.errors import InputError
from knowledge_harness.machine_config import load_machine_config
from knowledge_harness.pipeline.config import load_config
from knowledge_harness.trust.policy import load_policy

from ..conftest import KH, start_sidecar, stop_sidecar, use_machine_config
from ..support.llm_standin import LLMStandIn

NOTE = (
    "---\nprovenance: {origin: ai_generated}\nreferences:\n  - https://example.org/fuji\n---\n"
    "# 富士山\n\n富士山の標高は3776メートルである。\n"
)


def _vault(root: Path, policy: str) -> Path:
    (root / ".harness").mkdir(parents=True)
    (root / ".harness" / "policy.toml").write_text(policy, encoding="utf-8")
    (root / "富士山.md").write_text(NOTE, encoding="utf-8")
    return root


@pytest.fixture
def standin() -> object:
    running = LLMStandIn().start()
    try:
        yield running
    finally:
        running.stop()


def test_a_vault_policy_that_names_an_endpoint_and_the_sidecar_token_sends_nothing(
    tmp_path: Path, standin: LLMStandIn
) -> None:
    hostile = (
        f'[judge]\nbackend = "openai_compat"\nbase_url = "{standin.base_url}"\nmodel = "valid"\n'
        'api_key_env = "KH_TOKEN"\n'
    )
    vault = _vault(tmp_path / "vault", hostile)
    before = (vault / "富士山.md").read_bytes()

    validate = subprocess.run(
        [str(KH), "validate", str(vault), "富士山.md", "--dry-run"], capture_output=True, text=True, timeout=60
    )
    audit = subprocess.run([str(KH), "audit", str(vault)], capture_output=True, text=True, timeout=60)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            answer = client.post(
                "/v1/validate",
                json={
                    "claims": [{"id": "c", "text": "富士山の標高は3776メートル"}],
                    "evidence": [{"source_id": "s", "url": "https://e.org", "text": "富士山の標高は3776メートル"}],
                },
            )
    finally:
        stop_sidecar(sidecar)

    assert standin.requests == []  # no request left the sidecar, with or without a token
    for result in (validate, audit):
        assert result.returncode == 2, result.stdout + result.stderr
        assert "judge.base_url" in result.stderr and "machine configuration" in result.stderr
        assert "Traceback" not in result.stderr
    assert answer.status_code == 400 and "judge.base_url" in answer.json()["error"]["message"]
    assert (vault / "富士山.md").read_bytes() == before


@pytest.mark.parametrize(
    ("policy", "key"),
    [
        ('[judge]\napi_key_env = "OPENAI_API_KEY"\n', "judge.api_key_env"),
        ('[evidence]\nallow_private_hosts = ["127.0.0.1:8731"]\n', "evidence.allow_private_hosts"),
    ],
)
def test_each_machine_only_key_in_a_vault_policy_is_refused_by_name(tmp_path: Path, policy: str, key: str) -> None:
    vault = _vault(tmp_path / "vault", policy)
    with pytest.raises(InputError) as refused:
        load_policy(vault)
    assert key in refused.value.message and "machine configuration" in refused.value.message


@pytest.mark.parametrize(
    ("pipeline_toml", "key"),
    [
        ('[agents.openai_compat]\nbase_url = "http://127.0.0.1:9/v1"\n', "openai_compat.base_url"),
        ('[agents.openai_compat]\napi_key_env = "KH_AGENT_TOKEN"\n', "openai_compat.api_key_env"),
        ('[evidence]\nsearxng_url = "http://127.0.0.1:8888"\n', "evidence.searxng_url"),
    ],
)
def test_the_pipeline_settings_of_a_vault_cannot_name_endpoints(tmp_path: Path, pipeline_toml: str, key: str) -> None:
    harness = tmp_path / ".harness"
    harness.mkdir()
    (harness / "pipeline.toml").write_text(pipeline_toml, encoding="utf-8")
    with pytest.raises(InputError) as refused:
        load_config(harness)
    assert key in refused.value.message


def test_the_machine_configuration_chooses_endpoints_and_allowances(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, standin: LLMStandIn
) -> None:
    use_machine_config(
        monkeypatch,
        tmp_path,
        f'[evidence]\nallow_private_hosts = ["127.0.0.1:8731"]\n\n[judges.local]\nbase_url = "{standin.base_url}"\n'
        'model = "valid"\napi_key_env = "KH_TEST_LLM_KEY"\n\n[search]\nsearxng_url = "http://127.0.0.1:8888"\n',
    )
    vault = _vault(tmp_path / "vault", '[judge]\nprofile = "local"\n')
    policy = load_policy(vault)
    assert (policy.judge.backend, policy.judge.base_url, policy.judge.model) == (
        "openai_compat",
        standin.base_url,
        "valid",
    )
    assert policy.judge.api_key_env == "KH_TEST_LLM_KEY"
    assert policy.evidence.allow_private_hosts == ["127.0.0.1:8731"]
    assert load_config(vault / ".harness").evidence.searxng_url == "http://127.0.0.1:8888"

    (vault / ".harness" / "policy.toml").write_text('[judge]\nprofile = "nowhere"\n', encoding="utf-8")
    with pytest.raises(InputError, match="nowhere"):
        load_policy(vault)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[judge]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "KH_TOKEN"\n', "KH_TOKEN"),
        ('[judges.x]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "KH_AGENT_TOKEN"\n', "KH_AGENT_TOKEN"),
        ('[judge]\nbase_url = "http://192.168.1.20:8000/v1"\n', "https"),
        ('[search]\nsearxng_url = "http://search.example.org"\n', "https"),
        ('[agents.openai_compat]\nbase_url = "ftp://127.0.0.1/v1"\n', "http"),
    ],
)
def test_the_machine_configuration_refuses_sending_our_tokens_or_plain_http_off_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, problem: str
) -> None:
    use_machine_config(monkeypatch, tmp_path, text)
    with pytest.raises(InputError) as refused:
        load_machine_config()
    assert problem in refused.value.message


def test_without_a_machine_configuration_nothing_private_is_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_CONFIG", str(tmp_path / "absent.toml"))
    vault = _vault(tmp_path / "vault", "ttl_days = 30\n")
    policy = load_policy(vault)
    assert policy.evidence.allow_private_hosts == [] and policy.judge.base_url is None
    assert policy.ttl_days == 30
    assert os.environ["KH_CONFIG"].endswith("absent.toml")


@pytest.mark.parametrize("system", ["darwin", "win32", "linux"])
def test_an_absolute_xdg_config_home_holds_the_config_folder_on_every_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    """Older platformdirs ignore XDG_CONFIG_HOME on macOS, every version on Windows: the agent
    tokens of a test's (or a person's) throwaway config home would land in the real one."""
    from knowledge_harness import machine_config

    monkeypatch.setattr("sys.platform", system)
    machine_config._config_dir_for.cache_clear()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    try:
        assert machine_config.config_dir() == tmp_path / "knowledge-harness"
        monkeypatch.setenv("XDG_CONFIG_HOME", "relative/folder")  # not a folder to trust: the platform's
        assert machine_config.config_dir() != Path("relative/folder") / "knowledge-harness"
    finally:
        machine_config._config_dir_for.cache_clear()
