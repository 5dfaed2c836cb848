"""The sidecar as a person installs it: the release's wheel and sdist, built by `python -m build`,
pass `twine check`, carry every file of the package (the judge's models, the related-words table),
and the wheel installed into a fresh virtual environment runs `kh audit` on the example vault.

Nothing is downloaded: the build runs without isolation, with the setuptools of this environment,
and the fresh environment sees this environment's installed dependencies through a .pth file, so
`pip install --no-deps --no-index` of the wheel is the whole install. The fresh environment does not
see this checkout's editable install: the package it imports must come from the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_VAULT, REPO

pytestmark = pytest.mark.slow


def _tracked_package_files() -> set[str]:
    """The package's files as git knows them (not as the build's configuration lists them)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "sidecar/knowledge_harness"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return {name.removeprefix("sidecar/") for name in out.split("\0") if name}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INDEX"] = "1"
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    return out


def test_release_builds_a_wheel_and_an_sdist_that_twine_accepts(dist: Path) -> None:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == ["knowledge_harness-0.1.0-py3-none-any.whl"]
    assert [s.name for s in sdists] == ["knowledge_harness-0.1.0.tar.gz"]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


def test_wheel_and_sdist_carry_every_file_of_the_package(dist: Path) -> None:
    tracked = _tracked_package_files()
    data = {name for name in tracked if not name.endswith(".py")}
    # the models and the word table the judge loads at run time are among them
    assert {
        "knowledge_harness/trust/validate/judges/lexical_model.json",
        "knowledge_harness/trust/validate/judges/related_words.txt.gz",
    } <= data
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        in_wheel = set(wheel.namelist())
        assert "knowledge_harness-0.1.0.dist-info/entry_points.txt" in in_wheel
        assert (
            "kh = knowledge_harness.cli:main"
            in wheel.read("knowledge_harness-0.1.0.dist-info/entry_points.txt").decode()
        )
    assert tracked - in_wheel == set()
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        in_sdist = {name.removeprefix("knowledge_harness-0.1.0/sidecar/") for name in sdist.getnames()}
        top = {name.removeprefix("knowledge_harness-0.1.0/") for name in sdist.getnames()}
    assert tracked - in_sdist == set()
    assert {"LICENSE", "README.md", "pyproject.toml"} <= top


def test_wheel_in_a_fresh_environment_runs_kh_audit_on_the_example_vault(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # this environment's dependencies, as plain path entries: its own .pth files (the editable
    # install of this checkout among them) are not read, so knowledge_harness is not importable yet
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "_kh_test_dependencies.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    env = _env(tmp_path)
    before = subprocess.run([str(python), "-c", "import knowledge_harness"], capture_output=True, env=env)
    assert before.returncode != 0

    wheel = next(dist.glob("*.whl"))
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    # the package and its data come from the wheel's install, not from this checkout
    probe = (
        "import json, knowledge_harness as kh\n"
        "from knowledge_harness.trust.validate.judges.lexical_model import fitted_models\n"
        "from knowledge_harness.trust.validate.judges.related_words import RelatedTable\n"
        "print(json.dumps({'file': kh.__file__, 'version': kh.__version__,"
        " 'models': sorted(fitted_models()), 'related': RelatedTable().related('film')}))"
    )
    seen = json.loads(
        subprocess.run([str(python), "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    )
    assert Path(seen["file"]).is_relative_to(site)
    assert seen["version"] == "0.1.0"
    assert seen["models"] == ["en", "ja"]
    assert seen["related"], "the related-words table shipped in the wheel lists words related to 'film'"

    vault = tmp_path / "vault"
    subprocess.run(["cp", "-r", str(EXAMPLE_VAULT), str(vault)], check=True)
    kh = venv / "bin" / "kh"
    assert kh.read_text(encoding="utf-8").splitlines()[0] == f"#!{python}"
    audit = subprocess.run(
        [str(kh), "audit", str(vault), "--json", "--today", "2026-01-15"], capture_output=True, text=True, env=env
    )
    assert audit.returncode in (0, 1), audit.stderr
    report = json.loads(audit.stdout)
    # the example vault's Keyword notes, counted here from the files themselves
    keywords = [p for p in (vault / "Keywords").glob("*.md")]
    assert report["raw"] == len(keywords)
    assert {item["path"] for item in report["stale"]} <= {f"Keywords/{p.name}" for p in keywords}
    assert [e["path"] for e in report["errors"]] == ["Keywords/Stage F.md"]
