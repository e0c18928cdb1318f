"""The search space of ``bnb tune policy``: ``--param NAME=LO..HI[:int]`` over a policy's
numeric parameters, their default ranges, and a bot file's declared thresholds."""

from __future__ import annotations

import math
from collections.abc import Sequence

from bnb_sim.errors import BnbError
from bnb_sim.tune.space import Continuous, Integer, Space, check_names, parse_range


def _bot_param(p, bounds: tuple[float, float] | None, owner: str = "the bot file"):
    """The search range of a bot threshold ``p``: ``bounds`` (from --param) or the default
    range cut to what the file allows; None when the file allows one value only. ``owner``
    declared the range (a bot file, or the policy of a game tuned through the protocol)."""
    if bounds is None:
        lo, hi = default_bounds(p.value)
        lo, hi = max(lo, p.lo), min(hi, p.hi)
    else:
        lo, hi = bounds
        if lo < p.lo or hi > p.hi:
            raise BnbError(
                f"tune: --param {p.name}: {lo:g}..{hi:g} leaves the range {owner} "
                f"allows, [{p.lo:g}, {p.hi:g}]"
            )
    if p.integer:
        lo, hi = math.ceil(lo), math.floor(hi)
        return Integer(p.name, int(lo), int(hi)) if lo < hi or bounds else None
    return Continuous(p.name, float(lo), float(hi)) if lo < hi or bounds else None


def default_bounds(value: float) -> tuple[float, float]:
    """[0, max(3·value, 1)] for a non-negative start value; symmetric around a negative one."""
    if value < 0:
        return 3.0 * value, max(-value, 1.0)
    return 0.0, max(3.0 * value, 1.0)


def _space(
    params: Sequence[str],
    names: list[str],
    start: dict,
    family: str,
    thresholds=None,
    *,
    budgets: Sequence[str] = (),
    defaults: Sequence[str] | None = None,
    owner: str = "the bot file",
) -> Space:
    """The search space of ``--param`` (``params``) over a policy's parameters ``names``
    (``start``: their values). ``budgets``: the names that are search budgets (integers of
    at least 1); ``defaults``: what is tuned without ``--param`` (the game says: every
    heuristic weight but xp); ``thresholds``: a bot file's (name -> its declared range), or
    the parameters a protocol game declares (``owner`` names which, in errors)."""
    if thresholds:
        return _bot_space(params, names, thresholds, owner)
    if not params:
        chosen = list(defaults) if defaults is not None else names
        out: list = []
        for n in chosen:
            if n in budgets:  # a search budget: 1 .. 3x its start value
                out.append(Integer(n, 1, max(3 * int(start[n]), 2)))
            else:
                out.append(Continuous(n, *default_bounds(start[n])))
        return Space(tuple(out))
    out = []
    for text in params:
        integer = str(text).rstrip().endswith(":int")
        if integer:  # a count such as a search bot's rollouts: rounded by CMA-ES
            text = str(text).rstrip()[: -len(":int")]
        name = str(text).partition("=")[0].strip()
        integer = integer or name in budgets
        name, value = parse_range(text, integer=integer, allow_list=False)
        check_names([name], names, f"policy '{family}'")
        lo, hi = value
        if name in budgets and lo < 1:
            raise BnbError(f"tune: --param {name}: a search budget must be at least 1")
        out.append(Integer(name, lo, hi) if integer else Continuous(name, float(lo), float(hi)))
    return Space(tuple(out))


def _bot_space(
    params: Sequence[str], names: list[str], thresholds: dict, owner: str = "the bot file"
) -> Space:
    if not params:
        chosen = (_bot_param(thresholds[n], None, owner) for n in names)
        return Space(tuple(p for p in chosen if p is not None))
    out = []
    for text in params:
        text = str(text).rstrip().removesuffix(":int")  # whole-number thresholds are integers
        name = text.partition("=")[0].strip()
        check_names([name], names, owner)
        _, bounds = parse_range(text, integer=thresholds[name].integer, allow_list=False)
        out.append(_bot_param(thresholds[name], bounds, owner))
    return Space(tuple(out))
