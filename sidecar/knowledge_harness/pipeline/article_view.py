"""The article as a reader sees it, for the person deciding: rendered to plain text (the Review
Packet, `kh pipeline review`) and to a standalone HTML file (the plugin and the CLI open it).

docutils alone, with file insertion and `raw` off (the same parser settings as the draft checks):
the ablog `post` directive and the `.. kh-…` block markers are left out, Sphinx directives and roles
are laid out as `drafts.py` registers them. Pure functions: no I/O."""

from __future__ import annotations

import difflib
import html as _html
import io
from typing import Any, ClassVar

from docutils import nodes
from docutils.core import publish_doctree, publish_from_doctree
from docutils.parsers.rst import Directive, directives

from . import drafts as _drafts  # noqa: F401 - registers the Sphinx directives and roles docutils reads

_SETTINGS: dict[str, Any] = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "language_code": "ja",
    "syntax_highlight": "none",
    "embed_stylesheet": False,
    "stylesheet_path": "",
    "output_encoding": "unicode",
    "doctitle_xform": True,
}


class _PostDirective(Directive):  # type: ignore[misc]  # docutils ships no type hints
    """ablog's `post` directive: metadata for the blog, nothing a reader sees in the article."""

    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {
        name: directives.unchanged for name in ("tags", "category", "author", "language", "location", "redirect")
    }
    has_content = True

    def run(self) -> list[nodes.Node]:
        return []


directives.register_directive("post", _PostDirective)


def _doctree(rst: str) -> nodes.document:
    document = publish_doctree(rst, settings_overrides={**_SETTINGS, "warning_stream": io.StringIO()})
    for comment in list(document.findall(nodes.comment)):
        comment.parent.remove(comment)
    for message in list(document.findall(nodes.system_message)):
        message.parent.remove(message)
    return document


def article_text(rst: str) -> str:
    """The article's text as a reader reads it: title, metadata, the AI note, headings, paragraphs."""
    document = _doctree(rst)
    out: list[str] = []
    title = document.get("title") or ""
    if title:
        out += [title, "=" * min(60, max(4, len(title) * 2)), ""]
    for node in document.children:
        if isinstance(node, nodes.section):
            out += _section_text(node, 1)
        elif not isinstance(node, nodes.title):
            out += _block_text(node)
    return "\n".join(out).strip() + "\n"


def _section_text(section: nodes.section, depth: int) -> list[str]:
    out: list[str] = []
    for child in section.children:
        if isinstance(child, nodes.title):
            heading = child.astext()
            out += ["", heading, ("-" if depth == 1 else "~") * min(60, max(4, len(heading) * 2)), ""]
        elif isinstance(child, nodes.section):
            out += _section_text(child, depth + 1)
        else:
            out += _block_text(child)
    return out


def _block_text(node: nodes.Node) -> list[str]:
    if isinstance(node, nodes.docinfo | nodes.field_list):
        lines = []
        for field in node.findall(nodes.field):
            name, body = field.children[0].astext(), field.children[1].astext()
            lines.append(f"{name}: {' '.join(body.split())}")
        for child in node.children:
            if not isinstance(child, nodes.field):  # docinfo's known fields (author, date, …)
                lines.append(f"{child.tagname}: {child.astext()}")
        return [*lines, ""]
    if isinstance(node, nodes.literal_block):
        return [*("    " + ln for ln in node.astext().split("\n")), ""]
    if isinstance(node, nodes.Admonition):
        body = " ".join(node.astext().split())
        return [f"［{node.tagname}］ {body}", ""]
    if isinstance(node, nodes.bullet_list | nodes.enumerated_list):
        return [*(f"- {' '.join(item.astext().split())}" for item in node.children), ""]
    text = node.astext().strip() if isinstance(node, nodes.Element) else ""
    return [text, ""] if text else []


def article_html(rst: str, *, title_note: str = "") -> str:
    """A standalone HTML page of the article (no scripts, no outside resources)."""
    document = _doctree(rst)
    html = publish_from_doctree(
        document, writer="html5", settings_overrides={**_SETTINGS, "warning_stream": io.StringIO()}
    )
    text = html if isinstance(html, str) else html.decode("utf-8")
    if title_note:
        note = f'<p class="kh-note">{_html.escape(title_note, quote=False)}</p>'
        text = text.replace('<main id="', f'{note}\n<main id="', 1) if '<main id="' in text else text
    return text


def revision_diff(before: str, after: str, *, before_name: str, after_name: str, limit: int = 400) -> str:
    """A unified diff of the article text between two review rounds (at most `limit` lines)."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), fromfile=before_name, tofile=after_name, n=2, lineterm=""
        )
    )
    if len(lines) > limit:
        lines = [*lines[:limit], f"… （差分の残り {len(lines) - limit} 行は省略）"]
    return "\n".join(lines)
