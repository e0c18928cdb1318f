"""Builders & Biomes for the experiment files and the Python studies: what the shared layers
(:mod:`bnb_sim.analysis` items and reports, :mod:`bnb_sim.studies`) need to know about this
game's rule readings, component files and policy specs, reached through the game registry
(the ``study`` entry of :mod:`bnb_sim.games`), so those layers import no game.

A game's *study* module declares:

* ``check_reading(name, value)``: the canonical text of one reading's value (BnbError);
* ``resolve_readings(readings, aliases=, players=)``: every reading (defaults filled in) as
  a dict, from the given ones and alias options (``variant``, ``seating``); BnbError on a
  bad value or a contradiction;
* ``load_components(files, expansion=)`` and ``components_arg(components, expansion)``:
  its component data from files, or from what the Python API takes;
* ``restricted_spec(policy, word, mode)``: ``policy`` never (or always) doing ``word``
  (``[[value]]`` items);
* ``search_budget(spec)``: ``(bot, budget key, budget, other settings)`` of a search-bot
  spec, None for any other policy (the strength-against-budget series of a tournament).

Policy labels and the distinct-entrants check are the protocol's ``policy_labels`` hook
(:mod:`bnb_sim.games.builders_biomes.spec`). Nothing here imports numba at module level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.errors import PolicyError

#: The budget setting of each search bot (``mc``: rollouts, ``ismcts``: iterations).
BUDGET_KEYS = {"mc": "rollouts", "ismcts": "iterations"}

# --------------------------------------------------------------------------------------
# rule readings


def check_reading(name: str, value: Any) -> str:
    """The canonical text of ``value`` for reading ``name`` (BnbError with the choices)."""
    from bnb_sim.games.builders_biomes import readings as R

    return R.check_value(name, value)


def resolve_readings(
    readings: Mapping[str, Any] | None = None,
    *,
    aliases: Mapping[str, Any] | None = None,
    players: int | None = None,
) -> dict[str, str]:
    """Every reading by name (defaults filled in), from ``readings`` and alias options
    (``{"variant": value or None, "seating": ...}``); BnbError on a bad value or an alias
    that contradicts a reading."""
    from bnb_sim.games.builders_biomes import readings as R

    return R.resolve(readings, aliases=aliases, players=players).to_dict()


# --------------------------------------------------------------------------------------
# components


def load_components(files: list[str], expansion: str | None = None):
    """The component data of ``files`` over the defaults (and the expansion's data)."""
    from bnb_sim.games.builders_biomes.components import load_components as load

    return load(files, expansion=expansion)


def components_arg(components: Any, expansion: str | None):
    """Component data from None, a path, a list of paths or loaded data (and the expansion)."""
    from bnb_sim.games.builders_biomes.components_arg import components_arg as given

    return given(components, expansion)


# --------------------------------------------------------------------------------------
# policy specs


def restricted_spec(policy: str, word: str, mode: str) -> str:
    """``policy`` that never (``mode="never"``) or always (``"always"``) does ``word``."""
    from bnb_sim.games.builders_biomes.policies.restrictions import spec_suffix

    suffix = spec_suffix((word,), ()) if mode == "never" else spec_suffix((), (word,))
    return f"{policy}{suffix}"


def search_budget(spec: str) -> tuple[str, str, int, tuple] | None:
    """(bot, budget key, budget, other settings) of a search-bot spec, or None for any other
    policy."""
    from bnb_sim.games.builders_biomes.policies.kinds import SEARCH_DEFAULTS
    from bnb_sim.games.builders_biomes.policies.search_spec import parse_search, search_settings

    name, _, arg = spec.strip().partition(":")
    if name not in BUDGET_KEYS:
        return None
    try:
        kind, params, model = parse_search(name, arg, f"policy '{spec}'")
    except PolicyError:  # not a spec of this package's search bots (another game's policy)
        return None
    settings = search_settings(kind, params)
    budget = settings.pop(BUDGET_KEYS[name])
    # spec order of SEARCH_DEFAULTS, so the family label reads like a spec
    others = tuple((k, settings[k]) for k in SEARCH_DEFAULTS[name] if k in settings)
    if model is not None and model != "shipped":  # another rollout model: another bot
        others += (("model", model),)
    return name, BUDGET_KEYS[name], int(budget), others
