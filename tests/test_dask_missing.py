"""Dask is an extra (``bnb-sim[dask]``): without it every Dask path says how to install it in one
line (exit code 2) before anything is played or written. The missing package is simulated by
blocking its import (``sys.modules[name] = None`` makes ``import name`` raise ImportError)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bnb_sim.cli import main
from bnb_sim.errors import BnbError
from bnb_sim.runner.dask_backend import DASK_MISSING

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = "dask is not installed: pip install 'bnb-sim[dask]'"


@pytest.fixture
def no_dask(monkeypatch):
    for name in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)


def _fails_with_the_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == f"bnb: error: {MESSAGE}\n", err


@pytest.mark.parametrize("address", ["local", "tcp://127.0.0.1:8786"])
def test_simulate_says_how_to_install_dask(no_dask, tmp_path, capsys, address):
    out = tmp_path / "run"
    argv = ["simulate", "--games", "10", "--players", "2", "--policy", "random"]
    _fails_with_the_line([*argv, "--out", str(out), "--dask", address], capsys)
    assert not out.exists()


def test_heroes_of_the_village_simulate_says_how_to_install_dask(no_dask, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["simulate", "--game", "hotv", "--games", "10", "--players", "2"]
    _fails_with_the_line([*argv, "--out", str(out), "--dask", "local"], capsys)
    assert not out.exists()


def test_tune_says_how_to_install_dask(no_dask, tmp_path, capsys):
    out = tmp_path / "tune"
    argv = ["tune", "game", "--param", "mobs.enderman.hearts=5..6", "--target",
            "game_length=min", "--players", "2", "--policy", "greedy", "--budget", "2000",
            "--method", "grid", "--seed", "3", "-q"]  # fmt: skip
    _fails_with_the_line([*argv, "--out", str(out), "--dask", "local"], capsys)
    assert not out.exists()


def test_python_api_says_how_to_install_dask(no_dask):
    from bnb_sim.runner.simulate import simulate

    with pytest.raises(BnbError, match=r"^dask is not installed: pip install 'bnb-sim\[dask\]'$"):
        simulate(10, 2, "random", dask="local")


def test_a_bad_address_is_still_named_first(no_dask):
    from bnb_sim.runner.dask_backend import check_address

    with pytest.raises(BnbError, match="not a scheduler address"):
        check_address("no address")


def test_dask_is_an_extra_that_make_test_installs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("dask") for d in project["dependencies"])
    assert project["optional-dependencies"]["dask"] == ["dask[distributed]>=2024.1"]
    assert DASK_MISSING == MESSAGE
    makefile = (ROOT / "Makefile").read_text()
    assert "-e '.[dev,dask]'" in makefile
