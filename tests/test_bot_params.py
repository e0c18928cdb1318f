"""Named thresholds of a bot file (``[params]``): parsed, validated, overridden from the spec
(``bot:FILE.toml:NAME=VALUE``), played as data, and tuned by ``bnb tune policy``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bnb_sim.cli import main
from bnb_sim.errors import BnbError, PolicyError
from bnb_sim.games.builders_biomes.policies.priority_compile import compile_bot, split_bot_arg
from bnb_sim.games.builders_biomes.policies.priority_layout import B_RULES, CONDITIONS, R_CONDS
from bnb_sim.games.builders_biomes.policies.registry import canonical_spec, parse_policy
from tests import engine_helpers as H

ROOT = Path(__file__).resolve().parent.parent
BUILDER = ROOT / "examples" / "bots" / "builder.toml"
FIRST_TURN = """
[params]
start_turn = { value = 1, min = 1, max = 9 }

[[turn]]
choose = "explore"
when = "turn >= start_turn"

[[turn]]
choose = "collect"
"""


def _write(tmp_path, text: str, name: str = "bot.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _first_cond(bot) -> tuple[float, float, float]:
    base = B_RULES + R_CONDS
    return tuple(bot.params[base : base + 3])


# ---- the [params] table ----------------------------------------------------------------
def test_a_threshold_stands_for_the_number_of_a_condition():
    rule = {"choose": "build", "when": "xp_lead > lead"}
    plain = compile_bot({"params": {"lead": 2}, "turn": [rule]}, "x")
    ranged = compile_bot(
        {"params": {"lead": {"value": 2, "min": 0, "max": 9}}, "turn": [rule]}, "x"
    )
    literal = compile_bot({"turn": [{"choose": "build", "when": "xp_lead > 2"}]}, "x")
    assert plain.params == ranged.params == literal.params
    assert _first_cond(plain) == (CONDITIONS["xp_lead"][0], 3.0, 1e18)  # integer: > 2 is >= 3
    (p,) = ranged.thresholds
    assert (p.name, p.value, p.lo, p.hi, p.integer) == ("lead", 2.0, 0.0, 9.0, True)
    real = compile_bot(
        {"params": {"p": 0.6}, "fight": [{"choose": "likeliest", "when": "win_prob >= p"}]}, "x"
    )
    assert real.thresholds[0].integer is False and _first_cond(real)[1] == 0.6


@pytest.mark.parametrize(
    ("params", "when", "problem"),
    [
        (
            {"lead": 2},
            "xp_lead > laed",
            "'laed' is not a number or a parameter (did you mean 'lead'?)",
        ),
        ({}, "xp_lead > lead", "'lead' is not a number or a parameter (declare it in [params])"),
        ({"lead": "two"}, "xp_lead > lead", "parameter 'lead' must be a number, got 'two'"),
        ({"lead": True}, "xp_lead > lead", "parameter 'lead' must be a number"),
        ({"lead": {"min": 0}}, "xp_lead > lead", "parameter 'lead': missing 'value'"),
        (
            {"lead": {"value": 2, "mx": 3}},
            "xp_lead > lead",
            "unknown key 'mx' (did you mean 'max'?)",
        ),
        (
            {"lead": {"value": 12, "max": 9}},
            "xp_lead > lead",
            "'lead' = 12 is outside its range [-inf, 9]",
        ),
        (
            {"lead": {"value": 2, "min": 5, "max": 1}},
            "xp_lead > lead",
            "min 5 is larger than max 1",
        ),
        ({"lead": {"value": 2, "max": 2.5}}, "xp_lead > lead", "needs whole-number min and max"),
        (
            {"lead": 2, "spare": 1},
            "xp_lead > lead",
            "parameter 'spare' is not used by any condition",
        ),
        ({"xp": 2}, "xp_lead > xp", "parameter 'xp': a condition has this name"),
        ({"lead": 9}, "xp_lead > lead and xp_lead < 3", "can never hold together"),
        ({"lead": [1]}, "xp_lead > lead", "parameter 'lead' must be a number"),
    ],
)
def test_bad_params_are_one_error_naming_file_and_key(params, when, problem):
    with pytest.raises(PolicyError) as err:
        compile_bot(
            {"params": params, "turn": [{"choose": "build", "when": when}]}, "bot file b.toml"
        )
    assert str(err.value).startswith("bot file b.toml: ") and problem in str(err.value)
    assert "\n" not in str(err.value)


def test_params_must_be_a_table(tmp_path):
    with pytest.raises(PolicyError, match="'params' must be a table"):
        parse_policy(f"bot:{_write(tmp_path, 'params = 3')}")


# ---- overrides from the spec --------------------------------------------------------------
def test_split_keeps_paths_with_colons():
    assert split_bot_arg("b.toml") == ("b.toml", "")
    assert split_bot_arg("b.toml:n=4,p=0.5") == ("b.toml", "n=4,p=0.5")
    assert split_bot_arg(r"C:\bots\b.toml") == (r"C:\bots\b.toml", "")
    assert split_bot_arg(r"C:\bots\b.toml:n=4") == (r"C:\bots\b.toml", "n=4")
    assert split_bot_arg("dir:x/b.toml") == ("dir:x/b.toml", "")
    assert canonical_spec("bot:b.toml:p=0.5,n=4") == canonical_spec("bot:b.toml:n=4.0,p=0.5")
    assert canonical_spec("bot:b.toml:n=4") != canonical_spec("bot:c.toml:n=4")


@pytest.mark.parametrize(
    ("tail", "problem"),
    [
        (
            "start_turn=3,start_trun=2",
            "unknown parameter 'start_trun' (did you mean 'start_turn'?)",
        ),
        ("start_turn=2.5", "parameter 'start_turn' must be a whole number, got 2.5"),
        ("start_turn=10", "parameter 'start_turn' = 10 is outside its range [1, 9]"),
        ("start_turn=many", "parameter 'start_turn': 'many' is not a number"),
        ("start_turn=nan", "'nan' is not a finite number"),
        ("start_turn=2,start_turn=3", "parameter 'start_turn' is given twice"),
        ("=3", "'=3' is not NAME=VALUE"),
    ],
)
def test_bad_overrides_are_one_error_naming_file_and_key(tmp_path, tail, problem):
    path = _write(tmp_path, FIRST_TURN)
    with pytest.raises(PolicyError) as err:
        parse_policy(f"bot:{path}:{tail}")
    assert str(err.value).startswith(f"bot file {path}: ") and problem in str(err.value)


def test_an_override_on_the_command_line_is_one_line_exit_2(tmp_path, capsys):
    path = _write(tmp_path, FIRST_TURN)
    with pytest.raises(SystemExit) as exit_:
        main(["play", "--policy", f"bot:{path}:start_turn=0", "--policy", "random"])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and err.count("\n") == 0 and "'start_turn' = 0 is outside" in err


def test_an_override_changes_the_decision_and_nothing_compiles(tmp_path):
    from bnb_sim.games.builders_biomes.engine.play import play_batch

    path = _write(tmp_path, FIRST_TURN)
    default = H.new_game(2, [f"bot:{path}", "random"], seating="fixed")
    assert default.policy_action() == H.EXPLORE  # turn 1 >= start_turn 1
    assert default.rule_log[-1]["rule"] == "turn[1]: explore when turn >= start_turn"
    signatures = len(play_batch.signatures)
    later = H.new_game(2, [f"bot:{path}:start_turn=2", "random"], seating="fixed")
    assert later.policy_action() == H.COLLECT  # turn 1 < 2: the first rule does not hold
    assert later.rule_log[-1]["rule"] == "turn[2]: collect"
    assert len(play_batch.signatures) == signatures  # a threshold is data, not code


def test_an_override_may_make_a_rule_never_fire():
    rule = {"choose": "build", "when": "xp_lead > lead and xp_lead < 5"}
    data = {"params": {"lead": {"value": 1, "max": 9}}, "turn": [rule]}
    bot = compile_bot(data, "x", {"lead": 8})  # the file's own value is checked strictly
    assert _first_cond(bot)[1] > _first_cond(bot)[2]  # lo > hi: never holds


def test_the_example_builder_plays_as_before_its_thresholds_had_names(tmp_path):
    """builder.toml names two thresholds; at their values it is the same program as before."""
    old = subprocess.run(["git", "show", "ef8f81d:examples/bots/builder.toml"], cwd=ROOT,
                         capture_output=True, text=True)  # fmt: skip
    if old.returncode != 0:
        pytest.skip("no git history")
    literal = parse_policy(f"bot:{_write(tmp_path, old.stdout, 'old.toml')}")
    named = parse_policy(f"bot:{BUILDER}")
    assert named.params == literal.params
    assert {p.name for p in compile_bot_file(BUILDER).thresholds} == {"max_missing", "min_win_prob"}
    assert parse_policy(f"bot:{BUILDER}:max_missing=2").params != literal.params


def compile_bot_file(path):
    from bnb_sim.games.builders_biomes.policies.priority_compile import load_bot

    return load_bot(str(path))


# ---- bnb tune policy ------------------------------------------------------------------------
def test_tune_plans_a_bot_files_thresholds(tmp_path):
    from bnb_sim.tune.policy_tune import plan_policy_tune

    plan = plan_policy_tune(f"bot:{BUILDER}", against=["random"], players=2, budget=400)
    names = {p.name: p for p in plan.space.params}
    assert type(names["max_missing"]).__name__ == "Integer"  # whole numbers stay integers
    assert (names["max_missing"].lo, names["max_missing"].hi) == (1, 12)  # the file's range
    assert (names["min_win_prob"].lo, names["min_win_prob"].hi) == (0.0, 1.0)
    assert plan.start == {"max_missing": 4, "min_win_prob": 0.9}
    text = plan.spec_text({"max_missing": 6})
    assert text == f"bot:{BUILDER}:max_missing=6,min_win_prob=0.9"
    assert parse_policy(text).params == parse_policy(f"bot:{BUILDER}:max_missing=6").params
    one = plan_policy_tune(f"bot:{BUILDER}:max_missing=3", against=["random"], players=2,
                           budget=400, params=["max_missing=2..5"])  # fmt: skip
    assert one.start == {"max_missing": 3} and one.space.names == ["max_missing"]
    with pytest.raises(BnbError, match=r"leaves the range the bot file allows, \[1, 12\]"):
        plan_policy_tune(f"bot:{BUILDER}", against=["random"], players=2, budget=400,
                         params=["max_missing=0..20"])  # fmt: skip
    with pytest.raises(BnbError, match="not a parameter of the bot file"):
        plan_policy_tune(f"bot:{BUILDER}", against=["random"], players=2, budget=400,
                         params=["max_mising=1..5"])  # fmt: skip
    bare = _write(tmp_path, "[[turn]]\nchoose = 'collect'\n")
    with pytest.raises(BnbError, match=r"no parameters to tune \(name its thresholds"):
        plan_policy_tune(f"bot:{bare}", against=["random"], players=2, budget=400)


def test_tune_policy_on_a_bot_writes_a_usable_spec(tmp_path, capsys):
    out = tmp_path / "tb"
    main(["tune", "policy", f"bot:{BUILDER}", "--against", "random", "--players", "2",
                 "--budget", "400", "--param", "max_missing=1..8", "--seed", "2",
                 "--out", str(out), "--json", "-q"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    tuned = result["tuned"]["max_missing"]
    assert isinstance(tuned, int) and 1 <= tuned <= 8
    assert result["spec"] == f"bot:{BUILDER}:max_missing={tuned},min_win_prob=0.9"
    last = (out / "tuned-spec.txt").read_text().splitlines()[-1]
    assert last == result["spec"]
    assert parse_policy(last).params == parse_policy(f"bot:{BUILDER}:max_missing={tuned}").params
    assert result["spec"] in (out / "report.md").read_text()
