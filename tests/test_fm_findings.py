"""The within-seat buyer/non-buyer difference of Farmer's Market items (fm_findings): centred
and covering at 95% when the seat drives both buying and winning, unlike the pooled
difference; the verdicts and the seat outlier item. Synthetic games with a known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnb_sim.analysis.fm_findings import (
    EXTREME_FPA,
    MIN_PLAYERS,
    item_findings,
    seat_outlier,
    within_seat_difference,
    within_seat_effects,
)

SEAT_WIN = np.array([0.5, 0.3, 0.2])  # one winner per game, seat 0 wins most


def _games(rng, n_games, buy_by_seat, effect=0.0):
    """3 seats per game, one winner. Buying depends on the seat only; with ``effect`` > 0 a
    buyer's weight in the winner draw is multiplied by ``1 + effect``."""
    seats = np.tile(np.arange(3), n_games)
    game = np.repeat(np.arange(n_games), 3)
    bought = rng.random(seats.size) < np.asarray(buy_by_seat)[seats]
    weight = (SEAT_WIN[seats] * np.where(bought, 1.0 + effect, 1.0)).reshape(n_games, 3)
    cum = np.cumsum(weight / weight.sum(axis=1, keepdims=True), axis=1)
    winner = (rng.random((n_games, 1)) > cum).sum(axis=1)
    won = seats == np.repeat(winner, 3)
    return bought, won, seats, game


def test_within_seat_difference_is_centred_and_covers_at_a_null_effect():
    """Buying independent of winning inside each seat (seat 0 buys most and wins most): the
    pooled buyer-minus-non-buyer difference is far from 0, the within-seat one is not, and its
    95% interval covers 0 in about 95% of 400 replications (binomial 3-sigma band)."""
    rng = np.random.default_rng(11)
    hits, pooled, estimates = 0, [], []
    reps = 400
    for _ in range(reps):
        bought, won, seats, game = _games(rng, 600, (0.8, 0.2, 0.1))
        d = within_seat_difference(bought, won, seats, game)
        hits += d["lo"] <= 0.0 <= d["hi"]
        estimates.append(d["diff"])
        pooled.append(won[bought].mean() - won[~bought].mean())
    coverage = hits / reps
    assert abs(coverage - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps), coverage
    assert abs(np.mean(estimates)) < 0.01
    assert np.mean(pooled) > 0.15  # the confounded pooled comparison credits the seat


def test_within_seat_difference_finds_a_real_effect():
    rng = np.random.default_rng(3)
    bought, won, seats, game = _games(rng, 6000, (0.6, 0.4, 0.3), effect=1.0)
    d = within_seat_difference(bought, won, seats, game)
    assert d["lo"] > 0.05 and d["p_value"] < 1e-6
    assert d["buyers"] == int(bought.sum()) and d["non_buyers"] == int((~bought).sum())


def test_within_seat_difference_of_an_item_no_stratum_both_buys_and_skips_is_undefined():
    seats = np.tile(np.arange(2), 50)
    bought = seats == 0  # seat 0 always buys, seat 1 never
    d = within_seat_difference(bought, seats == 0, seats, np.repeat(np.arange(50), 2))
    assert np.isnan(d["diff"]) and np.isnan(d["lo"])


def _seats_frame(rng, n_games=3000):
    bought_good, won, seats, game = _games(rng, n_games, (0.5, 0.5, 0.5), effect=1.5)
    frame = pd.DataFrame({"game": game, "seat": seats, "policy": "heuristic", "won": won})
    frame["item_good"] = bought_good.astype(np.int8)
    frame["item_table"] = (seats == 0).astype(np.int8)  # only seat 0 ever buys it
    frame["item_rare"] = 0
    frame.loc[frame.index[:5], "item_rare"] = 1
    frame["item_noise"] = (rng.random(len(frame)) < 0.3).astype(np.int8)
    return frame


def test_verdicts_worth_buying_no_difference_and_too_rare():
    effects = within_seat_effects(_seats_frame(np.random.default_rng(5))).set_index("item")
    assert effects.loc["good", "verdict"] == "looks worth buying"
    assert effects.loc["rare", "verdict"] == "too rarely bought to judge"
    assert effects.loc["rare", "buyers"] < MIN_PLAYERS
    assert effects.loc["table", "verdict"] == "no seat both bought it and went without"
    assert effects.loc["noise", "verdict"] == "no detectable difference"
    assert np.isfinite(effects.loc["good", "p_holm"])


def test_seat_outlier_names_the_item_one_seat_buys_and_the_finding_needs_an_extreme_fpa():
    frame = _seats_frame(np.random.default_rng(9))
    outlier = seat_outlier(frame)
    assert outlier["item"] == "table" and outlier["seat"] == 0
    assert outlier["share"]["rate"] == 1.0 and outlier["others_share"]["rate"] == 0.0
    effects = within_seat_effects(frame).to_dict(orient="records")
    summary = {"items": {"within_seat": effects, "seat_outlier": outlier}}
    mild = item_findings({**summary, "first_player_advantage": {"value": 0.1}})
    assert [f.numbers["kind"] for f in mild] == ["fm_items"]
    extreme = item_findings({**summary, "first_player_advantage": {"value": EXTREME_FPA + 0.1}})
    assert [f.numbers["kind"] for f in extreme] == ["fm_items", "fm_seat_outlier"]
    assert "seat 0 buys **table** in **100.00% [99.87, 100.00]**" in extreme[1].text
    assert "(it bought it in every game)" in extreme[1].text
    assert "look worth buying: good +" in extreme[0].text and "a correlation" in extreme[0].text
    assert (
        "not judged (under 30 buyers, or no seat that both bought it and went without): "
        "rare, table" in extreme[0].text
    )


def test_no_outlier_below_the_gap_or_with_even_buying():
    frame = _seats_frame(np.random.default_rng(2)).drop(columns=["item_table"])
    assert seat_outlier(frame) is None


def test_the_item_plot_title_says_correlation_and_the_section_has_the_within_seat_table(
    monkeypatch,
):
    """The designer read "Win rate by item bought" as causal; the caveat was only in the text."""
    from bnb_sim.analysis import plots
    from bnb_sim.games.builders_biomes import fm_report

    titles = []
    real = plots.rate_bars

    def spy(labels, series, title, *args, **kwargs):
        titles.append(title)
        return real(labels, series, title, *args, **kwargs)

    monkeypatch.setattr(fm_report.plots, "rate_bars", spy)
    section = fm_report.items_section(_seats_frame(np.random.default_rng(1), 400), ["heuristic"])
    assert titles and all("a correlation" in t for t in titles), titles
    assert section.summary["items"]["within_seat"]
    assert "Buyers against non-buyers within seat" in section.to_markdown()
