"""Parse ``mc[:...]`` and ``ismcts[:...]`` policy specs into a parameter vector (pure Python).

    mc:rollouts=8,rollout=heuristic,margin=0.02
    ismcts:iterations=64,c=0.7,widen=8,rollout=heuristic,margin=0.02
    ismcts:iterations=32,root=8,rollout=strong

``root`` (ismcts, default 0: off) lets the root hold one child per ``root`` iterations and
makes every node add its children in the rollout policy's order of preference, so that a
small budget compares the rollout policy's first choices instead of every legal decision.

``rollout`` names a built-in one-step policy (``random``, ``greedy``, ``heuristic`` with its
default weights, or ``strong`` with the shipped model for the run's players; ``model=FILE``
gives ``strong`` another model file); the other values are numbers. The layout of the vector
is ``SEARCH_*`` in :mod:`bnb_sim.games.builders_biomes.policies.kinds`.
"""

from __future__ import annotations

import math

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.kinds import (
    GREEDY_PARAMS,
    HEURISTIC_DEFAULTS,
    HEURISTIC_WEIGHTS,
    ISMCTS,
    MC,
    RANDOM,
    SEARCH_DEFAULTS,
    SEARCH_ROLLOUTS,
    SEARCH_ROOT,
    SEARCH_WIDEN,
    STRONG,
)

# largest budget accepted (the tree of ismcts holds one node per iteration)
MAX_BUDGET = 1_000_000


def _number(text: str, where: str, key: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise PolicyError(f"{where}: '{key}' must be a number, got '{text}'") from None
    if not math.isfinite(value):
        raise PolicyError(f"{where}: '{key}' must be a finite number, got '{text}'")
    return value


def parse_search(name: str, arg: str, where: str) -> tuple[int, tuple[float, ...], str | None]:
    """``(kind, params, model)`` of a search bot spec (raises PolicyError naming the problem);
    ``model``: the rollout's strong model (a file, or ``SHIPPED``), None for other rollouts."""
    settings = dict(SEARCH_DEFAULTS[name])
    model = None
    budget_key = "rollouts" if name == "mc" else "iterations"
    if arg:
        given: set[str] = set()
        for part in arg.split(","):
            if "=" not in part:
                raise PolicyError(f"{where}: '{part}' is not NAME=VALUE")
            key, text = (s.strip() for s in part.split("=", 1))
            if key == "model":
                model = text
                continue
            if key not in settings:
                raise PolicyError(
                    f"{where}: unknown parameter '{key}' (known: {', '.join(settings)})"
                )
            if key in given:  # as for heuristic weights: no silent "the last one wins"
                raise PolicyError(f"{where}: parameter '{key}' is given twice")
            given.add(key)
            if key == "rollout":
                if text not in SEARCH_ROLLOUTS:
                    raise PolicyError(
                        f"{where}: rollout must be one of {', '.join(SEARCH_ROLLOUTS)}, "
                        f"got '{text}'"
                    )
                settings[key] = text
            else:
                settings[key] = _number(text, where, key)
    budget = settings[budget_key]
    if budget != int(budget) or not 1 <= budget <= MAX_BUDGET:
        raise PolicyError(f"{where}: {budget_key} must be a whole number in 1..{MAX_BUDGET}")
    if settings.get("c", 0.0) < 0:
        raise PolicyError(f"{where}: c must be >= 0")
    if settings.get("widen", 0.0) < 0:
        raise PolicyError(f"{where}: widen must be >= 0")
    if settings.get("root", 0.0) < 0:
        raise PolicyError(f"{where}: root must be >= 0")
    rollout = SEARCH_ROLLOUTS[settings["rollout"]]
    if model is not None and rollout != STRONG:
        raise PolicyError(f"{where}: model= is for rollout=strong")
    if rollout == STRONG:
        from bnb_sim.games.builders_biomes.strong_model import (
            SHIPPED,
            heuristic_start,
            load_model,
        )

        if model is None:
            model = SHIPPED
        else:
            load_model(model)  # refused here, before any game, if it is not a model
        # filled in per run (registry.resolve_policy): the model for the run's players
        weights = list(heuristic_start(2).weights)
    elif rollout == RANDOM:
        weights = [0.0] * len(HEURISTIC_WEIGHTS)
    elif settings["rollout"] == "greedy":
        weights = [GREEDY_PARAMS[n] for n in HEURISTIC_WEIGHTS]
    else:
        weights = list(HEURISTIC_DEFAULTS)
    params = (
        budget,
        settings.get("c", 0.0),
        float(rollout),
        settings["margin"],
        settings.get("widen", 0.0),
        settings.get("root", 0.0),
        *weights,
    )
    return (MC if name == "mc" else ISMCTS), tuple(float(p) for p in params), model


def search_settings(kind: int, params: tuple[float, ...]) -> dict:
    """The named settings of a search bot's parameter vector (for run metadata)."""
    names = {v: k for k, v in SEARCH_ROLLOUTS.items()}
    out = {"rollouts" if kind == MC else "iterations": int(params[0])}
    if kind == ISMCTS:
        out["c"] = params[1]
        out["widen"] = params[SEARCH_WIDEN]
        if params[SEARCH_ROOT] > 0:  # shown only when used: older runs' metadata stays as it was
            out["root"] = params[SEARCH_ROOT]
    out["rollout"] = names.get(int(params[2]), "?")
    out["margin"] = params[3]
    return out
