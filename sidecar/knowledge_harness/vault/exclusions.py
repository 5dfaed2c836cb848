"""Which notes are no notes to index or audit: the vault's template folders and `.harness/index.toml`'s
`exclude` list. The one rule for both the index and the audit: a template's `{{date}}` placeholders
are no note's malformed YAML."""

from __future__ import annotations

from typing import Any

from ..core.tomlfile import read_toml
from ..errors import InputError
from .paths import Vault


def read_harness_toml(vault: Vault, name: str) -> dict[str, Any]:
    """A TOML settings file in `.harness/` (e.g. index.toml); {} when missing or invalid."""
    try:
        return read_toml(vault.harness_dir / name, what=name) or {}
    except InputError:
        return {}


# Obsidian's core Templates plugin and the Templater plugin keep their template folder here
_TEMPLATE_SETTINGS = (
    (".obsidian/templates.json", "folder"),
    (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
)
_MAX_SETTINGS_BYTES = 1 << 20


def template_folders(vault: Vault) -> list[str]:
    """The vault's template folders, as Obsidian's Templates and Templater settings name them
    (vault-relative, without slashes at the ends); [] when neither is set or readable."""
    import json

    out: set[str] = set()
    for rel, key in _TEMPLATE_SETTINGS:
        path = vault.root / rel
        try:
            if path.stat().st_size > _MAX_SETTINGS_BYTES:
                continue
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        folder = data.get(key) if isinstance(data, dict) else None
        if isinstance(folder, str) and folder.strip("/ "):
            out.add(folder.strip("/ "))
    return sorted(out)


def excluded_notes(vault: Vault, index_toml: dict[str, Any] | None = None) -> list[str]:
    """The folders and notes that are no notes to index or audit: the template folders
    (`template_folders`) and `.harness/index.toml`'s `exclude` list (vault-relative, sorted);
    `index_toml`: that file as the caller already read it (read here when None)."""
    conf = read_harness_toml(vault, "index.toml") if index_toml is None else index_toml
    section = conf.get("index", conf)
    listed = section.get("exclude", []) if isinstance(section, dict) else []
    exclude = {str(e).strip("/") for e in listed if str(e).strip("/")} if isinstance(listed, list) else set()
    exclude.update(template_folders(vault))
    return sorted(exclude)


def is_excluded_note(path: str, exclude: list[str] | tuple[str, ...]) -> bool:
    """Whether a note lies in (or is) one of `excluded_notes`' folders or notes."""
    return any(path == e or path.startswith(e + "/") for e in exclude)
