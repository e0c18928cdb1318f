"""Small real runs and their reports, shared by the key-findings and first-screen tests.

Each fixture plays a few thousand games with the real engines (``bnb simulate``, compiled once
by ``bnb warmup`` in ``make test``) and writes the report the natural command writes
(``bnb report RUN --out DIR``). Session-scoped: every test file that imports a fixture
shares one run per worker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bnb_sim.cli import main


def bnb(*args) -> None:
    """``bnb ARGS`` in this process; fails the test on a non-zero exit."""
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        assert not exc.code, f"bnb {' '.join(map(str, args))} exited {exc.code}"


def _report(base: Path, simulate: list) -> dict:
    run, out = base / "run", base / "report"
    bnb("simulate", *simulate, "--out", run, "--quiet")
    bnb("report", run, "--out", out)
    return {
        "dir": out,
        "html": out / "report.html",
        "markdown": out / "report.md",
        "summary": json.loads((out / "summary.json").read_text()),
    }


@pytest.fixture(scope="session")
def mirror_report(tmp_path_factory):
    """Builders & Biomes, 3 players, every seat heuristic (a mirror match)."""
    base = tmp_path_factory.mktemp("mirror")
    return _report(base, ["-n", 2000, "--players", 3, "--policy", "heuristic", "--seed", 1])


@pytest.fixture(scope="session")
def fm_report(tmp_path_factory):
    """Farmer's Market, 3 heuristic players (the designer's question 3, smaller)."""
    base = tmp_path_factory.mktemp("fm")
    return _report(base, ["-n", 2000, "--players", 3, "--policy", "heuristic",
                          "--expansion", "farmers-market", "--seed", 3])  # fmt: skip


@pytest.fixture(scope="session")
def hotv_report(tmp_path_factory):
    """Heroes of the Village, 2 players, every pet team on the same 1,000 game indices."""
    base = tmp_path_factory.mktemp("hotv")
    return _report(base, ["--game", "hotv", "-n", 1000, "--players", 2, "--pets", "all",
                          "--policy", "team", "--seed", 4])  # fmt: skip
