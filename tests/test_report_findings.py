"""Key findings first, per-policy tables, compact loading, progress and the compile notice
(issue 15: the first-contact review's findings 1, 2, 4, 6 and 7)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from fake_runs import FakeSpec, write_fake_run

from bnb_sim import feedback
from bnb_sim.analysis import plots, tables
from bnb_sim.analysis.compact import load_for_report, smallest_int
from bnb_sim.analysis.report import write_report
from bnb_sim.analysis.stats import rates_by_cluster
from bnb_sim.runner.storage import load_run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("findings")
    write_fake_run(base / "run", FakeSpec(n_games=1200, chunk_size=300, seed=4))
    return base / "run"


@pytest.fixture(scope="module")
def written(run, tmp_path_factory):
    return write_report(run, tmp_path_factory.mktemp("out") / "report")


def test_key_findings_open_the_report_with_numbers_intervals_and_n(written):
    summary = json.loads(written["summary"].read_text())
    findings = summary["key_findings"]
    kinds = [f["kind"] for f in findings]
    assert kinds[:2] == ["best_policy", "first_player_advantage"]
    best = findings[0]
    assert best["policy"] == "heuristic" and best["lo"] < best["rate"] < best["hi"]
    assert best["n"] == 1200 and "n = 1,200" in best["text"] and "[" in best["text"]
    md = written["markdown"].read_text()
    assert md.index("## Key findings") < md.index("Contents:") < md.index("## Overview")
    # the caveat (estimated components) is in the findings box, before any section
    box = md[md.index("## Key findings") : md.index("Contents:")]
    assert "Estimated component values" in box and "bots" in box
    html = written["html"].read_text()
    assert html.index('id="key-findings"') < html.index('class="toc"')


def test_no_findings_box_repeats_nothing_when_a_builder_has_none():
    from bnb_sim.analysis.report import ReportBuilder, Section

    builder = ReportBuilder("t")
    builder.add(Section("s")).text("x")
    assert "Key findings" not in builder.markdown()
    assert builder.collect_summary()["key_findings"] == []


def _report(frames, out) -> tuple[dict, str]:
    """``(summary, markdown)`` of the report of ``(seats, games, meta)`` frames."""
    written = write_report(frames, out)
    return json.loads(written["summary"].read_text()), written["markdown"].read_text()


def test_ownership_and_boards_are_split_by_policy(run, tmp_path):
    seats, games, meta = load_run(run)
    summary, md = _report((seats, games, meta), tmp_path / "out")
    split = summary["owning_mob_by_policy"]
    assert {r["policy"] for r in split} == {"heuristic", "greedy", "random"}
    for policy in ("heuristic", "random"):
        n = sum(int(r["n"] + r["n_without"]) for r in split if r["policy"] == policy) / len(
            {r["name"] for r in split}
        )
        assert n == int((seats["policy"] == policy).sum())
    boards = summary["by_policy_board"]
    assert {r["policy"] for r in boards} == {"heuristic", "greedy", "random"}
    assert "Split by policy" in md and "**Pooled over policies**" in md


def test_board_table_says_when_the_layouts_are_estimates(run, tmp_path):
    seats, games, meta = load_run(run)
    meta = {**meta, "components": {**meta.get("components", {}), "estimated_keys": ["boards.red"]}}
    _, md = _report((seats, games, meta), tmp_path / "out")
    assert "**The board layouts are estimates**" in md


def test_compact_loading_keeps_every_value_in_narrower_types(run):
    keep = lambda c: c not in {"player"}  # noqa: E731
    seats, games, _ = load_run(run, seat_columns=keep)
    small, small_games, _ = load_for_report(run, keep, lambda c: True)
    assert list(small.columns) == list(seats.columns)
    for column in seats.columns:
        a, b = seats[column], small[column]
        if isinstance(a.dtype, pd.CategoricalDtype):
            assert list(a.astype(str)) == list(b.astype(str))
        else:
            assert np.array_equal(a.to_numpy(), b.to_numpy()), column
            assert b.dtype.itemsize <= a.dtype.itemsize
    assert small["fights_spider"].dtype == np.int8 and small["game"].dtype == np.int16
    assert small.memory_usage().sum() < 0.6 * seats.memory_usage().sum()
    assert small_games["turns"].tolist() == games["turns"].tolist()
    assert smallest_int(-1, 127) == np.int8 and smallest_int(0, 128) == np.int16


def test_compact_report_numbers_equal_the_full_load(run, tmp_path):
    """The same summary from the compact loader as from load_run's frames."""
    full = write_report(load_run(run), tmp_path / "full")
    compact = write_report(run, tmp_path / "compact")
    a = json.loads(full["summary"].read_text())
    b = json.loads(compact["summary"].read_text())
    for key in ("win_rate", "first_player_advantage", "balance", "xp", "fights", "choices"):
        assert a[key] == b[key], key


@pytest.mark.parametrize("keys", [["policy"], ["seat"], ["policy", "seat"], ["board"]])
def test_numpy_win_rates_equal_the_groupby(run, keys):
    seats, _, _ = load_run(run)
    fast = tables._clustered_win_rates(seats, keys)
    slow = rates_by_cluster(seats[[*keys, "game", "won"]], keys, "game")
    for column in ("k", "n", "rate", "lo", "hi"):
        assert np.array_equal(fast[column].to_numpy(float), slow[column].to_numpy(float))
    assert [str(v) for v in fast[keys[0]]] == [str(v) for v in slow[keys[0]]]


def test_plain_progress_lines_have_rate_and_eta():
    out = io.StringIO()
    meter = feedback.PlainMeter("tournament", out, interval=0)
    meter(0, 1000)
    meter(400, 1000)
    meter(1000, 1000)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert "400/1,000 games (40%)" in lines[0] and "games/s" in lines[0] and "ETA" in lines[0]


def test_games_meter_collects_what_the_runner_reports(monkeypatch):
    seen = []
    monkeypatch.setattr(
        feedback, "progress_meter", lambda enabled, desc="": (lambda d, t: seen.append((d, t)),
                                                              lambda: None)
    )  # fmt: skip
    with feedback.games_meter(True):
        feedback.expect_games(100)
        feedback.games_played(60)
        feedback.games_played(40)
    feedback.games_played(5)  # outside: no meter, no error
    assert seen == [(0, 100), (60, 100), (100, 100)]


def test_progress_meter_without_a_terminal_is_plain_and_silent_when_quiet():
    progress, close = feedback.progress_meter(True, stream=io.StringIO())
    assert isinstance(progress, feedback.PlainMeter)
    assert feedback.progress_meter(False)[0] is None


def test_cold_cache_is_detected_from_index_files(tmp_path):
    assert feedback.cache_is_cold(tmp_path / "missing")
    assert feedback.cache_is_cold(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "engine.play-1.py311.nbi").write_bytes(b"x")
    assert not feedback.cache_is_cold(tmp_path)


def test_compile_notice_announces_and_ticks(monkeypatch):
    monkeypatch.setattr(feedback, "cache_is_cold", lambda folder: True)
    out = io.StringIO()
    import time

    with feedback.compile_notice(True, stream=out, every=0.01) as cold:
        time.sleep(0.05)
    assert cold
    text = out.getvalue()
    assert "compiling the game engine, first run only, about" in text
    assert "compiled in" in text


def test_compile_notice_asks_the_cache_of_the_game_it_plays(monkeypatch, tmp_path):
    """A Heroes of the Village command with that game's kernels cold and the first game's
    warm announces its compile (before: the first game's cache decided, so the compile ran
    silently, and the reverse case announced a compile that did not happen)."""
    import bnb_sim._jit as jit

    warm, cold = tmp_path / "warm", tmp_path / "cold"
    (warm / "engine").mkdir(parents=True)
    (warm / "engine" / "play.play-1.py311.nbi").write_bytes(b"x")
    folders = {"builders_biomes": warm, "heroes_village": cold}
    monkeypatch.setattr(jit, "cache_dir", lambda group="shared": folders[group])
    assert not feedback.game_cache_is_cold(None)
    assert feedback.game_cache_is_cold("hotv")
    assert not feedback.game_cache_is_cold("dice_race")  # its code is outside the package
    out = io.StringIO()
    with feedback.compile_notice(True, stream=out, game="hotv") as was_cold:
        pass
    assert was_cold and "compiling the game engine" in out.getvalue()
    with feedback.compile_notice(True, stream=io.StringIO(), game=["bnb", "dice_race"]) as c:
        assert not c


def test_stacked_bars_label_only_segments_wide_on_the_axis():
    table = pd.DataFrame(
        {"a": [20.0, 0.5], "b": [15.0, 0.4], "c": [10.0, 0.3]}, index=["strong", "weak"]
    )
    fig = plots.stacked_bars(table, "t", "x", total_fmt=None)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["20.0", "15.0", "10.0"]  # none on the short bar, whose labels overlapped


def _cli(capsys, args):
    from bnb_sim.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_tournament_and_sweep_show_progress_lines_without_a_terminal(tmp_path, capsys):
    """stderr is not a TTY under pytest: plain lines with the count, rate and ETA."""
    play = ["--seed", "3", "--threads", "1"]
    code, _, err = _cli(
        capsys,
        ["tournament", "--policy", "greedy", "--policy", "random", "--games", "20",
         "--bootstrap", "0", *play, "--out", tmp_path / "t"],
    )  # fmt: skip
    assert code == 0, err
    assert "40/40 games (100%)" in err and "games/s" in err
    code, _, err = _cli(
        capsys,
        ["sweep", "--policy", "greedy", "--policy", "random", "--players", "2", "--games", "10",
         "--set", "mobs.enderman.hearts=5,7", *play, "--out", tmp_path / "s"],
    )  # fmt: skip
    assert code == 0, err
    assert "games (100%)" in err and "games/s" in err
    code, _, err = _cli(
        capsys,
        ["tournament", "--policy", "greedy", "--policy", "random", "--games", "5",
         "--bootstrap", "0", *play, "-q", "--out", tmp_path / "q"],
    )  # fmt: skip
    assert code == 0 and "games/s" not in err  # --quiet is quiet


def test_notebook_progress_falls_back_to_plain_tqdm_without_ipywidgets(monkeypatch):
    import sys

    import tqdm.std

    monkeypatch.setitem(sys.modules, "ipykernel", object())
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    assert feedback._tqdm_class() is tqdm.std.tqdm
    assert feedback.in_notebook()


def _two_policy_games(rng, games: int, p_a: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two-player games, seats rotating, A winning each game with probability ``p_a``."""
    a_wins = rng.random(games) < p_a
    a_seat = np.arange(games) % 2
    seat = np.tile([0, 1], games)
    policy = np.where(seat == np.repeat(a_seat, 2), "A", "B")
    won = np.where(policy == "A", np.repeat(a_wins, 2), ~np.repeat(a_wins, 2))
    seats = pd.DataFrame({"game": np.repeat(np.arange(games), 2), "seat": seat,
                          "policy": policy, "won": won, "rank": np.where(won, 1, 2)})  # fmt: skip
    frame = pd.DataFrame({"game": np.arange(games), "winners": 1, "turns": 30})
    return seats, frame


def test_n2_wins_most_often_only_when_the_gap_excludes_zero():
    """Statistics review N2: "heuristic wins most often ... 2.3 pp ahead of the next" with a
    paired gap of +2.30 pp [-0.80, +5.40]. The claim now needs the gap to exclude 0."""
    from bnb_sim.analysis.report import run_findings, win_rate_section

    rng = np.random.default_rng(2)
    seats, frame = _two_policy_games(rng, 4000, 0.51)
    summary = win_rate_section(seats, frame, ["A", "B"]).summary
    finding = run_findings(summary)[0]
    gap = finding.numbers["gap"]
    assert gap["lo"] < 0 < gap["hi"] and finding.numbers["best"] is None
    assert "wins most often" not in finding.text
    assert finding.text.startswith("No detectable difference at the top: **A** is tied with B")
    # one game, two seats: the gap is twice (A's rate − ½), its interval the paired one
    rates = seats.groupby("policy")["won"].mean()
    assert gap["mean_diff"] == pytest.approx(rates["A"] - rates["B"])
    seats, frame = _two_policy_games(rng, 4000, 0.56)
    finding = run_findings(win_rate_section(seats, frame, ["A", "B"]).summary)[0]
    assert finding.numbers["best"] == "A" and "**A** wins most often" in finding.text
