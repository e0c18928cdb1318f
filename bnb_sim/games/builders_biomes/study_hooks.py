"""Builders & Biomes for the shared studies: the designed studies of the runner (``bnb
compare``, ``tournament``, ``sweep``, ``ladder``, ``value``: :mod:`bnb_sim.runner.design_play`
and the modules built on it), the experiment files' items and report and the Python studies
(:mod:`bnb_sim.analysis.experiment`, :mod:`bnb_sim.studies`): what only this game can say,
reached through the game registry (the ``studies`` entry of :mod:`bnb_sim.games`, a module
named without ``:attribute``), so those layers import no game.

A game's *studies* module declares:

* ``load_components(given)``: ``given`` when it is loaded component data, else the files it
  names (None: the defaults);
* ``make_config(players, policies, **keywords)``: a run config of ``players`` seats with
  ``policies`` (specs or parsed specs) cycled over them; ``play_block(config, start, n,
  threads)``: its ``(seats, games)`` frames of games ``start .. start+n-1``;
* ``parse_policy(spec)`` (an object with ``label``) and ``check_distinct(specs, what)``
  (one spec listed twice, however written, is an error);
* ``design_readings(readings, variant, seating=, what=)``: the readings of a design that
  fixes the seating itself, and ``resolved_readings(readings)``: every reading, defaults
  filled in (the texts of an experiment's overview);
* ``value_actions(components)`` and ``restricted_spec(policy, word, mode)``: the action
  names ``bnb value --option all-actions`` stands for, and the spec of ``policy`` with
  option ``word`` forbidden (``mode="never"``) or forced (``"always"``);
* ``check_reading(name, value)``: the canonical text of one reading's value (BnbError);
  ``resolve_readings(readings, aliases=, players=)``: every reading (defaults filled in) as
  a dict, from the given ones and alias options (``variant``, ``seating``);
* ``expansions()``: the names an experiment item's ``expansion`` may take;
* ``load_component_files(files, expansion=)`` and ``components_arg(components, expansion)``:
  its component data from an experiment file's list of files, or from what the Python API
  takes;
* ``search_budget(spec)``: ``(bot, budget key, budget, other settings)`` of a search-bot
  spec, None for any other policy (the strength-against-budget series of a tournament).

Policy labels and the distinct-entrants check of the experiment files are the protocol's
``policy_labels`` hook (:mod:`bnb_sim.games.builders_biomes.spec`).

Nothing here imports numba at module level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim.errors import BnbError, PolicyError

# --------------------------------------------------------------------------------------
# components, configs and blocks of games


def load_components(given):
    """``given`` when it is loaded component data, else the files it names (or the defaults)."""
    from bnb_sim.games.builders_biomes.components import Components
    from bnb_sim.games.builders_biomes.components import load_components as load

    if isinstance(given, Components):
        return given
    return load(given)


def make_config(players: int, policies: Sequence, **kw):
    """A :class:`~bnb_sim.games.builders_biomes.run_config.GameConfig` (``kw``: ``seed``,
    ``components``, ``readings``, ``expansion``, the reading aliases)."""
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(int(players), list(policies), **kw)


def play_block(config, start: int, n: int, threads: int | None):
    """The ``(seats, games)`` frames of games ``start .. start+n-1`` of ``config``."""
    from bnb_sim.games.builders_biomes.batch import play_block as play

    return play(config, start, n, threads)


# --------------------------------------------------------------------------------------
# policies


def parse_policy(spec):
    """A policy spec parsed (PolicyError on a bad one); its ``label`` names it."""
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy as parse

    return parse(spec)


def check_distinct(specs, what: str) -> None:
    """``what``: refuse one spec listed twice, however it is written."""
    from bnb_sim.games.builders_biomes.policies.registry import check_distinct as check

    check(specs, what)


# --------------------------------------------------------------------------------------
# rule readings


def design_readings(readings, variant, *, seating: str | None = None, what: str = "") -> dict:
    """The readings of a design that fixes the seating itself (tournaments, comparisons,
    sweeps), as a dict. ``readings``: a mapping of the readings the user gave. A seating
    reading that differs from the design's, or one ``variant`` per player (the designs move
    the players between seats), is an error."""
    from bnb_sim.games.builders_biomes import readings as R

    resolved = R.resolve(readings, aliases={"variant": variant}).to_dict()
    if seating is not None:
        asked = None if isinstance(readings, R.Readings) else dict(readings or {}).get("seating")
        if asked is not None and R.check_value("seating", asked) != seating:
            raise BnbError(
                f"{what}: the seating is part of the design ({seating}); drop the seating reading"
            )
        resolved["seating"] = seating
    if "," in resolved["variant"]:
        raise BnbError(
            f"{what}: one variant per player is not supported here (the design moves the "
            "players between seats); give one value"
        )
    return resolved


def resolved_readings(readings) -> dict:
    """Every reading of ``readings`` (a mapping or None), the defaults filled in."""
    from bnb_sim.games.builders_biomes import readings as R

    return R.resolve(readings).to_dict()


# --------------------------------------------------------------------------------------
# bnb value: restricted play (engine/restrict.py)


def value_actions(components) -> list[str]:
    """The action types ``--option all-actions`` stands for (``buy`` only with the
    Farmer's Market)."""
    from bnb_sim.games.builders_biomes.policies.restrictions import ACTION_TYPES

    return [a for a in ACTION_TYPES if a != "buy" or components.expansion]


def restricted_spec(policy: str, word: str, mode: str) -> str:
    """``policy`` with option ``word`` forbidden (``mode="never"``) or forced (else)."""
    from bnb_sim.games.builders_biomes.policies.restrictions import spec_suffix

    suffix = spec_suffix((word,), ()) if mode == "never" else spec_suffix((), (word,))
    return f"{policy}{suffix}"


# ======================================================================================
# experiment files and the Python studies

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


def expansions() -> tuple[str, ...]:
    """The expansions an item may name (``expansion = NAME``; R-FM-*)."""
    from bnb_sim.games.builders_biomes.components.expansion import EXPANSIONS

    return tuple(EXPANSIONS)


def load_component_files(files: list[str], expansion: str | None = None):
    """The component data of ``files`` over the defaults (and the expansion's data)."""
    from bnb_sim.games.builders_biomes.components import load_components as load

    return load(files, expansion=expansion)


def components_arg(components: Any, expansion: str | None):
    """Component data from None, a path, a list of paths or loaded data (and the expansion)."""
    from bnb_sim.games.builders_biomes.components_arg import components_arg as given

    return given(components, expansion)


# --------------------------------------------------------------------------------------
# search bots


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
