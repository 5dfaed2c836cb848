"""Pipeline settings: `VAULT/.harness/pipeline.toml` (every key optional, unknown keys refused).

```toml
[agents]
backend = "external"            # external | openai_compat | none
independent_judge = "flag"      # flag | required (a judge that authored what it judges → HOLD)
[agents.operations]             # per-operation override
"O-05" = "external"
# [agents.openai_compat] base_url / model / api_key_env and [search] searxng_url live in the
# machine configuration (machine_config.py), never in this vault file.

[screening]
private_markers = ["社外秘", "confidential"]   # as a label or next to a private identifier → REJECTED, else ask
technical_sense_markers = ["confidential"]    # private markers with a technical sense: used so, they pass
review_markers = ["社内", "顧客"]               # undecidable → ask the person
max_masked_ratio = 0.5

[evidence]                      # the initial limits
rounds = 3
queries_per_round = 4
max_fetches = 20
max_adopted = 12
per_domain = 3
time_limit_seconds = 900
retries_per_url = 2
providers = ["vault", "cited_urls"]   # "searxng" is added when the machine configuration names searxng_url
primary_target = 2              # primary sources adopted first, up to this many
reaction_target = 3             # then secondary and community sources, up to this many
primary_domains = ["docs.python.org", "*.readthedocs.io"]
community_domains = ["stackoverflow.com", "qiita.com"]
primary_paths = ["/docs/", "/reference/"]
max_text_chars = 12000          # a note or page is kept whole up to this many characters
stale_after_days = 730          # a source dated earlier than this is recorded as stale

[blog]                          # the blog: one the machine configuration registers ([blogs.NAME])
name = "main"                   # or repo = "../blog", the registered repository's folder
posts_dir = "docs/blog/posts"
base_branch = "main"
branch_prefix = "harness/"
author = "Knowledge Harness"
# repo's git repository, remote and pull_request (none | gh) come from the machine
# configuration's [blogs.NAME] only: a vault file never chooses where git or gh run.

[decision]
deciders = []                   # who may decide (O-11); empty: anyone using the doors
wait_days = 14                  # no decision this long after the review was asked → HOLD (0: wait forever)

[drafts]                        # what the blog's Sphinx understands (default lists in drafts.py)
directives = ["note", "seealso", "versionadded", "code-block"]   # replaces the default list
roles = ["doc", "ref", "code"]                                   # replaces the default list
draft_language = "ja"           # ja | en | "" (not checked)
```
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.tomlfile import read_toml
from ..core.urls import domain_of
from ..errors import InputError
from ..machine_config import MachineConfig, config_path, load_machine_config
from ..trust.policy import refuse_machine_keys
from .safety import DEFAULT_PRIVATE_MARKERS, DEFAULT_REVIEW_MARKERS, DEFAULT_TECHNICAL_SENSE_MARKERS

CONFIG_FILE = "pipeline.toml"

BackendName = Literal["external", "openai_compat", "none"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OpenAICompatSettings(_Strict):
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_seconds: float = Field(default=120.0, gt=0, le=3600)


class AgentSettings(_Strict):
    backend: BackendName = "external"
    # an AI judge (O-06, O-09) that is the client which authored what it judges: "flag" records it
    # (reason code + uncertainty); "required" also holds the run
    independent_judge: Literal["flag", "required"] = "flag"
    operations: dict[str, BackendName] = Field(default_factory=dict)
    openai_compat: OpenAICompatSettings = Field(default_factory=OpenAICompatSettings)

    def backend_for(self, operation: str) -> str:
        return self.operations.get(operation, self.backend)


class ScreeningSettings(_Strict):
    private_markers: list[str] = Field(default_factory=lambda: list(DEFAULT_PRIVATE_MARKERS))
    review_markers: list[str] = Field(default_factory=lambda: list(DEFAULT_REVIEW_MARKERS))
    # private markers that also have a technical sense: used that way they neither reject nor ask
    technical_sense_markers: list[str] = Field(default_factory=lambda: list(DEFAULT_TECHNICAL_SENSE_MARKERS))
    max_masked_ratio: float = Field(default=0.5, gt=0, le=1)


DEFAULT_PRIMARY = [
    "docs.*",
    "*.readthedocs.io",
    "readthedocs.org",
    "developer.*",
    "developers.*",
    "github.com",
    "python.org",
    "*.python.org",
    "*.gov",
    "*.go.jp",
    "rfc-editor.org",
    "*.ietf.org",
    "w3.org",
    "*.w3.org",
    "whatwg.org",
    "*.whatwg.org",
    "obsidian.md",
    "*.obsidian.md",
]
DEFAULT_COMMUNITY = [
    "stackoverflow.com",
    "*.stackexchange.com",
    "qiita.com",
    "zenn.dev",
    "teratail.com",
    "reddit.com",
    "*.reddit.com",
    "news.ycombinator.com",
    "x.com",
    "twitter.com",
    "forum.*",
    "discuss.*",
    "note.com",
    "dev.to",
    "medium.com",
]


# Official documentation, references and specifications usually live under these paths of a
# vendor's or project's own site.
DEFAULT_PRIMARY_PATHS = ["/docs/", "/doc/", "/documentation/", "/reference/", "/manual/", "/spec/", "/specification/"]


class EvidenceSettings(_Strict):
    rounds: int = Field(default=3, ge=1, le=10)
    queries_per_round: int = Field(default=4, ge=1, le=20)
    max_fetches: int = Field(default=20, ge=0, le=200)
    max_adopted: int = Field(default=12, ge=1, le=100)
    per_domain: int = Field(default=3, ge=1, le=50)
    time_limit_seconds: float = Field(default=900.0, gt=0, le=3600)
    retries_per_url: int = Field(default=2, ge=0, le=5)
    primary_target: int = Field(default=2, ge=0, le=20)
    reaction_target: int = Field(default=3, ge=0, le=20)
    providers: list[str] = Field(default_factory=lambda: ["vault", "cited_urls"])
    searxng_url: str | None = None
    primary_domains: list[str] = Field(default_factory=lambda: list(DEFAULT_PRIMARY))
    secondary_domains: list[str] = Field(default_factory=list)
    community_domains: list[str] = Field(default_factory=lambda: list(DEFAULT_COMMUNITY))
    primary_paths: list[str] = Field(default_factory=lambda: list(DEFAULT_PRIMARY_PATHS))
    max_text_chars: int = Field(default=12_000, ge=200, le=200_000)
    stale_after_days: int = Field(default=730, ge=1, le=36_500)

    def classify_url(self, url: str) -> str:
        """primary / secondary / community; the rules in order (docs/pipeline.md, "Source classes"):
        community_domains → community; primary_domains → primary; secondary_domains → secondary;
        a documentation path (primary_paths, e.g. /docs/) on any other host → primary; else secondary."""
        host = domain_of(url)

        def hit(patterns: list[str]) -> bool:
            return any(host == p or fnmatch.fnmatch(host, p) for p in patterns)

        if hit(self.community_domains):
            return "community"
        if hit(self.primary_domains):
            return "primary"
        if hit(self.secondary_domains):
            return "secondary"
        path = (urlsplit(url).path or "/").lower()
        if any(path.startswith(prefix) for prefix in self.primary_paths):
            return "primary"
        return "secondary"


class BlogSettings(_Strict):
    name: str | None = Field(default=None, min_length=1, max_length=64)
    repo: str | None = None
    posts_dir: str = Field(default="docs/blog/posts", min_length=1, max_length=300)
    base_branch: str = Field(default="main", min_length=1, max_length=200)
    branch_prefix: str = Field(default="harness/", max_length=100)
    author: str = Field(default="Knowledge Harness", min_length=1, max_length=200)
    category: str | None = None
    pull_request: Literal["none", "gh"] = "none"
    similarity_threshold: float = Field(default=0.85, gt=0, le=1)
    # the remote whose base branch is the merge fact (GitHub); None: the local base branch only
    remote: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

    def effective_remote(self) -> str | None:
        """The remote to fetch: the configured one, else `origin` when the gh adapter pushes there."""
        return self.remote or ("origin" if self.pull_request == "gh" else None)

    def repo_path(self, vault_root: Path) -> Path | None:
        """The repository folder; after `with_machine` it is the registered blog's absolute path."""
        if not self.repo:
            return None
        path = Path(self.repo).expanduser()
        return (path if path.is_absolute() else vault_root / path).resolve()


class DraftSettings(_Strict):
    """What the configured blog (ablog on Sphinx) understands in a draft, and the draft's language.

    `directives` / `roles` replace the default lists (drafts.DEFAULT_DIRECTIVES / DEFAULT_ROLES);
    directives and roles that read files or raw output stay forbidden whatever is listed."""

    directives: list[str] | None = None
    roles: list[str] | None = None
    draft_language: str | None = Field(default="ja", max_length=20)

    @field_validator("directives")
    @classmethod
    def _no_forbidden_directive(cls, value: list[str] | None) -> list[str] | None:
        from .drafts import FORBIDDEN_DIRECTIVES

        bad = sorted({v.lower() for v in value or []} & FORBIDDEN_DIRECTIVES)
        if bad:
            raise ValueError(f"{', '.join(bad)} read outside content and cannot be allowed")
        return value

    @field_validator("roles")
    @classmethod
    def _no_forbidden_role(cls, value: list[str] | None) -> list[str] | None:
        from .drafts import FORBIDDEN_ROLES

        bad = sorted({v.lower() for v in value or []} & FORBIDDEN_ROLES)
        if bad:
            raise ValueError(f"{', '.join(bad)} cannot be allowed")
        return value


class DecisionSettings(_Strict):
    deciders: list[str] = Field(default_factory=list)
    # days a Review Packet waits for the person before the run goes to HOLD; 0: no limit
    wait_days: float = Field(default=14.0, ge=0, le=3650)


class PipelineConfig(_Strict):
    agents: AgentSettings = Field(default_factory=AgentSettings)
    screening: ScreeningSettings = Field(default_factory=ScreeningSettings)
    evidence: EvidenceSettings = Field(default_factory=EvidenceSettings)
    blog: BlogSettings = Field(default_factory=BlogSettings)
    decision: DecisionSettings = Field(default_factory=DecisionSettings)
    drafts: DraftSettings = Field(default_factory=DraftSettings)


# Endpoints and key variables of the pipeline come from the machine configuration only.
MACHINE_ONLY_KEYS: tuple[tuple[str, str], ...] = (("evidence", "searxng_url"),)
MACHINE_ONLY_AGENT_KEYS = ("base_url", "api_key_env")
# What git and gh run against: the machine configuration's [blogs.NAME] only.
MACHINE_ONLY_BLOG_KEYS = ("remote", "pull_request")


def _refuse_blog_keys(blog: object, source: str) -> None:
    if not isinstance(blog, dict):
        return
    for key in MACHINE_ONLY_BLOG_KEYS:
        if key in blog:
            raise InputError(
                f"Refused key 'blog.{key}' in {source}: a vault file may not choose where git or gh run; "
                f"set {key} of the blog in the machine configuration ({config_path()}) as "
                f'[blogs.NAME] {key} = …, and name it in the vault with [blog] name = "NAME".',
                detail=[{"key": f"blog.{key}", "message": "belongs in the machine configuration, not the vault"}],
            )


def resolve_blog(blog: BlogSettings, machine: MachineConfig, vault_root: Path) -> BlogSettings:
    """The vault's [blog] bound to a blog the machine configuration registers ([blogs.NAME]).

    The vault may only *name* one: `name = "NAME"`, or `repo` = the registered repository's
    folder. Its repository, remote and pull-request tool are the machine's, so a synced file
    never decides which repository git runs in. No name and no repo: no blog."""
    if blog.name is None and blog.repo is None:
        return blog
    defined = ", ".join(sorted(machine.blogs)) or "none"
    if blog.name is not None:
        registered = machine.blogs.get(blog.name)
        if registered is None:
            raise InputError(
                f"The pipeline settings name the blog {blog.name!r}, which the machine configuration "
                f"({config_path()}) does not define as [blogs.{blog.name}] (defined: {defined})."
            )
        if blog.repo is not None and blog.repo_path(vault_root) != registered.repo_path():
            raise InputError(
                f"The pipeline settings' [blog] repo {blog.repo!r} is not the repository of "
                f"[blogs.{blog.name}] in the machine configuration ({config_path()}): {registered.repo}."
            )
    else:
        wanted = blog.repo_path(vault_root)
        found = [(n, b) for n, b in sorted(machine.blogs.items()) if b.repo_path() == wanted]
        if not found:
            raise InputError(
                f"Refused [blog] repo = {blog.repo!r}: the blog repository is a machine setting. Register it "
                f'in the machine configuration ({config_path()}) as [blogs.NAME] repo = "{wanted}" and name '
                f'it in the vault with [blog] name = "NAME" (registered blogs: {defined}).',
                detail=[{"key": "blog.repo", "message": "not a blog registered in the machine configuration"}],
            )
        registered = found[0][1]
    return blog.model_copy(
        update={
            "repo": str(registered.repo_path()),
            "remote": registered.remote,
            "pull_request": registered.pull_request,
        }
    )


def with_machine(config: PipelineConfig, machine: MachineConfig, vault_root: Path) -> PipelineConfig:
    endpoint = machine.agents.openai_compat
    own = config.agents.openai_compat
    openai = own.model_copy(
        update={
            "base_url": endpoint.base_url,
            "api_key_env": endpoint.api_key_env,
            "model": endpoint.model or own.model,
            "timeout_seconds": endpoint.timeout_seconds or own.timeout_seconds,
        }
    )
    agents = config.agents.model_copy(update={"openai_compat": openai})
    evidence = config.evidence.model_copy(update={"searxng_url": machine.search.searxng_url})
    blog = resolve_blog(config.blog, machine, vault_root)
    return config.model_copy(update={"agents": agents, "evidence": evidence, "blog": blog})


def load_config(harness_dir: Path) -> PipelineConfig:
    """The effective pipeline settings: VAULT/.harness/pipeline.toml plus the machine configuration."""
    path = harness_dir / CONFIG_FILE
    data = read_toml(path, what=str(path))
    vault_root = harness_dir.parent.resolve()
    if data is None:
        return with_machine(PipelineConfig(), load_machine_config(), vault_root)
    refuse_machine_keys(data, MACHINE_ONLY_KEYS, str(path))
    _refuse_blog_keys(data.get("blog"), str(path))
    agents = data.get("agents")
    if isinstance(agents, dict):
        refuse_machine_keys(agents, [("openai_compat", k) for k in MACHINE_ONLY_AGENT_KEYS], f"{path} [agents]")
    try:
        config = PipelineConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        raise InputError(f"Invalid key {key!r} in {path}: {first['msg']}.") from exc
    return with_machine(config, load_machine_config(), vault_root)
