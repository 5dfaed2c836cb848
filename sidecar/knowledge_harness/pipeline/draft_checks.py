"""O-09's program checks on a draft (also `kh pipeline check-draft`): layout and headings,
markup the blog's Sphinx understands (docutils with file insertion and `raw` off), metadata,
dates, the manifest, URLs, local references, likeness to published posts, sensitive content
and the draft's language. Pure: the caller hands in everything a check compares against."""

from __future__ import annotations

import io
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.utils import column_width, new_document

from ..core.urls import normalize_url
from .drafts import (
    DEFAULT_DIRECTIVES,
    DEFAULT_ROLES,
    FORBIDDEN_DIRECTIVES,
    FORBIDDEN_ROLES,
    MARK_LINE,
    META_FIELDS,
    META_LINE,
    UNKNOWN_MARKS,
    Layout,
    find_headings,
    layout,
    sha256_text,
)
from .packets import packet_corpus, packet_items, packet_urls
from .safety import (
    COMPANY,
    DEFAULT_PRIVATE_MARKERS,
    DEFAULT_TECHNICAL_SENSE_MARKERS,
    SECRET,
    find_sensitive,
    read_private,
)

_VAGUE = {"", "不明", "tbd", "?", "？", "-", "n/a", "na", "unknown", "なし", "未定", "要確認", "todo"}
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:\|[^|]+\|\s+)?([A-Za-z][\w:+.-]*)::(.*)$")
_DATE = re.compile(r"(?<!\d)(\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{4}年\d{1,2}月\d{1,2}日)(?!\d)")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ROLE_REF = re.compile(r":(doc|download|ref|any):`([^`]+)`")
_LINK = re.compile(r"`[^`<]*<([^`>]+)>`__?")
_TARGET = re.compile(r"^\s*\.\.\s+_[^:]+:\s+(\S+)\s*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# -- findings -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    line: int
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "line": self.line, "message": self.message}


@dataclass
class CheckReport:
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "errors": [f.as_dict() for f in self.errors],
            "warnings": [f.as_dict() for f in self.warnings],
        }


# -- docutils ---------------------------------------------------------------------------------------------
def _generic_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    return [nodes.literal(rawtext, text)], []


class _AnyOptions(dict[str, Any]):
    """Every option name is accepted (a Sphinx directive's options are Sphinx's business)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged


class _SphinxDirective(Directive):  # type: ignore[misc]  # docutils ships no type hints
    """A Sphinx directive parsed the way Sphinx lays it out: arguments, options, a body. The body is
    parsed as reStructuredText, except for code, which stays literal. Whether the blog allows the
    directive is the program's check (`_directive_findings`), not docutils'."""

    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    has_content = True
    literal = False

    def run(self) -> list[nodes.Node]:
        if self.literal:
            return [nodes.literal_block("\n".join(self.content), "\n".join(self.content))]
        node = nodes.container()
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class _SphinxCode(_SphinxDirective):
    literal = True


_SPHINX_DIRECTIVES = (
    "seealso", "versionadded", "versionchanged", "deprecated", "versionremoved", "todo", "glossary", "centered",
    "hlist", "productionlist", "index", "only", "tabularcolumns", "highlight", "toctree", "tab", "tabs", "tab-set",
    "tab-item", "card", "dropdown", "grid", "grid-item", "grid-item-card", "margin", "update",
)  # fmt: skip
_SPHINX_ROLES = (
    "doc", "ref", "any", "download", "numref", "term", "abbr", "file", "kbd", "command", "program", "option",
    "envvar", "guilabel", "menuselection", "samp", "dfn", "mailheader", "makevar", "mimetype", "newsgroup",
    "regexp", "eq", "keyword", "token", "func", "class", "meth", "mod", "attr", "exc", "data", "const", "obj",
    "py:func", "py:class", "py:meth", "py:mod", "py:attr", "py:exc", "py:data", "py:const", "py:obj",
)  # fmt: skip
for _name in _SPHINX_DIRECTIVES:
    directives.register_directive(_name, _SphinxDirective)
for _name in ("code-block", "sourcecode", "prompt", "doctest", "testcode", "testoutput", "console"):
    directives.register_directive(_name, _SphinxCode)
for _role in _SPHINX_ROLES:
    roles.register_local_role(_role, _generic_role)  # Sphinx roles: parsed, checked by the program


def docutils_messages(text: str) -> list[tuple[int, int, str]]:
    """(level, line, message) of docutils' system messages (level ≥ 2), parsing the text alone."""
    settings = get_default_settings(Parser)
    settings.report_level = 5
    settings.halt_level = 5
    settings.warning_stream = io.StringIO()
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.language_code = "ja"
    settings.syntax_highlight = "none"
    document = new_document("draft.rst", settings)
    found: list[tuple[int, int, str]] = []

    def observe(msg: nodes.system_message) -> None:
        level = int(msg.get("level", 0))
        if level >= 2:
            body = msg.children[0].astext() if msg.children else msg.astext()
            found.append((level, int(msg.get("line") or 0), body.splitlines()[0] if body else ""))

    document.reporter.attach_observer(observe)
    try:
        Parser().parse(text, document)
    except Exception as exc:
        found.append((4, 0, f"parser failure: {type(exc).__name__}: {exc}"))
    return found


# -- checks ---------------------------------------------------------------------------------------------------
@dataclass
class CheckInputs:
    manifest: dict[str, Any] | None = None
    packet: dict[str, Any] | None = None
    # repository-relative folder where the draft will live (local references are resolved from it)
    draft_dir: str = ""
    local_exists: Callable[[str], bool] | None = None
    past_posts: Sequence[Any] = ()  # objects with .path, .title, .text
    private_words: Iterable[str] = DEFAULT_PRIVATE_MARKERS
    technical_words: Iterable[str] = DEFAULT_TECHNICAL_SENSE_MARKERS
    similarity_threshold: float = 0.85
    draft_phase: bool = True  # a draft: 公開日 must be 未確定 and no post directive
    # what the configured blog (ablog on Sphinx) understands; forbidden ones stay forbidden regardless
    allowed_directives: Iterable[str] = DEFAULT_DIRECTIVES
    allowed_roles: Iterable[str] = DEFAULT_ROLES
    draft_language: str | None = "ja"  # None: not checked


def blog_rules(settings: Any) -> dict[str, Any]:
    """CheckInputs keywords from the pipeline settings (`[drafts]`, `[screening]`)."""
    drafts, screening = settings.drafts, settings.screening
    return {
        "allowed_directives": drafts.directives if drafts.directives is not None else DEFAULT_DIRECTIVES,
        "allowed_roles": drafts.roles if drafts.roles is not None else DEFAULT_ROLES,
        "draft_language": drafts.draft_language or None,
        "private_words": screening.private_markers,
        "technical_words": screening.technical_sense_markers,
    }


def normalize_title(title: str) -> str:
    text = unicodedata.normalize("NFKC", title).casefold()
    return "".join(ch for ch in text if not (ch.isspace() or unicodedata.category(ch)[0] in "PSZ"))


def _shingles(text: str, n: int = 3) -> set[str]:
    flat = "".join(unicodedata.normalize("NFKC", text).split())
    return {flat[i : i + n] for i in range(max(0, len(flat) - n + 1))}


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of character 3-gram sets (whitespace removed, NFKC)."""
    sa, sb = _shingles(a), _shingles(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


# a field of a field list or of a directive's options (`:tags: …`, `:author: …`, `:公開日: …`)
_FIELD_LINE = re.compile(r"^\s*:[^:\s`][^:`]*:(?:\s|$)")


def _body_for_similarity(text: str) -> str:
    """The text a reader reads: no metadata fields (the draft's 公開日 … or the post directive's
    tags, author, language), no directive lines, no block markers — so a copy of a published post
    compares as the copy it is."""
    return "\n".join(
        ln
        for ln in text.split("\n")
        if not MARK_LINE.match(ln)
        and not META_LINE.match(ln)
        and not _DIRECTIVE.match(ln)
        and not _FIELD_LINE.match(ln)
    )


def _directive_findings(lines: Sequence[str], draft_phase: bool, allowed: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for n, line in enumerate(lines, start=1):
        match = _DIRECTIVE.match(line)
        if not match:
            continue
        name = match.group(2).lower()
        arg = match.group(3)
        options = []
        for follow in lines[n : n + 20]:
            if follow.strip() and not follow.startswith((" ", "\t")):
                break
            options.append(follow.strip())
        if name == "post":
            if draft_phase:
                out.append(
                    Finding(
                        "POST_DIRECTIVE_FORBIDDEN",
                        n,
                        "下書きに公開用の post directive は置けません（O-10が付与します）。",
                    )
                )
        elif name in FORBIDDEN_DIRECTIVES:
            out.append(Finding("DIRECTIVE_FORBIDDEN", n, f"外部内容を取り込む directive `{name}` は使えません。"))
        elif name in ("csv-table", "table", "list-table") and any(o.startswith((":file:", ":url:")) for o in options):
            out.append(
                Finding("DIRECTIVE_FORBIDDEN", n, f"`{name}` の :file: / :url: は外部内容を取り込むため使えません。")
            )
        elif name == "role" and "raw" in arg:
            out.append(Finding("DIRECTIVE_FORBIDDEN", n, "raw を基にした role は使えません。"))
        elif name not in allowed and name != "role":
            out.append(
                Finding(
                    "DIRECTIVE_FORBIDDEN",
                    n,
                    f"directive `{name}` は設定されたブログで許可されていません（[drafts] directives）。",
                )
            )
    return out


_ROLE_USE = re.compile(r"(?<![\w`\\]):([A-Za-z][\w+.-]*(?::[A-Za-z][\w+.-]*)?):`")
_LITERAL_OPENER = re.compile(
    r"^\s*\.\.\s+(?:code-block|code|sourcecode|parsed-literal|doctest|testcode|console|prompt)::"
)


def _prose_lines(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(line number, text) of the lines outside literal blocks (`::` paragraphs, code directives)."""
    out: list[tuple[int, str]] = []
    literal_indent: int | None = None
    for n, line in enumerate(lines, start=1):
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not line.strip() or indent > literal_indent:
                continue
            literal_indent = None
        out.append((n, line))
        if _LITERAL_OPENER.match(line) or (line.rstrip().endswith("::") and not _DIRECTIVE.match(line)):
            literal_indent = indent
    return out


def _role_findings(lines: Sequence[str], allowed: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for n, line in _prose_lines(lines):
        for match in _ROLE_USE.finditer(line):
            name = match.group(1).lower()
            if name in FORBIDDEN_ROLES:
                out.append(Finding("ROLE_NOT_ALLOWED", n, f"role `{name}` は外部内容を取り込むため使えません。"))
            elif name not in allowed:
                out.append(
                    Finding(
                        "ROLE_NOT_ALLOWED",
                        n,
                        f"role `{name}` は設定されたブログで許可されていません（[drafts] roles）。",
                    )
                )
    return out


# any scheme, any case: HTTPS://EVIL.EXAMPLE.COM/x and ftp://… are external URLs too
_ANY_URL = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>`\"'）」』】\]]+")


def external_urls(text: str) -> list[tuple[int, str]]:
    """(line, url) of every URL with a scheme (`scheme://…`, whatever the scheme and its case)."""
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        for match in _ANY_URL.finditer(line):
            url = match.group(0).rstrip(".,;:!?'）)、。")
            if url.count("(") < url.count(")"):
                url = url.rstrip(")")
            out.append((n, url))
    return out


_JAPANESE = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
_LATIN = re.compile(r"[A-Za-z]")
# the share of Japanese characters among letters above which a text is taken as Japanese prose
JAPANESE_SHARE = 0.2


def japanese_share(text: str) -> float:
    """Japanese characters among the letters of the prose (code, URLs, directives, markers left out)."""
    lines = text.split("\n")
    prose: list[str] = []
    for _, line in _prose_lines(lines):
        if MARK_LINE.match(line) or META_LINE.match(line) or _DIRECTIVE.match(line) or line.lstrip().startswith(":"):
            continue
        line = _ANY_URL.sub(" ", line)
        line = re.sub(r"``[^`]*``|:[\w:+.-]+:`[^`]*`", " ", line)
        prose.append(line)
    flat = "\n".join(prose)
    japanese = len(_JAPANESE.findall(flat))
    latin = len(_LATIN.findall(flat))
    return japanese / max(1, japanese + latin)


def _language_findings(text: str, language: str | None) -> list[Finding]:
    if not language:
        return []
    share = japanese_share(text)
    lang = language.lower()
    if lang.startswith("ja") and share < JAPANESE_SHARE:
        return [
            Finding(
                "DRAFT_LANGUAGE_MISMATCH",
                1,
                f"本文が日本語で書かれていません（日本語の文字の割合 {share:.0%}、設定 draft_language={language}）。",
            )
        ]
    if lang.startswith("en") and share >= JAPANESE_SHARE:
        return [
            Finding(
                "DRAFT_LANGUAGE_MISMATCH",
                1,
                f"The draft is not written in English (Japanese characters {share:.0%}; draft_language={language}).",
            )
        ]
    return []


# a section with fewer Latin letters than this is too short to be judged on its own
SECTION_LANGUAGE_MIN_LETTERS = 60


def _section_language_findings(text: str, language: str | None) -> list[Finding]:
    """For a Japanese blog, each section on its own: a section written wholly in English is a finding
    even when the draft as a whole is Japanese enough."""
    if not language or not language.lower().startswith("ja"):
        return []
    lines = text.split("\n")
    headings = find_headings(lines)
    out: list[Finding] = []
    for k, (title_idx, under_idx) in enumerate(headings):
        if k == 0 and title_idx == next((i for i, ln in enumerate(lines) if ln.strip()), -1):
            continue  # the document title: its text is the front matter and the AI note
        end = headings[k + 1][0] if k + 1 < len(headings) else len(lines)
        body = "\n".join(lines[under_idx + 1 : end])
        stripped = _ANY_URL.sub(" ", body)
        latin = len(_LATIN.findall(stripped))
        if latin < SECTION_LANGUAGE_MIN_LETTERS:
            continue
        share = japanese_share(body)
        if share < JAPANESE_SHARE:
            heading = lines[title_idx].strip()
            out.append(
                Finding(
                    "DRAFT_SECTION_LANGUAGE_MISMATCH",
                    title_idx + 1,
                    f"節「{heading}」が日本語で書かれていません（日本語の文字の割合 {share:.0%}）。"
                    "この節の本文を日本語で書き直してください（コード・URL・製品名の英字は構いません）。",
                )
            )
    return out


def _local_refs(lines: Sequence[str]) -> list[tuple[int, str]]:
    refs: list[tuple[int, str]] = []
    for n, line in enumerate(lines, start=1):
        for match in _ROLE_REF.finditer(line):
            if match.group(1) in ("doc", "download"):
                inner = match.group(2)
                target = inner[inner.rfind("<") + 1 : -1] if inner.endswith(">") and "<" in inner else inner
                refs.append((n, target.strip() + ("" if match.group(1) == "download" else "#doc")))
        for match in _LINK.finditer(line):
            target = match.group(1).strip()
            if not _SCHEME.match(target) and not target.endswith("_"):
                refs.append((n, target))
        target_match = _TARGET.match(line)
        if target_match and not _SCHEME.match(target_match.group(1)) and not target_match.group(1).endswith("_"):
            refs.append((n, target_match.group(1)))
    return refs


def _resolve_local(target: str, draft_dir: str) -> tuple[str | None, list[str]]:
    """(None, []) when the target leaves the repository; else (normalized, candidates to try)."""
    is_doc = target.endswith("#doc")
    target = target.removesuffix("#doc").split("#", 1)[0].strip()
    if not target:
        return "", []
    joined = target.lstrip("/") if target.startswith("/") else posixpath.join(draft_dir, target)
    norm = posixpath.normpath(joined)
    if norm == ".." or norm.startswith("../") or target.startswith("~") or "\x00" in target:
        return None, []
    candidates = [norm]
    if is_doc and not posixpath.splitext(norm)[1]:
        candidates = [norm + ".rst", norm + ".md", norm + ".ipynb", norm]
    return norm, candidates


def check_draft(text: str, inputs: CheckInputs | None = None) -> CheckReport:
    """O-09's program checks. Pure: reads nothing but through `inputs.local_exists`."""
    cfg = inputs or CheckInputs()
    report = CheckReport()
    draft = _Draft.of(text)
    for check in _DRAFT_CHECKS:
        check(draft, cfg, report)
    report.errors.sort(key=lambda f: (f.line, f.code))
    report.warnings.sort(key=lambda f: (f.line, f.code))
    return report


@dataclass(frozen=True, slots=True)
class _Draft:
    """A draft as the checks read it: its text, its lines without the final newline, its layout."""

    text: str
    lines: list[str]
    body_lines: list[str]
    lay: Layout

    @classmethod
    def of(cls, text: str) -> _Draft:
        lines = text.split("\n")
        return cls(text, lines, lines[:-1] if text.endswith("\n") else lines, layout(text))


def _check_whitespace_and_headings(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """Trailing whitespace, the final newline, heading underlines (the fixable ones)."""
    text, body_lines = draft.text, draft.body_lines
    for n, line in enumerate(body_lines, start=1):
        if line != line.rstrip(" \t"):
            report.errors.append(Finding("TRAILING_WHITESPACE", n, "行末に空白があります。"))
    if text and not text.endswith("\n"):
        report.errors.append(Finding("NO_FINAL_NEWLINE", len(draft.lines), "最終行に改行がありません。"))
    elif text.endswith("\n\n"):
        report.errors.append(Finding("TRAILING_WHITESPACE", len(body_lines), "ファイル末尾に空行があります。"))
    for title_idx, under_idx in find_headings(body_lines):
        want = column_width(body_lines[title_idx].rstrip())
        have = len(body_lines[under_idx].rstrip())
        if have < want:
            report.errors.append(
                Finding("HEADING_UNDERLINE", under_idx + 1, f"見出しの装飾が短すぎます（{have} < 幅{want}）。")
            )
        elif have > want:
            report.warnings.append(
                Finding("HEADING_UNDERLINE", under_idx + 1, f"見出しの装飾が幅より長い（{have} > {want}）。")
            )


def _check_markup(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """Directives and roles as the configured blog reads them, the draft's language, then what
    docutils alone reports (not again what the directive, role and heading checks found)."""
    errors = report.errors
    allowed_directives = frozenset(d.lower() for d in cfg.allowed_directives) - FORBIDDEN_DIRECTIVES
    allowed_roles = frozenset(r.lower() for r in cfg.allowed_roles) - FORBIDDEN_ROLES
    directive_findings = _directive_findings(draft.body_lines, cfg.draft_phase, allowed_directives)
    errors.extend(directive_findings)
    directive_lines = {f.line for f in directive_findings}
    role_findings = _role_findings(draft.body_lines, allowed_roles)
    errors.extend(role_findings)
    role_lines = {f.line for f in role_findings}
    language = _language_findings(draft.text, cfg.draft_language)
    errors.extend(language)
    if not language:
        errors.extend(_section_language_findings(draft.text, cfg.draft_language))
    for level, msg_line, message in docutils_messages(draft.text):
        if "Title underline too short" in message or "Title overline too short" in message:
            continue  # HEADING_UNDERLINE above
        near = any(abs(msg_line - d) <= 2 for d in directive_lines)
        if msg_line in directive_lines or ("directive" in message and near):
            continue
        if "interpreted text role" in message and (msg_line in role_lines or not msg_line):
            continue  # ROLE_NOT_ALLOWED above
        kind = {2: "WARNING", 3: "ERROR"}.get(level, "SEVERE")
        errors.append(Finding("RST_SYNTAX", msg_line, f"reStructuredText {kind}: {message}"))


def _check_metadata(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """The AI/human split before the first section, the metadata fields, values the packet lacks."""
    errors, lay, body_lines = report.errors, draft.lay, draft.body_lines
    first_section = min([m[2] for m in lay.markers] or [0]) or None
    if first_section is None:
        heads = find_headings(body_lines)
        first_section = heads[1][0] + 1 if len(heads) > 1 else min(len(body_lines), 40) + 1
    early = "\n".join(body_lines[: first_section - 1])
    if not (("AI" in early or "ＡＩ" in early) and "人間" in early):
        errors.append(
            Finding("AI_SCOPE_MISSING", 1, "AIの担当範囲と人間の確認範囲を最初の節より前に明示してください。")
        )
    corpus = packet_corpus(cfg.packet) if cfg.packet is not None else None
    for name in META_FIELDS:
        if name not in lay.metadata:
            errors.append(Finding("DRAFT_METADATA_MISSING", 1, f"メタデータ「{name}」がありません。"))
            continue
        value, line_no = lay.metadata[name]
        if value.strip().lower() in _VAGUE:
            errors.append(
                Finding(
                    "UNKNOWN_VALUE_NOT_MARKED",
                    line_no,
                    f"「{name}」が確認できない場合は 未確認 または 未確定 と書いてください。",
                )
            )
            continue
        if value in UNKNOWN_MARKS:
            continue
        if name == "公開日" and cfg.draft_phase:
            errors.append(Finding("PUBLICATION_DATE_IN_DRAFT", line_no, "下書きの公開日は 未確定 としてください。"))
        elif name == "情報基準日" and not _ISO_DATE.match(value):
            errors.append(
                Finding("UNKNOWN_VALUE_NOT_MARKED", line_no, "情報基準日は YYYY-MM-DD か 未確認 としてください。")
            )
        elif name == "対象バージョン" and corpus is not None and value not in corpus:
            errors.append(
                Finding("UNSUPPORTED_VALUE", line_no, f"対象バージョン「{value}」はPacketにありません（推測しない）。")
            )
    if corpus is not None:
        _check_dates_in_packet(draft, corpus, report)


def _check_dates_in_packet(draft: _Draft, corpus: str, report: CheckReport) -> None:
    meta_lines = {ln for _, ln in draft.lay.metadata.values()}
    for n, line in enumerate(draft.body_lines, start=1):
        if n in meta_lines:
            continue
        for match in _DATE.finditer(line):
            if match.group(1) not in corpus:
                report.errors.append(
                    Finding(
                        "UNSUPPORTED_VALUE",
                        n,
                        f"日付「{match.group(1)}」はPacketにありません（推測せず 未確認 とする）。",
                    )
                )


def _check_manifest_if_given(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    if cfg.manifest is not None:
        _check_manifest(draft.text, draft.lay, cfg, report.errors)


def _check_urls(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """Every external URL is a source of the evidence packet."""
    allowed = packet_urls(cfg.packet) if cfg.packet is not None else None
    for n, url in external_urls(draft.text):
        if allowed is None:
            report.warnings.append(Finding("URL_UNCHECKED", n, f"Packetがないため {url} を照合できません。"))
        elif normalize_url(url) not in allowed:
            report.errors.append(Finding("URL_NOT_IN_PACKET", n, f"{url} はEvidence Packetの情報源にありません。"))


def _check_local_references(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """Local references stay inside the blog repository and exist there."""
    for n, target in _local_refs(draft.body_lines):
        norm, candidates = _resolve_local(target, cfg.draft_dir)
        shown = target.removesuffix("#doc")
        if norm is None:
            report.errors.append(
                Finding("LOCAL_REF_OUTSIDE", n, f"ローカル参照 {shown} がリポジトリの外を指しています。")
            )
        elif not candidates:
            continue
        elif cfg.local_exists is None:
            report.warnings.append(
                Finding("LOCAL_REF_UNCHECKED", n, f"リポジトリがないため {shown} を照合できません。")
            )
        elif not any(cfg.local_exists(c) for c in candidates):
            report.errors.append(Finding("LOCAL_REF_MISSING", n, f"ローカル参照 {shown} が存在しません。"))


def _check_duplicates(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """The same title as an existing article is an error; a similar body a candidate for the judge."""
    lay = draft.lay
    if lay.title:
        key = normalize_title(lay.title)
        for post in cfg.past_posts:
            if post.title and normalize_title(post.title) == key:
                report.errors.append(
                    Finding("TITLE_DUPLICATE", lay.title_line or 1, f"タイトルが既存記事 {post.path} と同じです。")
                )
    body = _body_for_similarity(draft.text)
    for post in cfg.past_posts:
        score = similarity(body, _body_for_similarity(post.text))
        if score >= cfg.similarity_threshold:
            report.duplicates.append({"path": post.path, "similarity": round(score, 4)})
            report.warnings.append(
                Finding(
                    "DUPLICATE_CANDIDATE",
                    1,
                    f"既存記事 {post.path} との本文類似度 {score:.2f}（AI Judgeへ渡す重複候補）。",
                )
            )


def _check_sensitive(draft: _Draft, cfg: CheckInputs, report: CheckReport) -> None:
    """Secrets, personal and company information, private markers (never the value in a message)."""
    errors = report.errors
    for finding in find_sensitive(draft.text):
        if finding.category == SECRET:
            errors.append(
                Finding("SECRET_IN_DRAFT", finding.line, f"秘密情報らしき文字列（{finding.kind}）があります。")
            )
        elif finding.category == COMPANY:
            errors.append(
                Finding(
                    "COMPANY_INFO_IN_DRAFT", finding.line, f"マスクされていない会社情報（{finding.kind}）があります。"
                )
            )
        else:
            errors.append(
                Finding(
                    "PERSONAL_INFO_IN_DRAFT", finding.line, f"マスクされていない個人情報（{finding.kind}）があります。"
                )
            )
    # the same reading as O-03: marker words in their technical sense are not errors
    for line_no, line in enumerate(draft.body_lines, start=1):
        reading = read_private(line, None, cfg.private_words, cfg.technical_words)
        for marker in reading.private:
            errors.append(Finding("PRIVATE_MARKER_IN_DRAFT", line_no, f"明らかに非公開の内容（{marker}）があります。"))
        for marker in reading.ask:
            errors.append(
                Finding(
                    "PRIVATE_MARKER_IN_DRAFT",
                    line_no,
                    f"非公開マーカー（{marker}）が技術的な意味でなく使われています（公開前に確認が必要）。",
                )
            )


# in this order: findings on one line keep it after the sort by (line, code)
_DRAFT_CHECKS: tuple[Callable[[_Draft, CheckInputs, CheckReport], None], ...] = (
    _check_whitespace_and_headings,
    _check_markup,
    _check_metadata,
    _check_manifest_if_given,
    _check_urls,
    _check_local_references,
    _check_duplicates,
    _check_sensitive,
)


def _check_manifest(text: str, lay: Layout, cfg: CheckInputs, errors: list[Finding]) -> None:
    manifest = cfg.manifest or {}
    if manifest.get("draft_sha256") != sha256_text(text):
        errors.append(Finding("DRAFT_SHA_MISMATCH", 1, "DraftのSHA-256がmanifestと一致しません。"))
    want_sections = [s.get("section_id") for s in manifest.get("sections", [])]
    have_sections = [s[0] for s in lay.sections]
    if want_sections != have_sections:
        errors.append(
            Finding("MANIFEST_MISMATCH", 1, f"節の並び {have_sections} がmanifest {want_sections} と一致しません。")
        )
    section_refs = {s.get("section_id"): set(s.get("packet_refs", [])) for s in manifest.get("sections", [])}
    want_blocks = manifest.get("blocks", [])
    have = {b.block_id: b for b in lay.blocks}
    if [b.get("block_id") for b in want_blocks] != [b.block_id for b in lay.blocks]:
        errors.append(Finding("MANIFEST_MISMATCH", 1, "ブロックの並びがmanifestと一致しません。"))
    items = set(packet_items(cfg.packet)) if cfg.packet is not None else None
    excluded = set(manifest.get("excluded_refs", []))
    for entry in want_blocks:
        block = have.get(entry.get("block_id"))
        if block is None:
            errors.append(
                Finding("MANIFEST_MISMATCH", 1, f"manifestのブロック {entry.get('block_id')} が本文にありません。")
            )
            continue
        if block.sha256 != entry.get("sha256"):
            errors.append(
                Finding("MANIFEST_MISMATCH", block.marker_line, f"ブロック {block.block_id} のSHA-256が一致しません。")
            )
        if block.section_id != entry.get("section_id"):
            errors.append(
                Finding("MANIFEST_MISMATCH", block.marker_line, f"ブロック {block.block_id} の節が一致しません。")
            )
        refs = set(entry.get("packet_refs", []))
        if entry.get("section_id") in section_refs and not refs <= section_refs[entry.get("section_id")]:
            errors.append(
                Finding(
                    "MANIFEST_MISMATCH", block.marker_line, f"ブロック {block.block_id} の参照が節の許可範囲外です。"
                )
            )
        if refs & excluded:
            errors.append(
                Finding(
                    "MANIFEST_MISMATCH", block.marker_line, f"ブロック {block.block_id} がEXCLUDE項目を参照しています。"
                )
            )
        if items is not None and not refs <= items:
            errors.append(
                Finding(
                    "MANIFEST_MISMATCH",
                    block.marker_line,
                    f"ブロック {block.block_id} の参照 {sorted(refs - items)} がPacketにありません。",
                )
            )
