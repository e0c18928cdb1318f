"""``bnb report`` in bounded memory: the clustered sums are taken per block of whole games and
give the same numbers as in one pass; the temporaries of each table stay a small multiple of
the rows (the seat rows themselves take about 47 bytes each); rendered figures are freed at
once. docs/simulate.md ("Reports: answers first") quotes the measured peaks."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pandas as pd
import pytest
from fake_runs import FakeSpec, make_frames

from bnb_sim.analysis import plots, report, report_wins, stats, stats_seats, table_blocks, tables

BIG = 50_000  # games: 200,000 seat rows


def _compact(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as bnb report loads it: categories for labels, narrow integers."""
    out = {}
    for name, column in frame.items():
        if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
            out[name] = column.astype("category")
        elif column.dtype.kind in "iu" and name != "game":
            out[name] = column.astype(np.int16 if column.max() > 127 else np.int8)
        else:
            out[name] = column
    return pd.DataFrame(out)


@pytest.fixture(scope="module")
def big():
    seats, games = make_frames(FakeSpec(n_games=BIG, chunk_size=BIG))
    return _compact(seats), games


@pytest.fixture(scope="module")
def small():
    seats, games = make_frames(FakeSpec(n_games=3000, chunk_size=3000))
    return _compact(seats), games


def test_game_blocks_never_split_a_game():
    game = np.repeat(np.arange(1000), 4)
    blocks = tables.game_blocks(game, rows=37)
    assert blocks[0].start == 0 and blocks[-1].stop == len(game)
    for a, b in zip(blocks, blocks[1:], strict=False):
        assert a.stop == b.start and game[a.stop - 1] != game[b.start]
    assert all(s.stop - s.start <= 40 for s in blocks)
    long_game = np.array([0, 1, 1, 1, 1, 1, 1, 2])  # a game longer than a block
    assert [(s.start, s.stop) for s in tables.game_blocks(long_game, rows=2)] == [
        (0, 1), (1, 7), (7, 8)]  # fmt: skip
    unsorted = np.array([2, 1, 0, 1])
    assert tables.game_blocks(unsorted, rows=1) == [slice(0, 4)]


@pytest.mark.parametrize(
    "compute",
    [
        lambda s: tables.win_rates(s, "policy"),
        lambda s: tables.win_rates(s, ["policy", "seat"]),
        lambda s: tables.win_rates(s, "board"),
        lambda s: tables.choice_shares(s),
    ],
    ids=["policy", "policy-seat", "board", "choices"],
)
def test_block_sums_give_the_numbers_of_one_pass(small, monkeypatch, compute):
    seats, _ = small
    one_pass = compute(seats)
    monkeypatch.setattr(table_blocks, "BLOCK_ROWS", 101)  # many blocks
    blocked = compute(seats)
    pd.testing.assert_frame_equal(one_pass, blocked, check_exact=False, rtol=1e-12)


def test_bincount_group_means_match_pandas(small):
    seats, _ = small
    columns = ["xp", "fights", "mobs_defeated"]
    expected = seats.groupby("policy", observed=True, sort=True)[columns].mean()
    expected.index = expected.index.astype(str)
    got = tables.group_means(seats, columns)
    pd.testing.assert_frame_equal(got, expected, check_names=False, check_index_type=False)
    sums = tables.group_means(seats, columns, total=True)
    assert sums["xp"].tolist() == seats.groupby("policy", observed=True)["xp"].sum().tolist()
    plain = seats.assign(policy=seats["policy"].astype(str))
    assert list(tables.group_means(plain, columns).index) == sorted(set(plain["policy"]))


def test_game_seat_matrix_matches_the_definition(small):
    seats, _ = small
    y, m, labels = stats_seats._game_seat_matrix(seats)
    games = np.sort(seats["game"].unique())
    assert y.shape == (len(games), len(labels)) and list(labels) == [0, 1, 2, 3]
    wide = seats.pivot(index="game", columns="seat", values="won").reindex(games)
    assert np.array_equal(y, wide.to_numpy(float)) and np.all(m == 1)
    shuffled = seats.sample(frac=1.0, random_state=1)  # rows in any order: the same matrix
    y2, m2, _ = stats_seats._game_seat_matrix(shuffled)
    assert np.array_equal(y, y2) and np.array_equal(m, m2)


@pytest.mark.parametrize(
    ("name", "compute"),
    [
        ("win rate per seat", lambda s, g: tables.win_rates(s, "seat")),
        ("win rate per policy and seat", lambda s, g: tables.win_rates(s, ["policy", "seat"])),
        ("first-player advantage", lambda s, g: stats.first_player_advantage(s)),
        ("choice shares", lambda s, g: tables.choice_shares(s)),
        ("play style", lambda s, g: tables.play_style(s)),
        ("fights by policy", lambda s, g: tables.fights_by_mob_and_policy(s)),
        ("seat/policy confound", lambda s, g: report.seat_policy_confound(s, {})),
        ("multi-seat check", lambda s, g: report_wins._multi_seat_policies(s)),
    ],
)
def test_each_table_needs_few_bytes_per_row(big, monkeypatch, name, compute):
    """Peak temporaries per seat row (Python and NumPy allocations, tracemalloc). Before the
    block sums and the bincount tables these took 60-70 bytes per row; 4,000,000 rows then
    needed 250-280 MB on top of the rows themselves."""
    seats, games = big
    monkeypatch.setattr(table_blocks, "BLOCK_ROWS", 50_000)  # as a 4,000,000-row run's 1 << 20
    compute(seats, games)  # warm caches (categories, imports)
    tracemalloc.start()
    try:
        compute(seats, games)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    per_row = peak / len(seats)
    assert per_row < 40, f"{name}: {per_row:.0f} bytes per row"


def _watched_figure(refs: list):
    """A small figure, with a weak reference to it appended to ``refs``."""
    fig, axes = plots.new_figure(2.0)
    axes[0, 0].plot([0, 1], [0, 1])
    refs.append(weakref.ref(fig))
    return fig


def test_a_rendered_figure_is_freed_at_once():
    refs = []
    gc.disable()
    try:
        report.Section("s").figure("f", _watched_figure(refs), "caption")
        assert refs[0]() is None
    finally:
        gc.enable()


def test_a_report_scope_collects_only_what_it_made_and_gives_the_heap_back():
    """Inside a report build (renders_figures) the objects alive before it are set aside, so
    each figure's collection scans only the report's own; a figure is still freed at once,
    and the outermost scope hands everything back to the collector (nested ones do not)."""
    from bnb_sim.analysis.figure_scope import renders_figures

    refs = []
    assert gc.get_freeze_count() == 0
    gc.disable()
    try:
        with renders_figures():
            before = gc.get_freeze_count()
            assert before > 1000  # the process's objects, set aside
            with renders_figures():
                report.Section("s").figure("f", _watched_figure(refs), "caption")
                assert refs[0]() is None
            assert gc.get_freeze_count() > before / 2  # an inner scope keeps them set aside
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_process_that_froze_its_own_objects_keeps_them_frozen():
    from bnb_sim.analysis.figure_scope import renders_figures

    @renders_figures()
    def build():
        return gc.get_freeze_count()

    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        assert build() > mine / 2 and gc.get_freeze_count() > mine / 2  # not unfrozen
    finally:
        gc.unfreeze()
    assert build() > 0 and gc.get_freeze_count() == 0


def test_integer_means_by_block_equal_the_general_path(small, monkeypatch):
    seats, _ = small
    values, game = seats["xp"].to_numpy(), seats["game"].to_numpy()
    monkeypatch.setattr(table_blocks, "BLOCK_ROWS", 97)
    blocked = stats.clustered_mean_ci(values, game)
    general = stats.clustered_mean_ci(values.astype(float), game)  # floats: one pass
    assert blocked["n"] == general["n"] and blocked["n_clusters"] == general["n_clusters"]
    for key in ("mean", "lo", "hi", "sd", "se"):
        assert blocked[key] == pytest.approx(general[key], rel=1e-12), key
    shuffled = np.random.default_rng(0).permutation(len(values))  # unsorted: general path
    again = stats.clustered_mean_ci(values[shuffled], game[shuffled])
    assert again["mean"] == pytest.approx(general["mean"], rel=1e-12)
