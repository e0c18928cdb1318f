"""Checking a simulate run's inputs before anything is written: :func:`plan_run` builds the
:class:`RunPlan` (the validated games, config, chunk size, threads and output folder) and
:func:`default_chunk_size` picks about 0.5-1 s of work per chunk. A failed check raises
:class:`~bnb_sim.errors.BnbError` (one line); nothing here has side effects.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.runner.budget import confirm_games

#: Hard ceiling (game indices are int64; far beyond any sensible run).
MAX_GAMES = 10**12


#: A chunk is held in memory whole (about 1.3 KB per four-player game while it is built).
MAX_CHUNK_SIZE = 250_000  # ~1 GB of rows in memory; 1,000,000 took ~3.5 GB


MAX_THREADS = 1024

#: The largest master seed (a 64-bit integer, :mod:`bnb_sim.core.seeds`).
MAX_SEED = 2**63 - 1


# Default chunk: about 0.5-1 s of work, the game's ``games_per_thread`` entry point times the
# threads. A four-player chunk of 50,000 games costs about 130 MB while it is played, turned
# into frames and written.
_MIN_CHUNK = 1_000


_MAX_DEFAULT_CHUNK = 50_000


@dataclass
class RunPlan:
    """Validated inputs of a run (built by :func:`plan_run`; nothing is written yet)."""

    config: Any  # the game's run config (the protocol's RunConfig)
    games: int
    chunk_size: int | None  # None: decided when the backend is known (or taken from run.json)
    threads: int | None
    out: Path | None = None
    resume: bool = False
    force: bool = False
    dask: str | None = None
    extra: dict = field(default_factory=dict)
    #: The protocol object that plays ``config`` (its ``play_block``; Dask sends it with the
    #: config): every plan of :func:`plan_run` and of
    #: :func:`~bnb_sim.runner.protocol_run.simulate_to_dir` has it. None (a plan made by
    #: hand): ``config`` is played by the run hooks of its game (``config.game``):
    #: ``play_block``, ``play_arrays``, ``games_per_thread`` and ``dask_payload``
    #: (:func:`bnb_sim.games.entry_of_config`).
    game: Any = None
    #: The components the config plays (run.json's ``components`` record is the game's
    #: ``run_components`` of them).
    components: Any = None
    #: The arguments of the Python call that made the plan (``bnb_sim.simulate(...)``: the
    #: default command and resume command of its run folder), without ``resume``.
    call_args: tuple[str, ...] = ()

    def n_parts(self, chunk_size: int) -> int:
        return -(-self.games // chunk_size)

    def python_call(self, *, resume: bool) -> str | None:
        """The ``bnb_sim.simulate(...)`` call of this plan (None if it was not made by one)."""
        if not self.call_args:
            return None
        args = [*self.call_args, *(["resume=True"] if resume else [])]
        return f"bnb_sim.simulate({', '.join(args)})"


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise BnbError(f"{name} must be an integer, got {value!r}")
    return int(value)


def check_games(games: Any, *, yes: bool = False) -> int:
    return confirm_games(_game_count(games), "simulate", yes=yes)


def _game_count(games: Any) -> int:
    games = _int_arg(games, "games")
    if games <= 0:
        raise BnbError(f"games must be a positive number, got {games:,}")
    if games > MAX_GAMES:
        raise BnbError(f"games must be at most {MAX_GAMES:,}, got {games:,}")
    return games


def default_chunk_size(games: int, config: Any, threads: int, game: Any = None) -> int:
    """About 0.5-1 s of work per chunk: the game's games per thread (its ``games_per_thread``
    entry point or method: more for cheap policies) times threads, between 1,000 and 50,000
    (memory), and never more than the run. A game that does not say: an eighth of the run,
    between 1,000 and 200,000 games."""
    per_thread = _games_per_thread(config, game)
    if per_thread is None:
        return max(_MIN_CHUNK, min(200_000, games // 8 or 1))
    size = min(max(per_thread * max(1, threads), _MIN_CHUNK), _MAX_DEFAULT_CHUNK)
    return max(1, min(size, games))


def _games_per_thread(config: Any, game: Any) -> int | None:
    """The game's games per thread in a default chunk, or None where it does not say."""
    own = getattr(game, "games_per_thread", None)
    if callable(own):
        return int(own(config))
    if game is not None:
        return None
    from bnb_sim.games import entry_of_config

    return int(entry_of_config(config, "games_per_thread")(config))


def plan_run(
    games: int,
    players: int | None,
    policies: str | Sequence[Any],
    seed: int = 0,
    *,
    components: Any = None,
    readings: Any = None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    check: bool = False,
    yes: bool = False,
    pickaxe: str | None = None,
    expansion: str | None = None,
    game: str | None = None,
    options: Any = None,
) -> RunPlan:
    """Check every input and build the run config of ``game`` (a registered game's name or
    alias; None: the default game) and the plan that its protocol object plays; raises
    BnbError, writes nothing. A game with a ``create_config`` run hook makes the config from
    these values itself (the first game: its readings, variant, seating, pickaxe,
    expansion); any other through the protocol, as ``bnb simulate --game NAME`` does
    (:mod:`bnb_sim.runner.game_run_config`; ``options``: its own options, e.g.
    ``{"pets": "all"}``)."""
    from bnb_sim.games import get_game

    for flag, name in ((resume, "resume"), (force, "force"), (check, "check"), (yes, "yes")):
        _args.boolean(flag, name)
    if out is not None:
        _args.path(out, "out")
    if dask is not None:
        _args.text(dask, "dask")
    games = check_games(games, yes=yes)
    if isinstance(policies, str):
        policies = [policies]
    if not isinstance(policies, list | tuple):
        raise ArgumentTypeError(
            f"policies must be a spec string or a list of them, got {_args.show(policies)}"
        )
    policies = list(policies)
    if not policies:
        raise BnbError("give at least one policy")
    threads, chunk_size, dask = _check_shape(threads, chunk_size, out, resume, force, dask)
    spec = get_game(None if game is None else _args.text(game, "game"))
    aliases = {"variant": variant, "seating": seating, "pickaxe": pickaxe}
    if _create_config(spec) is not None:  # the game makes it from these values itself
        from bnb_sim.runner.game_run_config import game_options

        own = game_options(spec.game, options)
        if players is None:
            players = len(policies) if len(policies) > 1 else 4
        config = spec.need("create_config")(
            _args.integer(players, "players"), policies, seed=seed, components=components,
            readings=readings, check=bool(check), expansion=expansion, **aliases, **own,
        )  # fmt: skip
        comps, extra, given = config.components, [], None  # the config holds its components
    else:  # through the protocol, as bnb simulate --game NAME
        from bnb_sim.runner import game_run_config as G
        from bnb_sim.runner.game_run_config import rows_per_game

        own = G.game_options(spec.game, options)
        seed = _args.integer(seed, "seed", 0, MAX_SEED)
        config, comps = G.protocol_run_config(
            spec.game, components, players=players, policies=policies, seed=seed,
            readings=readings, aliases=aliases, expansion=expansion, options=own, check=check,
        )  # fmt: skip
        confirm_games(games * rows_per_game(config), f"simulate --game {spec.name}", yes=yes)
        extra, given = G.call_options(spec.game, own, readings, aliases), policies
    plan = RunPlan(
        config=config,
        games=games,
        chunk_size=chunk_size,
        threads=threads,
        out=None if out is None else Path(out),
        resume=bool(resume),
        force=bool(force),
        dask=dask,
        game=spec.game,
        components=comps,
    )
    return dataclasses.replace(plan, call_args=_python_args(plan, extra, given))


def _create_config(spec: Any):
    """The game's ``create_config`` run hook, or None (a game served only through the
    protocol offers no run hooks)."""
    from bnb_sim.errors import SpecError

    try:
        return spec.entry("create_config")
    except SpecError:
        return None


def check_run(
    games: Any,
    seed: Any,
    *,
    threads: int | None = None,
    chunk_size: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
) -> dict[str, Any]:
    """The checks of :func:`plan_run` that do not depend on the game (``bnb simulate`` of
    every game makes them before its config): the games (not yet the ``--yes`` threshold,
    which counts the config's rows), the master seed, threads, chunk size, ``resume`` and
    ``force``, the Dask address. Returns the checked values by name; BnbError (one line)."""
    games = _game_count(games)
    seed = _args.integer(seed, "seed", 0, MAX_SEED)
    threads, chunk_size, dask = _check_shape(threads, chunk_size, out, resume, force, dask)
    return {"games": games, "seed": seed, "threads": threads, "chunk_size": chunk_size,
            "dask": dask}  # fmt: skip


def _check_shape(threads, chunk_size, out, resume, force, dask):
    """``(threads, chunk_size, dask)`` checked, with ``resume``/``force`` and ``out``."""
    if threads is not None:
        threads = _int_arg(threads, "threads")
        if not 1 <= threads <= MAX_THREADS:
            raise BnbError(f"threads must be between 1 and {MAX_THREADS}, got {threads}")
    if chunk_size is not None:
        chunk_size = _int_arg(chunk_size, "chunk size")
        if not 1 <= chunk_size <= MAX_CHUNK_SIZE:
            raise BnbError(
                f"chunk size must be between 1 and {MAX_CHUNK_SIZE:,}, got {chunk_size:,}"
            )
    if resume and force:
        raise BnbError("resume and force cannot be used together")
    if out is None and (resume or force):
        raise BnbError("resume and force need an output directory (out=, --out)")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    return threads, chunk_size, dask


def changed_settings(game: Any, config: Any) -> dict[str, Any]:
    """What ``config`` sets apart from its game's defaults, as keyword arguments of
    ``bnb_sim.simulate`` (the game's optional ``changed_settings(config)`` hook; none
    without it)."""
    own = getattr(game, "changed_settings", None)
    return dict(own(config)) if callable(own) else {}


def _python_args(plan: RunPlan, extra: Sequence[str] = (), policies=None) -> tuple[str, ...]:
    """The arguments of the ``bnb_sim.simulate`` call that plays ``plan`` (the settings that
    are not the game's defaults only: :func:`changed_settings`; ``extra``: the game, its
    options and readings for a game served through the protocol, whose ``policies`` are
    repeated as given: its config may record them so)."""
    config = plan.config
    labels = repr(list(policies) if policies is not None else config.labels)
    args = [f"{plan.games}", f"{config.n_players}", labels, f"seed={int(config.seed)}"]
    args += [*extra, *(f"{k}={v!r}" for k, v in changed_settings(plan.game, config).items())]
    if plan.chunk_size is not None:
        args.append(f"chunk_size={plan.chunk_size}")
    if plan.threads is not None:
        args.append(f"threads={plan.threads}")
    if plan.dask is not None:
        args.append(f"dask={plan.dask!r}")
    if plan.out is not None:
        args.append(f"out={str(plan.out)!r}")
    return tuple(args)
