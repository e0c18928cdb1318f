"""Every ``bnb ...`` command of the README and the docs runs verbatim from a fresh copy of the
repository, in the order written (a command may use what an earlier one wrote), and so does
the README's Python block.

Commands are the lines starting with ``bnb `` inside the ```sh blocks of README.md and
docs/*.md (a trailing backslash continues a line). Plain ``` blocks hold synopses and output,
which are not run. One command is known and left out: the built-in demo (``make demo``, a
few minutes); its experiment file is validated instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
SKIP = {"bnb run --builtin demo --out reports/demo"}  # make demo: validated below instead
# docs/tuning.md's worked examples run with the budgets whose results the page quotes (minutes
# each); tests/test_tune.py covers both forms of `bnb tune` with small budgets, and the README's
# `bnb tune` lines (small budgets) run here.
LONG_PAGES = {"docs/tuning.md"}


def sh_commands(text: str) -> list[str]:
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        commands += [line.strip() for line in joined.splitlines() if line.startswith("bnb ")]
    return commands


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def all_commands() -> list[tuple[str, str]]:
    return [(page, c) for page in PAGES for c in sh_commands((ROOT / page).read_text())]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the tracked files (as a fresh clone has them), with ``bnb`` on PATH.

    The package itself is imported from this checkout (``PYTHONPATH``) rather than copied:
    numba's cache is keyed on the source files' paths, so a copied package would compile
    every kernel again (minutes) without testing anything more."""
    root = tmp_path_factory.mktemp("fresh") / "bnb-sim"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    files = listed.stdout.split() if listed.returncode == 0 else []
    if not files:  # not a git checkout: copy the folders a clone has
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
        files = [f for f in files if not f.startswith((".git", ".venv", "reports/", "runs/"))]
    for name in files:
        if name.startswith("bnb_sim/"):
            continue
        if (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    shim = root.parent / "bin" / "bnb"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bnb_sim "$@"\n')
    shim.chmod(0o755)
    return root


def _env(root: Path) -> dict:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{root.parent / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "MPLBACKEND": "Agg",
    }


def test_the_commands_are_found():
    commands = [c for _, c in all_commands()]
    assert len(commands) >= 25
    for name in ("odds", "components", "play", "simulate", "report", "export", "tournament",
                 "compare", "sweep", "run"):  # fmt: skip
        assert any(c.startswith(f"bnb {name} ") for c in commands), name
    # the examples the docs name ship with the repository
    for path in ("examples/my_box.toml", "examples/experiment.toml", "examples/weights.toml"):
        assert (ROOT / path).is_file() and any(path in c for c in commands), path


@pytest.mark.slow
def test_every_documented_command_runs_verbatim(checkout):
    env = _env(checkout)
    ran = []
    for page, command in all_commands():
        if command in SKIP or page in LONG_PAGES:
            continue
        started = time.perf_counter()
        done = subprocess.run(
            ["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, f"{page}: {command}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, f"{page}: {command}\n{done.stderr[-2000:]}"
        ran.append(command)
        print(f"{time.perf_counter() - started:6.1f} s  {command}")
    assert (checkout / "reports" / "my-experiment" / "report.html").is_file()
    assert (checkout / "exports" / "demo4" / "seats.csv").is_file()
    assert (checkout / "game.svg").read_text().lstrip().startswith("<?xml")
    # the README's Python block, after the commands (it loads runs/demo4)
    for block in python_blocks((ROOT / "README.md").read_text()):
        done = subprocess.run(
            [sys.executable, "-c", block], cwd=checkout, env=env, capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
    assert len(ran) >= 25


def test_the_skipped_demo_is_a_valid_experiment():
    from bnb_sim.analysis.experiment import builtin_path, load_experiment

    assert load_experiment(builtin_path("demo")) is not None
