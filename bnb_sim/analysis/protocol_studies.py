"""Compare, tournament and sweep of a cooperative game served through the protocol (a
competitive game's are the first game's: :mod:`bnb_sim.runner.compare_play`,
``tournament_play`` and ``sweep_play``).

Every study plays the same game indices for every entrant (paired), and measures each
entrant by one number per game index, its *score*: the team's result, 1 or 0.

Differences are paired t intervals over game indices (``stats.paired_difference``), the
ranking is :func:`bnb_sim.analysis.leaders.paired_ranking` ("best" only when the gap to
the next excludes 0), and pairs get the exact McNemar test too. :func:`tables` (the
seatings an experiment's tournament item counts) serves both kinds, branching on the
protocol's outcome kind, never on a game's name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bnb_sim.analysis.sweep_variants import set_value
from bnb_sim.errors import BnbError
from bnb_sim.runner.protocol_run import play_games

COOPERATIVE = "cooperative"
BOUNDS = (-1.0, 1.0)  # a difference of scores in [0, 1]: all-equal samples get a valid bound


def team_won(seats, games) -> np.ndarray:
    """Per game row: did the team win (the games table's ``won``, else any seat's)."""
    if "won" in games.columns:
        return games["won"].to_numpy(dtype=float)
    return seats.groupby("game", sort=True)["won"].max().to_numpy(dtype=float)


def tables(game: Any, entrants: Sequence[str], players: int | None) -> list[tuple[str, ...]]:
    """The seatings that measure ``entrants``: one team per entrant (cooperative), or every
    seating of every combination of ``players`` entrants (competitive)."""
    if game.outcome == COOPERATIVE:
        return [(e,) for e in entrants]
    n = int(players or 2)
    if n > len(entrants):
        raise BnbError(f"{n} players need at least {n} distinct policies, got {len(entrants)}")
    out = []
    for combo in itertools.combinations(entrants, n):
        out += [tuple(combo[(i + r) % n] for i in range(n)) for r in range(n)]
    return out


def scores(
    game: Any,
    components: Any,
    entrants: Sequence[str],
    *,
    players: int | None,
    seed: int,
    options: Mapping[str, Any],
    start: int,
    n: int,
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """Each team policy's result on game indices ``start .. start + n - 1`` (1 or 0)."""
    out = {}
    for entrant in entrants:
        config = game.make_config(components, players=players, policies=[entrant], seed=seed,
                                  options=options)  # fmt: skip
        seats, games = play_games(game, config, n, threads, start)
        out[entrant] = team_won(seats, games)
    return out


def compare(
    game: Any,
    components: Any,
    a: str,
    b: str,
    *,
    players: int | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    max_games: int = 200_000,
    precision: float | None = None,
    threads: int | None = None,
    block: int = 2000,
    progress: Callable[[int, dict], None] | None = None,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> dict[str, Any]:
    """A cooperative game's team policies A against B on the same game indices until
    ``max_games`` games, a 95% half-width of at most ``precision``, or a decision of the SPRT
    ``sprt = (elo0, elo1)`` on the pair scores ``(1 + score_A - score_B) / 2`` of each game
    index (the first game's test, :class:`bnb_sim.analysis.sequential.SPRT`); the result as
    data. After an SPRT decision the estimates are the test's state at its decision. (A
    competitive game's comparison is :func:`bnb_sim.runner.compare_play.run_compare`.)"""
    from bnb_sim.analysis.stats import Rate, mcnemar, paired_difference
    from bnb_sim.core.protocol import describe

    if game.outcome != COOPERATIVE:  # a caller's mistake, not a user's
        raise BnbError("compare: a competitive game is compared by runner/compare_play")
    if sprt and precision is not None:
        raise BnbError("compare: give --sprt or --precision, not both")
    if precision is not None and not 0 < precision < 1:
        raise BnbError(f"compare: --precision must be between 0 and 1 (e.g. 0.02), "
                       f"got {precision:g}")  # fmt: skip
    rule = None
    if sprt:
        from bnb_sim.analysis.compare import make_rule

        rule = make_rule(tuple(sprt), None, alpha, beta)
    options = dict(options or {})
    limit = max(1, max_games)  # game indices: a pair of team games each, A's and B's
    got: list[list[np.ndarray]] = [[], []]  # A's and B's scores (A may be B: an A/A check)
    start = 0
    diff: dict[str, Any] = {}
    stopped = "max-games"
    while start < limit:
        n = min(block, limit - start)
        s = scores(game, components, [a, b], players=players, seed=seed, options=options,
                   start=start, n=n, threads=threads)  # fmt: skip
        for side, label in enumerate((a, b)):
            got[side].append(s[label])
        start += n
        diff = paired_difference(np.concatenate(got[0]), np.concatenate(got[1]), bounds=BOUNDS)
        if progress is not None:
            progress(start, diff)
        if rule is not None:
            rule.update((1.0 + s[a] - s[b]) / 2.0)
            if rule.decision is not None:
                stopped = rule.reason or "sprt"
                break
        if precision and (diff["hi"] - diff["lo"]) / 2 <= precision:
            stopped = "precision"
            break
    sa, sb = np.concatenate(got[0]), np.concatenate(got[1])
    after = None
    if rule is not None and rule.decision_n is not None and rule.decision_n < sa.size:
        # the estimates are the test's state at its decision; the rest of the block apart
        after = {"games": int(sa.size), "games_after_decision": int(sa.size - rule.decision_n),
                 "difference": paired_difference(sa, sb, bounds=BOUNDS)}  # fmt: skip
        sa, sb = sa[: rule.decision_n], sb[: rule.decision_n]  # the test's state at its decision
        diff = paired_difference(sa, sb, bounds=BOUNDS)
    config = game.make_config(components, players=players, policies=[a], seed=seed,
                              options=options)  # fmt: skip
    result = {
        "game": game.name,
        "outcome": game.outcome,
        "a": a,
        "b": b,
        "setting": describe(game, config),
        "options": {k: v for k, v in options.items() if v is not None},
        "game_indices": int(sa.size),
        "games": int(sa.size),
        "games_played": int(2 * sa.size),  # A's and B's games at every index
        "score_a": float(sa.mean()),
        "score_b": float(sb.mean()),
        "difference": diff,
        "stopped": stopped,
    }
    result["players"] = config.n_players
    result["win_rate_a"] = Rate.from_bools(sa).to_dict()
    result["win_rate_b"] = Rate.from_bools(sb).to_dict()
    result["mcnemar"] = mcnemar(sa.astype(bool), sb.astype(bool))
    if rule is not None:
        result["sprt"] = rule.summary()
        result["after_decision"] = after
    return result


def tournament(
    game: Any,
    components: Any,
    entrants: Sequence[str],
    *,
    players: int | None = None,
    games: int = 1000,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """A cooperative game's tournament: every team policy in every seat on game indices
    ``0 .. games-1``, ranked by its team win rate, with the exact McNemar test against the
    best (Holm-adjusted). A competitive game's round robin is ``bnb tournament``'s own
    (:mod:`bnb_sim.runner.tournament_play`)."""
    from bnb_sim.analysis.leaders import holm, paired_ranking
    from bnb_sim.analysis.stats import Rate, mcnemar
    from bnb_sim.core.protocol import describe

    if len(entrants) < 2:
        raise BnbError("tournament: name at least two team policies with --policy")
    if len(set(entrants)) != len(entrants):
        raise BnbError("tournament: an entrant is listed twice")
    s = scores(game, components, entrants, players=players, seed=seed,
               options=dict(options or {}), start=0, n=games, threads=threads)  # fmt: skip
    ranking = paired_ranking(s)
    best, rest = ranking.order[0], ranking.order[1:]
    mc = {label: mcnemar(s[label].astype(bool), s[best].astype(bool))["p_value"]
          for label in rest}  # fmt: skip
    mc_holm = dict(zip(rest, holm([mc[x] for x in rest]), strict=True))
    rows = []
    for label in ranking.order:
        won = Rate.from_bools(s[label])  # a team win rate: Wilson, as the report shows it
        gap = ranking.vs_top.get(label)
        rows.append({
            "policy": label,
            "score": float(won.rate),
            "lo": float(won.lo),
            "hi": float(won.hi),
            "vs_best": None if gap is None else {k: gap[k] for k in ("mean_diff", "lo", "hi")},
            "p_holm": None if gap is None else gap.get("p_holm"),
            # the team win rate (n, Wilson interval) and the exact test of the pairs
            "win_rate": won.to_dict(),
            "mcnemar_p": mc.get(label),
            "mcnemar_p_holm": mc_holm.get(label),
        })  # fmt: skip
    config = game.make_config(components, players=players, policies=[best], seed=seed,
                              options=dict(options or {}))  # fmt: skip
    return {
        "game": game.name,
        "outcome": game.outcome,
        "setting": describe(game, config),
        "players": config.n_players,
        "games": int(games),
        "tables": len(tables(game, entrants, players)),
        "ranking": rows,
        "leader": ranking.leader.to_dict(),
        "selected": ranking.selected_note(),
        "_leader": ranking.leader,
    }


def sweep_variants(
    game: Any, components: Any, sets: Sequence[tuple[str, Sequence[Any]]], mode: str = "grid"
) -> list[tuple[str, Any]]:
    """``[(label, components)]``: every combination of the values of ``sets`` (``grid``),
    or their i-th values together (``zip``: the lists must be equally long). BnbError
    naming a path the components do not have."""
    if mode == "zip":
        lengths = {len(values) for _, values in sets}
        if len(lengths) != 1:
            raise BnbError("sweep --zip: every --set needs the same number of values")
        combos = list(zip(*(values for _, values in sets), strict=True))
    else:
        combos = list(itertools.product(*(values for _, values in sets)))
    out = []
    for combo in combos:
        data = components
        for (path, _), value in zip(sets, combo, strict=True):
            try:
                data = set_value(data, path, value)
            except (KeyError, TypeError):
                raise BnbError(
                    f"--set {path}: {game.title} has no component value {path}"
                ) from None
        label = ", ".join(f"{path}={value}" for (path, _), value in zip(sets, combo, strict=True))
        out.append((label, data))
    return out


def sweep(
    game: Any,
    components: Any,
    variants: Sequence[tuple[str, Any]],
    policies: Sequence[str],
    *,
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """A cooperative game's sweep: the same games under each ``(label, components)``
    variant, the team's win rate per variant and its paired difference from the first
    variant's (a competitive game's sweep is :mod:`bnb_sim.runner.sweep_play`'s)."""
    from bnb_sim.analysis.stats import Rate, paired_difference
    from bnb_sim.core.protocol import describe

    rows, base, won, setting = [], None, {}, ""
    for label, comps in variants:
        config = game.make_config(comps, players=players, policies=list(policies), seed=seed,
                                  options=dict(options or {}))  # fmt: skip
        seats, games_df = play_games(game, config, games, threads)
        first = team_won(seats, games_df)  # one row per game: the Wilson interval
        setting = setting or describe(game, config)
        base = first if base is None else base
        won[label] = first
        rows.append({
            "variant": label,
            "win_rates": {"team": Rate.from_bools(first).to_dict()},
            "vs_first_variant": None if first is base else paired_difference(first, base,
                                                                             bounds=BOUNDS),
        })  # fmt: skip
    return {"game": game.name, "outcome": game.outcome, "games": int(games),
            "setting": setting, "variants": rows, "_scores": won}  # fmt: skip
