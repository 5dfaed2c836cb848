"""PyYAML's loader for note properties, with YAML 1.2 core-schema resolvers (vault/yamlsafe.py).

Imported only when a frontmatter needs it: yamlsafe's fast path reads the common shapes without
PyYAML, whose import (with this module's set-up) costs a new process ~20 ms.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .yaml_core import CORE_RESOLVERS, YamlProblem, YamlRejected

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DuplicateKey(yaml.constructor.ConstructorError):
    """A key set twice in one mapping: YAML forbids it, and last-wins would hide the first."""

    def __init__(self, key: Any, first: yaml.Mark, again: yaml.Mark) -> None:
        super().__init__(None, None, f"the key {str(key)!r} is set twice in the same mapping", again)
        self.key = key
        self.first = first
        self.again = again


class _CoreSchemaLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        if len(mapping) < len(node.value):  # fewer keys than entries: a key was repeated
            seen: dict[Any, yaml.Mark] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise DuplicateKey(key, seen[key], key_node.start_mark)
                seen[key] = key_node.start_mark
        return mapping


_CoreSchemaLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in CORE_RESOLVERS:
    _CoreSchemaLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node)).replace("_", "")
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


_CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_with_pyyaml(text: str) -> Any:
    """PyYAML's reading of `text` (any YAML value), or YamlRejected with a position."""
    try:
        return yaml.load(text, Loader=_CoreSchemaLoader)  # noqa: S506 - a safe loader subclass
    except DuplicateKey as exc:
        raise YamlRejected(
            YamlProblem(
                f"Duplicate key {str(exc.key)!r}: it is set twice in the same mapping.",
                exc.again.line,
                exc.again.column,
                exc.first.line,
            )
        ) from exc
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


_SC = yaml.constructor.SafeConstructor()


def construct_scalar(tag: str, value: str) -> Any:
    """A plain scalar the fast path resolved to `tag`, constructed as the loader constructs it."""
    return _CoreSchemaLoader.yaml_constructors[tag](_SC, yaml.ScalarNode(tag, value))
