"""``bnb luck`` for both games: the printed answer, --json, the report and its plot, the
same numbers for any thread count, and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest
from test_cli_simulate import run_cli

SMALL = ["--groups", "10", "--per-group", "4", "--bootstrap", "200", "--seed", "3", "-q"]


def _luck(capsys, tmp_path, name, *args):
    return run_cli(capsys, ["luck", *SMALL, *args, "-o", tmp_path / name])


def test_luck_bnb_json_report_and_plot(tmp_path, capsys):
    code, out, err = _luck(capsys, tmp_path, "bnb", "--rungs", "random,greedy",
                           "--pair-games", "40", "--json")  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["kind"] == "luck" and summary["rungs"] == ["random", "greedy"]
    keys = [s["source"] for s in summary["sources"]]
    assert keys == ["seats", "cube", "tiles", "tokens", "boards", "fights", "policy"]
    assert "market" not in keys  # no expansion, no market
    for rung in ("random", "greedy"):
        rows = summary["shares"][rung]
        assert [r["source"] for r in rows] == keys
        for r in rows:
            assert r["n"] == 40 and r["groups"] == 10 and r["per_group"] == 4
            assert r["lo"] is None or 0 <= r["lo"] <= r["hi"] <= 1
    (pair,) = summary["pairs"]
    assert pair["lower"] == "random" and pair["upper"] == "greedy" and pair["n"] == 40
    assert pair["fair_share"] == 0.5 and pair["p_upper"] > pair["p_lower"]
    seats, *others = summary["totals"]["greedy"]  # with interactions
    assert seats["source"] == "seats" and seats["share"] == 1.0 and "construction" in seats["note"]
    for r in others:
        assert r["n"] == 40 and (r["lo"] is None or 0 <= r["lo"] <= r["hi"] <= 1)
    # two designs per source and rung, but the seats' second is known without playing
    assert summary["n_games"] == 2 * (2 * 7 - 1) * 40 + 40
    report = (tmp_path / "bnb" / "report.md").read_text()
    assert "Luck and skill" in report and "What these numbers mean" in report
    assert list((tmp_path / "bnb").glob("*.png"))


def test_luck_bnb_prints_the_table_and_farmers_market_adds_the_market(tmp_path, capsys):
    code, out, err = _luck(capsys, tmp_path, "fm", "--rungs", "random", "--players", "3",
                           "--expansion", "farmers-market", "--outcome", "margin")  # fmt: skip
    assert code == 0, err
    assert "market" in out and "rest (combinations)" in out and "What these numbers mean" in out
    summary = json.loads((tmp_path / "fm" / "summary.json").read_text())
    assert "market" in [s["source"] for s in summary["sources"]]
    assert summary["outcome"] == "margin" and summary["pairs"] == []


def test_luck_same_numbers_for_any_thread_count(tmp_path, capsys):
    results = []
    for threads in ("1", "2"):
        code, out, err = _luck(capsys, tmp_path, f"t{threads}", "--rungs", "random",
                               "--threads", threads, "--json")  # fmt: skip
        assert code == 0, err
        results.append(json.loads(out)["summary"]["shares"])
    assert results[0] == results[1]


def test_luck_hotv(tmp_path, capsys):
    code, out, err = _luck(capsys, tmp_path, "hv", "--game", "hotv", "--rungs", "random,team",
                           "--pets", "wolf,cat,fox", "--pair-games", "40", "--json")  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert [s["source"] for s in summary["sources"]] == ["stacks", "pouch", "dice", "illager",
                                                         "policy"]  # fmt: skip
    (pair,) = summary["pairs"]
    assert pair["unit"] == "deal" and pair["n"] == 40
    assert summary["n_games"] == 2 * 2 * 5 * 40 + 2 * 40  # a deal is played by both teams


def test_luck_fixing_every_source_replays_the_game_in_each_group():
    """Fixing all sources at once makes the games of a group one game played again (the
    share is exactly 1); the design's own single-source runs keep games apart."""
    import dataclasses

    from bnb_sim.analysis.luck import anova_share
    from bnb_sim.games.builders_biomes import luck as bnb_luck
    from bnb_sim.games.builders_biomes.engine.layout import K_OPTS
    from bnb_sim.games.builders_biomes.engine.state import OPT_FIX_GROUP, OPT_FIX_SOURCES

    setup = bnb_luck.make_setup(players=3, seed=1)
    config = bnb_luck._config(setup, ["random"])
    k, *rest = config.kernel_inputs
    k = k.copy()
    k[K_OPTS + OPT_FIX_SOURCES] = 0xFF
    k[K_OPTS + OPT_FIX_GROUP] = 5
    clone = dataclasses.replace(config)
    clone.__dict__["kernel_inputs"] = (k, *rest)
    _won, xp = bnb_luck._player_results(clone, 0, 20, 1)
    assert (xp.reshape(4, 5, 3) == xp.reshape(4, 5, 3)[:, :1]).all()
    assert anova_share(xp[:, 0].reshape(4, 5)) == 1.0
    y = bnb_luck.play_fixed(setup, "random", "cube", 4, 5, threads=1)
    assert len(set(y.ravel().tolist())) > 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--outcome", "score"], "--outcome 'score'"),
        (["--rungs", "random,random"], "random"),
        (["--rungs", "nonsense"], "nonsense"),
        (["--pets", "wolf,cat,fox"], "--pets is an option of"),
        (["--game", "hotv", "--outcome", "margin"], "--outcome 'margin'"),
        (["--game", "hotv", "--pets", "all"], "one pet team"),
    ],
)
def test_luck_bad_input_is_one_line(tmp_path, capsys, args, message):
    code, out, err = _luck(capsys, tmp_path, "bad", *args)
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()


def test_luck_refuses_a_report_folder_in_use_before_playing(tmp_path, capsys):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    code, _, err = run_cli(capsys, ["luck", *SMALL, "-o", busy])
    assert code == 2 and "not empty (use --force" in err
    assert (busy / "keep.txt").read_text() == "mine"


def test_luck_python_api_gives_the_same_numbers_as_the_command(tmp_path, capsys):
    from bnb_sim.runner.luck_play import luck

    result = luck("hotv", rungs=["team"], groups=10, per_group=4, n_boot=200, seed=3,
                  pets="wolf,cat,fox")  # fmt: skip
    table = result.table()
    assert list(table["source"]) == ["stacks", "pouch", "dice", "illager", "policy", "rest"]
    code, out, err = _luck(capsys, tmp_path, "api", "--game", "hotv", "--rungs", "team",
                           "--pets", "wolf,cat,fox", "--json")  # fmt: skip
    assert code == 0, err
    shares = json.loads(out)["summary"]["shares"]["team"]
    assert [s["share"] for s in shares] == pytest.approx(list(table["share"][:5]))
