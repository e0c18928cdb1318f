"""Heroes of the Village items in experiment files: parsed, counted, played, reported."""

from __future__ import annotations

import json
import textwrap

import pytest

from bnb_sim.analysis.experiment import build_experiment_report, load_experiment
from bnb_sim.errors import BnbError
from bnb_sim.runner.budget import experiment_games
from bnb_sim.runner.experiments import run_experiment

FILE = textwrap.dedent(
    """
    [experiment]
    title = "Heroes"
    seed = 4

    [[simulation]]
    game = "hotv"
    name = "pets"
    games = 150
    players = 2
    pets = "all"
    difficulty = "easy"
    run_dir = "runs/pets"

    [[simulation]]
    game = "heroes-of-the-village"
    name = "dice"
    games = 200
    players = 3
    pets = "wolf,cat,fox"
    policies = ["team", "random"]
    components = ["dice.toml"]
    set = { "path.start_normal" = 10 }

    [[compare]]
    game = "hotv"
    name = "weights"
    a = "team"
    b = "team:complete=1"
    players = 3
    max_games = 2000
    """
)


def write(tmp_path, text, dice=True):
    if dice:
        (tmp_path / "dice.toml").write_text(
            '[dice.fight]\nfaces = [4, 5, 6, "blank", "arrow", "illager"]\n'
            'provenance = "known"\nsource = "my box"\n'
        )
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return path


def test_hotv_items_are_counted_played_and_reported(tmp_path):
    experiment = load_experiment(write(tmp_path, FILE))
    pets, dice, weights = experiment.items
    assert (pets.kind, dice.kind, weights.kind) == ("simulation", "simulation", "compare")
    assert dice.components.data["path"]["start_normal"] == 10
    assert dice.components.data["dice"]["fight"]["faces"][3] == "blank"
    assert experiment_games(experiment) == 150 * 15 + 200 + 2 * 2000
    outcomes = run_experiment(experiment, threads=1)
    seats, games, meta = outcomes[0].result
    assert len(games) == 150 * 15 and meta["params"]["difficulty"] == "easy"
    assert (tmp_path / "runs" / "pets" / "run.json").is_file()  # kept, resumable
    assert outcomes[2].result["games"] == 2000
    report = build_experiment_report(experiment, outcomes).write(tmp_path / "report")
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    items = {item["name"]: item for item in summary["items"]}
    assert items["pets"]["game"] == "heroes_village" and items["pets"]["n_games"] == 2250
    assert "pet_teams" in json.dumps(items["pets"]) or "win_rate_by_difficulty" in items["pets"]
    assert items["weights"]["kind"] == "compare" and "mcnemar_p" in items["weights"]
    text = (tmp_path / "report" / "report.md").read_text()
    assert "pets: Pet teams" in text and "weights: Heroes of the Village comparison" in text
    assert any("team wins" in f["text"] for f in summary["key_findings"]), report
    # the same file again resumes the kept run folder and gives the same rows
    again = run_experiment(load_experiment(tmp_path / "exp.toml"), threads=2)
    assert again[0].result[1]["won"].tolist() == games["won"].tolist()
    assert again[1].result[1]["won"].tolist() == outcomes[1].result[1]["won"].tolist()


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ('game = "chess"\ngames = 5', "simulation[1].game: unknown game 'chess'"),
        ('game = "hotv"\ngames = 5\nhearts = 2', "unknown key 'simulation[1].hearts'"),
        ('game = "hotv"', "simulation[1].games: is required"),
        ('game = "hotv"\ngames = 5\npets = "wolf,wolf,cat"', "simulation[1].pets: --pets"),
        ('game = "hotv"\ngames = 5\npolicies = ["heuristic"]', "policies: unknown policy"),
        ('game = "hotv"\ngames = 5\ndifficulty = "hard"', "difficulty: must be one of"),
        ('game = "hotv"\ngames = 5\nset = { "path.nowhere" = 1 }', "no such component value"),
    ],
)
def test_bad_hotv_items_are_one_line_naming_the_key(tmp_path, item, message):
    path = write(tmp_path, f"[[simulation]]\n{item}\n", dice=False)
    with pytest.raises(BnbError) as info:
        load_experiment(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_hotv_sweep_item_is_refused_with_the_command_to_use(tmp_path):
    path = write(tmp_path, '[[sweep]]\ngame = "hotv"\ngames = 5\n', dice=False)
    with pytest.raises(BnbError, match="bnb sweep --game hotv"):
        load_experiment(path)


def test_tournament_game_hotv_ranks_team_policies_on_the_same_games(tmp_path, capsys):
    from tests.test_hotv_sim import run_cli

    out = tmp_path / "tour"
    code, text, err = run_cli(capsys, ["tournament", "--game", "hotv", "--policy", "random",
                                       "--policy", "team", "--players", "3", "--pets",
                                       "wolf,panda,horse", "--games", "400", "--out", out,
                                       "--quiet"])  # fmt: skip
    assert code == 0, err
    assert "pets wolf,panda,horse" in text and "(best)" in text
    summary = json.loads((out / "summary.json").read_text())
    ranking = summary["ranking"]
    assert [r["policy"] for r in ranking] == ["team", "random"]
    assert ranking[1]["vs_best"]["hi"] < 0 and ranking[1]["mcnemar_p"] < 0.001
    code, _, err = run_cli(capsys, ["tournament", "--game", "hotv", "--policy", "team",
                                    "--games", "10", "--out", tmp_path / "one"])  # fmt: skip
    assert code == 2 and "at least two team policies" in err
    code, _, err = run_cli(capsys, ["tournament", "--policy", "heuristic", "--policy", "random",
                                    "--pets", "wolf,cat", "--out", tmp_path / "bb"])  # fmt: skip
    assert code == 2 and "--pets is an option of Minecraft: Heroes of the Village" in err
