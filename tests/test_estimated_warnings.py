"""Every report that rests on estimated component values says so, as run reports do: the
tournament, sweep, tune and Heroes of the Village sweep reports; a value a sweep or a tuning
sets on purpose (a house rule under test) is not called an estimate (issue 25, item 5)."""

from __future__ import annotations

import json

from bnb_sim.analysis.estimated import estimates_meta
from bnb_sim.cli import main

WARNING = "estimated component values"


def _warned(summary: dict) -> bool:
    return any(w.get("code") == "estimated_components" for w in summary.get("warnings", []))


def test_estimates_meta_leaves_out_the_values_set_on_purpose():
    from bnb_sim.games.builders_biomes.components import load_components

    comps = load_components()
    every = estimates_meta(comps)
    assert every["estimated_values"] == comps.n_estimates > 0
    assert "weapons.wooden_sword.hearts" in every["estimated_keys"]
    chosen = estimates_meta(comps, ["weapons.wooden_sword"])
    assert not any(k.startswith("weapons.wooden_sword.") for k in chosen["estimated_keys"])
    assert "weapons.stone_sword.hearts" in chosen["estimated_keys"]
    assert chosen["estimated_values"] < every["estimated_values"]


def test_the_sweep_report_warns_of_estimates_but_not_of_the_swept_house_rule(tmp_path, capsys):
    out = tmp_path / "s"
    main(["sweep", "--set", "weapons.wooden_sword.hearts=1,2", "--games", "30", "--players",
          "2", "--policies", "heuristic,greedy", "--out", str(out), "-q"])  # fmt: skip
    capsys.readouterr()
    md = (out / "report.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert _warned(summary) and WARNING in md
    assert "Swept values are estimates" not in md
    assert "(`weapons.wooden_sword.hearts`) are this study's settings, not estimates" in md
    warned = next(w for w in summary["warnings"] if w["code"] == "estimated_components")
    assert "weapons.wooden_sword.hearts" not in warned["message"]


def test_the_tournament_report_warns_of_estimates(tmp_path, capsys):
    out = tmp_path / "t"
    main(["tournament", "--policy", "heuristic", "--policy", "random", "--players", "2",
          "--games", "10", "--out", str(out), "-q"])  # fmt: skip
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert _warned(summary) and WARNING in (out / "report.md").read_text()


def test_the_tune_game_report_warns_of_estimates_but_not_of_the_tuned_value(tmp_path, capsys):
    out = tmp_path / "g"
    main(["tune", "game", "--param", "mobs.enderman.hearts=5..6", "--target",
          "game_length=min", "--players", "2", "--policy", "greedy", "--budget", "800",
          "--method", "grid", "--top", "1", "--seed", "3", "-q", "--out", str(out)])  # fmt: skip
    capsys.readouterr()
    md = (out / "report.md").read_text()
    assert WARNING in md and "(`mobs.enderman.hearts`) are this study's settings" in md


def test_the_hotv_sweep_report_warns_of_estimates_but_not_of_the_swept_value(tmp_path, capsys):
    out = tmp_path / "h"
    main(["sweep", "--game", "hotv", "--set", "path.last_space=11,12", "--games", "20",
          "--players", "2", "-o", str(out), "--quiet"])  # fmt: skip
    capsys.readouterr()
    md = (out / "report.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert _warned(summary) and WARNING in md
    warned = next(w for w in summary["warnings"] if w["code"] == "estimated_components")
    assert "path.last_space" not in warned["message"]
    assert "(`path.last_space`) are this study's settings, not estimates" in md
