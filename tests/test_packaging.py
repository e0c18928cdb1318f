"""Packaging: licence, version, py.typed, ``python -m bnb_sim``, a clean setuptools build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import bnb_sim

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_license_file_matches_the_metadata():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"  # an SPDX expression, not the deprecated table
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_version_is_written_in_one_place():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "bnb_sim.__version__"}
    assert bnb_sim.__version__.count(".") >= 2


def test_py_typed_is_package_data():
    assert (ROOT / "bnb_sim" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["bnb_sim"]


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-m", "bnb_sim", "--version"],
        [sys.executable, "-c", "from bnb_sim.cli import main; main(['--version'])"],
    ],
    ids=["python -m bnb_sim", "bnb"],
)
def test_version_option(argv):
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"bnb, version {bnb_sim.__version__}"


def test_python_dash_m_runs_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "bnb_sim", "components", "validate", "nope.toml"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("bnb: error: components: nope.toml")
    help_text = subprocess.run(
        [sys.executable, "-m", "bnb_sim", "--help"], capture_output=True, text=True, env=_env()
    ).stdout
    assert "simulate" in help_text and "export" in help_text


@pytest.mark.slow
def test_wheel_builds_without_setuptools_warnings(tmp_path):
    """``pip install -e .`` and ``make`` build through setuptools: no deprecation warning, and
    the wheel ships py.typed, __main__ and the licence."""
    import shutil
    import zipfile

    src = tmp_path / "src"  # a copy, so the build leaves no egg-info in the checkout
    shutil.copytree(ROOT / "bnb_sim", src / "bnb_sim", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(tmp_path), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    log = done.stdout + done.stderr
    if done.returncode != 0 and "No matching distribution" in log:
        pytest.skip("no package index reachable for the isolated build")
    assert done.returncode == 0, log[-3000:]
    assert "deprecat" not in log.lower(), [ln for ln in log.splitlines() if "eprecat" in ln]
    (wheel,) = tmp_path.glob("bnb_sim-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bnb_sim/py.typed" in names and "bnb_sim/__main__.py" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: MIT" in meta and f"Version: {bnb_sim.__version__}" in meta
