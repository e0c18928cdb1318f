"""``bnb cache``: the kernel caches are listed with their sizes, old ones are cleared, and the
command never imports numba."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bnb_sim.cache_paths import cache_dir, cache_dirs
from bnb_sim.cli import cli


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("BNB_USER_NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "bnb-sim"
    for name in ("numba-0000000000000000-bnbsim", "numba-1111111111111111-bnbsim"):
        (root / name / "pkg").mkdir(parents=True)
        (root / name / "pkg" / "kernel.nbc").write_bytes(b"x" * 1000)
    (root / "unrelated").mkdir()  # not a kernel cache: never touched
    current = cache_dir()
    (current / "k.nbi").write_bytes(b"y" * 10)
    for folder in cache_dirs():  # one folder per kernel group (each game, the shared modules)
        folder.mkdir(parents=True, exist_ok=True)
    return root, current


def test_cache_lists_every_folder_with_its_size_and_marks_the_one_in_use(cache_home):
    root, current = cache_home
    done = CliRunner().invoke(cli, ["cache", "--json"])
    assert done.exit_code == 0, done.output
    payload = json.loads(done.output)
    assert payload["root"] == str(root)
    by_path = {f["path"]: f for f in payload["folders"]}
    in_use = {str(f) for f in cache_dirs()}
    assert len(in_use) >= 3  # builders_biomes, heroes_village, shared
    assert len(by_path) == 2 + len(in_use) and str(root / "unrelated") not in by_path
    assert all(by_path[path]["current"] for path in in_use)
    assert by_path[str(current)]["bytes"] == 10
    assert by_path[str(root / "numba-0000000000000000-bnbsim")]["bytes"] == 1000
    text = CliRunner().invoke(cli, ["cache"]).output
    assert "2 old folder(s)" in text and "in use" in text


def test_clear_removes_old_folders_and_keeps_the_one_in_use(cache_home):
    root, current = cache_home
    done = CliRunner().invoke(cli, ["cache", "clear"])
    assert done.exit_code == 0, done.output
    assert "removed 2 folder(s)" in done.output
    assert current.is_dir() and (root / "unrelated").is_dir()
    assert all(folder.is_dir() for folder in cache_dirs())  # every game's kernels stay
    assert not (root / "numba-0000000000000000-bnbsim").exists()


def test_clear_all_needs_yes_when_not_interactive(cache_home):
    root, current = cache_home
    refused = CliRunner().invoke(cli, ["cache", "clear", "--all"])
    assert refused.exit_code == 2 and current.is_dir()
    assert "--yes" in refused.output
    done = CliRunner().invoke(cli, ["cache", "clear", "--all", "--yes"])
    assert done.exit_code == 0 and not current.exists()


def test_bnb_cache_does_not_import_numba(cache_home):
    code = (
        "import sys; from bnb_sim.cli import main; sys.argv = ['bnb', 'cache']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'numba' not in sys.modules, 'numba imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
