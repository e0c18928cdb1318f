"""Builders & Biomes for the designed studies of the shared runner (``bnb compare``,
``tournament``, ``sweep``, ``ladder``, ``value``: :mod:`bnb_sim.runner.design_play` and the
modules built on it): what only this game can say, reached through the game registry (the
``studies`` entry of :mod:`bnb_sim.games`, a module named without ``:attribute``), so the
runner's study modules import no game.

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
  option ``word`` forbidden (``mode="never"``) or forced (``"always"``).

Nothing here imports numba at module level.
"""

from __future__ import annotations

from collections.abc import Sequence

from bnb_sim.errors import BnbError

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
    """A :class:`~bnb_sim.runner.config.GameConfig` (``kw``: ``seed``, ``components``,
    ``readings``, ``expansion``, the reading aliases)."""
    from bnb_sim.runner.config import GameConfig

    return GameConfig.create(int(players), list(policies), **kw)


def play_block(config, start: int, n: int, threads: int | None):
    """The ``(seats, games)`` frames of games ``start .. start+n-1`` of ``config``."""
    from bnb_sim.runner.batch import play_block as play

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
