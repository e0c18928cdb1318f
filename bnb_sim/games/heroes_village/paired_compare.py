"""Two team policies of Heroes of the Village compared on the same game indices (paired), as
the ``[[compare]]`` items of experiment files play them: the play loop and its stopping
rules (:func:`compare_policies`: a precision, an SPRT decision or the game budget) and the
check of an item's stopping rule before any game. ``bnb compare --game hotv`` is the shared
command (``bnb_sim.analysis.protocol_studies.compare``, the same games and statistics); the
texts of an SPRT and of a bound are the shared ones (``bnb_sim.analysis.protocol_text``).
"""

from __future__ import annotations

from typing import Any

from bnb_sim.analysis.protocol_text import bound_note as _bound_note
from bnb_sim.analysis.protocol_text import sprt_text
from bnb_sim.errors import BnbError

__all__ = ["BOUNDS", "_bound_note", "check_stopping", "compare_policies", "sprt_text"]

BOUNDS = (-1.0, 1.0)  # a paired win difference: all-equal samples get a valid bound (D6)


def check_stopping(sprt, precision, alpha=0.05, beta=0.05, given=()) -> None:
    """Refuse a bad stopping rule before a game is played (one line): ``--sprt`` is checked
    as the first game's ``bnb compare`` checks it; ``--sprt`` and ``--precision`` exclude each
    other; ``--alpha``/``--beta`` (named in ``given`` when the user set them) need ``--sprt``."""
    from bnb_sim.analysis.compare import make_rule

    if sprt and precision is not None:
        raise BnbError("compare --game hotv: give --sprt or --precision, not both")
    if sprt:
        make_rule(tuple(sprt), None, alpha, beta)
        return
    for name in sorted(given):
        raise BnbError(f"compare --game hotv: --{name} applies to --sprt only")
    if precision is not None and not 0 < precision < 1:
        raise BnbError(f"compare --game hotv: --precision must be between 0 and 1 (e.g. 0.02), "
                       f"got {precision:g}")  # fmt: skip


def compare_policies(
    comps, a, b, *, players=None, pets=None, difficulty=None, buildings=None, seed=0,
    precision=None, max_games=200_000, threads=None, progress=None, sprt=None, alpha=0.05,
    beta=0.05,
) -> dict[str, Any]:  # fmt: skip
    """Team policies A and B on the same game indices (paired), in blocks of 2,000, until
    ``max_games`` pairs, a 95% half-width of at most ``precision``, or a decision of the
    SPRT ``sprt = (elo0, elo1)``; the result as data (``rate_a``/``rate_b`` are
    :class:`~bnb_sim.analysis.stats.Rate` objects).

    The SPRT is the first game's (:class:`~bnb_sim.analysis.sequential.SPRT`, checked after
    every pair) on the pair score ``(1 + won_A - won_B) / 2`` of each game index: 1 when A's
    team won where B's lost, 0 for the reverse, ½ when both went the same way. Its Elo is the
    pair-score Elo of the first game's comparison against a field (docs/statistics.md);
    ``elo >= E`` means a paired win-rate difference of at least ``2 s(E) - 1``.
    """
    import numpy as np

    from bnb_sim.analysis.compare import make_rule
    from bnb_sim.analysis.stats import Rate, mcnemar, paired_difference
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    rule = make_rule(tuple(sprt), None, alpha, beta) if sprt else None
    configs = [
        make_config(comps, players, [spec], pets, difficulty or "standard", buildings, seed)
        for spec in (a, b)
    ]
    won = {0: [], 1: []}
    start, block = 0, 2000
    while start < max_games:
        n = min(block, max_games - start)
        for i, cfg in enumerate(configs):
            won[i].append(play_block(cfg, start, n, threads)[1]["won"].to_numpy())
        start += n
        diff = paired_difference(np.concatenate(won[0]), np.concatenate(won[1]), bounds=BOUNDS)
        if rule is not None:
            rule.update((1.0 + won[0][-1].astype(float) - won[1][-1].astype(float)) / 2.0)
        if progress is not None:
            progress(start, diff, rule) if rule is not None else progress(start, diff)
        if rule is not None and rule.decision is not None:
            break
        if precision and (diff["hi"] - diff["lo"]) / 2 <= precision:
            break
    wa, wb = np.concatenate(won[0]), np.concatenate(won[1])
    after = None
    if rule is not None and rule.decision_n is not None and rule.decision_n < len(wa):
        # the estimates are the test's state at its decision; the rest of the block apart
        d_all = paired_difference(wa, wb, bounds=BOUNDS)
        after = {"games": int(len(wa)), "games_after_decision": int(len(wa) - rule.decision_n),
                 "difference": d_all}  # fmt: skip
        wa, wb = wa[: rule.decision_n], wb[: rule.decision_n]
    ra, rb = Rate.from_bools(wa), Rate.from_bools(wb)
    diff = paired_difference(wa, wb, bounds=BOUNDS)
    if rule is not None:
        stopped = rule.reason or "max-games"
    elif precision and (diff["hi"] - diff["lo"]) / 2 <= precision:
        stopped = "precision"
    else:
        stopped = "max-games"
    result = {
        "game": "heroes_village", "a": a, "b": b, "pets": list(configs[0].teams[0]),
        "players": configs[0].n_players, "difficulty": configs[0].difficulty,
        "games": int(len(wa)), "win_rate_a": ra.to_dict(), "win_rate_b": rb.to_dict(),
        "difference": diff, "mcnemar": mcnemar(wa, wb), "stopped": stopped,
        "rate_a": ra, "rate_b": rb,
    }  # fmt: skip
    if rule is not None:
        result["sprt"] = rule.summary()
        result["after_decision"] = after
    return result
