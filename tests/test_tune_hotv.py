"""``bnb tune`` for Heroes of the Village: the team bot's weights toward the team win rate,
a component value toward a target team win rate, ``[[tune]]`` items with ``game = "hotv"``,
bad input, and the tuning layer reaching the games only through the registry."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from bnb_sim.cli import main
from bnb_sim.errors import BnbError

TUNE_DIR = Path(__file__).resolve().parents[1] / "bnb_sim" / "tune"
POLICY = ["tune", "policy", "team", "--game", "hotv", "--players", "2", "--budget", "200",
          "--param", "complete=2..8", "--seed", "4"]  # fmt: skip
GAME = ["tune", "game", "--game", "hotv", "--param", "path.start_normal=7..9", "--target",
        "win_rate=0.5", "--players", "2", "--budget", "700", "--method", "grid", "--top", "1",
        "--seed", "2"]  # fmt: skip


def _cli(capsys, *args) -> tuple[int, str, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def _refused(capsys, out: Path, *args) -> str:
    """The one stderr line of a refused command that wrote nothing."""
    code, _, err = _cli(capsys, *args, "--out", out, "-q")
    assert code == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert not out.exists()
    return err.strip()


def test_tune_policy_hotv_tunes_the_team_bot_on_the_team_win_rate(tmp_path, capsys):
    out = tmp_path / "t"
    code, stdout, err = _cli(capsys, *POLICY, "--out", out, "--json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["game"] == "heroes_village" and result["outcome"] == "team"
    assert result["lineups"] == [] and result["games"] <= 200
    c = result["comparison"]
    assert "elo" not in c  # a team game has no field to rate against
    d = c["difference"]
    assert d["lo"] <= d["mean_diff"] <= d["hi"] and d["n"] == c["seeds"]
    for side in ("tuned", "start"):
        rate = c[side]["win_rate"]
        assert rate["lo"] <= rate["rate"] <= rate["hi"] and rate["n"] == c["seeds"]
    spec = json.loads((out / "tune.json").read_text())["spec"]
    assert spec["game"] == "heroes_village" and spec["space"]["params"][0]["lo"] == 2
    weights = Path(result["files"]["weights"])
    assert weights.name == "tuned.toml"
    from bnb_sim.games.heroes_village.policies import parse_policy

    loaded = parse_policy(f"team:{weights}").weights()
    assert loaded["complete"] == pytest.approx(result["tuned"]["complete"], abs=1e-5)
    assert loaded["illager"] == 1.5  # an untuned weight keeps its start value
    text = (out / "report.md").read_text()
    assert "team win rate" in text and "pair-score Elo" not in text
    # the same seed gives the same answer (resume replays nothing: every evaluation is kept)
    code, stdout, _ = _cli(capsys, *POLICY, "--out", out, "--json", "--resume")
    assert code == 0 and json.loads(stdout)["tuned"] == result["tuned"]


def test_team_policy_scores_are_the_team_results_on_common_game_indices():
    from bnb_sim.games.heroes_village.runner import HotvConfig, parse_pets, play_arrays
    from bnb_sim.tune.policy_tune import field_scores, plan_policy_tune

    plan = plan_policy_tune("team", against=[], players=3, budget=300,
                            params=["complete=2..8"], game="hotv")  # fmt: skip
    assert plan.team and plan.games_per_seed == 1 and plan.game == "heroes_village"
    spec = plan.spec_for({"complete": 6.0}, "candidate")
    scores = field_scores(plan, spec, 11, 5, 30, threads=1)
    config = HotvConfig(plan.components, 3, [spec], parse_pets(None, 3), seed=11)
    _, games = play_arrays(config, config.teams[0], 5, 30, 1)
    assert scores["per_seed"].tolist() == games[:, 1].astype(float).tolist()
    assert scores["wins"] == int(games[:, 1].sum()) and scores["games"] == 30


def test_tune_game_hotv_finds_the_illager_start_for_a_target_win_rate(tmp_path, capsys):
    out = tmp_path / "g"
    code, stdout, err = _cli(capsys, *GAME, "--out", out, "--json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["game"] == "heroes_village" and result["outcome"] == "team"
    assert result["targets"][0]["name"] == "win_rate" and result["targets"][0]["arg"] is None
    assert result["baseline"] == {"path.start_normal": 9}
    for r in result["reeval"]:
        est = r["targets"]["win_rate"]
        assert est["lo"] <= est["value"] <= est["hi"] and est["n"] == r["games"]
    # a closer Illager start is harder: the team win rate falls with it (paired games)
    by_start = {r["point"]["path.start_normal"]: r["targets"]["win_rate"]["value"]
                for r in result["reeval"]}  # fmt: skip
    if 9 in by_start and len(by_start) > 1:
        assert min(by_start) != 9 and by_start[min(by_start)] <= by_start[9]
    best = result["best"]["path.start_normal"]
    override = out / "tuned-components.toml"
    from bnb_sim.games.heroes_village.components import load_components

    loaded = load_components([override])
    assert loaded.data["path"]["start_normal"] == best
    # the tuned value is no longer the box's known value: an estimate, with the reason
    row = next(r for r in loaded.rows if r["key"] == "path.start_normal")
    assert row["provenance"] == "estimate" and "chosen by bnb tune" in override.read_text()
    assert "win_rate" in (out / "report.md").read_text()


def test_tune_hotv_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "never"
    err = _refused(capsys, out, *POLICY[:-4], "--param", "nosuch=0..1")
    assert "nosuch" in err and "complete" in err  # names the known weights
    err = _refused(capsys, out, *GAME[:5], "mobs.enderman.hearts=4..8", *GAME[6:])
    assert "mobs.enderman.hearts" in err and "Heroes of the Village" in err
    err = _refused(capsys, out, *POLICY, "--against", "team")
    assert "--against" in err and "cooperative" in err
    err = _refused(capsys, out, *GAME[:7], "first_player_advantage=0", *GAME[8:])
    assert "first_player_advantage" in err and "win_rate" in err
    err = _refused(capsys, out, *POLICY, "--variant", "beginner")
    assert "--variant" in err and "of Minecraft: Builders & Biomes, not of" in err
    err = _refused(capsys, out, *POLICY, "--sprt", "0", "10")
    assert "--sprt" in err
    err = _refused(capsys, out, "tune", "policy", "random", "--game", "hotv", "--budget", "200")
    assert "no parameters to tune" in err


def test_tune_policy_of_the_first_game_still_needs_its_field(tmp_path, capsys):
    code, _, err = _cli(capsys, "tune", "policy", "heuristic", "--budget", "400", "--out",
                        tmp_path / "x")  # fmt: skip
    assert code == 2 and "Missing option '--against'" in err and not (tmp_path / "x").exists()


def _experiment(tmp_path: Path, body: str) -> Path:
    exp = tmp_path / "exp.toml"
    exp.write_text("[experiment]\nseed = 3\n\n" + body)
    return exp


def test_experiment_tune_item_of_heroes_of_the_village(tmp_path, capsys):
    folder = (tmp_path / "t").as_posix()
    exp = _experiment(tmp_path, f"""
[[tune]]
name = "illager start"
game = "hotv"
what = "game"
params = ["path.start_normal=7..9"]
targets = ["win_rate=0.5"]
players = 2
budget = 700
method = "grid"
top = 1
dir = "{folder}"
""")  # fmt: skip
    main(["run", str(exp), "--out", str(tmp_path / "r"), "-q"])
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    item = summary["items"][0]
    assert item["kind"] == "tune" and item["games"] <= 700
    tune = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert tune["spec"]["game"] == "heroes_village"
    assert (tmp_path / "t" / "tuned-components.toml").exists()
    report = (tmp_path / "r" / "report.md").read_text()
    assert "illager start: tuning, answer" in report and "cat=first-block" in report


def test_experiment_tune_items_of_hotv_are_checked_when_read(tmp_path, capsys):
    from bnb_sim.analysis.experiment import load_experiment

    exp = _experiment(tmp_path, """
[[tune]]
game = "hotv"
policy = "team"
players = 3
budget = 300
params = ["complete=2..8"]
readings = { cat = "first-draw" }
""")  # fmt: skip
    item = load_experiment(exp).items[0]
    assert item.plan.game == "heroes_village" and item.plan.team
    assert item.plan.readings["cat"] == "first-draw" and item.policies == ["team"]
    for bad, key in (('against = ["team"]', "against"), ('params = ["nosuch=0..1"]', "nosuch"),
                     ('set = { "mobs.enderman.hearts" = 5 }', "mobs.enderman.hearts")):  # fmt: skip
        exp = _experiment(tmp_path, f'[[tune]]\ngame = "hotv"\nbudget = 300\n{bad}\n')
        with pytest.raises(BnbError) as exc:
            load_experiment(exp)
        assert "exp.toml" in str(exc.value) and key in str(exc.value)


def test_team_targets_are_the_teams():
    from bnb_sim.tune.targets import parse_target

    assert parse_target("win_rate=0.5", ["team"], team=True).arg is None
    assert parse_target("game_length=min", ["team"], team=True).name == "game_length"
    with pytest.raises(BnbError, match="cooperative"):
        parse_target("balance=max", ["team"], team=True)
    with pytest.raises(BnbError, match="no ':'"):
        parse_target("win_rate:team=0.5", ["team"], team=True)


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def test_the_tuning_layer_imports_no_game_package():
    """bnb_sim/tune reaches a game only through the registry (bnb_sim.games), counting the
    imports inside functions: both games declare a ``tune`` entry."""
    offenders = [
        (p.name, m)
        for p in sorted(TUNE_DIR.glob("*.py"))
        for m in _imports(p)
        if m.startswith("bnb_sim.games.")
    ]
    assert offenders == []
    from bnb_sim.games import GAMES

    for spec in GAMES.values():
        assert spec.hook("tune") is not None, spec.name


def test_no_tuning_module_is_over_600_lines():
    long = {
        p.name: n for p in TUNE_DIR.glob("*.py") if (n := len(p.read_text().splitlines())) > 600
    }
    assert long == {}


def test_a_hotv_plan_travels_to_a_dask_worker_as_plain_data():
    """A Dask worker rebuilds a Heroes of the Village plan from plain data (its components
    hash-checked) and plays the same evaluation as this process."""
    import pickle

    from bnb_sim.tune.execute import plan_from_payload, plan_payload
    from bnb_sim.tune.game_tune import evaluate_game, plan_game_tune
    from bnb_sim.tune.policy_tune import evaluate_policy, plan_policy_tune

    policy = plan_policy_tune("team", against=[], players=2, budget=300, game="hotv",
                              params=["complete=2..8"], readings={"cat": "first-draw"})  # fmt: skip
    game = plan_game_tune(params=["path.start_normal=7..9"], targets=["win_rate=0.5"],
                          players=2, policies=[], budget=700, method="grid", top=1,
                          game="hotv")  # fmt: skip
    for plan, evaluate, point in ((policy, evaluate_policy, {"complete": 5.0}),
                                  (game, evaluate_game, {"path.start_normal": 8})):  # fmt: skip
        payload = pickle.loads(pickle.dumps(plan_payload(plan)))
        rebuilt = plan_from_payload(payload)
        assert rebuilt.spec_dict() == plan.spec_dict()
        assert rebuilt.components.content_hash == plan.components.content_hash
        here = evaluate(plan, "final", 0, point, threads=1)
        there = evaluate(rebuilt, "final", 0, point, threads=1)
        assert json.dumps(here, sort_keys=True) == json.dumps(there, sort_keys=True)
