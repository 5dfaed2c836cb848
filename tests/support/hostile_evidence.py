"""Notes citing hostile evidence on a local EvidenceSite: more text than one validation may judge, and a
page whose text is too slow to extract (tests/api/test_hostile_evidence.py, tests/cli/test_validate.py)."""

from __future__ import annotations

from pathlib import Path

from .evidence_site import BAD_HEADS, BAD_LOCATIONS, EvidenceSite

GOOD = "Keywords/Fuji.md"  # one cited page, judged as usual
BIG = "Keywords/Big.md"  # six cited pages, more text together than one validation may judge
SLOW = "Keywords/Slow.md"  # a page whose text is too slow to extract, and a good one
MALFORMED = "Keywords/Malformed.md"  # pages answering malformed redirects and heads (red-team item 3)


def note_citing(title: str, text: str, urls: list[str]) -> str:
    refs = "".join(f"  - {u}\n" for u in urls)
    return f"---\nprovenance: {{origin: ai_generated}}\nreferences:\n{refs}---\n# {title}\n\n{text}\n"


def write_hostile_vault(root: Path, site: EvidenceSite) -> Path:
    """The three notes under Keywords/, and next to the vault the machine configuration that allows the site."""
    (root / ".harness").mkdir(parents=True)
    (root / ".harness/policy.toml").write_text("[evidence]\ntimeout_seconds = 2\n", encoding="utf-8")
    (root.parent / "machine-config.toml").write_text(  # only the machine configuration allows a private host
        f'[evidence]\nallow_private_hosts = ["{site.allow_entry}"]\n', encoding="utf-8"
    )
    (root / "Keywords").mkdir()
    fuji = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan."
    (root / GOOD).write_text(note_citing("Fuji", fuji, [f"{site.url}/en/fuji"]), encoding="utf-8")
    big = [f"{site.url}/big/{n}" for n in range(6)]
    (root / BIG).write_text(note_citing("Big", "Mountains and lakes fill space.", big), encoding="utf-8")
    slow = [f"{site.url}/links", f"{site.url}/en/fuji"]
    (root / SLOW).write_text(note_citing("Slow", fuji, slow), encoding="utf-8")
    bad = [f"{site.url}/bad-location/{k}" for k in range(len(BAD_LOCATIONS))]
    bad += [f"{site.url}/bad-header/{k}" for k in range(len(BAD_HEADS))]
    (root / MALFORMED).write_text(note_citing("Malformed", fuji, bad), encoding="utf-8")
    return root


def machine_config_env(vault: Path) -> dict[str, str]:
    """The environment that points `kh` at the machine configuration of write_hostile_vault."""
    return {"KH_CONFIG": str(vault.parent / "machine-config.toml")}
