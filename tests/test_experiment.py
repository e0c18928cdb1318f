"""Experiment files: validation (one line, exit 2), a small run end to end, the browser check."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from test_report_browser import _chromium, _Tables, chromium  # noqa: F401  (fixture)

from bnb_sim.analysis.experiment import builtin_names, builtin_path, load_experiment
from bnb_sim.cli import main
from bnb_sim.errors import BnbError

SMALL = """
[experiment]
title = "small experiment"
seed = 5
threads = 2
bootstrap = 50

[[simulation]]
name = "two"
games = 300
players = 2
policies = ["heuristic", "greedy"]

[[tournament]]
name = "bots"
policies = ["heuristic", "greedy", "random"]
players = 2
games = 30

[[compare]]
name = "ab"
a = "greedy"
b = "random"
sprt = [0, 20]
max_games = 2000

[[sweep]]
name = "hearts"
set = { "mobs.enderman.hearts" = [5, 6] }
games = 100
players = 3
policies = ["heuristic", "greedy", "random"]
"""


def _write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_builtin_demo_is_valid():
    assert "demo" in builtin_names()
    exp = load_experiment(builtin_path("demo"))
    kinds = [item.kind for item in exp.items]
    assert {"simulation", "tournament", "sweep", "compare"} <= set(kinds)
    assert exp.seed == 2019
    with pytest.raises(BnbError, match="unknown built-in experiment 'nope'"):
        builtin_path("nope")


def test_items_keep_file_order_and_defaults(tmp_path):
    exp = load_experiment(_write(tmp_path, SMALL))
    assert [i.name for i in exp.items] == ["two", "bots", "ab", "hearts"]
    sim, tour, cmp_, sweep = exp.items
    assert sim.seed == 5 and sim.seating == "rotate" and sim.variant == "standard"
    assert tour.bootstrap == 50 and tour.anchor == "auto"
    assert cmp_.sprt == (0.0, 20.0) and cmp_.players == 2 and cmp_.opponents == []
    assert [v.name for v in sweep.variants] == [
        "mobs.enderman.hearts=5",
        "mobs.enderman.hearts=6 (baseline)",
    ]


def test_component_files_and_overrides(tmp_path):
    (tmp_path / "box.toml").write_text(
        '[mobs.enderman]\nhearts = 7\nprovenance = "known"\nsource = "my box"\n'
    )
    exp = load_experiment(
        _write(
            tmp_path,
            """
            [experiment]
            components = ["box.toml"]
            [[simulation]]
            games = 10
            policies = ["random"]
            set = { "mobs.witch.hearts" = 2 }
            """,
        )
    )
    comps = exp.items[0].components
    assert comps.mob_hearts["enderman"] == 7 and comps.mob_hearts["witch"] == 2
    assert exp.items[0].name == "simulation 1"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("[experiment]\ntitel = 'x'\n", "exp.toml: unknown key 'experiment.titel'"),
        (
            "[[simulation]]\ngames = 5\npolicies = ['random']\ngamez = 3\n",
            "exp.toml: unknown key 'simulation[1].gamez'",
        ),
        ("[[simulaton]]\ngames = 5\n", "exp.toml: unknown key 'simulaton'"),
        (
            "[[simulation]]\ngames = 'many'\npolicies = ['random']\n",
            "simulation[1].games: must be an integer",
        ),
        ("[[simulation]]\npolicies = ['random']\n", "simulation[1].games: is required"),
        ("[[simulation]]\ngames = 5\npolicies = ['randm']\n", "unknown policy 'randm'"),
        (
            "[[sweep]]\ngames = 5\npolicies = ['random']\n"
            "set = { 'mobs.endermann.hearts' = [5] }\n",
            "'mobs.endermann.hearts'",
        ),
        (
            "[[tournament]]\ngames = 5\npolicies = ['random', 'greedy']\nanchor = 'heuristic'\n",
            "anchor: 'heuristic' is not one of the policies",
        ),
        ("[[compare]]\na = 'greedy'\nb = 'random'\n", "exactly one of --sprt"),
        ("[experiment]\nseed = 1\n", "declares nothing to run"),
        (
            "[[simulation]]\ngames = 5\npolicies = ['random', 'greedy', 'heuristic']\n",
            "simulation[1].policies: 3 policies for 2 players",
        ),
        ("[[simulation]\n", "not valid TOML"),
        (
            "[[simulation]]\nname = 'x'\ngames = 5\npolicies = ['random']\n"
            "[[tournament]]\nname = 'x'\ngames = 5\npolicies = ['random', 'greedy']\n",
            "'x' is used twice",
        ),
    ],
)
def test_bad_experiment_file_is_one_line_exit_2(tmp_path, capsys, text, needle):
    path = _write(tmp_path, text)
    with pytest.raises(SystemExit) as exc:
        main(["run", str(path), "--out", str(tmp_path / "never")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bnb: error: ") and err.count("\n") == 0, err
    assert needle in err
    assert not (tmp_path / "never").exists()


def test_missing_file_or_folder_or_both_sources(tmp_path, capsys):
    for args, needle in (
        ([str(tmp_path / "nope.toml")], "no such experiment file"),
        ([str(tmp_path)], "is a folder"),
        ([], "give an EXPERIMENT file or --builtin NAME"),
        (["x.toml", "--builtin", "demo"], "give an EXPERIMENT file or --builtin NAME"),
        (["--builtin", "nope"], "unknown built-in experiment"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["run", *args])
        assert exc.value.code == 2
        assert needle in capsys.readouterr().err


def test_cli_modules_import_without_numba():
    code = (
        "import sys\n"
        "import bnb_sim.cli.run_cmd, bnb_sim.cli.tournament_cmd, bnb_sim.cli.compare_cmd\n"
        "import bnb_sim.cli.sweep_cmd, bnb_sim.runner.experiments\n"
        "import bnb_sim.analysis.experiment, bnb_sim.analysis.tournament\n"
        "import bnb_sim.analysis.compare, bnb_sim.analysis.sweep\n"
        "from bnb_sim.cli import main\n"
        "try:\n"
        "    main(['run', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --------------------------------------------------------------------------------------
# a whole (small) experiment


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("experiment")
    path = _write(base, SMALL)
    out = base / "report"
    main(["run", str(path), "--out", str(out), "-q"])
    return out


def test_experiment_writes_one_report(small_run):
    out = small_run
    for name in ("report.html", "report.md", "summary.json"):
        assert (out / name).exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "experiment" and summary["seed"] == 5
    items = {i["name"]: i for i in summary["items"]}
    assert [i["kind"] for i in summary["items"]] == ["simulation", "tournament", "compare", "sweep"]
    assert items["two"]["n_games"] == 300
    assert items["bots"]["seeds"] == 30 and items["bots"]["anchor"] == "random"
    assert items["ab"]["decision"] == "H1"
    assert len(items["hearts"]["variants"]) == 2
    md = (out / "report.md").read_text()
    for title in (
        "## two: Win rates",
        "## bots: Ratings",
        "## ab: comparison",
        "## hearts: Effect on win rates",
        "## Parameters and provenance",
    ):
        assert title in md
    assert "Estimated component values" in md
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) == len(set(pngs)) >= 12 and "bots-elo.png" in pngs
    assert "win-rate-by-seat.png" in pngs  # the seat plot by simulation (player count)


def test_experiment_opens_with_key_findings_and_its_caveats(small_run):
    """Issue 15: the headline answer of every item first, the estimated-components caveat
    next to them (it used to come last), compile time kept apart from the items' time."""
    summary = json.loads((small_run / "summary.json").read_text())
    kinds = [(f["text"].split(":")[0], f["kind"]) for f in summary["key_findings"]]
    assert ("two", "best_policy") in kinds and ("two", "first_player_advantage") in kinds
    assert ("bots", "best_policy") in kinds and ("ab", "compare_verdict") in kinds
    assert ("hearts", "largest_win_rate_effect") in kinds
    for finding in summary["key_findings"]:
        assert "n = " in finding["text"] and "[" in finding["text"], finding
    md = (small_run / "report.md").read_text()
    head = md[: md.index("Contents:")]
    assert "## Key findings" in head and "Estimated component values" in head
    assert summary["compile_seconds"] is not None and summary["compile_seconds"] >= 0
    assert "playing seconds" in md and "compiling or loading the kernels took" in md
    # the per-policy table is no longer repeated in each simulation's overview
    two = md[md.index("## two: simulation") : md.index("## two: Win rates")]
    assert "| policy |" not in two


def test_experiment_is_deterministic(small_run, tmp_path):
    """The same file gives the same numbers (timings and dates aside)."""
    from bnb_sim.analysis.experiment import load_experiment as load
    from bnb_sim.runner.experiments import run_item

    exp = load(_write(tmp_path, SMALL))
    first = json.loads((small_run / "summary.json").read_text())["items"][1]
    again = run_item(exp.items[1], threads=1)  # the tournament, on another thread count
    assert again.ratings[["policy", "elo", "lo", "hi"]].to_dict(orient="records") == [
        {k: r[k] for k in ("policy", "elo", "lo", "hi")} for r in first["ratings"]
    ]


def test_experiment_report_renders_in_headless_chromium(chromium, small_run, tmp_path):  # noqa: F811
    html = small_run / "report.html"
    dom = _chromium(chromium, tmp_path, "--dump-dom", html.resolve().as_uri())
    page = _Tables()
    page.feed(dom)
    n_png = len(list(small_run.glob("*.png")))
    assert page.images == n_png >= 12
    assert page.body.get("data-images") == f"{n_png}/{n_png}"
    assert page.body.get("data-images-ok") == "yes"
    filled, total = page.body.get("data-tables", "0/1").split("/")
    assert filled == total and int(total) >= 20
    assert all(rows >= 2 for rows in page.rows)


def test_simulation_into_a_run_directory_is_reused(tmp_path):
    pytest.importorskip("bnb_sim.runner.simulate")
    from bnb_sim.runner.experiments import run_item
    from bnb_sim.runner.storage import load_run

    exp = load_experiment(
        _write(
            tmp_path,
            f"""
            [[simulation]]
            games = 200
            players = 3
            policies = ["heuristic", "greedy", "random"]
            run_dir = "{(tmp_path / "run").as_posix()}"
            """,
        )
    )
    seats, games, meta = run_item(exp.items[0], threads=1)
    assert len(games) == 200 and meta["status"] == "complete"
    again, _, _ = run_item(exp.items[0])  # resumes: nothing left to play, same rows
    assert again["won"].tolist() == seats["won"].tolist()
    assert load_run(tmp_path / "run")[1]["game"].tolist() == list(range(200))
