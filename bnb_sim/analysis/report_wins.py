"""Who wins: the overview and win-rate sections of a simulate-run report.

:func:`overview_section` says what was played (games, players, policies, the fair share);
:func:`win_rate_section` gives the win rates by policy, seat, policy and seat and board, the
first-player advantage and the balance, with intervals clustered by game, and
:func:`seat_policy_confound` warns when seats and policies are not crossed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bnb_sim.analysis import leaders, plots, table_blocks, table_columns, table_format, tables
from bnb_sim.analysis.report_builder import Section
from bnb_sim.analysis.report_provenance import _estimated_warning, readings_text
from bnb_sim.analysis.stats_seats import balance_metric, first_player_advantage

# --------------------------------------------------------------------------------------
# sections of a simulate-run report


def _policy_order(seats: pd.DataFrame, meta: Mapping) -> list[str]:
    present = {str(p) for p in pd.unique(seats["policy"])}
    listed = [str(p) for p in meta.get("params", {}).get("policies", []) or []]
    order = [p for p in dict.fromkeys(listed) if p in present]
    return order + [p for p in table_columns.policies_in(seats) if p not in order]


def _fair_share(games: pd.DataFrame, seats: pd.DataFrame) -> float | None:
    source = games if "n_players" in games.columns else seats
    if "n_players" not in source.columns:
        return None
    values = pd.unique(source["n_players"])
    return 1.0 / float(values[0]) if len(values) == 1 else None


def _rate_dicts(df: pd.DataFrame, keys: Sequence[str]) -> list[dict]:
    return [
        {**{k: row[k] for k in keys}, **{c: row[c] for c in table_columns.RATE_COLUMNS}}
        for row in df.to_dict(orient="records")
    ]


def overview_section(
    seats: pd.DataFrame, games: pd.DataFrame, meta: Mapping, source: str | None = None
) -> Section:
    """Run at a glance, with the warning boxes (estimated components, partial run)."""
    section = Section("Overview")
    params = meta.get("params", {}) or {}
    n_games = len(games)
    planned = params.get("games", n_games)  # frames without run.json: nothing was planned
    policies = params.get("policies") or table_columns.policies_in(seats)
    of_planned = f" of {planned:,} planned" if isinstance(planned, int) else ""
    rows = [
        ("games", f"{n_games:,}" + (of_planned if planned != n_games else "")),
        ("seat rows", f"{len(seats):,}"),
        ("players", str(params.get("players", "?"))),
        ("policies (in player order)", ", ".join(map(str, policies))),
        ("seed", str(params.get("seed", "?"))),
        ("rule readings", readings_text(params)),
        ("status", str(meta.get("status", "?"))),
    ]
    if source:
        rows.insert(0, ("run directory", f"`{source}`"))
    section.table(pd.DataFrame(rows, columns=["", "value"]))
    _estimated_warning(section, meta)
    if meta.get("status") == "partial":
        section.warning(
            "Partial run.",
            f"The run was interrupted: this report covers the {n_games:,} games whose parts "
            "were finished. Resume it with the command printed by `bnb simulate` (`--resume`).",
            code="partial_run",
        )
    section.summary.update(
        {
            "kind": meta.get("kind", "simulate"),
            "status": meta.get("status"),
            "n_games": n_games,
            "n_seat_rows": len(seats),
            "policies": list(map(str, policies)),
        }
    )
    return section


def seat_policy_confound(seats: pd.DataFrame, meta: Mapping | None = None) -> dict | None:
    """Whether seat and policy are confounded in a run, or ``None`` when they are not.

    First-player advantage and balance compare *seats*; they mean something only when every
    seat was played by the same mix of policies. That holds by design with rotating seats
    (up to the last incomplete rotation) and in expectation with random seats. With fixed
    seats and different policies per seat (``--fixed-seats``, or the data of any run that
    looks like it) a seat's win rate is its policy's strength.

    Returns ``{"code", "message", "tv"}``: ``code`` is ``"seat_policy_confounded"`` when every
    seat had a single policy and they differ, ``"seat_policy_unbalanced"`` when the policy mix
    differs between seats by more than rotation leaves (total-variation distance ``tv`` above
    ``max(0.02, 2·players/games)``).
    """
    seating = ((meta or {}).get("params") or {}).get("seating")
    if seating == "random" or "policy" not in seats.columns or "seat" not in seats.columns:
        return None
    counts = table_blocks.crosstab_counts(seats["policy"], seats["seat"])
    if counts.shape[0] < 2 or counts.shape[1] < 2:
        return None
    mix = (counts / counts.sum(axis=0)).to_numpy(dtype=float)  # policy mix of each seat
    tv = float(0.5 * np.abs(mix[:, :, None] - mix[:, None, :]).sum(axis=0).max())
    n_games = (
        table_blocks.n_distinct(seats["game"].to_numpy()) if "game" in seats.columns else len(seats)
    )
    if tv <= max(0.02, 2.0 * counts.shape[1] / max(n_games, 1)):
        return None
    single = bool(np.all((counts.to_numpy() > 0).sum(axis=0) == 1))
    if single:
        return {
            "code": "seat_policy_confounded",
            "tv": tv,
            "message": "Seat and policy are confounded: every seat was always played by the "
            "same policy (fixed seats) and the policies differ, so the seat win rates measure "
            "policy strength. First-player advantage and balance are not shown, and each "
            "policy's win rate includes the effect of its seat. Rotate the seats (the default) "
            "to measure either.",
        }
    return {
        "code": "seat_policy_unbalanced",
        "tv": tv,
        "message": f"The policy mix differs between seats (total-variation distance {tv:.2f}), "
        "so seat effects and policy strength are mixed: first-player advantage and balance "
        "are not shown. Rotate the seats (the default) to measure them.",
    }


def _fpa_cell(fpa: Mapping) -> str:
    if not math.isfinite(fpa["value"]):
        return "n/a"
    if not (math.isfinite(fpa["lo"]) and math.isfinite(fpa["hi"])):
        note = "too few games" if fpa.get("note") == "n < 2" else fpa.get("note", "")
        return f"n/a ({note}; {fpa['n_games']:,} game{'s' if fpa['n_games'] != 1 else ''})"
    return table_format.fmt_signed_pp(fpa["value"], fpa["lo"], fpa["hi"])


def _balance_cell(balance: Mapping) -> str:
    if not math.isfinite(balance["value"]):
        return "n/a"
    if not (math.isfinite(balance["lo"]) and math.isfinite(balance["hi"])):
        note = "too few games" if balance.get("note") == "n < 2" else balance.get("note", "")
        return f"n/a ({note}; {balance['n_games']:,} game{'s' if balance['n_games'] != 1 else ''})"
    return table_format.fmt_mean(balance["value"], balance["lo"], balance["hi"], 3)


def _seat_gap_cell(balance: Mapping) -> str:
    if not math.isfinite(balance.get("p_value", math.nan)):
        return "n/a"
    return f"χ²({balance['df']}) = {balance['chi2']:.2f}, p = {balance['p_value']:.3g}"


def win_rate_section(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    policy_order: Sequence[str] | None = None,
    meta: Mapping | None = None,
) -> Section:
    """Win rates per policy, seat, policy x seat and board; first-player advantage; balance;
    shared wins. Seat/policy confounding is detected and reported instead of the seat
    measures (:func:`seat_policy_confound`)."""
    section = Section("Win rates")
    fair = _fair_share(games, seats)
    by_policy = tables.win_rates(seats, "policy", policy_order)
    by_seat = tables.win_rates(seats, "seat")
    by_policy_seat = tables.win_rates(seats, ["policy", "seat"], policy_order)
    ties = tables.tie_rate(games, seats)
    confound = seat_policy_confound(seats, meta)
    fpa = first_player_advantage(seats)
    balance = balance_metric(seats)
    n_games = len(games)

    seat0 = by_seat[by_seat["seat"] == 0]
    section.text(
        "Every rate comes with its 95% Wilson interval and its n. A shared win counts as a win "
        "for every tied winner"
        + (f"; the fair share is {100 * fair:.1f}% per seat." if fair else ".")
    )
    if confound is not None:
        section.warning("Seat and policy confounded.", confound["message"], code=confound["code"])
        withheld = "not shown: seat and policy are confounded (see the warning)"
        fpa_text = balance_text = gap_text = withheld
    else:
        fpa_text, balance_text = _fpa_cell(fpa), _balance_cell(balance)
        gap_text = _seat_gap_cell(balance)
    games_n = f"{n_games:,}"
    headline = pd.DataFrame(
        [
            (
                "first-player advantage",
                fpa_text,
                games_n,
                "seat 0 win rate minus the mean of the other seats' (delta-method CI by game)",
            ),
            (
                "balance",
                balance_text,
                games_n,
                "1 − largest gap between seat win rates; 1 = all seats equal (simultaneous CI "
                "of the seat gaps, valid up to 1)",
            ),
            (
                "seat-gap test",
                gap_text,
                games_n,
                "test that every seat wins equally often (Wald χ², clustered by game)",
            ),
            (
                "shared wins (ties)",
                table_format.fmt_rate(ties.rate, ties.lo, ties.hi),
                f"{ties.n:,}",
                "games with more than one winner",
            ),
        ],
        columns=["measure", "value [95% CI]", "n", "meaning"],
    )
    if len(seat0):
        r = seat0.iloc[0]
        headline.loc[len(headline)] = [
            "seat 0 win rate",
            table_format.fmt_rate(r.rate, r.lo, r.hi),
            f"{int(r.n):,}",
            "the starting player" + (" (= its policy's strength here)" if confound else ""),
        ]
    section.table(headline)

    multi = _multi_seat_policies(seats)
    section.heading("Per policy")
    section.table(
        table_format.display_rates(by_policy, {"policy": "policy"}),
        "A policy playing several seats per game counts once per seat; its interval is "
        "clustered by game (the Wilson interval at the effective sample size of its per-game "
        "results)."
        if multi
        else "One seat per policy and game: exact Wilson intervals.",
    )
    if len(by_policy) > 1:  # a mirror match's one bar is the fair share by construction
        section.figure(
            "win-rate-by-policy",
            plots.rate_bars(
                list(by_policy["policy"]),
                {"win rate": by_policy},
                "Win rate per policy",
                reference=fair,
                reference_label="fair share" if fair else None,
            ),
            "Win rate per policy with 95% intervals (clustered by game); dashed: fair share "
            "1/players.",
        )
    section.heading("Per seat")
    section.table(table_format.display_rates(by_seat, {"seat": "seat"}))
    section.figure(
        "win-rate-by-seat",
        plots.rate_bars(
            [f"seat {s}" + (" (starts)" if s == 0 else "") for s in by_seat["seat"]],
            {"win rate": by_seat},
            "Win rate per seat",
            reference=fair,
            reference_label="fair share" if fair else None,
        ),
        "Win rate of each seat (seat 0 starts), 95% Wilson intervals; dashed: fair share. "
        "The gap between seat 0 and the others is the first-player advantage.",
    )
    section.heading("Per policy and seat")
    wide = by_policy_seat.assign(cell=table_format.rate_cells(by_policy_seat, with_n=True)).pivot(
        index="policy", columns="seat", values="cell"
    )
    wide = wide.reindex([p for p in (policy_order or wide.index) if p in wide.index]).fillna("–")
    wide.columns = [f"seat {c}" for c in wide.columns]
    section.table(wide.reset_index(), "Win rate [95% CI] n=games of each policy in each seat.")
    seats_list = sorted(by_seat["seat"].tolist())
    series = {}
    for policy in policy_order or by_policy["policy"]:
        part = by_policy_seat[by_policy_seat["policy"] == policy].set_index("seat")
        series[policy] = part.reindex(seats_list)[["rate", "lo", "hi"]]
    section.figure(
        "win-rate-by-policy-and-seat",
        plots.rate_bars(
            [f"seat {s}" for s in seats_list],
            series,
            "Win rate per seat and policy",
            reference=fair,
            reference_label="fair share" if fair else None,
            colors=plots.colors_for(list(policy_order or series)),
        ),
        "Win rate of each policy in each seat (seat 0 starts), 95% Wilson intervals.",
    )
    by_board = None
    if "board" in seats.columns:
        section.heading("Per player board")
        by_board = tables.win_rates(seats, "board")
        split = len(by_policy) > 1
        shown = tables.win_rates(seats, ["policy", "board"], policy_order) if split else by_board
        section.table(
            table_format.display_rates(
                shown, {k: k for k in (["policy"] if split else []) + ["board"]}
            ),
            _board_caption(meta, split, int(by_board["board"].nunique())),
        )
        if split:
            section.summary["by_policy_board"] = _rate_dicts(shown, ["policy", "board"])

    if confound is not None:
        fpa_summary = {"value": None, "lo": None, "hi": None, "withheld": confound["code"]}
        balance_summary = {"value": None, "lo": None, "hi": None, "withheld": confound["code"]}
    else:
        fpa_summary = {k: fpa[k] for k in ("value", "lo", "hi", "se", "n_games", "method", "note")}
        balance_summary = {
            k: balance[k]
            for k in ("value", "lo", "hi", "n_games", "chi2", "df", "p_value", "method", "note")
        }
    if len(by_policy) > 1:  # "wins most often" only when the gap to the others excludes 0
        order = list(by_policy.sort_values("rate", ascending=False, kind="stable")["policy"])
        gaps = leaders.rate_gaps_by_cluster(seats, "policy", "game", order)
        section.summary["win_rate_leader"] = leaders.leader_of(order, gaps).to_dict()
    section.summary.update(
        {
            "win_rate": {
                "by_policy": _rate_dicts(by_policy, ["policy"]),
                "by_seat": _rate_dicts(by_seat, ["seat"]),
                "by_policy_seat": _rate_dicts(by_policy_seat, ["policy", "seat"]),
                **({"by_board": _rate_dicts(by_board, ["board"])} if by_board is not None else {}),
            },
            "tie_rate": ties.to_dict(),
            "first_player_advantage": fpa_summary,
            "balance": balance_summary,
            "fair_share": fair,
        }
    )
    return section


def _board_caption(meta: Mapping | None, split: bool, n_boards: int) -> str:
    """Caption of the per-board table: split by policy, the multiple comparison, and whether
    the board layouts themselves are estimates (they are in the default components)."""
    keys = ((meta or {}).get("components") or {}).get("estimated_keys") or []
    estimated = any(str(k).startswith("boards") for k in keys)
    text = "Split by policy (boards are dealt at random, bots differ). " if split else ""
    text += (
        f"{n_boards} boards compared: one 95% interval in {n_boards} may miss by chance, so a "
        "gap needs non-overlapping intervals to be read as a board effect."
    )
    if estimated:
        text += (
            " **The board layouts are estimates** (placeholder layouts, the printed boards are "
            "unpublished): these rates describe the estimated boards, not the real ones."
        )
    return text


def _multi_seat_policies(seats: pd.DataFrame) -> bool:
    """Whether some policy plays more than one seat of a game."""
    if "game" not in seats.columns:
        return False
    codes, names = table_blocks._narrow_codes(seats["policy"])
    game = seats["game"].to_numpy()
    if len(names) <= 1:  # one policy: several seats per game whenever there are 2+ players
        return bool(len(seats) > table_blocks.n_distinct(game))
    for rows in table_blocks.game_blocks(game):  # rows of one (policy, game) pair, block by block
        part = table_blocks._game_codes(game[rows])
        part *= len(names)
        part += codes[rows]
        if np.bincount(part).max(initial=0) > 1:
            return True
    return False
