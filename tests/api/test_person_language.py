"""The REST edge speaks to a person in the language the request names (api/messages.py): a real
`kh serve`, the plugin's Accept-Language, the version handshake of GET /health."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from knowledge_harness import API_LEVEL, MIN_PLUGIN_API_LEVEL, errors
from knowledge_harness.api.messages import localized_message, preferred_language
from tests.conftest import Sidecar, start_sidecar, stop_sidecar


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    vault = tmp_path_factory.mktemp("vault")
    (vault / "a.md").write_text("---\ntitle: A\n---\nbody\n", encoding="utf-8")
    running = start_sidecar(vault)
    try:
        yield running
    finally:
        stop_sidecar(running)


def test_health_exchanges_versions_and_api_levels(server: Sidecar) -> None:
    plain = httpx.get(f"{server.url}/health").json()
    assert plain["api_level"] == API_LEVEL and plain["min_plugin_api_level"] == MIN_PLUGIN_API_LEVEL
    assert plain["plugin_compatible"] is None
    fits = httpx.get(f"{server.url}/health", params={"plugin_api": MIN_PLUGIN_API_LEVEL, "plugin_version": "0.1.0"})
    assert fits.json()["plugin_compatible"] is True
    old = httpx.get(f"{server.url}/health", params={"plugin_api": MIN_PLUGIN_API_LEVEL - 1, "plugin_version": "0.0.1"})
    assert old.status_code == 200 and old.json()["plugin_compatible"] is False


def test_an_error_is_in_japanese_english_or_the_services_words_by_accept_language(server: Sidecar) -> None:
    with server.client() as client:
        plain = client.get("/v1/notes/missing.md").json()["error"]
        ja = client.get("/v1/notes/missing.md", headers={"Accept-Language": "ja"}).json()["error"]
        en = client.get("/v1/notes/missing.md", headers={"Accept-Language": "en-US,en;q=0.9"}).json()["error"]
        index = client.get("/v1/index/tree", headers={"Accept-Language": "ja"}).json()["error"]
        index_en = client.get("/v1/index/tree", headers={"Accept-Language": "en"}).json()["error"]
    assert plain["code"] == ja["code"] == en["code"] == "not_found"
    assert "lang" not in plain  # no language named: the envelope is what it always was
    assert ja["lang"] == "ja" and ja["message_en"] == plain["message"]
    assert all(ord(ch) < 0x2000 for ch in plain["message"]) and any(ord(ch) > 0x3000 for ch in ja["message"])
    assert en["lang"] == "en" and en["message"] == plain["message"]  # already the person's words
    # the next step in the plugin's terms (its command), not `kh index build`
    assert (
        index["code"] == "index_missing"
        and "推論インデックスを再構築" in index["message"]
        and "kh " not in index["message"]
    )
    assert "Rebuild reasoning index" in index_en["message"] and "kh index build" in index_en["message_en"]


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, None),
        ("", None),
        ("fr-FR,fr;q=0.9", None),
        ("ja", "ja"),
        ("ja-JP", "ja"),
        ("en-GB,ja;q=0.5", "en"),
        ("fr,ja;q=0.4,en;q=0.8", "en"),
        ("en;q=0,ja", "ja"),
        ("ja;q=bad,en", "en"),
    ],
)
def test_accept_language_picks_the_first_of_japanese_and_english(header: str | None, lang: str | None) -> None:
    assert preferred_language(header) == lang


def test_every_error_code_has_its_own_japanese_text() -> None:
    """A new code in the error tree (errors.py) gets its words in api/messages.py, not the generic line."""

    def tree(cls: type[errors.HarnessError]) -> list[type[errors.HarnessError]]:
        return [cls, *(s for sub in cls.__subclasses__() for s in tree(sub))]

    generic = localized_message(errors.HarnessError("x"), "ja")
    for code in sorted({cls.code for cls in tree(errors.HarnessError)} - {"error"}):
        error = errors.HarnessError("x")
        error.code = code
        assert localized_message(error, "ja") != generic, code
