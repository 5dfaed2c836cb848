"""What both YAML readers share: the YAML 1.2 core schema's resolvers and the rejection types.

vault/yamlsafe.py (the fast path) and vault/yaml_loader.py (PyYAML, imported only when needed)
both import from here, so neither imports the other at the top.
"""

from __future__ import annotations

from typing import NamedTuple

# The YAML 1.2 core schema's implicit resolvers: (tag, pattern, first characters). vault/yaml_loader.py
# gives them to PyYAML's loader; the fast path below resolves with the same table, built as
# PyYAML builds its own (first character -> [(tag, pattern)], in this order), without importing
# PyYAML: a new process whose notes' frontmatter is all in the fast path's subset never pays for it.
CORE_RESOLVERS: list[tuple[str, str, list[str]]] = [
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
]


class YamlProblem(NamedTuple):
    message: str
    line: int | None  # 0-based line inside the YAML text
    column: int | None  # 0-based
    first_line: int | None = None  # a duplicate key: 0-based line where the key was first set


class YamlRejected(Exception):
    def __init__(self, problem: YamlProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem
