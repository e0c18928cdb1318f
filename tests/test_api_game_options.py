"""A game's own options in the Python API: every study takes them as keywords
(``goal=12``) and as ``options={"goal": 12}``, the same study either way; the competitive
ladder of another game plays that game; a study of another game warms that game's kernels."""

from __future__ import annotations

import json

import pytest

import bnb_sim
from bnb_sim.errors import BnbError


@pytest.fixture
def bnb_cli(capsys):
    """``bnb ARGS`` in this process; its output (exit code 0 asserted)."""
    from bnb_sim.cli import main

    def run(*args) -> str:
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            assert exc.code in (0, None), capsys.readouterr()
        return capsys.readouterr().out

    return run


def same(a, b) -> bool:
    """Equal results: tables cell by cell, anything else as JSON."""
    a, b = (x.to_dict() if hasattr(x, "to_dict") else x for x in (a, b))
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


STUDIES = {  # a cheap call of each study of the dice race, without its option
    "simulate": lambda **kw: bnb_sim.simulate(60, 2, ["steady", "bold"], game="dice", **kw),
    "tournament": lambda **kw: bnb_sim.tournament(
        ["steady", "bold"], games=30, game="dice", **kw
    ),  # fmt: skip
    "compare": lambda **kw: bnb_sim.compare(
        "bold", "steady", game="dice", max_games=60, precision=0.001, **kw
    ),  # fmt: skip
    "sweep": lambda **kw: bnb_sim.sweep(
        {"goal": [10, 30]}, games=30, game="dice", policies=["steady", "bold"], **kw
    ),  # fmt: skip
    "ladder": lambda **kw: bnb_sim.ladder(
        ["random", "steady", "bold"], games=30, game="dice", **kw
    ),  # fmt: skip
}


def numbers(result):
    """What a study found, comparable across calls."""
    if hasattr(result, "to_dict") and not hasattr(result, "steps"):
        return result.to_dict()
    for name in ("steps", "ratings", "win_effects", "difference"):
        value = getattr(result, name, None)
        if hasattr(value, "drop"):  # a table: without its timings
            return value.drop(columns=["seconds"], errors="ignore").to_dict()
        if value is not None:
            return value
    raise AssertionError(type(result).__name__)


@pytest.mark.parametrize("study", sorted(set(STUDIES) - {"sweep"}))
def test_an_option_as_a_keyword_is_the_option_in_options(study):
    """Before: simulate, tournament and compare took only ``options={...}`` (a keyword was a
    TypeError), luck, ladder, sensitivity and robustness only keywords."""
    call = STUDIES[study]
    keyword, mapping, default = call(goal=12), call(options={"goal": 12}), call()
    assert same(numbers(keyword), numbers(mapping))
    assert not same(numbers(keyword), numbers(default))  # the option reached the games


def test_a_sweep_takes_the_games_option_both_ways():
    by_keyword = STUDIES["sweep"](players=2)
    by_mapping = STUDIES["sweep"](options={}, players=2)
    assert same(by_keyword.win_effects.to_dict(), by_mapping.win_effects.to_dict())


def test_an_option_given_both_ways_is_one_line():
    for study in ("simulate", "tournament", "ladder"):
        with pytest.raises(BnbError, match="option 'goal' is given twice"):
            STUDIES[study](goal=12, options={"goal": 12})
    with pytest.raises(TypeError, match="options must be a mapping"):
        STUDIES["tournament"](options=["goal=12"])
    with pytest.raises(BnbError, match="has no option 'golo'"):
        STUDIES["tournament"](golo=12)


def test_the_python_ladder_of_another_competitive_game_plays_that_game(bnb_cli, tmp_path):
    """Before: ``bnb_sim.ladder(game="dice")`` checked the rungs against the default game
    (``unknown policy 'steady'``) and refused its option ``goal``; now it is
    ``bnb ladder --game dice``'s study, and a game without default rungs asks for them."""
    result = STUDIES["ladder"](goal=12, seed=3)
    bnb_cli("ladder", "--game", "dice", "--rungs", "random,steady,bold", "--games", "30",
            "--goal", "12", "--seed", "3", "--quiet", "--out", tmp_path / "l")  # fmt: skip
    summary = json.loads((tmp_path / "l" / "summary.json").read_text())
    assert summary["params"]["game"] == "dice_race"
    got = [(s.upper, s.lower, round(s.score, 12)) for s in result.steps.itertuples()] \
        if hasattr(result.steps, "itertuples") else None  # fmt: skip
    want = [(s["upper"], s["lower"], round(s["score"], 12)) for s in summary["steps"]]
    assert got == want
    with pytest.raises(BnbError, match="Dice race has no default rungs: give rungs"):
        bnb_sim.ladder(game="dice", games=30)


def test_a_sensitivity_study_of_another_game_warms_that_games_kernels(monkeypatch):
    """Before: ``bnb_sim.sensitivity(game="hotv")`` warmed the default game's engine first
    (minutes of compiling on an empty cache, for kernels it never played)."""
    from bnb_sim import feedback

    warmed = []
    monkeypatch.setattr(feedback, "warm_game", lambda game, *a, **k: warmed.append(game))
    bnb_sim.sensitivity("team_win_rate", game="hotv", screen_games=4, games=4, top=1,
                        estimates=["dice.*"], players=2, pets="wolf,cat")  # fmt: skip
    assert warmed == ["hotv"]


def _luck(**kw):
    return bnb_sim.luck(["random", "team"], game="hotv", groups=10, per_group=2, pair_games=0,
                        bootstrap=0, players=2, **kw)  # fmt: skip


def _robustness(**kw):
    return bnb_sim.robustness(["random", "team"], game="hotv", games=6, players=2, **kw)


@pytest.mark.parametrize(("call", "table"), [(_luck, "shares"), (_robustness, "values")])
def test_the_team_studies_take_options_as_a_mapping_too(call, table):
    """Before: ``options={"pets": ...}`` was taken as an option named ``options``."""
    keyword, mapping = call(pets="wolf,cat"), call(options={"pets": "wolf,cat"})
    assert same(getattr(keyword, table), getattr(mapping, table))
    assert not same(getattr(keyword, table), getattr(call(pets="fox,panda"), table))
