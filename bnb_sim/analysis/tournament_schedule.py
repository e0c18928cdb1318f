"""Who plays whom in a round-robin tournament: the policy list (:func:`split_policy_list`), the
tables of the schedule (every combination of P different policies, :func:`schedule`) and the
P cyclic seatings each table plays on the same seeds (:func:`seatings`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from bnb_sim.errors import BnbError

# combinations x seatings; each seating plays all N seeds
MAX_SEATINGS = 2000


def split_policy_list(text: str | Sequence[str]) -> list[str]:
    """``"heuristic,greedy,random"`` -> specs; inline weights keep their commas.

    ``heuristic:board=1.5,weapon=2,random`` splits into ``heuristic:board=1.5,weapon=2`` and
    ``random``: a piece with ``=`` but no ``:`` continues the previous spec's ``k=v`` list.
    A list (from a TOML file or repeated options) is flattened the same way.
    """
    items = [text] if isinstance(text, str) else list(text)
    out: list[str] = []
    for item in items:
        for piece in str(item).split(","):
            piece = piece.strip()
            if not piece:
                continue
            if out and "=" in piece and ":" not in piece and ":" in out[-1]:
                out[-1] = f"{out[-1]},{piece}"
            else:
                out.append(piece)
    return out


def schedule(policies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Tables of a round robin: every combination of ``players`` policies.

    Without repetition when there are at least as many policies as seats; otherwise with
    repetition, leaving out tables where a single policy plays against itself (they say
    nothing about ratings).
    """
    labels = list(policies)
    if len(set(labels)) != len(labels):
        dup = next(p for p in labels if labels.count(p) > 1)
        raise BnbError(f"tournament: policy '{dup}' is listed twice")
    if len(labels) < 2:
        raise BnbError("tournament: needs at least 2 policies")
    players = int(players)
    if players < 2:
        raise BnbError(f"tournament: players must be at least 2, got {players}")
    from bnb_sim.runner.budget import tournament_tables

    tables = tournament_tables(len(labels), players)  # counted, not built (it can be huge)
    if tables * players > MAX_SEATINGS:
        raise BnbError(
            f"tournament: {tables:,} combinations x {players} seatings is more than "
            f"{MAX_SEATINGS}; use fewer policies"
        )
    if len(labels) >= players:
        return list(itertools.combinations(labels, players))
    return [c for c in itertools.combinations_with_replacement(labels, players) if len(set(c)) > 1]


def seatings(combo: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic seatings of a table: seating ``r`` puts ``combo[(s + r) % P]`` in seat s."""
    n = len(combo)
    return [tuple(combo[(s + r) % n] for s in range(n)) for r in range(n)]
