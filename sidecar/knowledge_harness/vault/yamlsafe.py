"""Safe, bounded YAML loading of note properties (YAML 1.2 core-schema semantics).

PyYAML's C loader is ~10x faster than ruamel for reading, but it speaks YAML 1.1, where
`yes`, `on`, `no`, `off` are booleans and `12:30` is a base-60 integer. Obsidian and ruamel
(our writer) read those as strings, so the resolvers are reset to the 1.2 core schema.
Dates stay dates, as ruamel reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

MAX_YAML_BYTES = 64 * 1024
MAX_ALIASES = 16
MAX_DEPTH = 32

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CoreSchemaLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    pass


_CoreSchemaLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (
        "tag:yaml.org,2002:timestamp",
        r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}"
        r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
        list("0123456789"),
    ),
]:
    _CoreSchemaLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node)).replace("_", "")
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)

_ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,:-])[&*][^\s\[\]{},]+", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class YamlProblem:
    message: str
    line: int | None  # 0-based line inside the YAML text
    column: int | None  # 0-based


class YamlRejected(Exception):
    def __init__(self, problem: YamlProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def load_mapping(text: str) -> dict[str, Any]:
    """Parse frontmatter YAML into a mapping, or raise YamlRejected with a position."""
    if len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise YamlRejected(YamlProblem(f"Frontmatter is larger than {MAX_YAML_BYTES // 1024} KiB.", None, None))
    if len(_ANCHOR_OR_ALIAS.findall(text)) > MAX_ALIASES:
        raise YamlRejected(YamlProblem(f"Frontmatter uses more than {MAX_ALIASES} anchors or aliases.", None, None))
    try:
        data = yaml.load(text, Loader=_CoreSchemaLoader)  # noqa: S506 - a safe loader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(part) for part in (exc.context, exc.problem) if part) or "invalid YAML"
        raise YamlRejected(
            YamlProblem(f"Malformed YAML: {message}.", mark.line if mark else None, mark.column if mark else None)
        ) from exc
    except yaml.YAMLError as exc:
        raise YamlRejected(YamlProblem(f"Malformed YAML: {exc}.", None, None)) from exc
    except RecursionError as exc:
        raise YamlRejected(YamlProblem("Frontmatter is nested too deeply.", None, None)) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise YamlRejected(YamlProblem("Frontmatter is not a mapping of properties.", 0, 0))
    _check_depth(data, 0)
    return {str(k): v for k, v in data.items()}


def _check_depth(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise YamlRejected(YamlProblem(f"Frontmatter is nested deeper than {MAX_DEPTH} levels.", None, None))
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)
