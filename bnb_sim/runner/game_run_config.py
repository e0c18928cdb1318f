"""The run config of ``bnb_sim.simulate(..., game=NAME, options={...})`` for a game that
makes it through the protocol (no ``create_config`` run hook): what ``bnb simulate --game
NAME`` builds from its flags, built here from the Python call's values.

The components come from None (the game's defaults), a path, a list of paths or loaded data;
rule readings (``readings={"cat": "first-draw"}``) are set on them where the game takes them
so (its ``with_readings``), else parsed by its ``parse_readings`` hook for the config; the
game's own options (its :class:`~bnb_sim.core.protocol.OptionSpec` data for ``simulate``,
e.g. ``{"pets": "all"}``) go to its ``make_run_config`` (else ``make_config``). Each mistake
is one line (BnbError) before anything plays.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from bnb_sim.errors import ArgumentTypeError, BnbError


def game_options(game: Any, options: Any, command: str | None = "simulate") -> dict[str, Any]:
    """The game's own options of ``command`` (None: of any command) given in ``options`` (a
    mapping), checked by name and kind; BnbError naming one the game does not have for the
    command."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ArgumentTypeError(f"options must be a mapping, got {type(options).__name__}")
    known = {o.name: o for o in game.options if command is None or o.applies_to(command)}
    out: dict[str, Any] = {}
    for name, value in options.items():
        spec = known.get(name)
        if spec is None:
            names = ", ".join(known) or "none"
            raise BnbError(f"{command or 'options'}: {game.title} has no option {name!r} here "
                           f"(its {command or 'own'} options: {names})")  # fmt: skip
        if value is not None:
            _check_kind(command or "options", spec, value)
        out[name] = value
    return out


_KINDS = {"str": (str,), "int": (int,), "float": (int, float), "flag": (bool,),
          "file": (str, os.PathLike)}  # fmt: skip


def _check_kind(command: str, spec: Any, value: Any) -> None:
    """One line when ``value`` is not of the option's kind (a choice: one of its values)."""
    if spec.kind == "choice":
        if value not in spec.choices:
            raise BnbError(f"{command}: {spec.name} must be one of {', '.join(spec.choices)}, "
                           f"got {value!r}")  # fmt: skip
        return
    kinds = _KINDS.get(spec.kind, (object,))
    if not isinstance(value, kinds) or (spec.kind != "flag" and isinstance(value, bool)):
        kind = "a text" if spec.kind == "str" else spec.kind
        raise BnbError(f"{command}: {spec.name} must be {kind}, got {value!r}")


def rows_per_game(config: Any) -> int:
    """Game rows per game index (a config may play several variants of each index, e.g.
    every pet team: its identity's ``rows_per_game``, which the shared storage reads too)."""
    return int(((config.identity() or {}).get("rows_per_game") or {}).get("games", 1))


def check_component_arg(game: Any, components: Any) -> None:
    """One line unless ``components`` is None, a path, a list of paths or the game's own
    loaded components (what every command and study of the game takes)."""
    if components is None or isinstance(components, str | os.PathLike):
        return
    if isinstance(components, list | tuple) and all(
        isinstance(c, str | os.PathLike) for c in components
    ):
        return
    own = type(game.load_components([]))
    if not isinstance(components, own):
        raise ArgumentTypeError(f"components must be a path, a list of paths or {game.title}'s "
                                f"loaded components, got {type(components).__name__}")  # fmt: skip


def load_game_components(game: Any, components: Any) -> Any:
    """The game's components from None (its defaults), a path, a list of paths or loaded
    data of the game's own type (returned as it is); anything else is one line."""
    check_component_arg(game, components)
    if components is None:
        return game.load_components([])
    if isinstance(components, str | os.PathLike):
        return game.load_components([os.fspath(components)])
    if isinstance(components, list | tuple):
        return game.load_components([os.fspath(c) for c in components])
    return components


def reading_items(readings: Any, aliases: Mapping[str, Any]) -> list[str]:
    """``readings`` (a mapping) and the alias arguments (``variant=``, ...) as ``NAME=VALUE``."""
    if readings is not None and not isinstance(readings, Mapping):
        raise ArgumentTypeError(f"readings must be a mapping, got {type(readings).__name__}")
    given = {**dict(readings or {}), **{k: v for k, v in aliases.items() if v is not None}}
    return [f"{k}={v}" for k, v in given.items()]


def protocol_run_config(game: Any, components: Any, *, players: Any, policies: list, seed: int,
                        readings: Any, aliases: Mapping[str, Any], expansion: Any,
                        options: Any, check: bool) -> tuple[Any, Any]:  # fmt: skip
    """``(config, components)`` of a run of ``game``, as ``bnb simulate --game NAME``
    makes them."""
    if expansion is not None:
        raise BnbError(f"expansion {expansion!r}: {game.title} has no expansions")
    values = {**game_options(game, options), "check": bool(check)}
    comps = load_game_components(game, components)
    items = reading_items(readings, aliases)
    if items:
        with_readings = getattr(game, "with_readings", None)
        parse = getattr(game, "parse_readings", None)
        if callable(with_readings):
            comps = with_readings(comps, items)
        elif callable(parse):
            values["readings"] = parse(items, {})
        else:
            raise BnbError(f"readings: {game.title} has no rule readings to set")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise ArgumentTypeError(f"players must be an integer, got {players!r}")
    if not all(isinstance(p, str) for p in policies):
        raise ArgumentTypeError(f"{game.title}'s policies are spec strings, got {policies!r}")
    make = getattr(game, "make_run_config", None) or game.make_config
    config = make(comps, players=players, policies=list(policies), seed=seed, options=values)
    return config, comps


def call_options(game: Any, options: Mapping[str, Any], readings: Any,
                 aliases: Mapping[str, Any]) -> list[str]:  # fmt: skip
    """The ``game=``, ``options=`` and ``readings=`` arguments of the ``bnb_sim.simulate``
    call that plays a run of ``game`` (its command and resume call in run.json)."""
    args = [f"game={game.name!r}"]
    given = {k: v for k, v in options.items() if v is not None}
    if given:
        args.append(f"options={given!r}")
    items = dict(item.split("=", 1) for item in reading_items(readings, aliases))
    if items:
        args.append(f"readings={items!r}")
    return args
