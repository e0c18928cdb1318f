"""Heroes of the Village commands as the first game's: sweep lists, warm-up, SPRT comparisons."""

from __future__ import annotations

import json
import textwrap

import pytest

from bnb_sim.analysis.experiment import load_experiment
from bnb_sim.errors import BnbError


def run_cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- sweep --zip


def test_sweep_game_hotv_zip_of_unequal_lists_is_one_line(tmp_path, capsys):
    """``--zip`` pairs the i-th values: lists of unequal length are refused before a game is
    played, with the first game's words, not silently shortened to the shorter list."""
    out = tmp_path / "sweep"
    code, stdout, err = run_cli(capsys, [
        "sweep", "--game", "hotv", "--set", "path.start_normal=7,8,9", "--set",
        "path.start_easy=10,11", "--zip", "--games", "10", "--players", "2", "-o", out,
    ])  # fmt: skip
    assert code == 2, (stdout, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "path.start_normal: 3, path.start_easy: 2" in err and not out.exists()
    from bnb_sim.analysis.sweep import variant_combinations

    sets = [("path.start_normal", [7, 8, 9]), ("path.start_easy", [10, 11])]
    with pytest.raises(BnbError) as expected:  # the first game's check, word for word
        variant_combinations(sets, "zip")
    assert str(expected.value) in err


def test_sweep_game_hotv_zip_and_grid_of_equal_lists_still_play(capsys):
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.variants import sweep_variants

    base = load_components()
    sets = [("path.start_normal", [7, 8]), ("path.start_easy", [10, 11])]
    zipped = [label for label, _ in sweep_variants(base, sets, zip_mode=True)]
    assert zipped == ["components", "path.start_normal=7, path.start_easy=10",
                      "path.start_normal=8, path.start_easy=11"]  # fmt: skip
    assert len(sweep_variants(base, sets)) == 1 + 4
    with pytest.raises(BnbError, match="set twice"):
        sweep_variants(base, [("path.start_normal", [7]), ("path.start_normal", [8])])


def test_sweep_game_hotv_does_not_list_the_baseline_value_a_second_time():
    """``--set path.start_normal=8,9`` where 9 is the file's own value: 9 is the baseline,
    played once and labelled as the component file's, not a variant at "0.0 pp"."""
    import numpy as np

    from bnb_sim.analysis.protocol_text import sweep_table
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.variants import sweep_variants

    base = load_components()
    assert base.data["path"]["start_normal"] == 9
    variants = sweep_variants(base, [("path.start_normal", [8, 9])])
    labels = [label for label, _ in variants]
    assert labels == ["path.start_normal=9 (components)", "path.start_normal=8"]
    assert variants[0][1] is base
    won = {labels[0]: np.array([True, False, True, True]),
           labels[1]: np.array([False, False, True, True])}  # fmt: skip
    table = sweep_table(won)
    assert list(table["vs reference, paired [95% CI]"])[0] == "(reference)"
    assert (table["vs reference, paired [95% CI]"] == "(reference)").sum() == 1
    # values the file does not hold keep the plain component-file baseline first
    other = [label for label, _ in sweep_variants(base, [("path.start_normal", [7, 8])])]
    assert other == ["components", "path.start_normal=7", "path.start_normal=8"]


def test_a_team_sweep_difference_stays_within_100_points():
    """Five games, the variant lost four the reference won: the t interval of the paired
    difference would end below -100 pp; a difference of team wins cannot, so it is cut."""
    import numpy as np

    from bnb_sim.analysis.protocol_text import sweep_table

    won = {"reference": np.array([True, True, True, True, False]),
           "variant": np.array([False, False, False, False, False])}  # fmt: skip
    shown = list(sweep_table(won)["vs reference, paired [95% CI]"])[1]
    assert shown.startswith("-80.0 pp [-100.0, ")


def test_sweep_game_hotv_writes_where_o_says_and_refuses_a_full_folder(tmp_path, capsys):
    """The report goes to ``-o DIR``, as the docs say; a folder that holds files is refused
    before a game is played (one line, exit 2), as the first game's sweep refuses it."""
    out = tmp_path / "full"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, stdout, err = run_cli(capsys, [
        "sweep", "--game", "hotv", "--set", "path.start_normal=8,9", "--games", "10",
        "--players", "2", "-o", out, "--quiet",
    ])  # fmt: skip
    assert code == 2, (stdout, err)
    assert "not empty" in err and len(err.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


# ----------------------------------------------------------------------------- bnb run warm-up

HOTV_ONLY = textwrap.dedent(
    """
    [[simulation]]
    game = "hotv"
    name = "one"
    games = 20
    players = 2

    [[compare]]
    game = "hotv"
    name = "two"
    a = "team"
    b = "random"
    players = 2
    max_games = 40
    """
)


def test_bnb_run_of_hotv_items_warms_only_the_hotv_engine(tmp_path, capsys, monkeypatch):
    """The first game's engine is not compiled for a file with only Heroes items."""
    import bnb_sim.feedback
    from bnb_sim.analysis import protocol_item as P

    first_game, hotv = [], []

    def no_first_game(players, *args, **kwargs):
        first_game.append(list(players))
        return 0.0

    real = P.warm_step  # the shared items' warm-up: one game of the game's default setting

    def counted(game):
        key, step = real(game)

        def run():
            hotv.append(1)
            step()

        return key, run

    monkeypatch.setattr(bnb_sim.feedback, "warm_engine", no_first_game)
    monkeypatch.setattr(P, "warm_step", counted)
    path = tmp_path / "exp.toml"
    path.write_text(HOTV_ONLY)
    code, out, err = run_cli(capsys, ["run", path, "-o", tmp_path / "rep", "--quiet"])
    assert code == 0, err
    assert first_game == [] and hotv == [1]  # one warm-up for both items of the game


def test_experiment_warmups_name_each_engine_once(tmp_path):
    from bnb_sim.cli.run_cmd import experiment_warmups

    path = tmp_path / "exp.toml"
    path.write_text(HOTV_ONLY + textwrap.dedent(
        """
        [[simulation]]
        name = "base"
        games = 10
        players = 3
        policies = ["random"]

        [[simulation]]
        name = "base again"
        games = 10
        players = 3
        policies = ["greedy"]
        """
    ))  # fmt: skip
    keys = list(experiment_warmups(load_experiment(path).items))
    assert keys == [("heroes_village", "batch kernel"), ("builders_biomes", 3)]


# ----------------------------------------------------------------------------- compare --sprt


def test_compare_game_hotv_sprt_decides_as_the_first_games_sprt(capsys):
    """``--sprt ELO0 ELO1`` runs the first game's SPRT on the pair scores (1 + A - B)/2 of
    the game indices: it accepts H1 for team over random, H0 the other way round, and its
    decision is the one the SPRT takes on the same won/lost rows."""
    from bnb_sim.analysis.sequential import SPRT
    from bnb_sim.games.heroes_village.components import load_components
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    code, out, err = run_cli(capsys, ["compare", "--game", "hotv", "team", "random", "--players",
                                      "2", "--sprt", "0", "30", "--json"])  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    test = data["sprt"]
    assert test["decision"] == "H1"
    assert data["stopped"] == "sprt: accepted H1 (the evidence favours elo 30 over elo 0)"
    # the first block decided; the estimates are the state at the decision, the rest of the
    # block is shown apart (statistics review N3)
    assert data["games"] == test["decision_n"] == test["n"] < 2000
    assert data["after_decision"]["games"] == 2000 and test["n_played"] == 2000
    won = [
        play_block(make_config(load_components(), 2, [p], None), 0, 2000)[1]["won"].to_numpy()
        for p in ("team", "random")
    ]
    ref = SPRT(0, 30).update((1.0 + won[0].astype(float) - won[1].astype(float)) / 2.0)
    assert (ref.decision, ref.decision_n) == ("H1", test["decision_n"])
    assert test["llr"] == pytest.approx(ref.summary()["llr_at_decision"])
    assert test["llr_played"] == pytest.approx(ref.llr)
    code, out, err = run_cli(capsys, ["compare", "--game", "hotv", "random", "team", "--players",
                                      "2", "--sprt", "0", "30"])  # fmt: skip
    assert code == 0, err
    assert "stopped by sprt: accepted H0 (the evidence favours elo 0 over elo 30)" in out
    assert "random is not shown to be better by 30 Elo" in out and "LLR" in out
    assert "elo <= 0" not in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sprt", "10", "0"], "--sprt needs ELO0 < ELO1"),
        (["--sprt", "0", "10", "--precision", "0.01"], "--sprt or --precision, not both"),
        (["--alpha", "0.1"], "--alpha applies to --sprt only"),
        (["--sprt", "0", "10", "--beta", "0.7"], "--alpha and --beta must be between"),
        (["--precision", "2"], "--precision must be between 0 and 1"),
    ],
)
def test_bad_hotv_stopping_rules_are_one_line(capsys, extra, message):
    code, out, err = run_cli(capsys, ["compare", "--game", "hotv", "team", "random", *extra])
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and not out


def test_a_hotv_compare_item_takes_sprt(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text(textwrap.dedent(
        """
        [[compare]]
        game = "hotv"
        name = "sprt"
        a = "team"
        b = "random"
        players = 2
        sprt = [0, 30]
        max_games = 20000
        """
    ))  # fmt: skip
    code, out, err = run_cli(capsys, ["run", path, "-o", tmp_path / "rep", "--quiet"])
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    item = summary["items"][0] if "items" in summary else summary
    assert "sprt: accepted H1 (the evidence favours elo 30 over elo 0)" in json.dumps(item)
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "SPRT [0, 30]" in report


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("sprt = [5]", "compare 'x'.sprt: must be [ELO0, ELO1]"),
        ("sprt = [5, 1]", "compare 'x'.sprt: sprt needs ELO0 < ELO1"),
        ("sprt = [0, 5]\nprecision = 0.01", "compare 'x'.sprt: give sprt or precision"),
        ("alpha = 0.1", "compare 'x'.alpha: alpha applies to sprt only"),
    ],
)
def test_bad_hotv_compare_items_name_the_key(tmp_path, item, message):
    from experiment_helpers import refused

    text = f'[[compare]]\ngame = "hotv"\nname = "x"\na = "team"\nb = "random"\n{item}\n'
    assert message in refused(tmp_path, text)


def test_compare_game_hotv_writes_its_report_with_out(capsys, tmp_path):
    """``-o DIR`` writes the comparison's report (it was silently ignored), and a folder that
    is not empty is refused before any game is played."""
    rep = tmp_path / "rep"
    args = ["compare", "--game", "hotv", "team", "random", "--players", "2", "--max-games", "2000"]
    code, out, err = run_cli(capsys, [*args, "-o", rep, "--quiet"])
    assert code == 0, err
    summary = json.loads((rep / "summary.json").read_text())
    assert summary["kind"] == "compare" and summary["game"] == "heroes_village"
    assert summary["n_games"] == 4000 and summary["difference"]["mean_diff"] > 0
    assert "team minus random" in (rep / "report.md").read_text()
    code, out, err = run_cli(capsys, [*args, "-o", rep])
    assert code == 2 and "--force" in err


def test_n6_identical_policies_get_a_bound_stop_on_precision_and_write_strict_json(capsys):
    """Statistics review N6: A and B that never differ gave "0.0 pp (no interval)", ran
    ``--precision`` to ``--max-games`` and wrote a bare NaN into ``--json``. The interval is
    now the constant-sample bound (as ``bnb compare`` gives), precision stops on it, and the
    JSON has no NaN."""

    def no_constants(name):
        raise AssertionError(f"{name} in the JSON")

    args = ["compare", "--game", "hotv", "team", "team", "--players", "3", "--pets",
            "wolf,cat,fox", "--max-games", "6000", "--precision", "0.05",
            "--seed", "3"]  # fmt: skip
    code, out, err = run_cli(capsys, [*args, "--json"])
    assert code == 0, err
    data = json.loads(out, parse_constant=no_constants)
    diff = data["difference"]
    assert data["stopped"] == "precision" and data["games"] == 2000  # the first block
    assert diff["mean_diff"] == 0 and -0.01 < diff["lo"] < 0 < diff["hi"] < 0.01
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    assert "no interval" not in out and "never differed in 2,000 games" in out


def test_compare_tournament_and_sweep_serve_hotv_through_the_shared_protocol_handlers():
    """Issue 24: the game brings no handler of its own for these commands; the shared ones
    (bnb_sim.cli.protocol_cmds; compare: the one command body of every game,
    bnb_sim.cli.compare_cmd) serve it through its protocol object, branching on the
    outcome kind, and what the game adds is data and words (describe, sweep_variants)."""
    from bnb_sim.cli.protocol_cmds import HANDLERS, HOOKED, protocol_of
    from bnb_sim.core.protocol import describe
    from bnb_sim.games import get_game
    from bnb_sim.games.heroes_village.components import load_components

    spec = get_game("hotv")
    for command in ("compare", "tournament"):
        assert spec.entry(command) is None and command in spec.protocol_commands
        assert command in HOOKED or command == "sweep"
    # bnb sweep serves every game itself, choosing by the outcome kind (cli/sweep_cmd.py)
    assert spec.entry("sweep") is None and not HANDLERS
    game = protocol_of(spec)
    assert game.outcome == "cooperative"
    config = game.make_config(load_components(), players=3, policies=["team"], seed=0,
                              options={"pets": "wolf,cat,fox"})  # fmt: skip
    assert describe(game, config) == "3 players, pets wolf,cat,fox, standard"
    with pytest.raises(BnbError, match="one pet team"):
        game.make_config(load_components(), players=3, policies=["team"], seed=0,
                         options={"pets": "all"})  # fmt: skip
