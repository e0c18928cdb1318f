"""``bnb tune``: the optimisers on synthetic objectives with known optima, determinism,
resuming from tune.json, the answer files, bad input, and small real runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bnb_sim.cli import main
from bnb_sim.errors import BnbError
from bnb_sim.tune.search import run_cmaes, run_grid, run_ntbea
from bnb_sim.tune.space import Categorical, Continuous, Integer, Space, discrete_param, parse_range
from bnb_sim.tune.store import TuneStore
from bnb_sim.tune.targets import Target, combined_score, parse_target

# --------------------------------------------------------------------------------------
# synthetic objectives with known optima


OPT = {"a": 0.7, "b": 2.0, "c": -1.0}
CONT = Space((Continuous("a", 0, 1), Continuous("b", 0, 4), Continuous("c", -3, 3)))


def noisy_quadratic(noise: float):
    """-10 x (distance to OPT in units of each range)^2 + Gaussian noise (fixed by the key)."""

    def evaluate(stage, block, index, p):
        rng = np.random.default_rng([block, index, 99])
        f = -10 * ((p["a"] - 0.7) ** 2 + ((p["b"] - 2) / 4) ** 2 + ((p["c"] + 1) / 6) ** 2)
        return {"score": f + rng.normal(0, noise), "se": noise, "n": 1}

    return evaluate


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cmaes_finds_the_optimum_of_a_noisy_quadratic(seed):
    start = {"a": 0.1, "b": 0.5, "c": 2.5}
    result = run_cmaes(CONT, start, noisy_quadratic(0.05), generations=40, seed=seed)
    found = result["mean"]
    # within 10% of each range (there the loss, 0.1, is two noise sds)
    assert abs(found["a"] - OPT["a"]) < 0.1
    assert abs(found["b"] - OPT["b"]) < 0.4
    assert abs(found["c"] - OPT["c"]) < 0.6


DISC = Space((Integer("x", 0, 9), Integer("y", 0, 9), Categorical("z", ("p", "q", "r", "s"))))


def noisy_l1(noise: float):
    def evaluate(stage, block, index, p):
        rng = np.random.default_rng([block, index, 7])
        f = -(abs(p["x"] - 3) + abs(p["y"] - 7) + (0 if p["z"] == "r" else 1.5))
        return {"score": f + rng.normal(0, noise), "se": noise, "n": 1}

    return evaluate


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ntbea_finds_the_optimum_of_a_noisy_discrete_objective(seed):
    # 400 points, noise sd 1 (as large as one step of the objective), 250 evaluations
    result = run_ntbea(DISC, noisy_l1(1.0), iterations=250, seed=seed)
    best = result["ranking"][0]["point"]
    assert abs(best["x"] - 3) <= 1 and abs(best["y"] - 7) <= 1 and best["z"] == "r"


def test_grid_evaluates_every_point_on_one_block():
    space = Space((Integer("x", 0, 3), Integer("y", 1, 2)))
    seen = []

    def evaluate(stage, block, index, p):
        seen.append((block, index))
        return {"score": -abs(p["x"] - 2) - abs(p["y"] - 1), "n": 1}

    result = run_grid(space, evaluate)
    assert {b for b, _ in seen} == {0} and len(seen) == 8
    assert result["ranking"][0]["point"] == {"x": 2, "y": 1}


def test_search_is_deterministic_for_a_seed():
    a = run_cmaes(CONT, OPT, noisy_quadratic(0.1), generations=3, seed=5)
    b = run_cmaes(CONT, OPT, noisy_quadratic(0.1), generations=3, seed=5)
    c = run_cmaes(CONT, OPT, noisy_quadratic(0.1), generations=3, seed=6)
    assert a["generations"] == b["generations"] and a["mean"] == b["mean"]
    assert a["generations"] != c["generations"]
    n1 = run_ntbea(DISC, noisy_l1(1), iterations=30, seed=3)["iterations"]
    n2 = run_ntbea(DISC, noisy_l1(1), iterations=30, seed=3)["iterations"]
    assert n1 == n2


# --------------------------------------------------------------------------------------
# the ledger: resume replays the search and plays only what is missing


def test_interrupted_search_resumes_to_the_same_answer(tmp_path):
    spec = {"what": "synthetic"}
    full = run_cmaes(CONT, OPT, noisy_quadratic(0.1), generations=5, seed=1)
    calls = []
    stop_at = [13]

    def counting(stage, block, index, p):
        calls.append((block, index))
        if len(calls) == stop_at[0]:
            raise KeyboardInterrupt
        return noisy_quadratic(0.1)(stage, block, index, p)

    store = TuneStore(tmp_path / "t", spec)
    with pytest.raises(KeyboardInterrupt):
        run_cmaes(CONT, OPT, store.memo(counting), generations=5, seed=1)
    assert len(json.loads((tmp_path / "t" / "tune.json").read_text())["evaluations"]) == 12
    calls.clear()
    stop_at[0] = 0
    store = TuneStore(tmp_path / "t", spec, resume=True)
    resumed = run_cmaes(CONT, OPT, store.memo(counting), generations=5, seed=1)
    n_total = sum(len(g["candidates"]) for g in full["generations"])
    assert len(calls) == n_total - 12  # only the missing evaluations were played
    assert resumed["mean"] == full["mean"]


def test_store_refuses_to_overwrite_or_resume_a_different_spec(tmp_path):
    TuneStore(tmp_path / "t", {"seed": 1})
    with pytest.raises(BnbError, match="--resume"):
        TuneStore(tmp_path / "t", {"seed": 1})
    with pytest.raises(BnbError, match="'seed' was 1, now 2"):
        TuneStore(tmp_path / "t", {"seed": 2}, resume=True)
    TuneStore(tmp_path / "t", {"seed": 2}, force=True)
    with pytest.raises(BnbError, match="no tune.json"):
        TuneStore(tmp_path / "u", {}, resume=True)


def test_the_ledger_written_after_each_evaluation_is_the_one_its_digest_hashes(tmp_path):
    """tune.json is written from each evaluation's text, made once (not the whole ledger
    cleaned and encoded again after every evaluation): after each one the file holds every
    evaluation so far, cleaned (numpy numbers, NaN, tuples), and its digest is the one a
    resume checks (``_digest`` of the file's content)."""
    from bnb_sim.tune.store import _digest

    store = TuneStore(tmp_path / "t", {"seed": 1, "space": ("a", np.float64(0.5))})
    memo = store.memo(
        lambda stage, block, index, p: {
            "score": np.float64(p["a"]),
            "se": float("nan"),
            "n": np.int64(2),
            "games": 4,
            "per_seed": (np.float32(0.5), 1.0),
            "wins": {"seat": np.int64(index)}["seat"],
        }  # fmt: skip
    )
    for index in range(12):  # "cmaes:0:10" sorts before "cmaes:0:2": not in arrival order
        memo("cmaes", 0, index, {"a": index / 10})
        on_disk = json.loads((tmp_path / "t" / "tune.json").read_text())
        assert on_disk["digest"] == _digest(on_disk)
        assert len(on_disk["evaluations"]) == index + 1
    assert on_disk["evaluations"]["cmaes:0:11"] == {
        "score": 1.1, "se": None, "n": 2, "games": 4, "per_seed": [0.5, 1.0], "wins": 11,
        "point": {"a": 1.1},
    }  # fmt: skip
    assert on_disk["spec"] == {"seed": 1, "space": ["a", 0.5]}
    resumed = TuneStore(tmp_path / "t", {"seed": 1, "space": ("a", 0.5)}, resume=True)
    assert resumed.games_done() == 48
    resumed.finish({"best": {"a": np.float64(1.1)}, "gap": float("inf")})
    done = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert done["digest"] == _digest(done) and done["result"] == {"best": {"a": 1.1}, "gap": None}
    assert done["status"] == "complete" and done["evaluations"] == on_disk["evaluations"]


# --------------------------------------------------------------------------------------
# spaces and targets


def test_param_parsing():
    assert parse_range("board=0..3", integer=False, allow_list=False) == ("board", (0.0, 3.0))
    p = discrete_param(*parse_range("mobs.enderman.hearts=4..8", integer=True, allow_list=True))
    assert isinstance(p, Integer) and p.values() == [4, 5, 6, 7, 8]
    p = discrete_param(*parse_range("x=5,6,7", integer=True, allow_list=True))
    assert isinstance(p, Integer) and p.values() == [5, 6, 7]
    p = discrete_param(*parse_range("b=type.bridge,biome.desert", integer=True, allow_list=True))
    assert isinstance(p, Categorical) and p.values() == ["type.bridge", "biome.desert"]
    for bad in ("board", "board=3..1", "board=a..2", "board=1,2"):
        with pytest.raises(BnbError):
            name, (lo, hi) = parse_range(bad, integer=False, allow_list=False)
            Continuous(name, lo, hi)


def test_targets_combine_in_their_units():
    fpa = parse_target("first_player_advantage=0", [])
    bal = parse_target("balance=max@0.5", [])
    length = parse_target("game_length=40", [])
    est = {
        "first_player_advantage": {"value": 0.03},
        "balance": {"value": 0.9},
        "game_length": {"value": 43.0},
    }
    # 3 pp of advantage, -0.5 * 90 pp of balance, 3 turns of length
    assert combined_score([fpa, bal, length], est) == pytest.approx(-(3 - 45 + 3))
    assert parse_target("xp_share:mobs=0.3", []).key == "xp_share:mobs"
    assert parse_target("win_rate:greedy=max", ["greedy"]) == Target("win_rate", "max", 1, "greedy")
    labels = ["heuristic:board=2", "greedy"]
    assert parse_target("win_rate:0=0.5", labels).arg == "heuristic:board=2"
    for bad, needle in [
        ("fpa=0", "unknown target"),
        ("balance", "expected NAME=VALUE"),
        ("xp_share=0.3", "needs a source"),
        ("win_rate:random=max", "needs a policy"),
        ("balance=high", "not a number"),
        ("balance=max@-1", "positive"),
    ]:
        with pytest.raises(BnbError, match=needle):
            parse_target(bad, ["greedy"])


# --------------------------------------------------------------------------------------
# bad input on the command line: one line, exit 2, nothing written


@pytest.mark.parametrize(
    "args, needle",
    [
        (["policy", "greedy", "--against", "random", "--budget", "9000"], "no parameters"),
        (["policy", "heuristic", "--against", "nonsense", "--budget", "9000"], "unknown policy"),
        (["policy", "heuristic", "--against", "greedy", "--budget", "100"], "too small"),
        (["policy", "heuristic", "--against", "greedy", "--budget", "200000000"], "add --yes"),
        (
            ["policy", "heuristic", "--against", "greedy", "--budget", "9000",
             "--param", "bord=0..1"],
            "not a parameter",
        ),
        (
            ["policy", "heuristic", "--against", "greedy", "--budget", "9000",
             "--param", "board=2..3"],
            "start value 1 is outside",
        ),
        (
            ["game", "--param", "mobs.endermann.hearts=4..8", "--target", "balance=max",
             "--budget", "9000"],
            "did you mean 'mobs.enderman.hearts'",
        ),
        (
            ["game", "--param", "mobs.enderman.hearts=0..8", "--target", "balance=max",
             "--budget", "9000"],
            "mobs.enderman.hearts",
        ),
        (
            ["game", "--param", "mobs.enderman.hearts=4..8", "--target", "fun=max",
             "--budget", "9000"],
            "unknown target",
        ),
        (
            ["game", "--param", "mobs.enderman.hearts=4..8", "--target", "balance=max",
             "--budget", "50"],
            "too small",
        ),
    ],
)  # fmt: skip
def test_cli_tune_bad_input(capsys, tmp_path, args, needle):
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exc:
        main(["tune", *args, "--out", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and err.count("\n") == 0
    assert not out.exists()


# --------------------------------------------------------------------------------------
# real games (small budgets)


def test_tuned_heuristic_improvement_holds_on_fresh_seeds(tmp_path, capsys):
    """From a crippled start (no weight on the board), tuning the board weight against greedy
    gives a better bot, and the improvement holds on seeds no stage of the tuning saw."""
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy
    from bnb_sim.runner.experiments import run_compare

    out = tmp_path / "tp"
    args = ["tune", "policy", "heuristic:board=0", "--against", "greedy", "--players", "2",
            "--budget", "2000", "--param", "board=0..3", "--seed", "4",
            "--out", str(out)]  # fmt: skip
    main([*args, "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["games"] <= 2000
    comparison = result["comparison"]
    assert comparison["difference"]["lo"] > 0 and "better" in comparison["verdict"]
    # the weights file is a policy spec, and plays as the tuned weights
    spec = f"heuristic:{out / 'tuned.toml'}"
    assert parse_policy(spec).weights()["board"] == pytest.approx(result["tuned"]["board"])
    check = run_compare(spec, "heuristic:board=0", opponents=["greedy"], players=2,
                        precision=0.2, seed=987, max_games=600)  # fmt: skip
    assert check.difference["mean_diff"] > 0 and check.difference["lo"] > 0
    for name in ("report.html", "report.md", "tune-convergence.png", "tune.json"):
        assert (out / name).exists()
    # a finished run resumes to the same answer without playing
    main([*args, "--json", "--resume", "-q"])
    again = json.loads(capsys.readouterr().out)
    assert again["tuned"] == result["tuned"] and again["comparison"] == comparison
    # N7: the Elo is the pair score's against the field, and says so (as compare does)
    assert comparison["elo"]["kind"] == "pair-score"
    main([*args, "--resume", "-q"])
    text = capsys.readouterr().out
    assert "pair-score Elo tuned − start" in text and "not comparable with" in text


GAME_ARGS = ["--param", "mobs.enderman.hearts=5..6", "--target", "game_length=min",
             "--target", "balance=max@0.5", "--players", "2", "--policy", "greedy",
             "--budget", "800", "--method", "grid", "--top", "1", "--seed", "3", "-q"]  # fmt: skip


def test_game_tuning_is_deterministic_resumable_and_writes_a_loadable_override(
    tmp_path, capsys, monkeypatch
):
    from bnb_sim.games.builders_biomes.components import load_components
    from bnb_sim.tune import game_tune

    main(["tune", "game", *GAME_ARGS, "--json", "--out", str(tmp_path / "a")])
    first = json.loads(capsys.readouterr().out)
    assert first["method"] == "grid" and first["games"] <= 800
    best = first["reeval"][first["winner"]]
    for key in ("game_length", "balance"):
        est = best["targets"][key]
        assert est["lo"] <= est["value"] <= est["hi"] and est["n"] == 120
    # the paired difference from the baseline is the difference of the means (same games)
    base, other = first["reeval"]
    d = other["vs_baseline"]["game_length"]
    means = other["targets"]["game_length"]["value"] - base["targets"]["game_length"]["value"]
    assert d["mean_diff"] == pytest.approx(means) and d["lo"] <= d["mean_diff"] <= d["hi"]
    assert "balance" not in other["vs_baseline"]  # a maximum has no per-game terms
    override = tmp_path / "a" / "tuned-components.toml"
    hearts = load_components([override]).mob_hearts["enderman"]
    assert hearts == first["best"]["mobs.enderman.hearts"]
    main(["components", "validate", str(override)])
    assert "valid" in capsys.readouterr().out

    # interrupt after the first evaluation, then resume: the same answer as one go
    real = game_tune.play_point
    calls = []

    def flaky(*a, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(game_tune, "play_point", flaky)
    with pytest.raises(SystemExit) as exc:
        main(["tune", "game", *GAME_ARGS, "--out", str(tmp_path / "b")])
    assert exc.value.code == 130
    assert "--resume" in capsys.readouterr().err
    main(["tune", "game", *GAME_ARGS, "--json", "--resume", "--out", str(tmp_path / "b")])
    resumed = json.loads(capsys.readouterr().out)
    # 2 grid points + 2 finalists + the confirmation (answer and baseline, or the baseline
    # alone when it is the answer), the first grid point not replayed
    final = 1 if first["final"]["answer_is_baseline"] else 2
    assert len(calls) == 2 + 3 + final
    strip = ("files",)
    assert {k: v for k, v in resumed.items() if k not in strip} == {
        k: v for k, v in first.items() if k not in strip
    }


def test_n4_tune_game_estimates_the_answer_on_games_that_did_not_choose_it(tmp_path, capsys):
    """Statistics review N4: the answer's Δ vs baseline came from the re-evaluation games
    that chose it (a winner's curse of -3.1 pp). The answer and the baseline are now replayed
    on a third stream; the reported estimates and Δ are those games'. N2: the answer is
    called best only when its score is ahead of every other finalist."""
    from bnb_sim.tune import game_tune
    from bnb_sim.tune.search import derive_seed

    args = GAME_ARGS
    main(["tune", "game", *args, "--json", "--out", str(tmp_path / "t")])
    result = json.loads(capsys.readouterr().out)
    plan = game_tune.plan_game_tune(
        params=["mobs.enderman.hearts=5..6"], targets=["game_length=min", "balance=max@0.5"],
        players=2, policies=["greedy"], budget=800, seed=3, method="grid", top=1,
    )  # fmt: skip
    assert result["planned_games"]["final"] == 2 * plan.games_confirm
    assert sum(result["planned_games"].values()) <= 800
    answer = result["best"]
    final = result["final"]
    assert final["games"] == plan.games_confirm
    fresh = game_tune.play_point(plan, answer, derive_seed(3, game_tune.STREAM_FINAL), 0,
                                 plan.games_confirm, intervals=True)  # fmt: skip
    assert final["answer"]["targets"] == json.loads(json.dumps(fresh["targets"]))
    chosen = result["reeval"][result["winner"]]
    assert final["answer"]["targets"] != chosen["targets"]  # not the games that chose it
    if not final["answer_is_baseline"]:
        base = game_tune.play_point(plan, plan.baseline(), derive_seed(3, 3), 0,
                                    plan.games_confirm, intervals=True)  # fmt: skip
        d = final["vs_baseline"]["game_length"]
        turns = [x["targets"]["game_length"]["value"] for x in (fresh, base)]
        assert d["mean_diff"] == pytest.approx(turns[0] - turns[1])
    leader = result["leader"]
    assert leader["ranked_first"] == plan.space.point_key(answer)
    assert leader["best"] in (None, leader["ranked_first"])
    assert all(g["method"].startswith("paired bootstrap") for g in leader["gaps"].values())
    main(["tune", "game", *args, "--resume", "--out", str(tmp_path / "t")])
    text = capsys.readouterr().out
    assert "answer" in text and "confirmation on" in text and "  best " not in text


def test_experiment_file_tune_item(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text(
        """
[experiment]
seed = 2

[[tune]]
name = "enderman"
what = "game"
params = ["mobs.enderman.hearts=5..6"]
targets = ["game_length=min"]
policies = ["greedy"]
players = 2
budget = 800
method = "grid"
top = 1
dir = "{}"
""".format((tmp_path / "t").as_posix())
    )
    main(["run", str(exp), "--out", str(tmp_path / "r"), "-q"])
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    item = summary["items"][0]
    assert item["kind"] == "tune" and item["games"] <= 800
    assert (tmp_path / "t" / "tune.json").exists()
    assert (tmp_path / "t" / "tuned-components.toml").exists()
    assert "enderman: tuning, answer" in (tmp_path / "r" / "report.md").read_text()
    capsys.readouterr()
    exp.write_text('[[tune]]\nwhat = "game"\nbudget = 800\nparams = ["mobs.x.hearts=1..2"]\n')
    with pytest.raises(SystemExit) as exc:
        main(["run", str(exp)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "exp.toml" in err and "mobs.x.hearts" in err and err.count("\n") == 0


def test_integer_policy_parameters_are_rounded():
    from bnb_sim.tune.policy_tune import plan_policy_tune

    plan = plan_policy_tune("heuristic", against=["greedy"], players=2, budget=3000,
                            params=["board=0..4:int", "tnt=0..3"])  # fmt: skip
    assert isinstance(plan.space.params[0], Integer) and plan.start == {"board": 1, "tnt": 1.5}
    assert plan.space.params[0].from_unit(0.49) == 2
    with pytest.raises(BnbError, match="not an integer"):
        plan_policy_tune("heuristic", against=["greedy"], players=2, budget=3000,
                         params=["tnt=0..4:int"])  # fmt: skip


def test_tuning_leaves_the_engine_thread_count_as_it_was(tmp_path):
    from bnb_sim._jit import numba
    from bnb_sim.tune.policy_tune import plan_policy_tune, run_policy_tune

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two cores")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    plan = plan_policy_tune("heuristic", against=["greedy"], players=2, budget=400,
                            params=["board=0..3"])  # fmt: skip
    assert plan.seeds_final < 64  # even the last stage runs on one thread
    run_policy_tune(plan, tmp_path / "t")
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS


def test_a_single_seed_evaluation_without_a_standard_error_survives_the_ledger(tmp_path):
    store = TuneStore(tmp_path / "t", {})

    def evaluate(stage, block, index, p):  # one seed: no standard error (NaN -> null)
        return {"score": -abs(p["a"] - 0.5), "se": float("nan"), "n": 1}

    space = Space((Continuous("a", 0, 1),))
    result = run_cmaes(space, {"a": 0.1}, store.memo(evaluate), generations=2, seed=0)
    assert np.isnan(result["generations"][0]["candidates"][0]["se"])


def test_balance_value_in_the_search_equals_the_reported_metric():
    import pandas as pd

    from bnb_sim.analysis.stats import balance_metric
    from bnb_sim.tune.targets import measure

    rng = np.random.default_rng(1)
    games, seats = 300, 3
    winner = rng.choice(seats, size=games, p=[0.4, 0.35, 0.25])
    frame = pd.DataFrame({
        "game": np.repeat(np.arange(games), seats),
        "seat": np.tile(np.arange(seats), games),
        "won": (np.tile(np.arange(seats), games) == np.repeat(winner, seats)),
    })  # fmt: skip
    fast = measure(Target("balance", "max"), frame, pd.DataFrame(), intervals=False)
    assert fast["value"] == pytest.approx(balance_metric(frame)["value"]) and fast["n"] == games


def test_the_bootstrap_score_of_all_games_is_the_reported_score():
    """tune game's paired bootstrap (bnb_sim.tune.score_gaps) recomputes every target from
    per-game columns: on the full sample it gives the score the re-evaluation reports."""
    import pandas as pd

    from bnb_sim.tune.score_gaps import game_terms, replicate_scores, score_of_means
    from bnb_sim.tune.targets import combined_score, measure, parse_target

    rng = np.random.default_rng(2)
    games, players = 400, 3
    winner = rng.choice(players, size=games, p=[0.4, 0.35, 0.25])
    seat = np.tile(np.arange(players), games)
    xp = rng.integers(20, 60, size=games * players)
    seats = pd.DataFrame({
        "game": np.repeat(np.arange(games), players), "seat": seat,
        "policy": np.where(seat == 0, "greedy", "random"),
        "won": seat == np.repeat(winner, players), "xp": xp,
        "xp_mobs": rng.integers(0, 20, size=games * players),
    })  # fmt: skip
    frame = pd.DataFrame({"game": np.arange(games), "turns": rng.integers(20, 40, games)})
    targets = [parse_target(t, ["greedy", "random"]) for t in (
        "first_player_advantage=0", "balance=max@0.5", "game_length=min@0.2",
        "xp_share:mobs=0.3", "win_rate:greedy=0.4")]  # fmt: skip
    estimates = {t.key: measure(t, seats, frame, intervals=True) for t in targets}
    terms = game_terms(targets, seats, frame)
    full = score_of_means(targets, {k: np.array([np.mean(v)]) for k, v in terms.items()})
    assert full[0] == pytest.approx(combined_score(targets, estimates))
    reps = np.array(replicate_scores(targets, terms, seed=5, n_boot=300))
    assert reps.size == 300 and np.isfinite(reps).all()
    assert reps.min() < full[0] < reps.max()
    assert replicate_scores(targets, terms, seed=5, n_boot=300) == list(reps)  # same resamples


def test_n7_the_balance_target_documents_its_simultaneous_interval():
    """Statistics review N7: the balance target's interval is the simultaneous interval of
    the pairwise seat gaps (stats.balance_metric), not a cluster bootstrap."""
    from pathlib import Path

    from bnb_sim.tune import targets

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "tuning.md").read_text(encoding="utf-8")
    row = next(line for line in doc.splitlines() if line.startswith("| `balance` |"))
    assert "simultaneous" in row and "bootstrap" not in row
    assert "simultaneous" in targets.__doc__ and "bootstrap" not in targets.__doc__
