"""No module keeps mutable state: what the sidecar remembers belongs to an object someone owns.

The index memory is a VaultIndex, the audit's an Auditor, the extraction workers an ExtractionPool,
the audit thread the Runtime's; AppContext makes them and the app's lifespan closes them
(docs/architecture.md, "Who owns what"). This test imports every module of the package and looks at
each name assigned at module level (its source, parsed with `ast`) and at every `global` statement:

- immutable values pass (numbers, strings, tuples, frozensets, compiled patterns, frozen
  dataclasses and pydantic models, NamedTuples, ...);
- a dict, list or set passes only as a constant table: a CONSTANT_CASE name that no code in its
  module changes (no item assignment, no `append`/`update`/... call, no `del`);
- anything else (an instance of a class that can change, a `global` rebinding) fails unless
  ALLOWED names it with the reason it is not a vault's or a request's state.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import enum
import importlib
import ipaddress
import operator
import re
import types
import typing
from pathlib import Path
from zoneinfo import ZoneInfo

import pydantic
import typer
from fastapi import APIRouter

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "sidecar" / "knowledge_harness"

ALLOWED: dict[str, str] = {
    # memos of pure functions of their argument: what they hold depends on nothing else
    "knowledge_harness.trust.validate.text._WORD_TERMS": "a word's stem, memoized (bounded by _TERMS_CACHE_MAX)",
    "knowledge_harness.trust.validate.text._NUMBER_TERMS": "a number and unit's term, memoized (bounded)",
    "knowledge_harness.trust.validate.judges.binding._parsed": "functools.lru_cache of a sentence's parse",
    "knowledge_harness.trust.validate.judges.related_words.RELATED_WORDS": "package data, read on first use",
    "knowledge_harness.core.text._STEMMER": "the Snowball stemmer: a pure function object",
    "knowledge_harness.core.text._STEMS": "a word's stem, memoized (cleared past _MAX_STEMS)",
    # tables filled at import, then only read
    "knowledge_harness.vault.yamlsafe._RESOLVERS": "CORE_RESOLVERS by first character, built at import",
    "knowledge_harness.trust.validate.judges._REGISTRY": "the judge registry: the built-in judges register at import",
    # read-only tables that PyYAML builds as objects
    "knowledge_harness.vault.trust_splice._RESOLVER_11": "PyYAML's YAML 1.1 resolver, only asked",
    "knowledge_harness.vault.yaml_loader._SC": "PyYAML's SafeConstructor, used for its pure helpers",
    # per thread, per process: how this thread or process works, not what it remembers of a vault
    "knowledge_harness.vault.lock._held": "threading.local: the vault locks this thread holds (re-entry)",
    "knowledge_harness.core.jsoncodec._orjson": "the JSON library module once imported (global)",
    "knowledge_harness.core.jsoncodec._standard_library": "standard_library_only()'s switch for this "
    "process (a one-shot `kh index build` avoids importing orjson)",
    "knowledge_harness.index.parallel._WORKER_JOB": "the parse job the forked helper processes inherit",
}

IMMUTABLE = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    tuple,
    frozenset,
    range,
    re.Pattern,
    dt.date,
    dt.time,
    dt.timedelta,
    ZoneInfo,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
    types.MappingProxyType,
    operator.attrgetter,
    operator.itemgetter,
    typing.TypeVar,
    enum.Enum,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.BuiltinMethodType,
)
# objects made once at import that hand out behaviour and hold no data of their own
STATELESS = (APIRouter, typer.Typer)
CONTAINERS = (dict, list, set)
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "popitem",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "sort",
    }
)
CONSTANT_CASE = re.compile(r"_?[A-Z][A-Z0-9_]*")


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, path))
    return found


def _top_level(body: list[ast.stmt]) -> typing.Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)
            yield from _top_level(getattr(node, "finalbody", []))
        else:
            yield node


def _assigned(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if n not in ("__all__", "log", "logger")]


def _mutated(tree: ast.Module) -> set[str]:
    """Names changed in place anywhere in the module: item assignment or deletion, a mutator call."""
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if isinstance(node.value, ast.Name):
                changed.add(node.value.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and isinstance(node.func.value, ast.Name)
        ):
            changed.add(node.func.value.id)
    return changed


def _rebound(tree: ast.Module) -> set[str]:
    return {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}


def _frozen(value: object) -> bool:
    if isinstance(value, (*IMMUTABLE, types.GenericAlias, types.UnionType)) or type(value).__module__ == "typing":
        return True  # typing's aliases (Literal[...], Annotated[...], Callable[...]) are type annotations
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return bool(value.__dataclass_params__.frozen)  # type: ignore[attr-defined]
    if isinstance(value, pydantic.BaseModel):
        return bool(type(value).model_config.get("frozen"))
    return isinstance(value, STATELESS)


def module_state() -> dict[str, str]:
    """Every module-level name that is state, by its dotted name: what it is."""
    found: dict[str, str] = {}
    for name, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = importlib.import_module(name)
        mutated = _mutated(tree)
        for attr in _assigned(tree):
            value = getattr(module, attr, None)
            if isinstance(value, CONTAINERS):
                if CONSTANT_CASE.fullmatch(attr) and attr not in mutated:
                    continue  # a constant table
                found[f"{name}.{attr}"] = f"a {type(value).__name__} changed in place or not named as a constant"
            elif not _frozen(value):
                what = "a callable" if callable(value) else "an instance of"
                found[f"{name}.{attr}"] = f"{what} {type(value).__qualname__}"
        for attr in _rebound(tree):
            found[f"{name}.{attr}"] = "rebound with `global`"
    return found


def test_no_module_keeps_mutable_state_but_the_listed_memos() -> None:
    state = module_state()
    unexplained = {name: what for name, what in state.items() if name not in ALLOWED}
    assert not unexplained, (
        "Module-level state: give it an owner (AppContext, VaultIndex, Auditor, ...) or, when it is no "
        f"vault's or request's state, an ALLOWED entry with its reason: {unexplained}"
    )
    assert not set(ALLOWED) - set(state), "ALLOWED names something that is no longer state: drop it"


def test_the_check_finds_a_cache_a_mutated_table_and_a_global(tmp_path: Path) -> None:
    source = (
        "import threading\n"
        "CACHE: dict[str, int] = {}\n"
        "TABLE = {'a': 1}\n"
        "LOCK = threading.Lock()\n"
        "_count = 0\n"
        "def remember(key: str) -> None:\n"
        "    global _count\n"
        "    CACHE[key] = 1\n"
        "    _count += 1\n"
    )
    tree = ast.parse(source)
    assert _mutated(tree) == {"CACHE"} and _rebound(tree) == {"_count"}
    assert _assigned(tree) == ["CACHE", "TABLE", "LOCK", "_count"]
    namespace: dict[str, object] = {}
    exec(compile(source, "<example>", "exec"), namespace)
    assert not _frozen(namespace["LOCK"]) and _frozen(namespace["_count"])
