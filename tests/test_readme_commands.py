"""Every ``bnb ...`` command of the README runs verbatim from a fresh copy of the repository,
in the order written (its study commands in tests/test_readme_commands_b.py, beside these),
and so does the README's Python block (tests/doc_commands.py; the docs
pages' commands are tests/test_docs_commands_*.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from doc_commands import (
    ROOT,
    _env,
    all_commands,
    make_checkout,
    path_words,
    python_blocks,
    readme_part,
    run_page,
)


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
def test_every_readme_command_runs_verbatim(tmp_path_factory):
    checkout = make_checkout(tmp_path_factory)
    ran = run_page("README.md", checkout, part=0, in_process=False)  # in bash, as typed
    assert (checkout / "exports" / "demo4" / "seats.csv").is_file()
    assert (checkout / "game.svg").read_text().lstrip().startswith("<?xml")
    # the README's Python block, after the commands (it loads runs/demo4)
    for block in python_blocks((ROOT / "README.md").read_text()):
        done = subprocess.run(
            [sys.executable, "-c", block], cwd=checkout, env=_env(checkout), capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
    assert len(ran) >= 15


def test_the_two_parts_of_the_readme_share_no_file():
    """The study commands (tests/test_readme_commands_b.py) run in their own checkout: none of
    them may read what a command of the first part writes, or the reverse."""
    commands = [c for page, c in all_commands() if page == "README.md"]
    first = set().union(*(path_words(c) for c in commands if readme_part(c) == 0))
    second = set().union(*(path_words(c) for c in commands if readme_part(c) == 1))
    assert "runs/demo4" in first and "reports/my-experiment" in second
    assert not first & second, first & second
    assert sum(readme_part(c) for c in commands) >= 5


def test_the_skipped_demo_is_a_valid_experiment():
    from bnb_sim.analysis.experiment import builtin_path, load_experiment

    assert load_experiment(builtin_path("demo")) is not None
