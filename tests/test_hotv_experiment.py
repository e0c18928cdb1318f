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
    assert "pets: Pet teams" in text
    assert "weights: Minecraft: Heroes of the Village comparison" in text
    # the game's own key findings of its run (bnb report's), named by the item
    assert any(f["text"].startswith("pets: Team win rate") for f in summary["key_findings"]), report
    # the pet teams item answers with its pet teams too (issue 25, item 2)
    kinds = [(f["kind"], f["text"][:6]) for f in summary["key_findings"]]
    assert ("pet_effects", "pets: ") in kinds and ("best_pet_team", "pets: ") in kinds, kinds
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


SWEEP = textwrap.dedent(
    """
    [experiment]
    seed = 9

    [[sweep]]
    game = "hotv"
    name = "start"
    games = 60
    players = 2
    pets = "wolf,cat"
    difficulty = "easy"
    set = { "path.start_easy" = [10, 11] }
    """
)


def test_a_hotv_sweep_item_plays_what_bnb_sweep_game_hotv_plays(tmp_path, capsys):
    from tests.test_hotv_sim import run_cli

    experiment = load_experiment(write(tmp_path, SWEEP, dice=False))
    (item,) = experiment.items
    assert (item.kind, item.game) == ("sweep", "heroes_village")
    # 11 is the component file's own value: the baseline, played once (issue 25, item 10)
    assert experiment_games(experiment) == 2 * 60
    outcomes = run_experiment(experiment, threads=1)
    assert [row["variant"] for row in outcomes[0].result["variants"]] == [
        "path.start_easy=11 (components)", "path.start_easy=10"
    ]  # fmt: skip
    report = build_experiment_report(experiment, outcomes)
    report.write(tmp_path / "report")
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    (reported,) = summary["items"]
    assert reported["kind"] == "sweep" and reported["n_games"] == 120
    out = tmp_path / "cli"
    code, stdout, err = run_cli(capsys, [
        "sweep", "--game", "hotv", "--set", "path.start_easy=10,11", "--games", "60",
        "--players", "2", "--pets", "wolf,cat", "--difficulty", "easy", "--seed", "9",
        "-o", out, "--quiet",
    ])  # fmt: skip
    assert code == 0, err
    cli = json.loads((out / "summary.json").read_text())["variants"]
    assert reported["variants"] == cli  # the same games, the same numbers
    text = (tmp_path / "report" / "report.md").read_text()
    assert "start: Minecraft: Heroes of the Village component sweep" in text
    assert "path.start_easy=10" in text and "(reference)" in text
    assert text.count("path.start_easy=11") == text.count("path.start_easy=11 (components)")


def test_n2_a_hotv_sweep_whose_variants_play_alike_names_no_best(tmp_path):
    # The normal start does not matter at easy difficulty: every variant plays the same games,
    # so none may be called best (statistics review N2: the sweep named one).
    text = SWEEP.replace('"path.start_easy" = [10, 11]', '"path.start_normal" = [7, 8]')
    experiment = load_experiment(write(tmp_path, text, dice=False))
    outcomes = run_experiment(experiment, threads=1)
    report = build_experiment_report(experiment, outcomes)
    report.write(tmp_path / "report")
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    (reported,) = summary["items"]
    variants = reported["variants"]
    assert len(variants) == 3 and len({v["k"] for v in variants.values()}) == 1  # alike
    (finding,) = [f for f in summary["key_findings"] if f["text"].startswith("start: ")]
    assert "no detectable difference at the top" in finding["text"]
    assert reported["leader"]["best"] is None and reported["leader"]["tied_with"]


def test_a_big_hotv_sweep_item_needs_yes(tmp_path):
    text = SWEEP.replace("games = 60", "games = 10000000").replace("[10, 11]", "[2, 4, 6, 8, 10]")
    experiment = load_experiment(write(tmp_path, text, dice=False))
    assert experiment_games(experiment) == 6 * 10_000_000
    text = text.replace("[2, 4, 6, 8, 10]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]")
    experiment = load_experiment(write(tmp_path, text, dice=False))
    assert experiment_games(experiment) == 11 * 10_000_000
    with pytest.raises(BnbError, match="--yes"):
        run_experiment(experiment, threads=1)


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("games = 5", "sweep[1].set: is required"),
        ('set = { "path.start_normal" = [7] }', "sweep[1].games: is required"),
        ('games = 5\nhearts = 2\nset = { "path.start_normal" = 7 }',
         "unknown key 'sweep[1].hearts'"),
        ('games = 5\nset = { "path.nowhere" = [1, 2] }', "sweep[1].set: path.nowhere"),
        ('games = 5\nset = { "path.start_normal" = [7, 7] }', "listed twice"),
        ('games = 5\nset = { "path.start_normal" = [] }', "at least one value"),
        ('games = 5\nmode = "zip"\nset = { "path.start_normal" = [7, 8], "path.start_easy" = [1] }',
         "same number of values"),
        ('games = 5\nmode = "diagonal"\nset = { "path.start_normal" = 7 }', "mode: must be"),
        ('games = 5\npets = "all"\nset = { "path.start_normal" = 7 }',
         "sweep[1].pets: give one pet team"),
        ('games = 5\npolicies = ["heuristic"]\nset = { "path.start_normal" = 7 }',
         "sweep[1].policies: unknown policy"),
        ('games = 5\nbuildings = "99"\nset = { "path.start_normal" = 7 }', "sweep[1].buildings"),
    ],
)  # fmt: skip
def test_bad_hotv_sweep_items_are_one_line_naming_the_key(tmp_path, item, message):
    path = write(tmp_path, f'[[sweep]]\ngame = "hotv"\n{item}\n', dice=False)
    with pytest.raises(BnbError) as info:
        load_experiment(path)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert str(info.value).startswith(path.name) or str(path) in str(info.value)


def test_tournament_game_hotv_ranks_team_policies_on_the_same_games(tmp_path, capsys):
    from tests.test_hotv_sim import run_cli

    out = tmp_path / "tour"
    code, text, err = run_cli(capsys, ["tournament", "--game", "hotv", "--policy", "random",
                                       "--policy", "team", "--players", "3", "--pets",
                                       "wolf,panda,horse", "--games", "400", "--out", out,
                                       "--quiet"])  # fmt: skip
    assert code == 0, err
    assert "pets wolf,panda,horse" in text and "(best)" in text
    assert "team is the best team policy" in text
    summary = json.loads((out / "summary.json").read_text())
    ranking = summary["ranking"]
    assert [r["policy"] for r in ranking] == ["team", "random"]
    assert ranking[1]["vs_best"]["hi"] < 0 and ranking[1]["mcnemar_p"] < 0.001
    assert ranking[1]["mcnemar_p_holm"] == ranking[1]["mcnemar_p"]  # one comparison
    assert summary["leader"]["best"] == "team"
    code, _, err = run_cli(capsys, ["tournament", "--game", "hotv", "--policy", "team",
                                    "--games", "10", "--out", tmp_path / "one"])  # fmt: skip
    assert code == 2 and "at least two team policies" in err
    code, _, err = run_cli(capsys, ["tournament", "--policy", "heuristic", "--policy", "random",
                                    "--pets", "wolf,cat", "--out", tmp_path / "bb"])  # fmt: skip
    assert code == 2 and "--pets is an option of Minecraft: Heroes of the Village" in err


READINGS = textwrap.dedent(
    """
    [experiment]
    seed = 5

    [[simulation]]
    game = "hotv"
    name = "cat first"
    games = 120
    players = 3
    pets = "wolf,cat,fox"
    readings = { cat = "first-draw", build = "one" }

    [[ladder]]
    game = "hotv"
    name = "rungs"
    games = 20
    readings = { cat = "first-draw" }
    """
)


def test_readings_of_a_hotv_item_play_what_bnb_simulate_reading_plays(tmp_path, capsys):
    """An item's ``readings`` table is ``--reading NAME=VALUE`` of the commands: set on the
    item's components, played, named in the report (before: an unknown key)."""
    from bnb_sim.runner.storage import load_run
    from tests.test_hotv_sim import run_cli

    experiment = load_experiment(write(tmp_path, READINGS, dice=False))
    run, ladder = experiment.items
    assert run.game_components.readings["cat"] == "first-draw"
    assert ladder.game_components.readings["cat"] == "first-draw"
    outcomes = run_experiment(experiment, threads=1)
    out = tmp_path / "cli"
    code, _, err = run_cli(capsys, [
        "simulate", "--game", "hotv", "-n", "120", "--players", "3", "--pets", "wolf,cat,fox",
        "--seed", "5", "--reading", "cat=first-draw", "--reading", "build=one", "-o", out, "-q",
    ])  # fmt: skip
    assert code == 0, err
    cli_games = load_run(out)[1]
    item_games = outcomes[0].result[1]
    for column in ("won", "turns", "illager_space"):
        if column in cli_games:
            assert item_games[column].tolist() == cli_games[column].tolist(), column
    build_experiment_report(experiment, outcomes).write(tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| cat first | pets=wolf,cat,fox, cat=first-draw, build=one |" in text
    assert "reading cat=first-draw" in text  # the ladder's setting line names it


@pytest.mark.parametrize(
    ("game", "readings", "message"),
    [
        ("hotv", '{ cat = "sometimes" }', "simulation[1].readings: reading cat='sometimes'"),
        ("hotv", '{ dog = "x" }', "simulation[1].readings: unknown reading 'dog'"),
        ("hotv", '"cat=first-draw"', "simulation[1].readings: must be a table of texts"),
        ("dice_race", '{ cat = "first-draw" }', "readings: Dice race has no rule readings"),
    ],
)
def test_bad_readings_of_an_item_are_one_line_naming_the_key(tmp_path, game, readings, message):
    from experiment_helpers import refused

    text = f'[[simulation]]\ngame = "{game}"\ngames = 5\nreadings = {readings}\n'
    assert message in refused(tmp_path, text)


@pytest.mark.parametrize(
    "item",
    [
        'compare]]\na = "team"\nb = "random"\nmax_games = 10',
        'tournament]]\ngames = 10\npolicies = ["team", "random"]',
        'sweep]]\ngames = 10\nset = { "path.start_normal" = [8, 9] }',
        "robustness]]\ngames = 10",
        'sensitivity]]\nfinding = "team_win_rate"',
    ],
)
def test_every_hotv_item_kind_sets_its_readings_on_its_components(tmp_path, item):
    text = f'[[{item}\ngame = "hotv"\nreadings = {{ cat = "first-draw" }}\n'
    (parsed,) = load_experiment(write(tmp_path, text, dice=False)).items
    comps = getattr(parsed, "game_components", None) or parsed.components
    assert comps.readings["cat"] == "first-draw"
    assert "cat=first-draw" in parsed.readings_text()
