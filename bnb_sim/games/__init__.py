"""The games bnb-sim plays: a small registry in the spirit of OpenSpiel's game registry.

Each game is a :class:`GameSpec`: its name, aliases and title, and the dotted names of its
entry points (component loader, command handlers, report writer, output columns). Nothing is
imported until an entry point is used, so ``bnb --help`` and ``bnb report`` stay cheap and a
game's kernels compile only when it is played.

Shared code (the CLI commands, ``bnb report``) looks a game up with :func:`get_game` and
calls :meth:`GameSpec.entry`; it never branches on a game's name. A game that implements
only the protocol of :mod:`bnb_sim.core.protocol` and is registered with
:func:`bnb_sim.core.registry.register_game` appears here too (:func:`all_specs`), as a
:class:`GameSpec` whose ``protocol`` is set: the shared commands serve it through the
protocol (docs/design.md, "Adding a game"). A command handler that a
game does not declare (``None``) means the command's own code serves it: Builders & Biomes,
the first game, is served that way (the runner and the report were written for it first).

The package mirrors this: one sub-package per game, each with its rules (jitted kernels),
policies, component data model and façades, and the shared parts beside them::

    bnb_sim/
      games/
        builders_biomes/   engine/ (rules kernels), policies/, components/, game.py, odds.py
        heroes_village/    engine.py, play.py, policies.py, bots.py, odds.py, runner.py, report.py
      rng.py               counter-based random streams (every game)
      plugins.py           third-party policies: compiling and calling them (every game)
      entry_points.py      third-party policies: finding them, parsing their parameters
      toml_files.py        reading TOML input safely (component, bot and experiment files)
      runner/ analysis/ tune/ cli/   batches, storage, statistics, reports, tuning, ``bnb``
      data/                each game's default component file

Entry points a game may declare (``module:attribute``):

* ``load_components(paths)``: validated component data (``--components`` files over the
  defaults);
* ``simulate``, ``bench``: ``handler(**options)`` for the matching ``bnb`` command
  (``options`` are the command's parsed options); the options a game adds to a command are
  its protocol object's :class:`~bnb_sim.core.protocol.OptionSpec` data that name the
  command;
* ``columns``: ``(seat_columns, game_columns)`` of its run files;
* ``new_game(seed, game_index, players, policies, **options)``: a game to play step by step
  (``bnb_sim.new_game(game=NAME)``), with the methods of :class:`bnb_sim.core.game_api.Game`;
* ``dask_payload(config)``, ``dask_config(payload)``, ``play_block(config, start, n,
  threads)``: how the shared Dask backend sends its config to a worker as plain data,
  rebuilds it there and plays a chunk (a config names its game in ``config.game``;
  :func:`entry_of_config` finds the game's entry);
* ``create_config(players, policies, *, seed=, components=, readings=, ...)``: a run config
  from user values (``bnb simulate`` and ``bnb_sim.simulate`` through
  :func:`bnb_sim.runner.run_plan.plan_run`, ``bnb bench``); ``play_arrays(config, start, n,
  threads)``: the batch kernel's raw output, without DataFrames (warm-ups, ``bnb bench``);
  ``games_per_thread(config)``: games per thread in a default chunk of a run (about 0.5-1 s
  of work); ``warm_engine(players, components=None, *, notice=True, config=None)``: compile
  or load the kernels a run needs before it plays (:func:`bnb_sim.feedback.warm_engine`);
* ``experiment_item(kind, table, ...)``: an item of an experiment file with ``game = NAME``
  (an object with ``run``, ``budget``, ``report`` and the texts of the overview);
* ``sensitivity_setup(components, players=, policies=, seed=, threads=, ...)``: a
  :class:`bnb_sim.runner.sensitivity.Setup` (``bnb sensitivity``);
* ``team_play(players=, seed=, components=, **options)``: a cooperative game's setting for
  ``bnb ladder`` (:mod:`bnb_sim.runner.team_ladder` says what it returns);
* ``value_study(options, players=, games=, seed=, components=, ...)``: a game that values
  its own options in ``bnb_sim.value`` (a :class:`bnb_sim.analysis.value.ValueResult`;
  undeclared: the first game's restricted play, :func:`bnb_sim.runner.value_study.run_value`);
* ``luck``: a module (named without ``:attribute``) with its chance sources and how to play
  a luck design (:mod:`bnb_sim.runner.luck_play`);
* ``tune``: a module (named without ``:attribute``) with what ``bnb tune`` needs of the
  game (:mod:`bnb_sim.games.builders_biomes.tune_hooks` lists it);
* ``studies``: a module (named without ``:attribute``) with what the runner's designed
  studies (``bnb compare``, ``tournament``, ``sweep``, ``ladder``, ``value``), the experiment
  files' default items and :mod:`bnb_sim.studies` need of a game that they serve with their
  own code: its readings, component files, configs and policy specs
  (:mod:`bnb_sim.games.builders_biomes.study_hooks` lists it; a protocol game is served by
  the shared protocol commands instead);
* ``robustness``: an object with the game's rungs, how a rung plays, its findings and the
  set-up of a run folder (``bnb robustness``; :mod:`bnb_sim.runner.robustness_play`);
* the protocol's optional hooks (:data:`bnb_sim.core.protocol.HOOKS`: readings, component
  tables, odds, a turn-by-turn transcript, training, a model shown, its kernels as compile
  jobs for ``bnb warmup``) live on the game's
  ``spec`` object: ``bnb play``, ``odds``, ``components show``, ``train``, ``train show``
  and ``warmup`` reach every game through them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bnb_sim.errors import SpecError


@dataclass(frozen=True)
class GameSpec:
    """One game: how to name it, and where its parts live."""

    name: str
    title: str
    aliases: tuple[str, ...] = ()
    entries: dict[str, str] = field(default_factory=dict)
    options: tuple[str, ...] = ()  # command options only this game accepts
    #: "competitive" (seats play against each other: a winner per game) or "cooperative"
    #: (the players are one team against the game: the team wins or loses). Shared code
    #: that measures strength branches on this, never on the game's name: a ladder of a
    #: cooperative game compares team policies on the same games (``team_play`` entry).
    outcome: str = "competitive"
    #: A game that implements only :class:`bnb_sim.core.protocol.GameProtocol` (registered
    #: with :func:`bnb_sim.core.registry.register_game`): the shared commands serve it
    #: through the protocol (``bnb_sim.cli.protocol_cmds``), with no handler of its own.
    protocol: Any = field(default=None, compare=False, repr=False)
    #: Commands that a built-in game leaves to the shared protocol handlers
    #: (``bnb_sim.cli.protocol_cmds``), through its protocol object (``bnb_sim.core.registry``).
    protocol_commands: tuple[str, ...] = ()

    def entry(self, what: str) -> Callable[..., Any] | None:
        """The entry point ``what`` (imported now), or None if the game does not declare it."""
        if self.protocol is not None:
            return _protocol_entry(self, what)
        target = self.entries.get(what)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def need(self, what: str) -> Callable[..., Any]:
        """The entry point ``what``; a one-line SpecError if the game does not declare it."""
        found = self.entry(what)
        if found is None:
            raise SpecError(f"{self.title} does not offer '{what.replace('_', ' ')}'")
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


GAMES: dict[str, GameSpec] = {}
DEFAULT_GAME = "builders_biomes"


def _protocol_entry(spec: GameSpec, what: str) -> Callable[..., Any]:
    """The entries a protocol game offers by its methods. Any other is a one-line
    SpecError: shared code that falls back to the first game's code when an entry is
    undeclared must never play that game's code with another game's data."""
    game = spec.protocol
    if what == "load_components":
        return game.load_components
    if what == "columns":
        return game.columns
    if what == "play_block":
        return game.play_block
    if what == "new_game" and callable(getattr(game, "new_game", None)):
        return partial(_new_protocol_game, game)  # bnb_sim.new_game(game=NAME, ...)
    if what == "experiment_item":  # bnb run: the shared items of protocol games
        module = importlib.import_module("bnb_sim.analysis.protocol_item")
        return partial(module.parse_item, game)
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


def from_protocol(game: Any) -> GameSpec:
    """The registry's view of a game that implements only the protocol."""
    return GameSpec(
        name=game.name,
        title=game.title,
        aliases=tuple(game.aliases),
        # its own options, and --dask, which the shared protocol simulate serves for every game
        options=(*(o.name for o in game.options), "dask"),
        outcome=game.outcome,
        protocol=game,
    )


def protocol_games() -> dict[str, GameSpec]:
    """Games registered through :func:`bnb_sim.core.registry.register_game` (none of the
    built-in ones), as :class:`GameSpec` objects."""
    from bnb_sim.core.registry import registered

    return {name: from_protocol(game) for name, game in registered().items() if name not in GAMES}


def all_specs() -> list[GameSpec]:
    """Every game: the built-in ones and those registered through the protocol."""
    return [*GAMES.values(), *protocol_games().values()]


def register(spec: GameSpec) -> GameSpec:
    """Add a game to the registry (its name and aliases must be new)."""
    for name in spec.names:
        if _lookup(name) is not None:
            raise ValueError(f"game name {name!r} is already registered")
    GAMES[spec.name] = spec
    return spec


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _lookup(name: str) -> GameSpec | None:
    key = _norm(name)
    for spec in all_specs():
        if key in (_norm(n) for n in spec.names):
            return spec
    return None


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


register(
    GameSpec(
        name="builders_biomes",
        title="Minecraft: Builders & Biomes",
        aliases=("builders-and-biomes", "bnb"),
        entries={
            "load_components": "bnb_sim.games.builders_biomes.components:load_components",
            "columns": "bnb_sim.games.builders_biomes:columns",
            "luck": "bnb_sim.games.builders_biomes.luck",
            "new_game": "bnb_sim.games.builders_biomes.game:new_game",
            "tune": "bnb_sim.games.builders_biomes.tune_hooks",
            "studies": "bnb_sim.games.builders_biomes.study_hooks",
            "sensitivity_setup": "bnb_sim.games.builders_biomes.sensitivity:setup",
            "robustness": "bnb_sim.games.builders_biomes.robustness:ROBUSTNESS",
            "create_config": "bnb_sim.games.builders_biomes.run_hooks:create_config",
            "play_block": "bnb_sim.games.builders_biomes.batch:play_block",
            "play_arrays": "bnb_sim.games.builders_biomes.batch:play_arrays",
            "games_per_thread": "bnb_sim.games.builders_biomes.run_hooks:games_per_thread",
            "dask_payload": "bnb_sim.games.builders_biomes.run_hooks:dask_payload",
            "dask_config": "bnb_sim.games.builders_biomes.run_hooks:dask_config",
            "warm_engine": "bnb_sim.games.builders_biomes.compile_jobs:warm_engine",
        },
        options=(
            "variant",
            "pickaxe",
            "seating",
            "fixed_seats",
            "dask",
            "pile",
            "hearts",
            "reading",
            "picture",
            "field",
            "self_every",
        ),
    )
)
register(
    GameSpec(
        name="heroes_village",
        title="Minecraft: Heroes of the Village",
        aliases=("heroes-of-the-village", "hotv"),
        entries={
            "load_components": "bnb_sim.games.heroes_village.components:load_components",
            "bench": "bnb_sim.games.heroes_village.cli:bench",
            "warmup_steps": "bnb_sim.games.heroes_village.cli:warmup_steps",
            "value_study": "bnb_sim.games.heroes_village.value:play_values",
            "columns": "bnb_sim.games.heroes_village.runner:columns",
            "dask_payload": "bnb_sim.games.heroes_village.runner:dask_payload",
            "dask_config": "bnb_sim.games.heroes_village.runner:dask_config",
            "play_block": "bnb_sim.games.heroes_village.runner:play_block",
            "experiment_item": "bnb_sim.games.heroes_village.experiment:parse_item",
            "robustness": "bnb_sim.games.heroes_village.robustness:ROBUSTNESS",
            "sensitivity_setup": "bnb_sim.games.heroes_village.sensitivity:setup",
            "team_play": "bnb_sim.games.heroes_village.ladder:team_play",
            "luck": "bnb_sim.games.heroes_village.luck",
            "tune": "bnb_sim.games.heroes_village.tune_hooks",
            "new_game": "bnb_sim.games.heroes_village.game:new_game",
        },
        options=("pets", "difficulty", "buildings", "pet", "dask", "reading", "teams"),
        outcome="cooperative",
        protocol_commands=("simulate", "compare", "tournament", "sweep", "report"),
    )
)
