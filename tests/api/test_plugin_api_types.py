"""The plugin's API types are generated from the sidecar's OpenAPI document (`make api-types`
saves it as obsidian-plugin/src/api/openapi.json and generates schema.d.ts from it). This test
fails when the live app's document has drifted from that saved copy: re-run `make api-types`.
(The plugin's own vitest checks that schema.d.ts matches the saved document.)"""

from __future__ import annotations

import json
from pathlib import Path

from knowledge_harness.api.app import create_app
from knowledge_harness.settings import Settings

SAVED = Path(__file__).resolve().parents[2] / "obsidian-plugin" / "src" / "api" / "openapi.json"


def test_saved_openapi_document_matches_the_app(tmp_path: Path) -> None:
    app = create_app(Settings(vault=tmp_path, token="t" * 32))
    live = json.loads(json.dumps(app.openapi()))
    saved = json.loads(SAVED.read_text(encoding="utf-8"))
    if live != saved:
        live_paths = set(live.get("paths", {}))
        saved_paths = set(saved.get("paths", {}))
        raise AssertionError(
            "obsidian-plugin/src/api/openapi.json is out of date: run `make api-types`. "
            f"Paths only in the app: {sorted(live_paths - saved_paths)}; "
            f"only in the saved copy: {sorted(saved_paths - live_paths)}."
        )
