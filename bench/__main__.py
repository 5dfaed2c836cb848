"""`make bench`: run every benchmark module, print the figures, write docs/benchmarks.md.

A benchmark is a module in bench/ with `run() -> dict` returning
{"title": str, "command": str, "figures": [{"name", "value", "unit", "target"?}], "notes": str?}.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import subprocess
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["startup", "index_bench", "retrieval_eval", "audit", "judge_eval", "load", "hostile", "gc_pause"]


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python {platform.python_version()}, {platform.system()}"


def git_rev() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"


READING_TITLE = "## What the numbers mean for you"  # bench/reading.md's first line
TITLES = {"audit": "Trust audit on a generated 10,000-note vault (read-only, `kh audit`)"}


def normalize(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """Accept a module that returns plain figures (`{"key": value, "targets": {...}}`) as well."""
    if "figures" in result:
        result.setdefault("title", TITLES.get(name, name))
        result.setdefault("command", f"python -m bench {name}")
        return result
    targets = result.get("targets", {}) if isinstance(result.get("targets"), dict) else {}
    figures = []
    for key, value in result.items():
        if key == "targets" or isinstance(value, dict | list):
            continue
        unit = "s" if key.endswith("_seconds") else ""
        label = key.removesuffix("_seconds").replace("_", " ")
        figure: dict[str, Any] = {"name": label, "value": value, "unit": unit}
        if key in targets:
            figure["target"] = f"≤ {targets[key]} {unit}".strip()
        figures.append(figure)
    return {"title": TITLES.get(name, name), "command": f"python -m bench {name}", "figures": figures}


def main(argv: list[str]) -> int:
    only = set(argv)
    names = [n for n in ORDER if (ROOT / "bench" / f"{n}.py").exists() and (not only or n in only)]
    results: list[dict[str, Any]] = []
    failed = False
    for name in names:
        print(f"== {name}", flush=True)
        try:
            module = importlib.import_module(f"bench.{name}")
            result = module.run()
        except Exception:
            traceback.print_exc()
            failed = True
            result = {"title": name, "command": f"python -m bench {name}", "figures": [], "notes": "FAILED"}
        result = normalize(name, result)
        results.append(result)
        for fig in result.get("figures", []):
            target = f"  (target {fig['target']})" if fig.get("target") else ""
            print(f"   {fig['name']}: {fig['value']} {fig.get('unit', '')}{target}", flush=True)
    if only:  # a partial run replaces its own sections and keeps every other one
        replace_sections(results)
        print("docs/benchmarks.md: the sections of this run replaced, the others kept.")
    else:
        write_report(results)
    (ROOT / "bench" / "out").mkdir(exist_ok=True)
    (ROOT / "bench" / "out" / "results.json").write_text(
        json.dumps(results, indent=2, ensure_ascii=False, default=str), encoding="utf-8"
    )
    return 1 if failed else 0


def section(result: dict[str, Any]) -> list[str]:
    lines = [f"## {result['title']}", "", f"Command: `{result['command']}`", ""]
    if result.get("figures"):
        lines += ["| figure | value | target |", "|---|---|---|"]
        for fig in result["figures"]:
            lines.append(f"| {fig['name']} | {fig['value']} {fig.get('unit', '')} | {fig.get('target', '')} |")
        lines.append("")
    if result.get("notes"):
        lines += [result["notes"], ""]
    return lines


def _line_after(text: str, marker: str, start: int = 0) -> int:
    """Where the line that `marker` (starting with a line break) begins, or the end of `text`."""
    found = text.find(marker, start)
    return len(text) if found == -1 else found + 1


def replace_sections(results: list[dict[str, Any]], report: Path = ROOT / "docs" / "benchmarks.md") -> None:
    """Put each result's section where the section of the same title was (a new one goes before the
    hand-written part), leaving the rest of the report as it is."""
    text = report.read_text(encoding="utf-8")
    when = f"This section alone: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, commit {git_rev()}, load {os.getloadavg()[0]:.1f}."
    for result in results:
        lines = section(result)
        lines[4:4] = [when, ""]  # under the Command line
        new = "\n".join(lines)
        begin = text.find(f"## {result['title']}\n")
        if begin == -1:  # a new section
            begin = end = _line_after(text, f"\n{READING_TITLE}")
        else:
            end = _line_after(text, "\n## ", begin + 1)
        text = text[:begin] + new + "\n" + text[end:]
    report.write_text(text, encoding="utf-8")


def write_report(results: list[dict[str, Any]]) -> None:
    lines = [
        "# Benchmarks",
        "",
        "Regenerated by `make bench` (`python -m bench`); never run by `make test`.",
        "",
        f"- Machine: {machine()}",
        f"- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, commit {git_rev()}",
        "",
    ]
    for result in results:
        lines += section(result)
    reading = ROOT / "bench" / "reading.md"  # hand-written; kept across regenerations
    if reading.exists():
        lines += [reading.read_text(encoding="utf-8").rstrip(), ""]
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
