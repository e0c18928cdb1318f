"""Rule readings in ``bnb tune`` and ``[[tune]]`` items: accepted, validated, played, recorded."""

from __future__ import annotations

import json

import pytest

from bnb_sim.analysis.experiment import parse_experiment
from bnb_sim.cli import main
from bnb_sim.errors import BnbError
from bnb_sim.tune.game_tune import plan_game_tune, play_point
from bnb_sim.tune.policy_tune import field_scores, plan_policy_tune

GAME = dict(params=["mobs.enderman.hearts=5..6"], targets=["xp_share:bonus_mobs=max"],
            players=2, policies=["greedy"], budget=800, method="grid", top=1)  # fmt: skip
POLICY = dict(against=["greedy"], players=2, budget=2000, params=["board=0..3"])


def test_plans_resolve_every_reading_with_the_designs_seating():
    plan = plan_policy_tune("heuristic", readings={"hunger": "one-by-one"}, **POLICY)
    assert plan.readings["hunger"] == "one-by-one" and plan.readings["seating"] == "fixed"
    assert plan.readings["bonus_biomes"] == "visible"  # defaults filled in
    assert plan.spec_dict()["readings"] == plan.readings  # resume compares them
    game = plan_game_tune(readings={"bonus_biomes": "built"}, variant="beginner", **GAME)
    assert game.readings["seating"] == "rotate" and game.readings["bonus_biomes"] == "built"
    assert game.variant == "beginner" and game.spec_dict()["readings"]["variant"] == "beginner"


@pytest.mark.parametrize(
    "readings, variant, needle",
    [
        ({"seating": "rotate"}, None, "seating is part of the design"),
        ({"hunger": "sometimes"}, None, "'sometimes' is not one of"),
        ({"nonsense": "x"}, None, "unknown reading 'nonsense'"),
        ({"variant": "standard"}, "beginner", "conflicts"),
        ({"variant": "beginner,standard"}, None, "one variant per player"),
    ],
)
def test_plans_refuse_bad_readings(readings, variant, needle):
    with pytest.raises(BnbError, match=needle):
        plan_policy_tune("heuristic", readings=readings, variant=variant, **POLICY)


def test_a_reading_reaches_the_games():
    """bonus_biomes=built counts fewer spaces for biome bonus mobs (R-END-1): the XP share of
    bonus mobs of the same games drops; a policy's per-seed scores change too."""
    shares = {}
    for value in ("visible", "built"):
        plan = plan_game_tune(readings={"bonus_biomes": value}, **GAME)
        point = plan.baseline()
        result = play_point(plan, point, 5, 0, 60, intervals=False, threads=1)
        shares[value] = result["targets"]["xp_share:bonus_mobs"]["value"]
    assert shares["built"] < shares["visible"]
    scores = {}
    for value in ("together", "one-by-one"):
        plan = plan_policy_tune("heuristic", readings={"hunger": value}, **POLICY)
        spec = plan.spec_for(plan.start, "candidate")
        scores[value] = field_scores(plan, spec, 9, 0, 40, threads=1)["per_seed"].tolist()
    assert scores["together"] != scores["one-by-one"]


def test_cli_tune_game_records_the_reading_and_resume_refuses_another(tmp_path, capsys):
    out = tmp_path / "g"
    args = ["tune", "game", "--param", "mobs.enderman.hearts=5..6", "--target",
            "game_length=min", "--players", "2", "--policy", "greedy", "--budget", "800",
            "--method", "grid", "--top", "1", "--seed", "3", "-q", "--out", str(out)]  # fmt: skip
    main([*args, "--reading", "bonus_biomes=built", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["readings"]["bonus_biomes"] == "built"
    assert result["readings"]["seating"] == "rotate"
    stored = json.loads((out / "tune.json").read_text())
    assert stored["spec"]["readings"]["bonus_biomes"] == "built"
    assert "bonus_biomes=built" in (out / "report.md").read_text()
    assert json.loads((out / "summary.json").read_text())["readings"]["bonus_biomes"] == "built"
    with pytest.raises(SystemExit) as exc:
        main([*args, "--resume"])  # the default reading now: a different run
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "'readings'" in err and err.count("\n") == 0


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--reading", "seating=random"], "seating is part of the design"),
        (["--reading", "hunger"], "NAME=VALUE"),
        (["--reading", "bow=never"], "'never' is not one of"),
        (["--variant", "beginner", "--reading", "variant=standard"], "conflicts"),
    ],
)
def test_cli_tune_bad_readings(tmp_path, capsys, extra, needle):
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exc:
        main(["tune", "policy", "heuristic", "--against", "greedy", "--budget", "2000",
              *extra, "--out", str(out)])  # fmt: skip
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and err.count("\n") == 0
    assert not out.exists()


def _experiment(text: str):
    import tomllib

    return parse_experiment(tomllib.loads(text), "exp.toml")


def test_experiment_tune_items_take_readings():
    exp = _experiment(
        """
[experiment]
readings = { hunger = "one-by-one" }

[[tune]]
name = "p"
against = ["greedy"]
budget = 2000
params = ["board=0..3"]
readings = { bonus_biomes = "built" }

[[tune]]
name = "g"
what = "game"
params = ["mobs.enderman.hearts=5..6"]
targets = ["game_length=min"]
policies = ["greedy"]
players = 2
budget = 800
method = "grid"
top = 1
variant = "beginner"
"""
    )
    policy, game = exp.items
    assert policy.plan.readings["hunger"] == "one-by-one"
    assert policy.plan.readings["bonus_biomes"] == "built"
    assert policy.plan.readings["seating"] == "fixed"
    assert game.plan.readings["hunger"] == "one-by-one" and game.plan.variant == "beginner"
    assert game.plan.readings["seating"] == "rotate"


@pytest.mark.parametrize(
    "extra, needle",
    [
        ('readings = { seating = "rotate" }', "seating is part of the design (fixed)"),
        ('readings = { pickaxe = "maybe" }', "'maybe' is not one of"),
    ],
)
def test_experiment_tune_items_refuse_bad_readings(extra, needle):
    with pytest.raises(BnbError) as info:
        _experiment(f'[[tune]]\nagainst = ["greedy"]\nbudget = 2000\n{extra}\n')
    assert needle in str(info.value) and "exp.toml" in str(info.value)


# --------------------------------------------------------------------------------------
# search bots: their budget, c, margin and widen are parameters like a heuristic's weights


def test_search_bot_parameters_are_tunable():
    plan = plan_policy_tune("ismcts:iterations=4,rollout=greedy", against=["random"],
                            players=2, budget=400)  # fmt: skip
    names = {p.name: p for p in plan.space.params}
    assert set(names) == {"iterations", "c", "margin", "widen"}
    assert (names["iterations"].lo, names["iterations"].hi) == (1, 12)  # an integer range
    assert plan.start["iterations"] == 4 and plan.fixed == {"rollout": "greedy"}
    text = plan.spec_text({"iterations": 7, "c": 1.25})
    assert text.startswith("ismcts:") and "iterations=7" in text and "rollout=greedy" in text
    spec = plan.spec_for({"iterations": 7, "c": 1.25}, "candidate")
    from bnb_sim.games.builders_biomes.policies.search_spec import search_settings

    settings = search_settings(spec.kind, spec.params)
    assert settings == {
        "iterations": 7, "c": 1.25, "widen": 8.0, "rollout": "greedy", "margin": 0.02
    }  # fmt: skip
    # a budget range is integer without ':int', and must be at least 1
    mc = plan_policy_tune("mc:rollouts=2", against=["random"], players=2, budget=400,
                          params=["rollouts=1..3"])  # fmt: skip
    assert type(mc.space.params[0]).__name__ == "Integer"
    with pytest.raises(BnbError, match="at least 1"):
        plan_policy_tune("mc:rollouts=2", against=["random"], players=2, budget=400,
                         params=["rollouts=0..3"])  # fmt: skip
    scores = field_scores(mc, mc.spec_for({"rollouts": 1}, "candidate"), 3, 0, 2, threads=1)
    assert scores["games"] == 4 and 0 <= scores["per_seed"].mean() <= 1


def test_a_search_bot_answer_is_a_spec_file(tmp_path):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy
    from bnb_sim.tune.policy_tune import write_weights

    plan = plan_policy_tune("mc:rollouts=2,rollout=greedy", against=["random"], players=2,
                            budget=400)  # fmt: skip
    spec = plan.spec_text({"rollouts": 3, "margin": 0.1})
    path = write_weights(tmp_path / "tuned.toml", "mc", {}, ["tuned by: test"], spec=spec)
    assert path.name == "tuned-spec.txt" and not (tmp_path / "tuned.toml").exists()
    last = path.read_text().splitlines()[-1]
    assert last == spec and parse_policy(last).params[0] == 3 and "rollouts=3," in last
