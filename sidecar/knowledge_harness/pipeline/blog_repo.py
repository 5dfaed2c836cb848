"""The blog repository of the harness pipeline: a separate git repository (never inside the vault).

O-06/O-09 read past articles from the configured posts folder of the base branch; O-10 writes one
publication candidate per review round onto the run's own branch; O-11 verifies the merge fact.

With a remote configured, the base branch *is* the remote's (GitHub's) branch as last fetched
(`refs/remotes/<remote>/<base>`), and `fetch()` brings it up to date: a pull request merged on
GitHub counts before anyone pulls. A candidate counts as merged when its commit is reachable
from the base branch (a merge commit or a fast-forward) or when the base branch holds the
candidate file with the candidate's exact bytes (a squash or rebase merge makes new commits but
keeps the content).

Writing never touches the repository's working tree or its checked-out branch: the candidate is
stored with git plumbing (`hash-object -w`, a private temporary index, `write-tree`,
`commit-tree`) and the branch ref is moved with `update-ref` and the expected old value, so a
commit appears atomically or not at all. Every path is confined to the posts folder; git is
always asked with `-c core.quotePath=false` and NUL-separated output so Japanese names survive.

Only the repository the person registered in the machine configuration is opened (pipeline/
config.py), and git runs there without anything of the repository's own that runs a command: hooks
off (`core.hooksPath` to the null device), `core.fsmonitor=false`, a protocol allow-list (file,
https, ssh; never `ext::`), the stock `git-upload-pack` / `git-receive-pack` on the command line
(a `-c` override does not win over the repository's `remote.*.uploadpack`), no commit signing
program, no automatic gc. Settings that cannot be reset that way (an `sshCommand`, a credential
helper, a remote helper…) in the repository's own configuration refuse the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import BlogRepoError, InputError, PathRejected
from ..vault.paths import nfc
from ..vault.safe_git import GIT_TIMEOUT, command_settings, find_program, run_git, safe_config_env, scratch_git_index

ZERO = "0" * 40
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})-(.+)\.(rst|md)$")
_POST_DATE = re.compile(r"^\.\.\s+post::\s*(\d{4}-\d{2}-\d{2})", re.M)
_ADORN = re.compile(r"^([=\-~^\"'`#*+:._])\1+\s*$")


@dataclass(frozen=True, slots=True)
class PastPost:
    """An article already on the base branch."""

    path: str  # repository-relative POSIX path
    date: str | None
    slug: str
    title: str
    text: str
    sha256: str


@dataclass(frozen=True, slots=True)
class MergeFact:
    """Whether a candidate is on the base branch, and how that was seen."""

    merged: bool
    how: str | None  # "ancestor" (merge commit, fast-forward) | "content" (squash, rebase) | None
    base_ref: str
    base_head: str | None
    published_sha256: str | None  # SHA-256 of the candidate path's bytes on the base branch


@dataclass(frozen=True, slots=True)
class PullRequest:
    """What `gh pr view --json …` says about a pull request."""

    number: int
    url: str
    base: str
    head: str
    head_commit: str
    state: str  # OPEN | CLOSED | MERGED
    merged_at: str | None


_PR_URL = re.compile(r"^https://[^/\s]+/([^/\s]+)/([^/\s]+)/pull/(\d+)/?$")


def pr_number(url: str | None) -> int | None:
    """The number of a pull request URL (`https://github.com/o/r/pull/12`), None for anything else."""
    match = _PR_URL.match((url or "").strip())
    return int(match.group(3)) if match else None


def pr_repository(url: str | None) -> str | None:
    match = _PR_URL.match((url or "").strip())
    return f"{match.group(1)}/{match.group(2)}".lower() if match else None


@dataclass(frozen=True, slots=True)
class CommitResult:
    branch: str
    commit: str
    base_commit: str
    created_branch: bool
    created_commit: bool


def first_title(text: str) -> str:
    """The first section title of a reStructuredText (or Markdown `#`) document."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return line[2:].strip()
        plain = line.strip() and not line.startswith((" ", "\t", "..", ":"))
        if plain and i + 1 < len(lines) and _ADORN.match(lines[i + 1]) and not _ADORN.match(line):
            return line.strip()
    return ""


class BlogRepo:
    """One git repository on disk; only the posts folder of it is ever written (on run branches)."""

    def __init__(self, root: Path, posts_dir: str, base_branch: str, remote: str | None = None) -> None:
        self.root = root.resolve()
        self.posts_dir = self._clean_rel(posts_dir, what="posts folder")
        self.base_branch = base_branch
        self.remote = remote
        if not (self.root / ".git").exists():
            raise InputError(f"The blog repository {self.root} is not a git repository (no .git).")
        if find_program("git") is None:
            raise BlogRepoError("git is not installed.")
        self.check_branch_name(base_branch)
        if remote is not None and (remote.startswith("-") or "/" in remote or not remote.strip()):
            raise InputError(f"Not a git remote name: {remote!r}.")
        self._refuse_command_settings()

    def _refuse_command_settings(self) -> None:
        """The repository's own configuration may not name a command git would run for us."""
        try:
            bad = command_settings(self.root)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BlogRepoError(f"git config failed: {exc}.") from exc
        if bad:
            raise BlogRepoError(
                f"The blog repository {self.root} sets {', '.join(bad)} in its own git configuration "
                "(.git/config), which runs a command; kh runs git there only without such settings. "
                "Remove them, or keep them in your global git configuration instead."
            )

    # -- git -------------------------------------------------------------------------------------
    def _git(
        self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            proc = run_git(self.root, *args, data=data, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BlogRepoError(f"git {args[0]} failed: {exc}.") from exc
        if proc.returncode not in ok:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise BlogRepoError(f"git {args[0]} failed: {err[-1] if err else proc.returncode}.")
        return proc

    def _receive_pack(self, remote: str) -> str:
        """The receive-pack command of a push. A remote on this disk (a path or file://) runs it here,
        as the user, with that repository's hooks: so they are turned off there too. Elsewhere the
        server decides, and only the stock name may be sent."""
        url = self._git("remote", "get-url", "--push", remote).stdout.decode("utf-8", "replace").strip()
        scp_like = re.match(r"^[^/:]+:", url) is not None and not re.match(r"^[A-Za-z]:[\\/]", url)
        local = url.startswith("file://") or ("://" not in url and not scp_like)
        return f"git -c core.hooksPath={os.devnull} receive-pack" if local else "git-receive-pack"

    def check_branch_name(self, name: str) -> str:
        proc = self._git("check-ref-format", "--branch", name, ok=(0, 1, 128))
        if proc.returncode != 0:
            raise InputError(f"Not a valid git branch name: {name!r}.")
        return name

    def rev(self, ref: str) -> str | None:
        """The commit a ref points to, or None."""
        proc = self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok=(0, 1, 128))
        out = proc.stdout.decode().strip()
        return out if proc.returncode == 0 and out else None

    @property
    def base_ref(self) -> str:
        """The base branch as a ref: the remote's as last fetched when a remote is configured and has
        been fetched, else the local branch."""
        if self.remote is not None:
            tracking = f"refs/remotes/{self.remote}/{self.base_branch}"
            if self.rev(tracking) is not None:
                return tracking
        return f"refs/heads/{self.base_branch}"

    def base_commit(self) -> str:
        commit = self.rev(self.base_ref)
        if commit is None:
            raise BlogRepoError(f"The blog repository has no branch {self.base_branch!r}.")
        return commit

    def branch_head(self, branch: str) -> str | None:
        return self.rev(f"refs/heads/{self.check_branch_name(branch)}")

    def fetch(self) -> bool:
        """Bring `refs/remotes/<remote>/<base>` up to date; False when no remote is configured."""
        if self.remote is None:
            return False
        spec = f"+refs/heads/{self.base_branch}:refs/remotes/{self.remote}/{self.base_branch}"
        self._git(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--upload-pack=git-upload-pack", self.remote, spec
        )
        return True

    def is_merged(self, commit: str) -> bool:
        """`commit` is reachable from the base branch (a merge commit or a fast-forward)."""
        proc = self._git("merge-base", "--is-ancestor", commit, self.base_ref, ok=(0, 1, 128))
        return proc.returncode == 0

    def merge_fact(self, commit: str, rel: str, sha256: str) -> MergeFact:
        """Whether the candidate (`commit`, file `rel` with SHA-256 `sha256`) is on the base branch: by
        ancestry, or by content for squash and rebase merges (the commit differs, the bytes do not)."""
        ref = self.base_ref
        head = self.rev(ref)
        data = self.file_at(ref, rel) if head else None
        published = hashlib.sha256(data).hexdigest() if data is not None else None
        if head and self.is_merged(commit):
            return MergeFact(True, "ancestor", ref, head, published)
        if published is not None and published == sha256:
            return MergeFact(True, "content", ref, head, published)
        return MergeFact(False, None, ref, head, published)

    def file_at(self, ref: str, rel: str) -> bytes | None:
        rel = self._clean_rel(rel)
        proc = self._git("cat-file", "blob", f"{ref}:{rel}", ok=(0, 128))
        return proc.stdout if proc.returncode == 0 else None

    # -- paths -------------------------------------------------------------------------------------
    @staticmethod
    def _clean_rel(rel: str, *, what: str = "path") -> str:
        if not rel or "\x00" in rel or "\\" in rel or rel.startswith("/"):
            raise PathRejected(f"Not a repository-relative {what}: {rel!r}.")
        norm = posixpath.normpath(nfc(rel))
        if norm == ".." or norm.startswith("../") or norm == "." or ".git" in norm.split("/"):
            raise PathRejected(f"The {what} {rel!r} leaves the repository.")
        return norm

    def post_path(self, name: str) -> str:
        """`<posts_dir>/<name>`; refuses anything that is not one plain file name in the posts folder."""
        if "/" in name or name.startswith(".") or not name:
            raise PathRejected(f"Not a plain post file name: {name!r}.")
        return self._clean_rel(f"{self.posts_dir}/{name}")

    def exists(self, rel: str, ref: str | None = None) -> bool:
        """Whether a repository-relative path exists on the base branch (a file or a folder)."""
        try:
            rel = self._clean_rel(rel)
        except PathRejected:
            return False
        proc = self._git("cat-file", "-e", f"{ref or self.base_ref}:{rel}", ok=(0, 1, 128))
        return proc.returncode == 0

    # -- past articles -------------------------------------------------------------------------------
    def posts(self) -> list[PastPost]:
        """Articles in the posts folder of the base branch (`.rst` and `.md`), sorted by path."""
        base = self.base_ref
        self.base_commit()
        proc = self._git("ls-tree", "-r", "-z", "--name-only", base, "--", self.posts_dir)
        out: list[PastPost] = []
        for raw in proc.stdout.split(b"\x00"):
            if not raw:
                continue
            rel = nfc(raw.decode("utf-8", "replace"))
            name = rel.rsplit("/", 1)[-1]
            if not name.endswith((".rst", ".md")):
                continue
            try:
                data = self.file_at(base, rel) or b""
            except PathRejected:  # a name no path of ours may hold (a backslash…): not an article
                continue
            text = data.decode("utf-8", "replace")
            dated = _DATED.match(name)
            post_date = _POST_DATE.search(text)
            date = post_date.group(1) if post_date else (dated.group(1) if dated else None)
            slug = dated.group(2) if dated else name.rsplit(".", 1)[0]
            out.append(PastPost(rel, date, slug, first_title(text), text, hashlib.sha256(data).hexdigest()))
        return sorted(out, key=lambda p: p.path)

    # -- writing a candidate ---------------------------------------------------------------------------
    def commit_post(
        self,
        branch: str,
        rel: str,
        data: bytes,
        message: str,
        *,
        remove: list[str] | None = None,
        author: str = "Knowledge Harness",
        email: str = "knowledge-harness@localhost",
    ) -> CommitResult:
        """Put `data` at `rel` on `branch` (created from the base branch when missing) in one commit.

        Unchanged content on the branch creates nothing (no second branch, no second commit).
        `remove` drops earlier candidate paths of the same run (e.g. after a slug change).
        """
        branch = self.check_branch_name(branch)
        rel = self._clean_rel(rel)
        if not rel.startswith(self.posts_dir + "/"):
            raise PathRejected(f"A candidate must be written inside {self.posts_dir}/: {rel!r}.")
        drops = [self._clean_rel(r) for r in (remove or []) if r and r != rel]
        for r in drops:
            if not r.startswith(self.posts_dir + "/"):
                raise PathRejected(f"Only earlier candidates in {self.posts_dir}/ may be removed: {r!r}.")
        base = self.base_commit()
        head = self.branch_head(branch)
        parent = head or base
        blob = self._git("hash-object", "-w", "--no-filters", "--stdin", data=data).stdout.decode().strip()
        if head is not None:
            current = self._git("rev-parse", "--verify", "--quiet", f"{head}:{rel}", ok=(0, 1, 128))
            same = current.returncode == 0 and current.stdout.decode().strip() == blob
            if same and not any(self.exists(r, head) for r in drops):
                return CommitResult(branch, head, base, created_branch=False, created_commit=False)
        with scratch_git_index() as env:
            self._git("read-tree", parent, env=env)
            self._git("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}", env=env)
            for r in drops:
                self._git("update-index", "--force-remove", "--", r, env=env)
            tree = self._git("write-tree", env=env).stdout.decode().strip()
        identity = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": author,
            "GIT_COMMITTER_EMAIL": email,
        }
        commit = (
            self._git(
                "commit-tree",
                "--no-gpg-sign",
                tree,
                "-p",
                parent,
                "-F",
                "-",
                data=message.encode("utf-8"),
                env=identity,
            )
            .stdout.decode()
            .strip()
        )
        self._git(
            "update-ref", "-m", "knowledge-harness: publication candidate", f"refs/heads/{branch}", commit, head or ZERO
        )
        return CommitResult(branch, commit, base, created_branch=head is None, created_commit=True)

    # -- optional GitHub pull request (the `gh` CLI) ------------------------------------------------------
    def _gh(self, *args: str) -> subprocess.CompletedProcess[str]:
        gh = find_program("gh")
        if gh is None:
            raise BlogRepoError("The gh CLI is not installed.")
        try:
            return subprocess.run(
                [gh, *args],
                cwd=self.root,
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT,
                check=False,
                env=safe_config_env(),  # the git that gh runs gets the same settings
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BlogRepoError(f"gh {args[0]} failed: {exc}.") from exc

    def draft_pr(self, branch: str, title: str, body: str) -> str | None:
        """Push the branch and open a draft PR with `gh` (once; an existing PR is reused). Returns its URL.

        Optional adapter: only called when `[blog] pull_request = "gh"`; needs `gh` logged in and a remote.
        """
        self._gh("--version")
        self._git(
            "push",
            "--quiet",
            "--no-verify",
            f"--receive-pack={self._receive_pack(self.remote or 'origin')}",
            self.remote or "origin",
            f"refs/heads/{branch}:refs/heads/{branch}",
        )
        existing = self._gh("pr", "list", "--head", branch, "--state", "all", "--json", "url", "--jq", ".[0].url")
        if existing.returncode == 0 and existing.stdout.strip():
            return existing.stdout.strip()
        created = self._gh(
            "pr", "create", "--draft", "--base", self.base_branch, "--head", branch, "--title", title, "--body", body
        )
        if created.returncode != 0:
            raise BlogRepoError(f"gh pr create failed: {created.stderr.strip()[:300]}")
        return created.stdout.strip().splitlines()[-1] if created.stdout.strip() else None

    def pr_view(self, url: str) -> PullRequest:
        """The pull request's number, base, head, head commit and state, as GitHub reports them."""
        if pr_number(url) is None:
            raise InputError(f"Not a pull request URL: {url!r}.")
        fields = "number,url,baseRefName,headRefName,headRefOid,state,mergedAt"
        proc = self._gh("pr", "view", url, "--json", fields)
        if proc.returncode != 0:
            raise BlogRepoError(f"gh pr view failed: {proc.stderr.strip()[:300] or proc.returncode}")
        try:
            data = json.loads(proc.stdout)
            return PullRequest(
                number=int(data["number"]),
                url=str(data["url"]),
                base=str(data["baseRefName"]),
                head=str(data["headRefName"]),
                head_commit=str(data["headRefOid"]).lower(),
                state=str(data["state"]).upper(),
                merged_at=str(data["mergedAt"]) if data.get("mergedAt") else None,
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise BlogRepoError(f"gh pr view returned something unexpected: {exc}.") from exc
