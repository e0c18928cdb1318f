"""Two team policies of Heroes of the Village compared on the same game indices (paired), as
the ``[[compare]]`` items of experiment files play them: :func:`compare_policies` is the
shared study of ``bnb compare --game hotv`` (``bnb_sim.analysis.protocol_studies.compare``:
a precision, an SPRT decision or the game budget) with the game's words added, and
:func:`check_stopping` checks an item's stopping rule before any game. The texts of an SPRT
and of a bound are the shared ones (``bnb_sim.analysis.protocol_text``).
"""

from __future__ import annotations

from typing import Any

from bnb_sim.errors import BnbError


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
    SPRT ``sprt = (elo0, elo1)``: the shared study of ``bnb compare --game hotv``
    (:func:`bnb_sim.analysis.protocol_studies.compare`, the same games and numbers), with
    the pet team and difficulty added and ``rate_a``/``rate_b`` as
    :class:`~bnb_sim.analysis.stats.Rate` objects. ``progress(pairs, diff)`` after each block.

    The SPRT is the first game's (:class:`~bnb_sim.analysis.sequential.SPRT`, checked after
    every pair) on the pair score ``(1 + won_A - won_B) / 2`` of each game index: 1 when A's
    team won where B's lost, 0 for the reverse, ½ when both went the same way. Its Elo is the
    pair-score Elo of the first game's comparison against a field (docs/statistics.md);
    ``elo >= E`` means a paired win-rate difference of at least ``2 s(E) - 1``.
    """
    from bnb_sim.analysis.protocol_studies import compare
    from bnb_sim.analysis.stats import Rate
    from bnb_sim.games.heroes_village.spec import GAME

    options = {"pets": pets, "difficulty": difficulty, "buildings": buildings}
    result = compare(GAME, comps, a, b, players=players, seed=seed, options=options,
                     max_games=max_games, precision=precision, threads=threads,
                     progress=progress, sprt=tuple(sprt) if sprt else None, alpha=alpha,
                     beta=beta)  # fmt: skip
    team = GAME.make_config(comps, players=players, policies=[a], seed=seed, options=options)
    result.update(
        pets=list(team.inner.teams[0]), difficulty=team.inner.difficulty,
        rate_a=Rate(**{k: result["win_rate_a"][k] for k in ("k", "n", "rate", "lo", "hi")}),
        rate_b=Rate(**{k: result["win_rate_b"][k] for k in ("k", "n", "rate", "lo", "hi")}),
    )  # fmt: skip
    return result
