"""scripts/time_per_game.py: CPU seconds per game of policies side by side (the time ratios
quoted in docs/policies.md, "Search with it")."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_time_per_game_prints_every_block_and_the_ratios(capsys):
    path = Path(__file__).resolve().parents[1] / "scripts" / "time_per_game.py"
    spec = importlib.util.spec_from_file_location("time_per_game", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seconds = module.main(["random", "greedy", "--games", "2", "--blocks", "2"])
    assert set(seconds) == {"random", "greedy"} and all(s >= 0 for s in seconds.values())
    lines = capsys.readouterr().out.strip().splitlines()
    # block 1 plays the policies in the reverse order (load changes fall on both alike)
    assert [line.split(":")[0] for line in lines[:4]] == [
        "block 0 random", "block 0 greedy", "block 1 greedy", "block 1 random"
    ]  # fmt: skip
    assert lines[-1].startswith("greedy: ") and "x random" in lines[-1]
