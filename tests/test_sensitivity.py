"""``bnb sensitivity``: the findings' per-game terms, the paired effects and their coverage
(calibration on synthetic data with a known truth), the two stages, the report and the CLI."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from bnb_sim.analysis import sensitivity as S
from bnb_sim.errors import BnbError, ComponentError
from bnb_sim.estimates import Estimate


def run_cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def seat_frames(winners: np.ndarray, n_seats: int, start: int = 0):
    """``(seats, games)`` frames of games ``start..`` whose winner is ``winners[g]``."""
    n = winners.size
    game = np.repeat(np.arange(start, start + n), n_seats)
    seat = np.tile(np.arange(n_seats), n)
    seats = pd.DataFrame({"game": game, "seat": seat, "won": seat == np.repeat(winners, n_seats)})
    games = pd.DataFrame({"game": np.arange(start, start + n), "turns": 20 + winners})
    return seats, games


# -- findings -----------------------------------------------------------------------------


def test_parse_finding_names_and_refuses_unknown_ones():
    assert S.parse_finding("first_player_advantage") == S.Finding("first_player_advantage")
    assert S.parse_finding("seat_win_rate:2").seat == 2
    for bad, words in [("fpa", "unknown finding"), ("seat_win_rate", "needs a seat"),
                       ("balance:1", "takes no"), ("", "must be one of")]:  # fmt: skip
        with pytest.raises(BnbError, match=words):
            S.parse_finding(bad)


def test_first_player_advantage_terms_match_the_report_estimate():
    from bnb_sim.analysis.stats import first_player_advantage

    rng = np.random.default_rng(1)
    seats, _ = seat_frames(np.random.default_rng(1).choice(3, 500, p=[0.5, 0.3, 0.2]), 3)
    winners = rng.choice(3, 500, p=[0.5, 0.3, 0.2])
    _, psi = S.per_game(S.parse_finding("first_player_advantage"), *seat_frames(winners, 3))
    assert psi.mean() == pytest.approx(first_player_advantage(seats)["value"])
    assert np.array_equal(psi, np.array([1.0, -0.5, -0.5])[winners])  # the calibration's terms


def test_team_win_rate_needs_a_won_column_in_the_games():
    seats, games = seat_frames(np.zeros(10, int), 2)
    with pytest.raises(BnbError, match="no 'won' column"):
        S.per_game(S.parse_finding("team_win_rate"), seats, games)
    _, psi = S.per_game(S.parse_finding("game_length"), seats, games)
    assert psi.tolist() == [20.0] * 10


def test_no_game_changed_has_no_interval_and_says_so():
    same = np.array([1.0, 0.0, 1.0, 0.5])
    eff = S.paired_effect(same, same)
    assert eff["effect"] == 0 and math.isnan(eff["lo"]) and eff["note"] == "no game changed"


# -- calibration: synthetic games with a known effect ------------------------------------------


def _paired_winners(rng, n, p_base, p_var, keep):
    """Winners of ``n`` baseline games and of the same games under a variant: with
    probability ``keep`` a game is unchanged (common random numbers), else redrawn."""
    base = rng.choice(3, n, p=p_base)
    redraw = rng.choice(3, n, p=p_var)
    return base, np.where(rng.random(n) < keep, base, redraw)


def _fpa(p):
    return p[0] - (p[1] + p[2]) / 2


@pytest.mark.parametrize("n", [60, 400])
def test_calibration_paired_effect_covers_the_true_effect(n):
    """Coverage of the 95% interval of a first-player-advantage effect: 93-97% over 2,000
    synthetic experiments with a known truth (small and moderate n)."""
    rng = np.random.default_rng(27)
    p_base, p_var, keep = np.array([0.5, 0.3, 0.2]), np.array([0.3, 0.35, 0.35]), 0.6
    truth = (1 - keep) * (_fpa(p_var) - _fpa(p_base))
    terms = np.array([1.0, -0.5, -0.5])  # won_0 - mean(won_1, won_2) of a game's winner
    hits, reps = 0, 2000
    for _ in range(reps):
        b, v = _paired_winners(rng, n, p_base, p_var, keep)
        eff = S.paired_effect(terms[v], terms[b])
        hits += eff["lo"] <= truth <= eff["hi"]
    assert 0.93 <= hits / reps <= 0.97, hits / reps


def test_calibration_two_stages_chosen_estimates_keep_their_coverage():
    """Estimates chosen by their screening result are measured again on fresh games: the
    final intervals of the chosen ones cover their true effects 93-97% of the time, while
    the screening intervals of the same chosen ones do not (selection bias)."""
    rng = np.random.default_rng(7)
    true = np.array([0.0, 0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.0])  # per-estimate effects
    sd, n_screen, n_final, top = 0.5, 50, 200, 2
    final_hits = screen_hits = chosen = 0
    for _ in range(700):
        screen = true + rng.normal(0, sd / math.sqrt(n_screen), true.size)
        half = 1.96 * sd / math.sqrt(n_screen)
        rows = pd.DataFrame({"key": [f"e{i}" for i in range(true.size)], "effect": screen,
                             "lo": screen - half, "hi": screen + half, "note": ""})  # fmt: skip
        for key in S.selected_keys(rows, top):
            i = int(key[1:])
            d = true[i] + rng.normal(0, sd, n_final)
            eff = S.paired_effect(d, np.zeros(n_final))
            final_hits += eff["lo"] <= true[i] <= eff["hi"]
            screen_hits += abs(screen[i] - true[i]) <= half
            chosen += 1
    assert 0.93 <= final_hits / chosen <= 0.97, final_hits / chosen
    assert screen_hits / chosen < 0.93  # why the screening numbers are not the answer


# -- the two stages, on a fake game -------------------------------------------------------------


@dataclass
class FakeComponents:
    """Two estimates: ``big`` (shifts seat 0's wins a lot at 3) and ``none`` (no effect),
    plus one whose alternative the checks refuse."""

    values: dict

    def estimate_ranges(self):
        return [
            Estimate("big", self.values["big"], low=1, high=3, reason="guess"),
            Estimate("none", self.values["none"], choices=("a", "b"), reason="guess"),
            Estimate("bad", 0, low=0, high=1, reason="guess"),
            Estimate("fixed", 5, low=5, high=5, reason="known range"),
        ]

    def with_estimate(self, key, value):
        if key == "bad":
            raise ComponentError("estimate", key, "the rules forbid it")
        return FakeComponents({**self.values, key: value})


def fake_setup(calls):
    from bnb_sim.runner.sensitivity import Setup

    def play(comps, start, n):
        calls.append((dict(comps.values), start, n))
        rng = np.random.default_rng(start)  # the same games for every variant
        u = rng.random(n)
        p0 = {1: 0.2, 2: 0.4, 3: 0.8}[comps.values["big"]]
        winners = np.where(u < p0, 0, np.where(u < p0 + (1 - p0) / 2, 1, 2))
        return seat_frames(winners, 3, start)

    comps = FakeComponents({"big": 2, "none": "a"})
    return Setup("Fake", comps, "3 players", play, {"players": 3, "seed": 0})


def test_two_stages_choose_by_screening_and_measure_on_fresh_games():
    from bnb_sim.runner.sensitivity import run_sensitivity

    calls = []
    r = run_sensitivity("first_player_advantage", fake_setup(calls), screen_games=200,
                        games=1000, top=1)  # fmt: skip
    assert r.ranking["key"].tolist() == ["big"]
    assert set(r.screen.loc[r.screen["selected"], "key"]) == {"big"}
    assert r.screen.set_index("key").loc["none", "note"] == "no game changed"
    assert r.params["skipped"][0]["key"] == "bad" and r.fixed == ["fixed"]
    finals = [c for c in calls if c[1] != 0]
    assert finals and all(start == 200 and n == 1000 for _, start, n in finals)  # fresh games
    top = r.final.set_index("value").loc["3"]
    assert top["effect"] > 0.3 and top["lo"] > r.half_width  # it hinges on "big"
    assert r.hinges["key"].unique().tolist() == ["big"]
    assert r.games_played == 4 * 200 + 3 * 1000


def test_estimate_patterns_pick_and_a_pattern_that_names_nothing_is_one_line():
    ests = FakeComponents({"big": 2, "none": "a"}).estimate_ranges()
    assert [e.key for e in S.pick(ests, ["bi*"])] == ["big"]
    with pytest.raises(BnbError, match="names no estimated value"):
        S.pick(ests, ["nothing"])


def test_report_leads_with_the_answer_and_writes_tornado_and_summary(tmp_path):
    from bnb_sim.analysis.sensitivity_report import build_sensitivity_report
    from bnb_sim.runner.sensitivity import run_sensitivity

    r = run_sensitivity("first_player_advantage", fake_setup([]), screen_games=100, games=400)
    written = build_sensitivity_report(r).write(tmp_path / "rep")
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["kind"] == "sensitivity" and summary["hinges"] == ["big"]
    assert summary["ranking"][0]["key"] == "big"
    md = (tmp_path / "rep" / "report.md").read_text()
    first = md.split("## Key findings", 1)[1].split("\n- ", 2)[1]
    assert "moves most under the estimate **big**" in first
    assert "hinges on the estimate big" in md
    assert any("tornado" in str(p) for p in written["figures"])


# -- the policy tables are shared by components that differ only where they do not read -------


def test_policy_tables_are_built_once_for_an_item_letter_change(monkeypatch):
    from bnb_sim.games.builders_biomes import run_config as config
    from bnb_sim.games.builders_biomes.components import load_components
    from bnb_sim.games.builders_biomes.policies import tables

    built = []
    monkeypatch.setattr(tables, "build_policy_tables", lambda arrays: built.append(1) or "t")
    monkeypatch.setattr(config, "_TABLES", {})
    fm = load_components(None, expansion="farmers-market")
    config._cached_tables(fm)
    config._cached_tables(fm.with_estimate("farmers_market.items.crafting_table.letter", "A"))
    assert len(built) == 1
    config._cached_tables(fm.with_estimate("weapons.stone_sword.hearts", 3))
    assert len(built) == 2


# -- the command --------------------------------------------------------------------------------


def test_cli_finds_the_crafting_table_letter_in_farmers_market(tmp_path, capsys):
    """The case of issue 27: with the shipped letter X seat 0 buys the crafting table on its
    first turn; moving the letter moves the first-player advantage beyond its interval."""
    code, out, err = run_cli(capsys, [
        "sensitivity", "--finding", "first_player_advantage", "--expansion", "farmers-market",
        "--players", "3", "--estimate", "farmers_market.items.crafting_table.letter",
        "--estimate", "farmers_market.items.minecart.letter", "--screen-games", "60",
        "--games", "300", "--top", "2", "--json", "-q", "-o", tmp_path / "r",
    ])  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["ranking"][0]["key"] == "farmers_market.items.crafting_table.letter"
    assert summary["hinges"] == ["farmers_market.items.crafting_table.letter"]
    assert summary["ranking"][0]["largest"] < -0.15


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    code, out, err = run_cli(capsys, ["sensitivity", "--finding", "fpa", "-o", tmp_path / "x"])
    assert code == 2 and "unknown finding" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(capsys, ["sensitivity", "--finding", "balance", "--estimate",
                                      "no.such.key", "-o", tmp_path / "y"])  # fmt: skip
    assert code == 2 and "names no estimated value" in err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_cli_hotv_team_win_rate(tmp_path, capsys):
    code, out, err = run_cli(capsys, [
        "sensitivity", "--game", "hotv", "--finding", "team_win_rate", "--estimate",
        "dice.fight.faces", "--estimate", "path.last_space", "--screen-games", "20",
        "--games", "40", "--top", "1", "--json", "-q", "-o", tmp_path / "h",
    ])  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["game"] == "Minecraft: Heroes of the Village"
    assert summary["finding"] == "team_win_rate" and len(summary["ranking"]) == 1


def test_cli_hotv_sensitivity_names_its_reading(tmp_path, capsys):
    """--reading reaches the game's set-up (it was parsed as a first-game reading and
    refused); the setting line and the parameters name it."""
    code, out, err = run_cli(capsys, [
        "sensitivity", "--game", "hotv", "--finding", "team_win_rate", "--estimate",
        "path.last_space", "--screen-games", "20", "--games", "40", "--top", "1", "-q",
        "--reading", "cat=first-draw", "-o", tmp_path / "h",
    ])  # fmt: skip
    assert code == 0, err
    assert "difficulty standard, reading cat=first-draw; n = 40" in out.splitlines()[0]
    summary = json.loads((tmp_path / "h" / "summary.json").read_text())
    assert "reading cat=first-draw" in json.dumps(summary)


def test_python_api_matches_the_command_and_refuses_bad_arguments(tmp_path):
    import bnb_sim
    from bnb_sim.errors import ArgumentTypeError

    r = bnb_sim.sensitivity(
        "seat_win_rate:0", players=2, estimates="weapons.stone_sword.hearts",
        screen_games=30, games=60, top=1, out=tmp_path / "api",
    )  # fmt: skip
    assert isinstance(r, bnb_sim.SensitivityResult) and r.estimates == 1
    assert (tmp_path / "api" / "summary.json").exists()
    with pytest.raises(ArgumentTypeError):
        bnb_sim.sensitivity("balance", estimates=[3])
    with pytest.raises(BnbError, match="unknown finding"):
        bnb_sim.sensitivity("nope")


def test_experiment_item_puts_the_hinge_in_the_key_findings(tmp_path, capsys):
    (tmp_path / "e.toml").write_text(
        '[experiment]\nexpansion = "farmers-market"\n\n[[sensitivity]]\nname = "fm"\n'
        'finding = "first_player_advantage"\nplayers = 3\n'
        'estimates = ["farmers_market.items.crafting_table.letter"]\n'
        "screen_games = 40\ngames = 300\ntop = 1\n"
    )
    code, out, err = run_cli(capsys, ["run", tmp_path / "e.toml", "-q", "-o", tmp_path / "r"])
    assert code == 0, err
    md = (tmp_path / "r" / "report.md").read_text()
    findings = md.split("## Key findings", 1)[1].split("\n## ", 1)[0]
    assert "fm: first_player_advantage hinges on the estimate " in findings
    assert "farmers_market.items.crafting_table.letter" in findings


def test_experiment_item_errors_name_the_file_and_key(tmp_path):
    from bnb_sim.analysis.experiment import load_experiment

    path = tmp_path / "e.toml"
    path.write_text('[[sensitivity]]\nfinding = "nope"\n')
    with pytest.raises(BnbError, match=r"sensitivity\[1\]\.finding: unknown finding"):
        load_experiment(path)
    path.write_text('[[sensitivity]]\nfinding = "balance"\nestimates = ["no.such"]\n')
    with pytest.raises(BnbError, match=r"sensitivity\[1\]\.estimates: "):
        load_experiment(path)


def test_rates_read_in_percent_and_differences_in_points():
    from bnb_sim.analysis.sensitivity_report import _interval

    @dataclass
    class Shown:
        finding: S.Finding

    team, fpa = Shown(S.parse_finding("team_win_rate")), Shown(S.parse_finding("game_length"))
    assert _interval(team, 0.811, 0.79, 0.83, 1, False) == "81.1% [79.0, 83.0]"
    assert _interval(team, -0.02, -0.03, -0.01, 1, True) == "-2.0 pp [-3.0, -1.0]"
    assert _interval(fpa, 61.2, 60.1, 62.3, 1, False) == "61.2 [60.1, 62.3]"


def test_balance_terms_average_to_the_report_balance():
    from bnb_sim.analysis.stats import balance_metric

    winners = np.random.default_rng(3).choice(4, 800, p=[0.4, 0.3, 0.2, 0.1])
    seats, games = seat_frames(winners, 4)
    _, psi = S.per_game(S.parse_finding("balance"), seats, games)
    assert psi.mean() == pytest.approx(balance_metric(seats)["value"])


def test_an_items_game_options_are_the_games_own_option_data(tmp_path):
    """A ``[[sensitivity]]`` item takes the options its game declares for ``bnb sensitivity``
    (Heroes of the Village's pets, difficulty, buildings: its OptionSpec data, read by kind);
    the first game declares none, so ``pets`` is an unknown key there."""
    from bnb_sim.analysis.experiment import load_experiment

    path = tmp_path / "e.toml"
    item = '[[sensitivity]]\nfinding = "team_win_rate"\ngame = "hotv"\nplayers = 2\n'
    path.write_text(item + 'pets = "wolf,cat"\ndifficulty = "easy"\n')
    spec = load_experiment(path).items[0]
    assert spec.options == {"pets": "wolf,cat", "difficulty": "easy"}
    path.write_text(item + 'difficulty = "brutal"\n')
    with pytest.raises(BnbError, match=r"sensitivity\[1\]\.difficulty: .*brutal"):
        load_experiment(path)
    path.write_text('[[sensitivity]]\nfinding = "balance"\npets = "wolf"\n')
    with pytest.raises(BnbError, match=r"unknown key 'sensitivity\[1\]\.pets'"):
        load_experiment(path)
    path.write_text('[[sensitivity]]\nname = "s"\nfinding = "balance"\ngame = "chess"\n')
    with pytest.raises(BnbError, match=r"e.toml: sensitivity 's'\.game: unknown game 'chess'"):
        load_experiment(path)
