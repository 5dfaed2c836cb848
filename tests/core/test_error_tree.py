"""errors.py draws its tree in the docstring; the drawing is the classes, codes and statuses as they are."""

from __future__ import annotations

import importlib
import re

from knowledge_harness import errors
from knowledge_harness.errors import HarnessError

ROW = re.compile(r"^    [│├└─ ]*(\w+)\s+(\w+)\s+(\d+|any)\s+(\d)\b", re.M)


def _all_errors() -> list[type[HarnessError]]:
    found: list[type[HarnessError]] = [HarnessError]
    for cls in found:
        found.extend(sub for sub in cls.__subclasses__() if sub.__module__ == errors.__name__)
    return found


def test_the_docstring_tree_is_the_class_tree() -> None:
    rows = ROW.findall(errors.__doc__ or "")
    drawn = {name: (code, status, int(exit_code)) for name, code, status, exit_code in rows}
    classes = {cls.__name__: cls for cls in _all_errors()}
    assert set(drawn) == set(classes)
    for name, cls in classes.items():
        code, status, exit_code = drawn[name]
        assert (code, exit_code) == (cls.code, cls.exit_code), name
        if status != "any":
            assert int(status) == cls.http_status, name


def test_every_error_that_crosses_a_door_is_defined_in_errors_py() -> None:
    for door in ("knowledge_harness.api.app", "knowledge_harness.cli.root", "knowledge_harness.cli.pipeline"):
        importlib.import_module(door)  # a door loads the services behind it

    def subclasses(cls: type[HarnessError]) -> list[type[HarnessError]]:
        return [cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))]

    assert {cls.__module__ for cls in subclasses(HarnessError)} == {errors.__name__}


def test_codes_are_unique_but_for_inherited_ones() -> None:
    owners: dict[str, list[str]] = {}
    for cls in _all_errors():
        if "code" in vars(cls):
            owners.setdefault(cls.code, []).append(cls.__name__)
    assert {code: names for code, names in owners.items() if len(names) > 1} == {}
