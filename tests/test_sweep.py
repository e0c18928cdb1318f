"""Balance sweeps: --set parsing, variants and the baseline, paired effects, errors, CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis.sweep import (
    MAX_VARIANTS,
    build_variants,
    parse_set_option,
    split_values,
)
from bnb_sim.cli import main
from bnb_sim.errors import BnbError, ComponentError
from bnb_sim.games.builders_biomes.components import load_components

POLICIES = ["heuristic", "greedy", "random", "random"]


@pytest.fixture(scope="module")
def comps():
    return load_components()


def test_parse_set_option():
    assert parse_set_option("mobs.enderman.hearts=5,6,7") == ("mobs.enderman.hearts", [5, 6, 7])
    assert split_values('[1, 2],"a,b", c') == ["[1, 2]", '"a,b"', "c"]
    path, values = parse_set_option("mobs.enderman.tiles.1.bonus=biome.desert,type.bridge")
    assert values == ["biome.desert", "type.bridge"]
    for bad in ("mobs.enderman.hearts", "=5", "mobs.enderman.hearts=5,,6", "x=1,1"):
        with pytest.raises(ComponentError):
            parse_set_option(bad)


def test_variants_baseline_in_place_or_first(comps):
    variants = build_variants(comps, [("mobs.enderman.hearts", [5, 6, 7])])
    assert [v.name for v in variants] == [
        "mobs.enderman.hearts=5",
        "mobs.enderman.hearts=6 (baseline)",
        "mobs.enderman.hearts=7",
    ]
    assert [v.baseline for v in variants] == [False, True, False]
    assert variants[1].components is comps  # not changed, not played twice
    assert variants[0].components.mob_hearts["enderman"] == 5
    variants = build_variants(comps, [("mobs.enderman.hearts", [8, 9])])
    assert variants[0].baseline and variants[0].name == "mobs.enderman.hearts=6 (baseline)"
    assert len(variants) == 3


def test_grid_zip_and_limits(comps):
    grid = build_variants(
        comps, [("mobs.enderman.hearts", [5, 7]), ("weapons.tnt.detonate_hearts", [4, 6])]
    )
    assert len(grid) == 1 + 4
    zipped = build_variants(
        comps,
        [("mobs.enderman.hearts", [5, 7]), ("weapons.tnt.detonate_hearts", [4, 6])],
        mode="zip",
    )
    assert [v.changes for v in zipped[1:]] == [
        {"mobs.enderman.hearts": 5, "weapons.tnt.detonate_hearts": 4},
        {"mobs.enderman.hearts": 7, "weapons.tnt.detonate_hearts": 6},
    ]
    with pytest.raises(BnbError, match="same number of values"):
        build_variants(
            comps, [("mobs.enderman.hearts", [5, 7]), ("weapons.tnt.detonate_hearts", [4])], "zip"
        )
    big = [("mobs.enderman.hearts", list(range(1, 9))), ("mobs.witch.hearts", list(range(1, 9)))]
    with pytest.raises(BnbError, match=f"8 x 8 = 64 variants; the limit is {MAX_VARIANTS}"):
        build_variants(comps, big)


def test_wrong_path_or_value_names_it(comps):
    with pytest.raises(ComponentError, match="mobs.endermann.hearts.*did you mean"):
        build_variants(comps, [("mobs.endermann.hearts", [5])])
    with pytest.raises(ComponentError, match="mobs.enderman.hearts.*between 1 and 64"):
        build_variants(comps, [("mobs.enderman.hearts", [5, 0])])


def test_variants_of_plain_mapping_data_set_a_key():
    """Another game's component data (nested mappings): the shared default sets the dotted
    key in a copy, the baseline is the data's own value, a missing key is named."""
    base = {"goal": 20, "dice": {"sides": 6}}
    variants = build_variants(base, [("dice.sides", [6, 8])])
    assert [v.name for v in variants] == ["dice.sides=6 (baseline)", "dice.sides=8"]
    assert variants[0].components is base and variants[1].components["dice"]["sides"] == 8
    assert base["dice"]["sides"] == 6  # a copy was changed
    with pytest.raises(ComponentError, match="key 'dice.faces': no such key"):
        build_variants(base, [("dice.faces", [1])])


def test_a_games_own_variants_hook_lists_the_baseline_first():
    """``game_variants``: a game's ``sweep_variants`` hook labels and builds the variants;
    the first is the baseline, the rest carry the swept values."""
    from bnb_sim.analysis.sweep_variants import game_variants

    class Hooked:
        def sweep_variants(self, base, sets, mode):
            return [("file", base)] + [(f"g{v}", {**base, "g": v}) for v in sets[0][1]]

    variants = game_variants(Hooked(), {"g": 1}, [("g", [2, 3])])
    assert [(v.name, v.baseline, v.changes) for v in variants] == [
        ("file", True, {}), ("g2", False, {"g": 2}), ("g3", False, {"g": 3})
    ]  # fmt: skip
    assert variants[2].components == {"g": 3}


# --------------------------------------------------------------------------------------
# with the engine


@pytest.fixture(scope="module")
def unbeatable():
    from bnb_sim.runner.experiments import run_sweep

    return run_sweep(
        [("mobs.enderman.hearts", [6, 64])], games=400, players=4, policies=POLICIES, seed=5
    )


def test_an_unbeatable_enderman_is_never_beaten(unbeatable):
    fights = unbeatable.fights.set_index(["variant", "mob"])
    row = fights.loc[("mobs.enderman.hearts=64", "enderman")]
    assert row["k"] == 0 and row["n"] > 0  # fought, never won
    base = fights.loc[("mobs.enderman.hearts=6 (baseline)", "enderman")]
    assert base["k"] > 0
    # the other mobs are unaffected in kind (still beaten)
    assert fights.loc[("mobs.enderman.hearts=64", "spider"), "k"] > 0


def test_sweep_effects_are_paired_against_the_baseline(unbeatable):
    from bnb_sim.runner.design_play import _config
    from bnb_sim.runner.experiments import play_games

    r = unbeatable
    assert [v.name for v in r.variants] == [
        "mobs.enderman.hearts=6 (baseline)",
        "mobs.enderman.hearts=64",
    ]
    eff = r.win_effects.set_index("policy")
    assert set(eff.index) == {"heuristic", "greedy", "random"}
    assert (eff["n"] == 400).all() and (eff["lo"] <= eff["mean_diff"]).all()
    xp_eff = r.source_effects.set_index("source")
    assert xp_eff.loc["xp_mobs", "hi"] < 0  # no enderman XP any more: fewer mob XP
    # the baseline is exactly a plain simulation with the same seed
    seats, _ = play_games(_config(4, POLICIES, seed=5, seating="rotate"), 400)
    wins = seats.assign(policy=seats["policy"].astype(str)).groupby("policy")["won"].sum()
    base = r.win_rates[r.win_rates["variant"] == r.variants[0].name].set_index("policy")
    assert (base["k"] == wins.reindex(base.index)).all()


def test_sweep_report(unbeatable, tmp_path):
    from bnb_sim.analysis.sweep import build_sweep_report

    written = build_sweep_report(unbeatable).write(tmp_path / "s")
    summary = json.loads(written["summary"].read_text())
    assert summary["kind"] == "sweep" and summary["paths"] == ["mobs.enderman.hearts"]
    assert len(summary["variants"]) == 2 and summary["variants"][0]["baseline"]
    # the effect plots, not the flat per-variant lines that repeated them (issue 15)
    assert sorted(f.name for f in written["figures"]) == [
        "sweep-win-rate-effects.png",
        "sweep-xp-effects.png",
        "sweep-xp-sources.png",
    ]
    md = written["markdown"].read_text()
    assert "Change in win rate against" in md and "pp [" in md
    findings = summary["key_findings"]
    # fairness first (issue 25, item 1), then the largest effects
    assert [f["kind"] for f in findings] == [
        "fairness_change",
        "largest_win_rate_effect",
        "largest_xp_effect",
    ]
    # the largest of several effects is a selected comparison, and says so (review N2)
    assert len(summary["win_rate_effect"]) == 3  # one variant x three policies
    assert "the largest of 3 effects, an unadjusted 95% interval" in findings[1]["text"]
    assert md.index("## Key findings") < md.index("Contents:")


def test_cli_sweep(tmp_path, capsys):
    out = tmp_path / "s"
    main(
        [
            "sweep",
            "--set",
            "weapons.tnt.detonate_hearts=4,5",
            "--games",
            "60",
            "--players",
            "2",
            "--policies",
            "heuristic,greedy",
            "--out",
            str(out),
            "-q",
        ]
    )
    text = capsys.readouterr().out
    assert "weapons.tnt.detonate_hearts=5 (baseline)" in text and "change" in text
    assert text.splitlines()[1].strip().startswith("fairness")  # issue 25, item 1
    summary = json.loads((out / "summary.json").read_text())
    measures = {r["measure"] for r in summary["fairness_effect"]}
    assert measures == {"first_player_advantage", "balance", "seat_0", "seat_1"}
    assert [v["name"] for v in summary["variants"]][1].endswith("(baseline)")
    assert pd.DataFrame(summary["win_rate"])["n"].eq(60).all()


def test_cli_sweep_wrong_path_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "sweep",
                "--set",
                "mobs.endermann.hearts=5,6",
                "--games",
                "10",
                "--out",
                str(tmp_path / "never"),
            ]
        )
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'mobs.endermann.hearts'" in err
    assert not (tmp_path / "never").exists()


def _sweep_frames(games: int, rng):
    policies = ["heuristic", "random"]
    seat = np.tile([0, 1], games)
    game = np.repeat(np.arange(games), 2)
    winner = rng.random(games) < 0.02  # random wins 2% of the games
    won = np.where(seat == 0, ~winner[game], winner[game])
    seats = pd.DataFrame(
        {
            "game": game,
            "seat": seat,
            "policy": np.array(policies)[seat],
            "won": won,
            "xp": 30 + 10 * won,
        }
    )
    games_df = pd.DataFrame({"game": np.arange(games), "turns": 40, "winners": 1})
    return seats, games_df


def test_an_unchanged_variant_has_no_zero_width_effect():
    """D6: when no seed changed, the win-rate effect printed "+0.00 pp [+0.00, +0.00]"."""
    import numpy as np

    from bnb_sim.analysis.sweep import Variant, analyse_sweep, format_sweep, sweep_sections

    rng = np.random.default_rng(2)
    frames = _sweep_frames(200, rng)
    variants = [
        Variant("x=1 (baseline)", {"x": 1}, None, baseline=True),
        Variant("x=2", {"x": 2}, None),
    ]
    result = analyse_sweep(
        variants,
        {"x=1 (baseline)": frames, "x=2": frames},
        policies=["heuristic", "random"],
        players=2,
        games=200,
    )
    effect = result.win_effects.set_index("policy").loc["random"]
    assert effect["mean_diff"] == 0.0 and effect["note"] == "all differences equal"
    assert effect["lo"] == pytest.approx(-0.0188, abs=1e-3) and effect["hi"] > 0.018
    xp_effect = result.xp_effects.set_index("policy").loc["random"]
    assert np.isnan(xp_effect["lo"])  # unbounded: no interval, and it says so
    text = format_sweep(result)
    assert "[+0.00, +0.00]" not in text and "[0.00, 0.00]" not in text
    assert "no seed changed" in text
    md = "\n".join(s.to_markdown() for s in sweep_sections(result))
    assert "no interval: all differences equal" in md and "[+0.00, +0.00]" not in md


def test_cli_sweep_json_leads_with_fairness_in_a_mirror_match(tmp_path, capsys):
    """Issue 25, item 1: `bnb sweep --json` carries fairness per variant, and a mirror
    match says its per-policy win-rate change is zero by construction."""
    main(
        [
            "sweep",
            "--set",
            "mobs.enderman.hearts=6,7",
            "--games",
            "60",
            "--players",
            "2",
            "--policy",
            "heuristic",
            "--out",
            str(tmp_path / "s"),
            "--json",
            "-q",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert summary["mirror"] is True and "by construction" in summary["win_rate_effect_note"]
    assert summary["key_findings"][0]["kind"] == "fairness_change"
    kinds = [f["kind"] for f in summary["key_findings"]]
    assert "largest_win_rate_effect" not in kinds
    levels = {(r["variant"], r["measure"]) for r in summary["fairness"]}
    assert ("mobs.enderman.hearts=7", "first_player_advantage") in levels
