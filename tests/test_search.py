"""The search bots (mc, ismcts): no peeking, determinization, specs, reproducibility.

The most important tests here are the no-peeking ones: two states that are the same for the
acting seat but differ in everything it cannot see (cube interior, face-down tile order,
table tokens and the opponents' taken tokens, every random stream but the seat's own policy
stream) must give the same determinizations and the same decisions.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import config, new_game

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine import state as S
from bnb_sim.games.builders_biomes.policies.registry import parse_policy

SEARCH_SPECS = ("mc:rollouts=2", "ismcts:iterations=24")


# ---- what the acting seat cannot see, re-dealt in Python (independently of the engine) ----
def _tnt_type(k):
    best, best_gain = -1, None
    for t in range(k[L.K_N_TOKEN_TYPES]):
        det = k[L.K_TOK + L.TOK_DETONATE * L.MAX_TOKEN_TYPES + t]
        if det > 0:
            gain = det - k[L.K_TOK + L.TOK_HEARTS * L.MAX_TOKEN_TYPES + t]
            if best < 0 or gain > best_gain:
                best, best_gain = t, gain
    return best


def hide_differently(pub, hid, rng, k, seat, gen):
    """A state that ``seat`` cannot tell from ``(pub, hid, rng)``: hidden content permuted."""
    hid = hid.copy()
    rng = rng.copy()
    hidden = np.flatnonzero(pub[L.P_VIS_BLOCK : L.P_VIS_BLOCK + 64] == -2)
    hid[L.H_BLOCK + hidden] = gen.permutation(hid[L.H_BLOCK + hidden])
    spots = []
    for s in range(16):
        height = pub[L.P_STACK_H + s]
        for level in range(height):
            if not (level == height - 1 and pub[L.P_TOP_UP + s] >= 0):
                spots.append(L.H_STACKS + s * L.MAX_STACK_H + level)
    spots = np.array(spots, np.int64)
    if len(spots):
        hid[spots] = gen.permutation(hid[spots])
    # tokens: the table's and the opponents' taken ones change owners
    n_types = k[L.K_N_TOKEN_TYPES]
    tnt = _tnt_type(k)
    owners, types = [], []
    for slot in range(16):
        if (pub[S.C_TOKENS] >> slot) & 1:
            owners.append(("slot", slot))
            types.append(hid[L.H_TOK_SLOT + slot])
    for o in range(pub[S.C_N_PLAYERS]):
        if o == seat:
            continue
        for t in range(n_types):
            known = k[L.K_TOK + L.TOK_START * L.MAX_TOKEN_TYPES + t]
            if t == tnt:
                known = max(known - pub[L.stat_at(o, S.S_TNT)], 0)
            for _ in range(hid[L.pile_at(o, t)] - known):
                owners.append(("pile", o))
                types.append(t)
                hid[L.pile_at(o, t)] -= 1
    for (where, index), t in zip(owners, gen.permutation(np.array(types, np.int64)), strict=True):
        if where == "slot":
            hid[L.H_TOK_SLOT + index] = t
        else:
            hid[L.pile_at(index, t)] += 1
    # every stream but the seat's own policy stream: future draws differ
    for row in range(L.N_STREAM_ROWS):
        if row != L.RNG_POLICY + seat:
            rng[row] = gen.integers(1, 2**63, 4, dtype=np.uint64)
    if pub[S.C_PHASE] not in (S.PH_PICKAXE, S.PH_TNT, S.PH_BOW):
        hid[L.H_FIGHT_LEFT : L.H_FIGHT_LEFT + L.MAX_TOKEN_TYPES] = gen.integers(0, 3, 16)
    return hid, rng


def decision_points(players=2, games=2, every=3, seed=5):
    """States of real games (heuristic players) where the seat has a real choice."""
    for index in range(games):
        game = new_game(players, ["heuristic"], seed=seed, game_index=index)
        step = 0
        while not game.is_over():
            if len(game.legal_actions()) > 1 and step % every == 0:
                yield game
            step += 1
            game.apply_action(game.policy_action())


def _search_inputs(spec, players=2):
    from bnb_sim.games.builders_biomes.engine.play import MEM_SIZE
    from bnb_sim.games.builders_biomes.policies.search import new_search_scratch

    cfg = config(players, [spec])
    k, ft, kinds, params, _ = cfg.kernel_inputs
    return k, ft, kinds, params, new_search_scratch(k, kinds, params, players, MEM_SIZE)


def _decide(spec_inputs, pub, hid, rng):
    from bnb_sim.games.builders_biomes.engine.legal import legal_bits
    from bnb_sim.games.builders_biomes.engine.observation import prepare_observation
    from bnb_sim.games.builders_biomes.policies.search import search_decide

    k, ft, kinds, params, scratch = spec_inputs
    pub, hid, rng = pub.copy(), hid.copy(), rng.copy()
    seat = int(pub[S.C_SEAT])
    prepare_observation(pub, hid, seat)
    mask, pass_ok = legal_bits(pub, k)
    action = search_decide(
        kinds[0], pub, hid, rng, k, ft, params[0], seat, np.uint64(mask), pass_ok, scratch
    )
    return int(action), rng[L.RNG_POLICY + seat].copy()


def _sample(k, pub, hid, rng, seat):
    from bnb_sim.games.builders_biomes.policies.determinize import DET_SCRATCH, determinize

    rng = rng.copy()
    spub = np.zeros(L.P_SIZE, np.int64)
    shid = np.zeros(L.H_SIZE, np.int64)
    srng = np.zeros((L.N_STREAM_ROWS, 4), np.uint64)
    tmp = np.zeros(DET_SCRATCH, np.int64)
    determinize(pub, hid, k, seat, rng, L.RNG_POLICY + seat, spub, shid, srng, tmp)
    return spub, shid, srng


# ---- no peeking -----------------------------------------------------------------------------
def test_determinization_does_not_depend_on_what_the_seat_cannot_see():
    gen = np.random.default_rng(1)
    changed = 0
    for game in decision_points(players=3, games=2, every=2):
        pub, hid, rng, k = game._pub, game._hid, game._rng, game._k
        seat = int(pub[S.C_SEAT])
        other_hid, other_rng = hide_differently(pub, hid, rng, k, seat, gen)
        changed += not np.array_equal(other_hid[: L.H_SIZE], hid[: L.H_SIZE])
        a = _sample(k, pub, hid, rng, seat)
        b = _sample(k, pub, other_hid, other_rng, seat)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert changed > 20  # the hidden content really differed


@pytest.mark.parametrize("spec", SEARCH_SPECS)
def test_search_decisions_do_not_depend_on_what_the_seat_cannot_see(spec):
    gen = np.random.default_rng(2)
    inputs = _search_inputs(spec)
    points = 0
    for game in decision_points(players=2, games=1, every=4):
        pub, hid, rng, k = game._pub, game._hid, game._rng, game._k
        seat = int(pub[S.C_SEAT])
        other_hid, other_rng = hide_differently(pub, hid, rng, k, seat, gen)
        action, stream = _decide(inputs, pub, hid, rng)
        other_action, other_stream = _decide(inputs, pub, other_hid, other_rng)
        assert action == other_action
        np.testing.assert_array_equal(stream, other_stream)
        points += 1
    assert points > 10


@pytest.mark.parametrize("spec", SEARCH_SPECS)
def test_search_decisions_do_depend_on_the_own_policy_stream(spec):
    """Control for the test above: the decision is not a constant."""
    inputs = _search_inputs(spec)
    differ = 0
    for game in decision_points(players=2, games=1, every=4):
        pub, hid, rng = game._pub, game._hid, game._rng
        seat = int(pub[S.C_SEAT])
        other = rng.copy()
        other[L.RNG_POLICY + seat] = np.random.default_rng(differ).integers(1, 2**63, 4, np.uint64)
        differ += (
            _decide(inputs, pub, hid, rng)[1].tolist()
            != _decide(inputs, pub, hid, other)[1].tolist()
        )
    assert differ > 0


def test_determinization_keeps_the_public_state_and_the_own_pile():
    for game in decision_points(players=3, games=1, every=3):
        pub, hid, rng, k = game._pub, game._hid, game._rng, game._k
        seat = int(pub[S.C_SEAT])
        spub, shid, _ = _sample(k, pub, hid, rng, seat)
        np.testing.assert_array_equal(spub, pub)
        own = slice(L.pile_at(seat, 0), L.pile_at(seat, 0) + L.MAX_TOKEN_TYPES)
        np.testing.assert_array_equal(shid[own], hid[own])
        hidden = pub[L.P_VIS_BLOCK : L.P_VIS_BLOCK + 64] == -2
        blocks = hid[L.H_BLOCK : L.H_BLOCK + 64]
        sblocks = shid[L.H_BLOCK : L.H_BLOCK + 64]
        np.testing.assert_array_equal(sblocks[~hidden], blocks[~hidden])
        assert sorted(sblocks[hidden]) == sorted(blocks[hidden])
        # the opponents' piles keep their sizes, the table its tokens
        for o in range(pub[S.C_N_PLAYERS]):
            pile = slice(L.pile_at(o, 0), L.pile_at(o, 0) + L.MAX_TOKEN_TYPES)
            assert shid[pile].sum() == hid[pile].sum()
            assert (shid[pile] >= 0).all()


# ---- the tree of ismcts ----------------------------------------------------------------------
def _tree_children(spec, game):
    """After one ismcts decision: (children of the root, children of every other node)."""
    inputs = _search_inputs(spec)
    _decide(inputs, game._pub, game._hid, game._rng)
    tree_i = inputs[4][9]
    from bnb_sim.games.builders_biomes.policies.search import T_CHILD, T_NEXT

    def children(node):
        count, child = 0, tree_i[node, T_CHILD]
        while child >= 0:
            count, child = count + 1, tree_i[child, T_NEXT]
        return count

    n_nodes = int(parse_policy(spec).params[0]) + 1
    return children(0), [children(node) for node in range(1, n_nodes)]


def test_ismcts_widens_below_the_root_only_with_visits():
    """Progressive unpruning: the root tries every legal decision; a node below it holds the
    rollout policy's choice and one more child per ``widen`` visits (or a new one where none
    of its children is legal in the sample: open loop). Without it (widen=0) the tree spreads
    over untried replies from the first visits."""
    wide = {"1000000": 0, "0": 0}
    for i, game in enumerate(decision_points(players=2, games=1, every=5)):
        if i == 4:
            break
        n_legal = len(game.legal_actions())
        for widen in wide:
            root, below = _tree_children(f"ismcts:iterations=120,widen={widen}", game)
            assert root == n_legal
            wide[widen] += sum(c > 1 for c in below)
    assert 2 * wide["1000000"] < wide["0"]


def test_ismcts_below_one_visit_per_decision_plays_the_rollout_policys_choice():
    """A budget smaller than the number of legal decisions leaves every tried root child at
    one visit: the tie goes to the rollout policy's choice (node 1, expanded first), not to
    the lowest action (which made ismcts:iterations=8 lose every game to heuristic)."""
    from bnb_sim.games.builders_biomes.policies.search import T_ACTION, T_CHILD, T_NEXT

    inputs = _search_inputs("ismcts:iterations=3")
    tree_i = inputs[4][9]
    checked = not_lowest = 0
    for game in decision_points(players=2, games=1, every=2):
        if len(game.legal_actions()) < 4:
            continue
        action, _ = _decide(inputs, game._pub, game._hid, game._rng)
        assert action == tree_i[1, T_ACTION]
        tried, child = [], tree_i[0, T_CHILD]
        while child >= 0:
            tried.append(int(tree_i[child, T_ACTION]))
            child = tree_i[child, T_NEXT]
        assert len(tried) == 3
        checked += 1
        not_lowest += action != min(tried)
    assert checked > 10 and not_lowest > 0


# ---- specs and reproducibility -------------------------------------------------------------
def test_search_specs_parse_and_name_their_problems():
    spec = parse_policy("ismcts:iterations=400,c=0.7,rollout=random")
    assert spec.kind_name == "ismcts" and spec.params[:3] == (400.0, 0.7, 0.0)
    assert spec.to_dict()["search"]["rollout"] == "random"
    assert parse_policy("mc:rollouts=32,rollout=heuristic").params[0] == 32.0
    for bad, words in [
        ("mc:rollouts=0", "whole number"),
        ("mc:rollouts=2.5", "whole number"),
        ("ismcts:c=-1", "c must be"),
        ("ismcts:widen=-2", "widen must be"),
        ("ismcts:rollout=ismcts", "rollout must be one of"),
        ("mc:depth=3", "unknown parameter 'depth'"),
        ("mc:rollouts=x", "must be a number"),
    ]:
        with pytest.raises(PolicyError, match=words):
            parse_policy(bad)


@pytest.mark.slow
def test_search_games_are_the_same_for_any_thread_count_and_chunk():
    import pandas as pd

    from bnb_sim import simulate

    frames = [
        simulate(
            4,
            2,
            ["ismcts:iterations=8", "mc:rollouts=1"],
            seed=3,
            threads=threads,
            chunk_size=chunk,
        )
        for threads, chunk in ((1, 4), (2, 1))
    ]
    a, b = (f.sort_values(["game", "seat"]).reset_index(drop=True) for f in frames)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 8


# ---- the normal policy path --------------------------------------------------------------
def _cli(capsys, *argv):
    from bnb_sim.cli import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_bnb_play_runs_search_bots_and_refuses_bad_specs(capsys):
    code, out, err = _cli(
        capsys, "play", "--seed", "2", "--policy", "ismcts:iterations=4", "--policy",
        "mc:rollouts=1,rollout=random", "--json",
    )  # fmt: skip
    assert code == 0, err
    import json

    result = json.loads(out)
    assert "ismcts:iterations=4" in out and result
    code, out, err = _cli(capsys, "play", "--policy", "ismcts:iterations=0")
    assert code == 2
    assert err.strip().count("\n") == 0 and "iterations must be a whole number" in err


def test_search_bots_run_in_simulate_compare_tournament_and_experiments(capsys, tmp_path):
    """The issue's "Done when": every command that takes a policy takes a search bot."""
    import json

    ism, mc = "ismcts:iterations=2", "mc:rollouts=1,rollout=random"
    runs = tmp_path / "runs"
    code, _, err = _cli(capsys, "simulate", "-n", "2", "--policy", ism, "--policy", mc,
                        "-o", str(runs), "-q")  # fmt: skip
    assert code == 0, err
    code, out, err = _cli(capsys, "compare", ism, mc, "--precision", "0.5", "--max-games", "4",
                          "--json", "-q")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["n_games"] == 4
    tournament = tmp_path / "t"
    code, out, err = _cli(capsys, "tournament", "--policy", ism, "--policy", mc, "--games", "2",
                          "--bootstrap", "0", "-o", str(tournament), "--json", "-q")  # fmt: skip
    assert code == 0, err
    assert ism in out and mc in out
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        f'[[simulation]]\ngames = 2\nplayers = 2\npolicies = ["{ism}", "heuristic"]\n'
        f'[[compare]]\na = "{ism}"\nb = "heuristic"\nprecision = 0.5\nmax_games = 4\n'
    )
    code, _, err = _cli(capsys, "run", str(experiment), "--out", str(tmp_path / "e"), "-q")
    assert code == 0, err
    assert "ismcts" in (tmp_path / "e" / "report.md").read_text()


def test_strength_vs_budget_script_writes_intervals_and_a_plot(tmp_path):
    import importlib.util
    import pathlib

    import pandas as pd

    path = pathlib.Path(__file__).parent.parent / "scripts" / "strength_vs_budget.py"
    spec = importlib.util.spec_from_file_location("strength_vs_budget", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--budgets", "1,2", "--pairs", "2", "--threads", "1", "--out", str(tmp_path)])
    table = pd.read_csv(tmp_path / "strength.csv")
    assert table["budget"].tolist() == [1, 2] and (table["games"] == 4).all()
    assert (table["win_lo"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_hi"]).all()
    assert (table["difference_lo"] < table["difference_hi"]).all()
    assert (tmp_path / "strength.png").stat().st_size > 1000
