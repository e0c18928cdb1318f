"""Priority-list bots (``bot:FILE.toml``, docs/bots.md): the compiler's errors, the
interpreter's first-matching-legal-rule semantics, caps, fallback, conditions, determinism,
no recompilation for a new file, rule hits in runs and in ``bnb play --json``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.priority_compile import compile_bot
from bnb_sim.games.builders_biomes.policies.priority_layout import CONDITIONS
from bnb_sim.games.builders_biomes.policies.registry import parse_policy
from tests import engine_helpers as H

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "bots").glob("*.toml"))


def _bot(tmp_path, text: str, name: str = "bot.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return f"bot:{path}"


# ---- compiler ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "[[turns]]\nchoose = 'build'",
            "unknown decision kind or key 'turns' (did you mean 'turn'?)",
        ),
        (
            "[[turn]]\nchoose = 'biuld'",
            "rule turn[1]: unknown choice 'biuld' (did you mean 'build'?)",
        ),
        ("[[fight]]\nchoose = 'build'", "rule fight[1]: choice 'build' does not apply to 'fight'"),
        (
            "[[turn]]\nchoose = 'end'\n[[turn]]\nchoose = 'build'\nwhen = 'xp_led > 3'",
            "rule turn[2]: unknown condition 'xp_led' (did you mean 'xp_lead'?)",
        ),
        (
            "[[turn]]\nchoose = 'build'\nwhen = 'xp_lead > 5 and xp_lead < 3'",
            "rule turn[1]: the conditions on 'xp_lead' can never hold together",
        ),
        ("[[fight]]\nchoose = 'likeliest'\nwhen = 'win_prob > 1'", "can never hold"),
        ("[[turn]]\nchoose = 'build'\nwhen = 'turn == 2.5'", "can never hold"),
        ("[[turn]]\nchoose = 'build'\nwhen = 'xp >= many'", "'many' is not a number"),
        ("[[turn]]\nchoose = 'build'\nwhen = 3", "'when' must be a string or a list"),
        ("[[turn]]\nchoose = 'build'\nmax_per_game = 0", "'max_per_game' must be between 1"),
        ("[[turn]]\nchoose = 'build'\nmax_per_turn = 1.5", "'max_per_turn' must be a whole number"),
        ("[[turn]]\nchose = 'build'", "unknown key 'chose' (did you mean 'choose'?)"),
        ("[[turn]]\nwhen = 'xp > 1'", "rule turn[1]: missing 'choose'"),
        ("turn = 3", "'turn' must be a list of rules"),
        ("fallback = 'huristic'", "did you mean 'heuristic'?"),
        ("fallback = 'heuristic:bord=2'", "unknown weight 'bord'"),
        # it was parsed as a policy spec and its restriction silently dropped
        ("fallback = 'heuristic:board=1+never=build'", "takes no +never/+always"),
    ],
)
def test_bot_file_errors_name_file_rule_and_problem(tmp_path, text, problem):
    spec = _bot(tmp_path, text)
    with pytest.raises(PolicyError) as err:
        parse_policy(spec)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"bot file {tmp_path / 'bot.toml'}: ")
    assert problem in message


def run_cli(capsys, args) -> tuple[int, str, str]:
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_bot_file_errors_on_the_command_line_are_one_line_exit_2(tmp_path, capsys):
    spec = _bot(tmp_path, "[[turn]]\nchoose = 'build'\nwhen = 'xp_lead > 5 and xp_lead < 3'")
    code, _, err = run_cli(capsys, ["play", "--policy", spec])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "turn[1]" in lines[0] and "never hold" in lines[0]


def test_missing_bot_file_and_empty_spec():
    with pytest.raises(PolicyError, match="no such file"):
        parse_policy("bot:/nonexistent/x.toml")
    with pytest.raises(PolicyError, match="bot needs a file"):
        parse_policy("bot")


def test_compiled_rule_labels_and_intervals():
    bot = compile_bot(
        {"turn": [{"choose": "build", "when": ["xp_lead > 2", "xp_lead <= 7"], "max_per_turn": 1}]},
        "x",
    )
    assert bot.rules == ("turn[1]: build when xp_lead > 2 and xp_lead <= 7, max_per_turn=1",)
    from bnb_sim.games.builders_biomes.policies.priority_layout import B_RULES, R_CONDS

    cid, lo, hi = bot.params[B_RULES + R_CONDS : B_RULES + R_CONDS + 3]
    assert (cid, lo, hi) == (CONDITIONS["xp_lead"][0], 3.0, 7.0)  # integer: > 2 is >= 3


# ---- interpreter -----------------------------------------------------------------------
def _game(tmp_path, text, other="random", **options):
    return H.new_game(2, [_bot(tmp_path, text), other], seating="fixed", **options)


def test_first_matching_legal_rule_decides(tmp_path):
    game = _game(
        tmp_path,
        """
        [[turn]]
        choose = "fight"
        when = "mobs_adjacent >= 9"     # holds never at the start
        [[turn]]
        choose = "build"                # not legal: no blocks yet
        [[turn]]
        choose = "collect"
        [[turn]]
        choose = "explore"
        """,
    )
    assert game.current_seat == 0 and game.phase == "turn"
    assert game.policy_action() == H.COLLECT
    assert game.rule_log[-1]["rule"] == "turn[3]: collect"


def test_choices_pick_by_their_criterion(tmp_path):
    game = _game(tmp_path, "[[blocks]]\nchoose = 'emerald'\n[[blocks]]\nchoose = 'random'")
    game.apply_action(H.COLLECT)
    assert game.phase == "collect"
    legal = game.legal_actions()
    emeralds = [p for p in legal if game._pub[H.L.P_VIS_BLOCK + p] == H.L.WILD]
    action = game.policy_action()
    if emeralds:
        assert action == emeralds[0] and game.rule_log[-1]["rule"] == "blocks[1]: emerald"
    else:
        assert game.rule_log[-1]["rule"] == "blocks[2]: random" and action in legal


def test_caps_limit_a_rule(tmp_path):
    from collections import Counter

    text = """
        [[turn]]
        choose = "explore"
        max_per_game = 2
        [[blocks]]
        choose = "random"
        max_per_turn = 1
        [[pickaxe]]
        choose = "random"
        max_per_round = 1
    """
    game = H.new_game(2, [_bot(tmp_path, text), "random"], seating="fixed").play()
    hits = game.rule_hits()[0]
    assert hits["turn[1]: explore, max_per_game=2"] == 2
    blocks = [e for e in game.rule_log if e["phase"] == "collect"]
    per_turn = Counter(e["turn"] for e in blocks if e["rule"].startswith("blocks[1]"))
    assert per_turn and max(per_turn.values()) == 1
    # a collect takes several blocks: the rest of each turn's blocks fell to the fallback
    assert any(e["rule"] == "fallback" for e in blocks)
    assert set(per_turn) == {e["turn"] for e in blocks}
    picks = [e for e in game.rule_log if e["phase"] == "pickaxe"]
    per_round = Counter(e["rounds_scored"] for e in picks if e["rule"].startswith("pickaxe[1]"))
    assert all(n == 1 for n in per_round.values())


def test_a_bot_without_rules_plays_exactly_its_fallback(tmp_path):
    for fallback in ("heuristic", "greedy", "random"):
        spec = _bot(tmp_path, f"fallback = '{fallback}'\n", f"{fallback}.toml")
        a = H.new_game(2, [spec, "heuristic"], seed=3).play()
        b = H.new_game(2, [fallback, "heuristic"], seed=3).play()
        assert a.history == b.history
        assert {e["rule"] for e in a.rule_log} == {"fallback"}


def _value(game, name):
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
    from bnb_sim.games.builders_biomes.policies.priority import condition_value

    seat = game.current_seat
    prepare_observation(game._pub, game._hid, seat)
    return condition_value(CONDITIONS[name][0], game._pub, seat, game._k, game._ft)


def test_every_condition_reads_what_the_seat_sees(tmp_path):
    L, S = H.L, H.S
    game = H.new_game(2, ["heuristic"], seed=11)
    for _ in range(60):  # somewhere in the middle of a game
        game.apply_action(game.policy_action())
    while game.phase != "turn":
        game.apply_action(game.policy_action())
    pub, k, seat = game._pub, game._k, game.current_seat
    xp = [int(sum(pub[L.xp_at(s, j)] for j in range(S.N_XP))) for s in range(2)]
    pos = pub[L.P_POS + seat]
    reach, here = k[L.K_REACH_STACKS + pos], k[L.K_ADJ_STACKS + pos]
    up_b, up_m = pub[S.C_UP_BUILDINGS], pub[S.C_UP_MOBS]
    supply = [pub[L.supply_at(seat, b)] for b in range(5)]
    expected = {
        "xp": xp[seat],
        "xp_lead": xp[seat] - xp[1 - seat],
        "rounds_scored": bin(pub[S.C_ROUNDS_DONE]).count("1"),
        "turn": pub[L.stat_at(seat, S.S_TURNS)],
        "game_turn": pub[S.C_TURN],
        "actions_done": pub[S.C_ACTIONS_DONE],
        "supply": sum(supply),
        "emeralds": supply[L.WILD],
        "buildings_in_reach": bin(reach & up_b).count("1"),
        "mobs_in_reach": bin(reach & up_m).count("1"),
        "mobs_adjacent": bin(here & up_m).count("1"),
        "hunger_mobs": pub[L.P_N_HUNGER + seat],
        "bonus_mobs": pub[L.stat_at(seat, S.S_BONUS_MOBS)],
        "buildings_built": pub[L.stat_at(seat, S.S_BUILDINGS_BUILT)],
        "fights": pub[L.stat_at(seat, S.S_FIGHTS)],
        "weapons_taken": pub[L.stat_at(seat, S.S_WEAPONS_TAKEN)],
        "tiles_left": sum(pub[L.P_STACK_H : L.P_STACK_H + 16]),
    }
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation

    prepare_observation(pub, game._hid, seat)
    expected["pile"] = sum(pub[L.P_OWN_PILE : L.P_OWN_PILE + 16])
    buildings = [s for s in range(16) if (reach & up_b) >> s & 1]
    missing = []
    for s in buildings:
        cost = H.tile_cost(game, int(pub[L.P_TOP_UP + s]))
        short = sum(max(cost[m] - supply[m], 0) for m in range(4)) + cost[4]
        missing.append(max(short - supply[4], 0))
    expected["missing_blocks"] = min(missing) if missing else 99
    expected["affordable_buildings"] = sum(
        1 for s, m in zip(buildings, missing, strict=True) if m == 0 and here >> s & 1
    )
    face_down = [s for s in range(16) if pub[L.P_STACK_H + s] > 0 and not (up_b | up_m) >> s & 1]
    expected["face_down_in_reach"] = sum(1 for s in face_down if reach >> s & 1)
    row = sum(
        (pub[L.P_OWN_PILE + t] - k[L.K_PILE_MINS + t]) * k[L.K_PILE_STRIDES + t] for t in range(16)
    )
    mobs = [int(pub[L.P_TOP_UP + s]) for s in range(16) if (here & up_m) >> s & 1]
    p = [game._ft[row, H.tile_attr(game, L.TILE_HEARTS, t)] for t in mobs]
    expected["win_prob"] = max(p) if p else 0.0
    occ = int(pub[L.P_OCC]) & (2**64 - 1)
    layers = [(occ >> (16 * layer)) & 0xFFFF for layer in range(4)]
    expected["layer_blocks_left"] = bin(next((b for b in layers if b), 0)).count("1")
    from bnb_sim.games.builders_biomes.components.arrays import RULE_ACTIONS_PER_TURN

    per_turn = k[L.K_RULES + RULE_ACTIONS_PER_TURN]
    expected["extra_action"] = int(pub[S.C_ACTIONS_DONE] >= per_turn)
    for name, value in expected.items():
        assert _value(game, name) == pytest.approx(value), name
    # fight-only conditions outside a fight, and the extra-action flag on a main action
    assert _value(game, "hearts_needed") == 0 and _value(game, "tnt_revealed") == 0
    assert set(expected) | {"hearts_needed", "tnt_revealed"} == set(CONDITIONS)


def test_fight_conditions_during_a_fight(tmp_path):
    L, S = H.L, H.S
    for seed in range(40):  # the first game that reaches a decision inside a fight
        game = H.new_game(2, ["heuristic"], seed=seed, readings={"bow": "choose"})
        while not game.is_over() and game.phase not in ("tnt", "bow", "pickaxe"):
            game.apply_action(game.policy_action())
        if not game.is_over():
            break
    assert game.phase in ("tnt", "bow", "pickaxe")
    pub = game._pub
    tile = int(pub[S.C_FIGHT_TILE])
    hearts = H.tile_attr(game, L.TILE_HEARTS, tile)
    assert _value(game, "hearts_needed") == hearts - pub[S.C_FIGHT_HEARTS]
    assert _value(game, "tnt_revealed") == pub[S.C_FIGHT_TNT]
    assert _value(game, "extra_action") == pub[S.C_EXTRA]


# ---- runs ----------------------------------------------------------------------------
def test_runs_are_deterministic_and_store_rule_hits(tmp_path):
    from bnb_sim.games.builders_biomes.batch import play_block

    config = H.config(2, [f"bot:{EXAMPLES[0]}", "heuristic"], seed=4)
    one = play_block(config, 0, 40, threads=1)
    two = play_block(config, 0, 40, threads=2)
    for a, b in zip(one, two, strict=True):
        assert a.equals(b)
    seats = one[0]
    bot = seats[seats["policy"] == config.policies[0].label]
    hit_columns = [c for c in seats.columns if c.startswith("rule_hits_")]
    assert len(hit_columns) == len(config.policies[0].rules) + 1
    assert bot[hit_columns].to_numpy().sum(axis=1).min() > 0
    other = seats[seats["policy"] == "heuristic"]
    assert other[hit_columns].to_numpy().sum() == 0


def test_a_new_bot_file_compiles_nothing(tmp_path):
    from bnb_sim.games.builders_biomes.batch import play_block
    from bnb_sim.games.builders_biomes.engine.play import play_batch

    first = H.config(2, [f"bot:{EXAMPLES[0]}", "greedy"])
    play_block(first, 0, 2)
    signatures = len(play_batch.signatures)
    second = H.config(2, [_bot(tmp_path, "[[turn]]\nchoose = 'explore'\n"), "greedy"])
    play_block(second, 0, 2)
    assert len(play_batch.signatures) == signatures


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_bots_play(path):
    from bnb_sim.games.builders_biomes.batch import play_block

    assert len(EXAMPLES) >= 3
    spec = parse_policy(f"bot:{path}")
    seats, _ = play_block(H.config(2, [spec.label, "heuristic"]), 0, 20)
    mine = seats[seats["policy"] == spec.label]
    fired = mine[[f"rule_hits_{r}" for r in range(len(spec.rules))]].sum()
    assert (fired > 0).sum() >= 2  # the file's rules, not only the fallback, decide


def test_play_json_names_the_rule_of_each_decision(capsys):
    args = ["play", "--json", "--policy", f"bot:{EXAMPLES[0]}", "--policy", "greedy"]
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    payload = json.loads(out)
    rules = payload["bot_rules"]
    assert rules["decisions"] and all("rule" in d for d in rules["decisions"])
    totals = sum(sum(v.values()) for v in rules["totals"].values())
    assert totals == len(rules["decisions"])


def test_rule_hits_report_section(tmp_path):
    import pandas as pd

    from bnb_sim.analysis.report import rule_hits_section

    seats = pd.DataFrame(
        {
            "policy": ["bot:a.toml", "bot:a.toml"],
            "rule_hits_0": [3, 1],
            "rule_hits_fallback": [1, 0],
        }
    )
    meta = {
        "params": {
            "policy_specs": [{"label": "bot:a.toml", "kind": "bot", "rules": ["turn[1]: build"]}]
        }
    }
    section = rule_hits_section(seats, meta)
    assert section.summary["rule_hits"] == {"bot:a.toml": {"turn[1]: build": 4, "fallback": 1}}
    assert rule_hits_section(seats.drop(columns="rule_hits_fallback"), meta) is None
    assert np.isfinite(len(seats))


def test_experiment_files_accept_bots_and_report_their_rules(tmp_path, capsys):
    bot = EXAMPLES[0]
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        '[experiment]\ntitle = "bots"\nseed = 1\n\n[[simulation]]\nname = "bot"\n'
        f'games = 20\nplayers = 2\npolicies = ["bot:{bot}", "greedy"]\n',
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, ["run", experiment, "--out", tmp_path / "out", "-q"])
    assert code == 0, err
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "Bot rules" in report and "turn[1]: build" in report
    # the bot is named by its file's `name` (builder.toml: "builder"), not its absolute path
    assert "bot:builder: n = " in report and f"bot:{bot}: n =" not in report
    assert "bot:builder, greedy in player order" in report


def test_the_reference_documents_every_name():
    from bnb_sim.games.builders_biomes.policies.priority_layout import CAPS, CHOICES, PHASES

    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    for name in [*PHASES, *CHOICES, *CONDITIONS, *CAPS]:
        assert f"`{name}" in text, name


def test_limits_of_a_bot_file():
    rules = [{"choose": "collect"}] * 65
    with pytest.raises(PolicyError, match="65 rules, at most 64"):
        compile_bot({"turn": rules}, "bot file x.toml")
    with pytest.raises(PolicyError, match="'!=' is not supported"):
        compile_bot({"turn": [{"choose": "collect", "when": "xp != 3"}]}, "bot file x.toml")
    many = " and ".join(f"{name} >= 0" for name in list(CONDITIONS)[2:9])
    with pytest.raises(PolicyError, match="at most 6 different conditions"):
        compile_bot({"turn": [{"choose": "collect", "when": many}]}, "bot file x.toml")


def test_the_program_layout_does_not_overlap_the_fallback_weights():
    """A heuristic weight added later (the Farmer's Market's) must move the program, not
    overlap it: the weights, the fallback kind, the rule count and the phase table are apart."""
    from bnb_sim.games.builders_biomes.policies import priority_layout as L
    from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS

    starts = [0, L.B_FALLBACK, L.B_N_RULES, L.B_PHASES, L.B_RULES]
    ends = [N_PARAMS, L.B_FALLBACK + 1, L.B_N_RULES + 1, L.B_PHASES + 2 * L.N_PHASES]
    assert all(end <= start for end, start in zip(ends, starts[1:], strict=True))
