"""Red-team item 6, the small breaks: each as it was found, now refused or survived.

(`audit?record=true` on a read-only vault: test_read_only_vault.py; `Host: [::1]junk`:
test_connection_limits.py; `kh init --write` without a terminal: tests/cli/test_init.py.)"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from knowledge_harness.errors import InputError
from knowledge_harness.index.search import SearchLayer, layer_path
from knowledge_harness.pipeline.blog_repo import BlogRepo
from knowledge_harness.settings import require_loopback
from knowledge_harness.vault.paths import Vault

from ..support.part2_support import git, make_blog


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_search_cache_is_private_even_in_an_open_folder(tmp_path: Path) -> None:
    """Its files were world-readable and relied on kh creating the folder 0700: an existing 0755
    folder, or KH_SEARCH_CACHE pointed at a shared one, exposed the notes' text."""
    vault = tmp_path / "vault"
    vault.mkdir()
    shared = tmp_path / "shared"
    (shared / "search").mkdir(parents=True)
    shared.chmod(0o777)
    (shared / "search").chmod(0o755)
    location = layer_path(Vault.open(vault), str(shared))
    location.write_bytes(b"")
    location.chmod(0o644)  # left by an older kh
    layer = SearchLayer(location)
    layer.db.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    layer.db.execute("INSERT INTO probe VALUES ('富士山')")
    layer.db.commit()
    assert _mode(shared / "search") == 0o700
    files = sorted(location.parent.iterdir())
    assert {p.name for p in files} >= {location.name, f"{location.name}-wal"}
    assert all(_mode(p) == 0o600 for p in files), {p.name: oct(_mode(p)) for p in files}
    layer.db.close()


def test_a_blog_post_named_with_a_backslash_does_not_stop_reading_the_others(tmp_path: Path) -> None:
    """A post named `…a\\b.rst` on the blog's main branch stopped every run with path_rejected."""
    blog = make_blog(tmp_path)
    (blog / "docs" / "blog" / "posts" / "2026-04-01-a\\b.rst").write_text("Odd\n===\n", encoding="utf-8")
    git(blog, "add", "-A")
    git(blog, "commit", "-q", "-m", "a post with a backslash in its name")
    repo = BlogRepo(blog, "docs/blog/posts", "main")
    assert [p.slug for p in repo.posts()] == ["curry"]
    made = repo.commit_post("harness/r1", "docs/blog/posts/2026-05-01-new.rst", b"New\n===\n", "candidate")
    assert made.created_commit


@pytest.mark.parametrize("host", ["127.0.0.2", "127.1.2.3", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:2"])
def test_only_the_two_documented_loopback_addresses_bind(host: str) -> None:
    """`--host 127.0.0.2` bound although the help says only 127.0.0.1 or ::1."""
    with pytest.raises(InputError, match=r"only 127\.0\.0\.1 or ::1"):
        require_loopback(host)
    assert [require_loopback(h) for h in ("127.0.0.1", "::1", "[::1]", "localhost")] == [
        "127.0.0.1",
        "::1",
        "::1",
        "127.0.0.1",
    ]
