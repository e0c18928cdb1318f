"""``bnb_sim.tune_policy`` and ``bnb_sim.tune_game``: ``bnb tune policy|game`` as functions,
for every game with tune hooks (before: the only commands without a Python function). The
same arguments give the numbers of the command's ``--json`` (the tests compare them), and
with ``out`` the same files."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_third_game import bnb  # noqa: F401  (the fixture: bnb ARGS in this process)

import bnb_sim
from bnb_sim.errors import BnbError

NUMBERS = ("start", "tuned", "weights", "spec", "comparison", "best", "final", "baseline")


def _json(out: str) -> dict:
    return json.loads(out[out.index("{") :])


def _same(api: dict, cli: dict) -> None:
    for key in NUMBERS:
        if key in cli:
            assert json.dumps(api[key], sort_keys=True, default=str) == json.dumps(
                cli[key], sort_keys=True, default=str
            ), key


def test_tune_policy_gives_the_commands_numbers_and_files(bnb, tmp_path):  # noqa: F811
    api = bnb_sim.tune_policy("mix:bold=0.2", game="dice", against=["steady"], budget=800,
                              out=tmp_path / "api")  # fmt: skip
    cli = _json(bnb("tune", "policy", "mix:bold=0.2", "--game", "dice", "--against", "steady",
                    "--budget", "800", "--out", tmp_path / "cli", "--json", "-q"))  # fmt: skip
    _same(api, cli)
    assert api["tuned"]["bold"] > 0.2  # two dice score more: the share goes up from 0.2
    made = {p.name for p in (tmp_path / "api").iterdir() if not p.name.startswith(".")}
    assert {"tune.json", "tuned-spec.txt", "report.html", "summary.json"} <= made
    assert (tmp_path / "api" / "tuned-spec.txt").read_text().splitlines()[-1] == api["spec"]


def test_tune_game_of_a_cooperative_game_meets_its_target(bnb, tmp_path):  # noqa: F811
    args = dict(game="dice_team", players=2, policies=["steady"], budget=4000)
    api = bnb_sim.tune_game(["goal=5..30"], ["win_rate=0.5"], **args)  # no out: a temp folder
    cli = _json(bnb("tune", "game", "--game", "dice_team", "--param", "goal=5..30", "--target",
                    "win_rate=0.5", "--players", "2", "--policy", "steady", "--budget", "4000",
                    "--out", str(tmp_path / "t"), "--json", "-q"))  # fmt: skip
    _same(api, cli)
    assert abs(api["final"]["answer"]["targets"]["win_rate"]["value"] - 0.5) < 0.1


def test_tune_policy_of_heroes_of_the_village_is_the_commands(bnb, tmp_path):  # noqa: F811
    """The team bot's weights (issue 24's ``bnb tune policy team --game hotv``) from Python."""
    api = bnb_sim.tune_policy("team", game="hotv", players=2, budget=720,
                              params=["complete=0..8"])  # fmt: skip
    cli = _json(bnb("tune", "policy", "team", "--game", "hotv", "--players", "2", "--budget",
                    "720", "--param", "complete=0..8", "--out", tmp_path / "t", "--json",
                    "-q"))  # fmt: skip
    _same(api, cli)
    assert api["game"] == "heroes_village" and set(api["tuned"]) == {"complete"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bnb_sim.tune_policy("mix:bold=0.2", game="dice", budget=3000),
         "--against needs at least one policy"),
        (lambda: bnb_sim.tune_policy("mix", game="dice", against="steady", budget=10**9),
         "give yes=True to confirm"),
        (lambda: bnb_sim.tune_game("goal=2..12", "win_rate:steady=0.5", game="dice",
                                   budget=3000, resume=True), "resume=True needs out="),
        (lambda: bnb_sim.tune_game("goal=2..12", "nonsense", game="dice", budget=3000),
         "tune"),
        (lambda: bnb_sim.tune_policy("team", game="chess", budget=3000), "unknown game 'chess'"),
    ],
)  # fmt: skip
def test_a_bad_tuning_is_one_line_before_any_game(call, message):
    with pytest.raises(BnbError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="params must be a list of strings"):
        bnb_sim.tune_policy("mix", game="dice", against="steady", budget=3000, params=[3])


def test_the_functions_are_exported_and_import_no_numba():
    import subprocess
    import sys

    for name in ("tune_policy", "tune_game"):
        assert name in bnb_sim.__all__ and getattr(bnb_sim, name).__doc__
    code = "import sys, bnb_sim\nbnb_sim.tune_policy, bnb_sim.tune_game\nassert 'numba' not in " \
        "sys.modules, 'numba imported'\n"  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


ANY = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**7), st.floats(allow_nan=True),
                st.text(max_size=12), st.lists(st.integers(-2, 3), max_size=3),
                st.tuples(st.text(max_size=3), st.floats()))  # fmt: skip
POLICY_ARGS = ("players", "params", "seed", "population", "sigma", "seeds_per_candidate", "top",
               "sprt", "readings", "variant", "threads", "against")  # fmt: skip
GAME_ARGS = ("players", "policies", "method", "games_per_eval", "top", "explore", "neighbours",
             "seed", "readings")  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(POLICY_ARGS + GAME_ARGS), ANY, st.booleans())
@example("sigma", "a", True)
@example("sprt", ("a", "b"), True)
@example("top", "x", True)
@example("seeds_per_candidate", 0, True)
@example("neighbours", 0, False)
@example("method", "\n", False)  # a CI run found it: the message quoted the line break
def test_any_argument_value_is_one_error_line_never_a_crash(name, value, policy):
    """Before: sigma='a', sprt=('a', 'b'), top='x' and neighbours=0 raised ValueError and
    seeds_per_candidate=0 a ZeroDivisionError from inside the plan; now a TypeError or one
    BnbError line. (A budget of 1 is too small for any tuning: no call plays a game.)"""
    if policy and name in POLICY_ARGS:
        kw = {"game": "dice", "against": "steady", "budget": 1, name: value}
        call = lambda: bnb_sim.tune_policy("mix:bold=0.2", **kw)  # noqa: E731
    elif name in GAME_ARGS:
        kw = {"game": "dice", "budget": 1, name: value}
        call = lambda: bnb_sim.tune_game("goal=2..12", "win_rate:steady=0.5", **kw)  # noqa: E731
    else:
        return
    try:
        call()
    except TypeError:
        pass
    except BnbError as exc:
        assert "\n" not in str(exc)
