"""The argument checks and plumbing every study of the Python API shares (``bnb_sim.tournament``,
``compare``, ``sweep``, ``ladder``, ``luck``, ``value``, ``sensitivity``, ``robustness``): policy
lists, a game's components, options and rule readings, threads, the report folder, the
warm-up and progress bar. Each check raises a one-line BnbError before anything plays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bnb_sim import _args
from bnb_sim._args import given_options as _given_options  # noqa: F401 (the studies use it)
from bnb_sim.errors import ArgumentTypeError, BnbError


def _policy_list(value: Any, name: str) -> list[str]:
    """A list of policy specs from a list of strings or one comma-separated string."""
    from bnb_sim.analysis.tournament_schedule import split_policy_list

    if isinstance(value, str):
        return split_policy_list(value)
    if not isinstance(value, list | tuple) or not all(isinstance(p, str) for p in value):
        raise ArgumentTypeError(
            f"{name} must be a list of policy specs (strings) or 'a,b,c', got {_args.show(value)}"
        )
    return split_policy_list(list(value))


def _components(components: Any, expansion: str | None, game: str | None = None):
    """The components of ``game`` (None: the default game) from None, a path, a list of paths
    or loaded data: through its ``studies`` module's ``components_arg`` where it has one (an
    expansion too), else its protocol's ``load_components`` (cooperative games included);
    a game without expansions refuses one in one line."""
    from bnb_sim.games import get_game
    from bnb_sim.runner.game_run_config import check_component_arg
    from bnb_sim.runner.study_adapter import ProtocolStudies

    spec = get_game(game)
    check_component_arg(spec.game, components)
    hooks = spec.hook("studies")
    if callable(getattr(hooks, "components_arg", None)):
        return hooks.components_arg(components, expansion)
    if expansion is not None:
        raise BnbError(f"expansion {expansion!r}: {spec.title} has no expansions")
    return (hooks or ProtocolStudies(spec.game)).load_components(components)


def _threads(threads: Any) -> int | None:
    return None if threads is None else _args.integer(threads, "threads", 1, 1024)


def _out(out: Any) -> Path | None:
    """The report folder, checked to be writable before anything is played (None: none)."""
    if out is None:
        return None
    from bnb_sim.analysis.publish import check_writable

    _args.path(out, "out")
    check_writable(out)
    return Path(out)


@contextlib.contextmanager
def _playing(progress: Any, players: Sequence[int], game: str | None = None):
    """Compile (or load) the kernels of ``game`` (None: the default game), then play with a
    progress bar when ``progress``."""
    from bnb_sim.feedback import games_meter, warm_game

    shown = _args.boolean(progress, "progress")
    warm_game(game, [int(n) for n in players if n] or [2], notice=shown)
    with games_meter(shown):
        yield


def _write(builder, out: Path | None) -> None:
    if out is not None:
        builder.write(out)


def _game_options(game: str | None, options: Mapping[str, Any] | None,
                  command: str) -> dict[str, Any]:  # fmt: skip
    """The game's own options of ``command`` (its ``OptionSpec`` data) with their defaults
    filled in, as the command reads them; BnbError naming an option the game does not have
    for it (``pet`` is ``bnb odds``'s) or a value of the wrong kind."""
    from bnb_sim.analysis.study_hooks import game_protocol
    from bnb_sim.runner.game_run_config import game_options

    proto = game_protocol(game)
    given = game_options(proto, options, command)
    return {o.name: given.get(o.name, o.default) for o in proto.options
            if o.applies_to(command)}  # fmt: skip


def _game_readings(game: str | None, components: Any, readings: Any, what: str):
    """``(components, readings)`` of a study of ``game``: a game that takes rule readings on
    its components (its protocol's ``with_readings``, e.g. Heroes of the Village) gets them
    set there, checked (one line naming a bad one), and None left for its hooks; any other
    game keeps the mapping for its own hooks (the default game's readings)."""
    from bnb_sim.analysis.study_hooks import game_protocol

    if readings is None:
        return components, None
    if not isinstance(readings, Mapping) or not all(isinstance(k, str) for k in readings):
        raise ArgumentTypeError(f"readings must be a mapping of NAME: VALUE, got "
                                f"{_args.show(readings)}")  # fmt: skip
    proto = game_protocol(game)
    with_readings = getattr(proto, "with_readings", None)
    if not callable(with_readings):
        return components, readings
    items = [f"{k}={v}" for k, v in readings.items()]
    return (with_readings(_components(components, None, game), items) if items
            else components), None  # fmt: skip


def _command_options(game: str | None, options: Mapping[str, Any] | None, command: str) -> dict:
    """The game's own options of ``command`` given by name (its ``OptionSpec`` data), checked:
    a name the game has not for the command, or a choice it does not offer, is one line
    (before, a study passed them on, where a game ignored them or raised a TypeError)."""
    from bnb_sim.analysis.study_hooks import game_protocol
    from bnb_sim.runner.game_run_config import game_options

    return game_options(game_protocol(game), options, command)
