"""The games bnb-sim plays: a small registry in the spirit of OpenSpiel's game registry.

A game is ONE object, its protocol object (:class:`bnb_sim.core.protocol.GameProtocol`,
``GAME`` in the game's ``spec`` module): its name, aliases, title, options and outcome, and
every hook shared code may ask of it, as methods or attributes that import the game's code
only when called (so ``bnb --help`` and ``bnb report`` stay cheap and a game's kernels
compile only when it is played). :mod:`bnb_sim.core.registry` finds the objects (the
built-in games by name, installed ones by entry point, ``register_game`` at run time); a
:class:`GameSpec` is the view of one that the commands take (``--game``), made from the
object by :func:`from_protocol`, for every game alike.

Shared code (the CLI commands, ``bnb report``, the runner and the studies) looks a game up
with :func:`get_game` and calls :meth:`GameSpec.entry`; it never branches on a game's name.
The entries are the object's run hooks (:data:`bnb_sim.core.protocol.ENTRIES` lists them
with their arguments: ``load_components``, ``columns``, ``play_block``, ``new_game``,
``create_config``, ``play_arrays``, ``games_per_thread``, ``dask_payload``, ``dask_config``,
``warm_engine``, ``sensitivity_setup``, ``team_play``, ``value_study`` and the attributes
``luck``, ``tune``, ``studies``, ``robustness``); the commands' hooks (readings, component
tables, odds, a turn-by-turn transcript, training, a model shown, bench and compile jobs:
:data:`bnb_sim.core.protocol.HOOKS`) live on the same object.

A game that is not built in is served only through the protocol (:attr:`GameSpec.protocol`
is its object): the shared commands serve it (``bnb_sim.cli.protocol_cmds``), and an entry
it has no hook for is the protocol's stand-in or a one-line SpecError, never the first
game's code (docs/design.md, "Adding a game"). A built-in game names the commands that it
leaves to the shared protocol handlers (``protocol_commands`` on its object); a command
handler that a built-in game does not declare (None) means the command's own code serves
it: Builders & Biomes, the first game, is served that way (the runner and the report were
written for it first).

The package mirrors this: one sub-package per game, each with its rules (jitted kernels),
policies, component data model and façades, and the shared parts beside them::

    bnb_sim/
      games/
        builders_biomes/   spec.py (GAME), engine/ (rules kernels), policies/, components/,
                           game.py, odds.py
        heroes_village/    spec.py (GAME), engine.py, play.py, policies.py, bots.py, odds.py,
                           runner.py, report.py
      rng.py               counter-based random streams (every game)
      plugins.py           third-party policies: compiling and calling them (every game)
      entry_points.py      third-party policies: finding them, parsing their parameters
      toml_files.py        reading TOML input safely (component, bot and experiment files)
      runner/ analysis/ tune/ cli/   batches, storage, statistics, reports, tuning, ``bnb``
      data/                each game's default component file
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bnb_sim.core.protocol import entry_hook
from bnb_sim.errors import SpecError


@dataclass(frozen=True)
class GameSpec:
    """One game as shared code sees it: its names, options and outcome, read from its
    protocol object (``game``), on which every hook lives (:func:`from_protocol`)."""

    name: str
    title: str
    aliases: tuple[str, ...] = ()
    options: tuple[str, ...] = ()  # command options only this game accepts
    #: "competitive" (seats play against each other: a winner per game) or "cooperative"
    #: (the players are one team against the game: the team wins or loses). Shared code
    #: that measures strength branches on this, never on the game's name: a ladder of a
    #: cooperative game compares team policies on the same games (``team_play`` entry).
    outcome: str = "competitive"
    #: The game's protocol object (:class:`bnb_sim.core.protocol.GameProtocol`): its
    #: hooks (:data:`bnb_sim.core.protocol.HOOKS`) and run hooks (``ENTRIES`` there).
    game: Any = field(default=None, compare=False, repr=False)
    #: True for a game that is not built in (registered with
    #: :func:`bnb_sim.core.registry.register_game`, or installed): every command serves it
    #: through the protocol (``bnb_sim.cli.protocol_cmds``), and an entry it lacks is an
    #: error, never the first game's code (see :attr:`protocol`).
    protocol_only: bool = False
    #: Commands that a built-in game leaves to the shared protocol handlers
    #: (``bnb_sim.cli.protocol_cmds``): its object's ``protocol_commands``.
    protocol_commands: tuple[str, ...] = ()

    @property
    def protocol(self) -> Any:
        """The protocol object of a game served only through the protocol, else None."""
        return self.game if self.protocol_only else None

    def hook(self, what: str) -> Any:
        """The game's own hook for entry ``what`` (imported now), or None if it has none."""
        return entry_hook(self.game, what) if self.game is not None else None

    def entry(self, what: str) -> Callable[..., Any] | None:
        """The entry point ``what`` (imported now), or None if the game does not declare it.
        A game served only by the protocol has the protocol's stand-ins, else a SpecError."""
        found = self.hook(what)
        if found is None and self.protocol_only:
            return _protocol_entry(self, what)
        return found

    def need(self, what: str) -> Callable[..., Any]:
        """The entry point ``what``; a one-line SpecError if the game does not declare it."""
        found = self.entry(what)
        if found is None:
            raise SpecError(f"{self.title} does not offer '{what.replace('_', ' ')}'")
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


DEFAULT_GAME = "builders_biomes"


def _protocol_entry(spec: GameSpec, what: str) -> Callable[..., Any]:
    """The stand-ins that the protocol gives a game served only through it, for the entries
    it has no hook of. Any other is a one-line SpecError: shared code that falls back to
    the first game's code when an entry is undeclared must never play that game's code
    with another game's data."""
    game = spec.game
    if what == "play_block":
        return game.play_block
    if what == "new_game" and callable(getattr(game, "new_game", None)):
        return partial(_new_protocol_game, game)  # bnb_sim.new_game(game=NAME, ...)
    raise SpecError(
        f"{spec.title} implements only the game protocol, which does not offer "
        f"'{what.replace('_', ' ')}' yet (docs/design.md, \"Adding a game\")"
    )


def _new_protocol_game(
    game: Any,
    seed: int = 0,
    game_index: int = 0,
    players: int | None = None,
    policies: Sequence[str] | str = (),
    *,
    components: Sequence[str] = (),
    **options: Any,
):
    """The ``new_game`` entry of a protocol game: its step-by-step game ``game_index`` of
    the run (``seed``, ``players``, ``policies``, its options) that ``bnb simulate`` plays."""
    policies = [policies] if isinstance(policies, str) else list(policies)
    config = game.make_config(game.load_components(list(components)), players=players,
                              policies=policies, seed=seed, options=options)  # fmt: skip
    return game.new_game(config, game_index)


def from_protocol(game: Any, *, protocol_only: bool = True) -> GameSpec:
    """The registry's view of a game object: every game's, built-in or not."""
    own = getattr(game, "command_options", None)
    # a game that declares none: its own options, and --dask, which the one bnb simulate
    # serves for every game; and every game's flags that set its rule readings
    options = tuple(own) if own is not None else (*(o.name for o in game.options), "dask")
    options += tuple(o.name for o in getattr(game, "reading_flags", ()))
    return GameSpec(
        name=game.name,
        title=game.title,
        aliases=tuple(game.aliases),
        options=options,
        outcome=game.outcome,
        game=game,
        protocol_only=protocol_only,
        protocol_commands=tuple(getattr(game, "protocol_commands", ())),
    )


def _builtin_games() -> dict[str, GameSpec]:
    """The built-in games (:data:`bnb_sim.core.registry.BUILTIN`), from their objects."""
    from bnb_sim.core import registry

    return {n: from_protocol(registry.get_game(n), protocol_only=False) for n in registry.BUILTIN}


def protocol_games() -> dict[str, GameSpec]:
    """Games registered through :func:`bnb_sim.core.registry.register_game` (none of the
    built-in ones), as :class:`GameSpec` objects."""
    from bnb_sim.core.registry import registered

    return {name: from_protocol(game) for name, game in registered().items() if name not in GAMES}


_BROKEN_WARNED: set[str] = set()  # installed games that failed to load, warned about


def installed_games() -> dict[str, GameSpec]:
    """Games installed as packages (entry points of the group ``bnb_sim.games``, e.g.
    ``dice = "my_dice.spec:GAME"``), as :class:`GameSpec` objects served through the
    protocol. One that cannot be loaded is left out with a warning naming it, so a broken
    package does not break every command."""
    import warnings

    from bnb_sim.core import registry

    taken = {*GAMES, *registry.registered()}
    out: dict[str, GameSpec] = {}
    for name, ep in registry.installed().items():
        if name in taken:
            continue
        try:
            game = registry.get_game(name)
        except Exception as exc:  # any failure of a third party's import or its check
            if name not in _BROKEN_WARNED:  # once a process: listings call this often
                _BROKEN_WARNED.add(name)
                warnings.warn(f"installed game {name!r} ({ep.value}) is left out: {exc}",
                              stacklevel=2)  # fmt: skip
            continue
        out[game.name] = from_protocol(game)
    return out


def all_specs() -> list[GameSpec]:
    """Every game: the built-in ones, those registered through the protocol and those
    installed as packages."""
    return [*GAMES.values(), *protocol_games().values(), *installed_games().values()]


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _lookup(name: str) -> GameSpec | None:
    key = _norm(name)
    found = _named(key, [*GAMES.values(), *protocol_games().values()])
    # the installed games only when no built-in or registered one has the name: reading every
    # package's entry points costs milliseconds, and a tuning asks for its game's hooks
    # hundreds of times
    return found if found is not None else _named(key, installed_games().values())


def _named(key: str, specs) -> GameSpec | None:
    return next((spec for spec in specs if key in (_norm(n) for n in spec.names)), None)


def get_game(name: str | None) -> GameSpec:
    """The game called ``name`` (a name or an alias; None = the default game)."""
    if name is not None and not isinstance(name, str):
        raise SpecError(f"a game is named by a string, got {name!r}")
    spec = _lookup(name or DEFAULT_GAME)
    if spec is None:
        known = ", ".join(f"{s.name.replace('_', '-')}" for s in all_specs())
        raise SpecError(f"unknown game {name!r} (known: {known}; aliases such as hotv work too)")
    return spec


def entry_of_config(config: Any, what: str) -> Callable[..., Any]:
    """The entry point ``what`` of the game a run config belongs to (``config.game``; the
    default game for a config that names none); a one-line SpecError if it lacks it."""
    return get_game(getattr(config, "game", None)).need(what)


def game_of_run(meta: dict) -> GameSpec:
    """The game a run folder's ``run.json`` belongs to (runs without ``game`` are the
    default game's: they predate the registry)."""
    return get_game(meta.get("game") or DEFAULT_GAME)


#: The built-in games, by name (read from their protocol objects, once).
GAMES: dict[str, GameSpec] = _builtin_games()
