"""The parameter-free and weight-only bots of a ``--policy`` spec: ``random``, ``greedy`` and
``heuristic[:weights]``, as a kind id and a parameter vector.

Both the spec parser (:mod:`~bnb_sim.games.builders_biomes.policies.registry`) and the bot-file
compiler (a bot file's ``fallback``,
:mod:`~bnb_sim.games.builders_biomes.policies.priority_compile`) read these specs, and the
parser reads bot files; this module is what they share, so neither imports the other.
Pure Python: never imports numba.
"""

from __future__ import annotations

from bnb_sim.entry_points import parse_assignments
from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.kinds import (
    GREEDY,
    GREEDY_PARAMS,
    HEURISTIC,
    HEURISTIC_DEFAULTS,
    HEURISTIC_WEIGHTS,
    N_PARAMS,
    RANDOM,
)

__all__ = ["MAX_WEIGHT", "SIMPLE", "simple_params", "split_name"]

SIMPLE = ("random", "greedy", "heuristic")
#: Largest |weight| of a built-in bot: the evaluation adds weighted terms of up to ~1e3, and
#: 1e308-sized weights made it inf - inf = NaN (an illegal decision -1 partway through a run).
MAX_WEIGHT = 1e6


def split_name(spec: str) -> tuple[str, str, str]:
    """``(name, arg, where)`` of a spec without restrictions; ``where`` names it in errors.
    A ``:`` with nothing after it is refused."""
    name, colon, arg = spec.partition(":")
    where = f"policy '{spec}'"
    if colon and not arg.strip():
        raise PolicyError(
            f"{where}: nothing after ':' (give NAME=VALUE,... or a .toml file, or drop the ':')"
        )
    return name, arg, where


def simple_params(name: str, arg: str, where: str) -> tuple[int, tuple[float, ...]]:
    """``(kind, params)`` of a :data:`SIMPLE` bot with the argument ``arg`` (PolicyError if
    bad)."""
    if name == "random":
        if arg:
            raise PolicyError(f"{where}: random takes no parameters")
        return RANDOM, (0.0,) * N_PARAMS
    if name == "greedy":
        if arg:
            raise PolicyError(f"{where}: greedy takes no parameters (use heuristic:...)")
        return GREEDY, tuple(GREEDY_PARAMS[n] for n in HEURISTIC_WEIGHTS)
    if name != "heuristic":
        raise ValueError(f"{name!r} is not one of {SIMPLE}")
    weights = dict(zip(HEURISTIC_WEIGHTS, HEURISTIC_DEFAULTS, strict=True))
    if arg:
        weights.update(parse_assignments(arg, list(HEURISTIC_WEIGHTS), where))
    for key, value in weights.items():  # beyond this, sums of weighted terms overflow
        if abs(value) > MAX_WEIGHT:
            limit = f"{MAX_WEIGHT:g}"
            raise PolicyError(f"{where}: weight '{key}' = {value:g} is outside ±{limit}")
    return HEURISTIC, tuple(weights[n] for n in HEURISTIC_WEIGHTS)
