"""The strong bot: its model files, what it may see, determinism, and its training core.

The no-peeking test is the search bots' (tests/test_search.py): two states the acting seat
cannot tell apart (cube interior, face-down tiles, table tokens, the opponents' taken tokens and
every stream but the seat's own policy stream re-dealt) must give the same decision and leave
the seat's stream in the same state.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from engine_helpers import config, default_components, new_game
from test_search import _decide, _search_inputs, decision_points, hide_differently

from bnb_sim.errors import BnbError, PolicyError
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.policies.kinds import (
    HEURISTIC_DEFAULTS,
    N_STRONG_PARAMS,
    SEARCH_WEIGHTS,
    STRONG,
    STRONG_FEATURES,
)
from bnb_sim.games.builders_biomes.policies.registry import parse_policy
from bnb_sim.games.builders_biomes.strong_model import (
    StrongModel,
    heuristic_start,
    load_model,
    model_text,
    shipped_model,
    write_model,
)


def _heuristic_file(tmp_path, players=2):
    return write_model(heuristic_start(players), tmp_path / f"h{players}.toml")


# ---- model files ----------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_model_is_shipped_for_every_player_count(players):
    model = shipped_model(players)
    assert model.players == players and model.expansion == "none"
    assert len(model.weights) == N_STRONG_PARAMS
    assert model.training.get("summary")


def test_a_model_file_reads_back_as_written(tmp_path):
    weights = tuple(float(i) / 7 for i in range(N_STRONG_PARAMS))
    model = StrongModel(tuple(round(w, 6) for w in weights), 3, "none", {"seed": 4})
    path = write_model(model, tmp_path / "m.toml")
    again = load_model(path)
    assert again.weights == model.weights and again.players == 3
    assert model_text(again) == path.read_text(encoding="utf-8")


def _edited(tmp_path, old, new):
    text = model_text(heuristic_start(2))
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("version = 1", "version = 2", "file version 2"),
        (
            'game = "builders-biomes"',
            'game = "heroes-of-the-village"',
            "model for Minecraft: Heroes of the Village, not",
        ),
        ('game = "builders-biomes"', 'game = "chess"', "for the game 'chess'"),
        ('feature_set = "onestep-stages-1"', 'feature_set = "other"', "feature set 'other'"),
        ("players = 2", "players = 7", "players must be 2, 3 or 4"),
        ('expansion = "none"', 'expansion = "moon"', "expansion must be"),
        ("board = 1.0", 'board = "much"', "stages.before_round_a.board"),
        ("board = 1.0", "board = nan", "not a finite number"),
        ("board = 1.0", "boards = 1.0", "not a feature of this version"),
        ('format = "bnb-sim-strong"', 'format = "x"', "format is 'x'"),
    ],
)
def test_a_bad_model_file_is_refused_with_one_line(tmp_path, old, new, problem):
    path = _edited(tmp_path, old, new)
    with pytest.raises(PolicyError) as err:
        parse_policy(f"strong:{path}")
    message = str(err.value)
    assert problem in message and str(path) in message and "\n" not in message


def test_a_file_that_is_no_model_is_refused(tmp_path):
    path = tmp_path / "weights.toml"
    path.write_text("[weights]\nboard = 2\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="no \\[model\\] table"):
        parse_policy(f"strong:{path}")
    with pytest.raises(PolicyError, match="file not found"):
        parse_policy(f"strong:{tmp_path / 'missing.toml'}")


def test_a_model_for_other_players_is_refused_by_the_run(tmp_path):
    path = _heuristic_file(tmp_path, players=3)
    with pytest.raises(PolicyError, match="trained for 3 players, this run has 2"):
        config(2, [f"strong:{path}", "heuristic"])
    assert config(3, [f"strong:{path}", "heuristic"]).policies[0].kind == STRONG


def test_without_a_shipped_model_the_expansion_is_refused(monkeypatch):
    from bnb_sim.games.builders_biomes import strong_model

    monkeypatch.setattr(strong_model, "shipped_path", lambda players, expansion="none": None)
    with pytest.raises(PolicyError, match="no shipped model for 2 players with farmers-market"):
        config(2, ["strong", "heuristic"], components=None, expansion="farmers-market")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_farmers_market_has_its_own_shipped_models(players):
    policy = config(players, ["strong"] + ["heuristic"] * (players - 1), components=None,
                    expansion="farmers-market").policies[0]  # fmt: skip
    assert policy.kind == STRONG
    model = shipped_model(players, "farmers-market")
    assert (model.players, model.expansion) == (players, "farmers-market")
    assert model.weights != shipped_model(players).weights


def test_the_cli_refuses_a_bad_model_with_exit_code_2(tmp_path, capsys):
    from bnb_sim.cli import main

    path = _edited(tmp_path, "version = 1", "version = 9")
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "-n", "2", "--players", "2", "--policy", f"strong:{path}", "-q",
              "--out", str(tmp_path / "run")])  # fmt: skip
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "file version 9" in err[0]


def test_strong_takes_the_shipped_model_of_the_run():
    for players in (2, 4):
        spec = config(players, ["strong"]).policies[0]
        assert spec.params == shipped_model(players).weights
        assert spec.to_dict()["model"]["players"] == players


# ---- play -----------------------------------------------------------------------------------
def test_with_the_heuristics_weights_strong_plays_exactly_like_heuristic(tmp_path):
    from bnb_sim import simulate

    path = _heuristic_file(tmp_path)
    a = simulate(6, 2, [f"strong:{path}", "heuristic"], seed=11, threads=1)
    b = simulate(6, 2, ["heuristic", "heuristic"], seed=11, threads=1)
    cols = [c for c in a.columns if c != "policy"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_strong_games_are_the_same_for_any_thread_count_and_chunk():
    from bnb_sim import simulate

    frames = [
        simulate(6, 3, ["strong", "heuristic", "greedy"], seed=5, threads=t, chunk_size=c)
        for t, c in ((1, 6), (2, 1), (2, 4))
    ]
    first = frames[0].sort_values(["game", "seat"]).reset_index(drop=True)
    for other in frames[1:]:
        pd.testing.assert_frame_equal(
            first, other.sort_values(["game", "seat"]).reset_index(drop=True)
        )


def _strong_decide(params, pub, hid, rng, k, ft):
    from bnb_sim.games.builders_biomes.engine.legal import legal_bits
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
    from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE
    from bnb_sim.games.builders_biomes.policies.strong import choose_strong

    pub, hid, rng = pub.copy(), hid.copy(), rng.copy()
    seat = int(pub[S.C_SEAT])
    prepare_observation(pub, hid, seat)
    mask, pass_ok = legal_bits(pub, k)
    mem = np.zeros(MEM_SIZE)
    row = L.RNG_POLICY + seat
    action = choose_strong(params, pub, seat, mem, k, ft, np.uint64(mask), pass_ok, rng, row)
    return int(action), rng[row].copy()


def test_strong_decisions_do_not_depend_on_what_the_seat_cannot_see():
    gen = np.random.default_rng(8)
    params = np.array(shipped_model(2).weights)
    points = 0
    for game in decision_points(players=2, games=2, every=2):
        pub, hid, rng, k, ft = game._pub, game._hid, game._rng, game._k, game._ft
        seat = int(pub[S.C_SEAT])
        other_hid, other_rng = hide_differently(pub, hid, rng, k, seat, gen)
        assert not np.array_equal(other_hid, hid)
        action, stream = _strong_decide(params, pub, hid, rng, k, ft)
        other_action, other_stream = _strong_decide(params, pub, other_hid, other_rng, k, ft)
        assert action == other_action
        np.testing.assert_array_equal(stream, other_stream)
        points += 1
    assert points > 20


def test_strong_is_not_the_heuristic():
    """Control for the tests above: the shipped model decides differently somewhere."""
    params = np.array(shipped_model(2).weights)
    heuristic = np.array(parse_policy("heuristic").params)
    differ = 0
    for game in decision_points(players=2, games=1, every=1):
        pub, hid, rng, k, ft = game._pub, game._hid, game._rng, game._k, game._ft
        differ += _strong_decide(params, pub, hid, rng, k, ft)[0] != _heuristic(heuristic, game)
    assert differ > 0


def _heuristic(params, game):
    from bnb_sim.games.builders_biomes.engine.legal import legal_bits
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
    from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE
    from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep

    pub, hid, rng = game._pub.copy(), game._hid.copy(), game._rng.copy()
    seat = int(pub[S.C_SEAT])
    prepare_observation(pub, hid, seat)
    mask, pass_ok = legal_bits(pub, game._k)
    mem = np.zeros(MEM_SIZE)
    row = L.RNG_POLICY + seat
    return int(
        choose_onestep(
            params, pub, seat, mem, game._k, game._ft, np.uint64(mask), pass_ok, rng, row
        )
    )


def test_the_strong_bots_memory_stays_clear_of_the_others():
    from bnb_sim.games.builders_biomes.policies import onestep_layout, strong
    from bnb_sim.games.builders_biomes.policies.priority_layout import MEM_BOT

    layout = vars(onestep_layout).items()
    used = max(v for n, v in layout if n.startswith("MEM_") and isinstance(v, int))
    assert used + 64 <= strong.MEM_LEAD < strong.MEM_PACE_STAMP < MEM_BOT


def test_search_rolls_out_with_strong():
    spec = config(2, ["ismcts:iterations=8,rollout=strong", "heuristic"]).policies[0]
    assert spec.params[2] == STRONG
    assert spec.params[SEARCH_WEIGHTS:] == shipped_model(2).weights
    with pytest.raises(PolicyError, match="model= is for rollout=strong"):
        parse_policy("mc:model=x.toml")
    frame = __import__("bnb_sim").simulate(2, 2, ["mc:rollouts=1,rollout=strong", "strong"], seed=1)
    assert len(frame) == 4


@pytest.mark.parametrize(
    "spec",
    [
        "mc:rollouts=2,rollout=strong",
        "ismcts:iterations=16,rollout=strong",
        "ismcts:iterations=16,root=4,rollout=strong",
    ],
)
def test_search_with_strong_rollouts_does_not_peek(spec):
    gen = np.random.default_rng(3)
    inputs = list(_search_inputs(spec))
    params = inputs[3].copy()
    params[0, SEARCH_WEIGHTS : SEARCH_WEIGHTS + N_STRONG_PARAMS] = shipped_model(2).weights
    inputs[3] = params
    for i, game in enumerate(decision_points(players=2, games=1, every=6)):
        if i == 6:
            break
        pub, hid, rng, k = game._pub, game._hid, game._rng, game._k
        other_hid, other_rng = hide_differently(pub, hid, rng, k, int(pub[S.C_SEAT]), gen)
        action, stream = _decide(inputs, pub, hid, rng)
        other_action, other_stream = _decide(inputs, pub, other_hid, other_rng)
        assert action == other_action
        np.testing.assert_array_equal(stream, other_stream)


# ---- training -------------------------------------------------------------------------------
def _tiny_plan(**changes):
    from bnb_sim.games.builders_biomes.strong_train import plan_training

    settings = dict(
        players=2, seed=3, games=112, opponents=("heuristic", "greedy"),
        self_every=2, deals=2, population=4, check_deals=4, components=default_components(),
    )  # fmt: skip
    settings.update(changes)
    return plan_training(**settings)


def test_training_is_reproducible_and_resumes_to_the_same_file(tmp_path):
    from bnb_sim.games.builders_biomes.strong_train import train_strong

    plan = _tiny_plan()
    first = train_strong(plan, tmp_path / "a.toml", threads=1)
    # 4 candidates x 2 deals x 2 seats x (2, 2, then 3 opponents: a snapshot joins)
    assert first.generations == 3
    again = train_strong(_tiny_plan(), tmp_path / "b.toml", threads=2)
    assert (tmp_path / "a.toml").read_bytes() == (tmp_path / "b.toml").read_bytes()

    class Stop(Exception):
        pass

    def stop_after_two(info):
        if info.get("generation") == 2:
            raise Stop

    with pytest.raises(Stop):
        train_strong(_tiny_plan(), tmp_path / "c.toml", progress=stop_after_two)
    assert not (tmp_path / "c.toml").exists()
    saved = json.loads((tmp_path / "c.toml.checkpoint.json").read_text())
    assert len(saved["generations"]) == 2
    seen = []
    resumed = train_strong(_tiny_plan(), tmp_path / "c.toml", resume=True, progress=seen.append)
    assert (tmp_path / "c.toml").read_bytes() == (tmp_path / "a.toml").read_bytes()
    assert resumed.games == again.games == first.games
    model = load_model(tmp_path / "c.toml")
    assert model.training["generations"] == 3 and model.training["check"]["deals"] == 4
    assert model.weights != heuristic_start(2).weights


def test_a_resume_with_other_settings_is_refused(tmp_path):
    from bnb_sim.games.builders_biomes.strong_train import train_strong

    with pytest.raises(BnbError, match="nothing to resume"):
        train_strong(_tiny_plan(), tmp_path / "x.toml", resume=True)
    (tmp_path / "x.toml.checkpoint.json").write_text(
        json.dumps({"version": 1, "plan": {"seed": 99}, "generations": []})
    )
    with pytest.raises(BnbError, match="another training run"):
        train_strong(_tiny_plan(), tmp_path / "x.toml", resume=True)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[1, 2]", "not a checkpoint of bnb train"),  # valid JSON, not a table: no traceback
        ('{"generations": 3}', "not a checkpoint of bnb train"),
        ("{nope", "cannot read the checkpoint"),
    ],
)
def test_a_tampered_checkpoint_is_one_clear_error(tmp_path, text, problem):
    from bnb_sim.games.builders_biomes.strong_train import train_strong

    (tmp_path / "x.toml.checkpoint.json").write_text(text)
    with pytest.raises(BnbError, match=problem):
        train_strong(_tiny_plan(), tmp_path / "x.toml", resume=True)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"games": None}, "give a budget"),
        ({"games": 10}, "less than one generation"),
        ({"opponents": ("ismcts",)}, "must be a one-step bot"),
        ({"opponents": ()}, "at least one opponent"),
    ],
)
def test_bad_training_settings_are_refused(changes, problem):
    with pytest.raises(BnbError, match=problem):
        _tiny_plan(**changes)


def test_the_heuristic_start_is_the_heuristic():
    start = heuristic_start(2)
    stage = start.stage(1)
    assert [stage[n] for n in STRONG_FEATURES[: len(HEURISTIC_DEFAULTS)]] == HEURISTIC_DEFAULTS
    assert all(v == 0.0 for n, v in stage.items() if n.startswith(("bias_", "pace_")))


def test_new_game_api_plays_strong():
    game = new_game(2, ["strong", "heuristic"], seed=2)
    while not game.is_over():
        game.apply_action(game.policy_action())
    assert game.is_over()


def test_a_game_stopped_by_the_turn_limit_is_a_loss_in_training():
    """The arena scores a game that reaches the turn limit as a loss for the candidate and
    counts it, instead of stopping the training run (GameFailed)."""
    from dataclasses import replace

    from bnb_sim.games.builders_biomes.strong_train import Arena

    arena = Arena(_tiny_plan(), threads=1)
    arena.template = replace(arena.template, max_turns=10)  # no game ends within 10 turns
    heuristic = parse_policy("heuristic")
    scores = arena.scores(heuristic_start(2).weights, heuristic, seed=5, start=0, n=3)
    assert (scores == 0).all() and arena.stalled == 6  # 3 deals x 2 seats


def test_a_model_that_never_collects_still_ends_its_games(tmp_path):
    """Explore and a lost fight make a turn, so two seats that never collect would play for
    ever (the turn limit stops such a game with an error); past STALL_TURNS_PER_PLAYER the
    strong bot collects whenever it may."""
    from bnb_sim import simulate
    from bnb_sim.games.builders_biomes.policies.kinds import STRONG_STAGE_SIZE
    from bnb_sim.games.builders_biomes.policies.strong import STALL_TURNS_PER_PLAYER

    weights = list(heuristic_start(2).weights)
    for stage in range(3):
        weights[stage * STRONG_STAGE_SIZE + STRONG_FEATURES.index("bias_collect")] = -1000.0
    path = write_model(StrongModel(tuple(weights), 2), tmp_path / "lazy.toml")
    simulate(4, 2, [f"strong:{path}"], seed=1, threads=1, out=tmp_path / "run")
    turns = pd.read_parquet(tmp_path / "run" / "games")["turns"]
    # every game ended; some only because the bot collected once it was stalled
    assert len(turns) == 4 and (turns > STALL_TURNS_PER_PLAYER * 2).any()


# ---- the CLI --------------------------------------------------------------------------------
def _cli(capsys, *argv):
    from bnb_sim.cli import main

    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_bnb_train_writes_a_model_and_show_describes_it(tmp_path, capsys):
    out = tmp_path / "m.toml"
    args = ["train", "--players", "2", "--games", "200", "--deals", "1", "--check-deals", "4"]
    code, stdout, err = _cli(capsys, *args, "--seed", "2", "--out", out, "--json", "-q")
    assert code == 0, err
    payload = json.loads(stdout)
    assert payload["generations"] == 2 and load_model(out).players == 2  # 2 x 96 games
    code, _, err = _cli(capsys, *args, "--out", out, "-q")
    assert code == 2 and "--resume it or --force" in err
    code, stdout, err = _cli(capsys, "train", "show", out)
    assert code == 0 and "In words" in stdout and "pace_near" in stdout
    code, stdout, _ = _cli(capsys, "train", "show", "--json", out)
    assert json.loads(stdout)["players"] == 2
    bad = _edited(tmp_path, 'game = "builders-biomes"', 'game = "chess"')
    code, _, err = _cli(capsys, "train", "show", bad)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "'chess'" in err


def test_tuning_a_search_bot_keeps_its_rollout_model(tmp_path):
    from bnb_sim.tune.policy_tune import _policy_family

    path = _heuristic_file(tmp_path)
    family, names, _, fixed = _policy_family(f"ismcts:iterations=8,rollout=strong,model={path}")
    assert family == "ismcts" and "iterations" in names
    assert fixed == {"rollout": "strong", "model": str(path)}
    assert _policy_family("mc:rollout=strong")[3] == {"rollout": "strong"}  # the shipped one
    with pytest.raises(BnbError, match="bnb train"):
        _policy_family("strong")


def test_bnb_train_says_what_it_wrote_in_one_line(tmp_path, capsys):
    out = tmp_path / "one.toml"
    args = ["train", "--players", "2", "--games", "96", "--deals", "1", "--check-deals", "2"]
    code, stdout, err = _cli(capsys, *args, "--seed", "1", "--out", out, "-q")
    assert code == 0, err
    assert stdout.startswith(f"wrote {out}: mean score ") and "(1 generation, 100 games)" in stdout
