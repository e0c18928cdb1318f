"""Heroes of the Village runs: the configuration, blocks of games as DataFrames, run folders.

``play_block(config, start, n)`` depends only on the configuration and the game indices, so
any split of a run (threads, chunks) gives the same rows. ``simulate_to_dir`` writes a run
folder through the shared :class:`~bnb_sim.runner.storage.RunWriter` (``run.json`` records
``"game": "heroes_village"``), one Parquet part per chunk, resumable.

A configuration may hold several pet teams (``--pets all``): every team plays the same game
indices, so the games are paired (the same tiles, mobs, pouch draws and dice streams).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa

from bnb_sim.errors import BnbError, PolicyError, SpecError
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import HotvComponents, parse_buildings
from bnb_sim.games.heroes_village.difficulty import canonical, start_key
from bnb_sim.games.heroes_village.policies import HotvPolicy, parse_policy

GAME_NAME = "heroes_village"
TRACK_COLUMNS = [f"illager_r{r + 1:02d}" for r in range(L.MAX_ROUNDS)]
BLOCKS_PER_GAME = 1 << 20


class GameFailed(BnbError):
    """A game could not finish (illegal decision, turn limit, broken invariant)."""


def parse_pets(text: str | None, n_players: int) -> list[tuple[str, ...]]:
    """``--pets``: ``wolf,cat,fox`` (seat order), ``all`` (every combination of distinct
    pets for the player count) or ``none``; default: the first pets in the list order."""
    if text is None:
        return [L.PET_NAMES[:n_players]]
    text = text.strip().lower()
    if text == "all":
        return list(itertools.combinations(L.PET_NAMES, n_players))
    names = [p.strip() for p in text.split(",")]
    if names == ["none"]:
        return [("none",) * n_players]
    for name in names:
        if name not in (*L.PET_NAMES, "none"):
            raise SpecError(
                f"--pets {text!r}: unknown pet {name!r} (wolf, cat, fox, panda, horse, llama, "
                "none, or all)"
            )
    if len(names) != n_players:
        raise SpecError(f"--pets {text!r}: {len(names)} pets for {n_players} players")
    real = [n for n in names if n != "none"]
    if len(set(real)) != len(real):
        raise SpecError(f"--pets {text!r}: each pet can go to one player only (R-HV-9)")
    return [tuple(names)]


def pet_codes(team: Sequence[str]) -> np.ndarray:
    out = np.full(L.MAX_PLAYERS, L.NO_PET, np.int64)
    for i, name in enumerate(team):
        out[i] = L.PET_NAMES.index(name) if name != "none" else L.NO_PET
    return out


@dataclass
class HotvConfig:
    """Everything that decides the games of a run, except the game indices."""

    components: HotvComponents
    n_players: int
    policies: list[HotvPolicy]
    teams: list[tuple[str, ...]]
    difficulty: str = "standard"
    buildings: str | None = None
    seed: int = 0
    check: bool = False
    _arrays: Any = field(default=None, repr=False)
    game: ClassVar[str] = GAME_NAME  # its name in the game registry (the Dask payload)

    def __post_init__(self):
        rules = self.components.data["rules"]
        if not rules["players_min"] <= self.n_players <= rules["players_max"]:
            raise SpecError(
                f"--players {self.n_players}: Heroes of the Village takes "
                f"{rules['players_min']} to {rules['players_max']} players (R-HV-10)"
            )
        self.difficulty = canonical(self.difficulty)  # "normal" is an old name of "standard"
        self.chosen = parse_buildings(self.buildings, self.components)
        self.buildings = self.buildings or self.components.data["_default_choice"]

    @property
    def start_space(self) -> int:
        return self.components.data["path"][start_key(self.difficulty)]

    @property
    def master(self) -> np.uint64:
        from bnb_sim.core.seeds import master_key

        return master_key(self.seed)

    @property
    def labels(self) -> list[str]:
        return [self.policies[i % len(self.policies)].label for i in range(self.n_players)]

    @property
    def seats(self) -> list[HotvPolicy]:
        return [self.policies[i % len(self.policies)] for i in range(self.n_players)]

    def __getstate__(self):
        """Pickled without the kernels' arrays (compiled plugins do not pickle; a Dask
        worker makes its own on first use)."""
        return {**self.__dict__, "_arrays": None}

    def arrays(self):
        """``(k, kf, kinds, params, plugins)`` for the kernels (cached; compiles plugins)."""
        if self._arrays is None:
            from bnb_sim.plugins import no_plugin

            k, kf = self.components.static_arrays(self.start_space, self.chosen, self.check)
            seats = self.seats
            kinds = np.array([p.kind for p in seats], np.int64)
            params = np.zeros((len(seats), max(len(p.params) for p in seats)), np.float64)
            for i, p in enumerate(seats):
                params[i, : len(p.params)] = p.params
            # always MAX_PLAYERS entries: the tuple's length is part of the kernel's type
            plugins = tuple(p.plugin_function() for p in seats)
            plugins += (no_plugin,) * (L.MAX_PLAYERS - len(plugins))
            self._arrays = (k, kf, kinds, params, plugins)
        return self._arrays


def dask_payload(config: HotvConfig) -> dict[str, Any]:
    """The config as plain data for a Dask worker (``bnb_sim.runner.dask_backend``)."""
    return {
        "components": {k: v for k, v in config.components.data.items() if not k.startswith("_")},
        "content_hash": config.components.content_hash,
        "source": config.components.source,
        "policies": tuple(config.policies),
        "options": {
            "teams": [list(t) for t in config.teams],
            "n_players": config.n_players,
            "difficulty": config.difficulty,
            "buildings": config.buildings,
            "seed": config.seed,
            "check": config.check,
        },
    }


def dask_config(payload: dict[str, Any]) -> HotvConfig:
    """Rebuild the :func:`dask_payload` config on a worker (the same component hash)."""
    from bnb_sim.games.heroes_village.components import components_from_dict
    from bnb_sim.runner.dask_backend import check_rebuilt_hash

    comps = components_from_dict(payload["components"], payload.get("source", "run"))
    check_rebuilt_hash(comps.content_hash, payload["content_hash"])
    o = payload["options"]
    return HotvConfig(
        comps, int(o["n_players"]), list(payload["policies"]), [tuple(t) for t in o["teams"]],
        o["difficulty"], o["buildings"], int(o["seed"]), bool(o["check"]),
    )  # fmt: skip


def make_config(
    components: HotvComponents,
    players: int | None,
    policies: Sequence[str],
    pets: str | None,
    difficulty: str = "standard",
    buildings: str | None = None,
    seed: int = 0,
    check: bool = False,
) -> HotvConfig:
    specs = [parse_policy(p) for p in (policies or ["team"])]
    if players is None:
        players = len(pets.split(",")) if pets and pets not in ("all", "none") else 3
    return HotvConfig(
        components, int(players), specs, parse_pets(pets, int(players)), difficulty,
        buildings, int(seed), check,
    )  # fmt: skip


def play_arrays(config: HotvConfig, team: Sequence[str], start: int, n: int, threads=None):
    """Raw output of the batch kernel for one pet team and games ``start .. start+n-1``."""
    from bnb_sim.games.heroes_village.play import output_shapes, play_batch
    from bnb_sim.runner.blocks import run_blocks

    k, kf, kinds, params, plugins = config.arrays()
    seat_shape, game_shape = output_shapes(n, config.n_players)
    seat_out = np.zeros(seat_shape, np.int64)
    game_out = np.zeros(game_shape, np.int64)
    pets, n_players = pet_codes(team), config.n_players

    def play(first: int, end: int) -> None:
        seats = seat_out[first * n_players : end * n_players]
        play_batch(k, kf, kinds, params, plugins, pets, config.master, int(start) + first,
                   n_players, seats, game_out[first:end])  # fmt: skip

    run_blocks(play, n, threads)
    _check_status(config, team, start, game_out)
    return seat_out, game_out


def _check_status(config: HotvConfig, team, start: int, game_out: np.ndarray) -> None:
    from bnb_sim.games.heroes_village.invariants import INVARIANT_MESSAGES

    bad = np.flatnonzero(game_out[:, 0] != L.ST_OK)
    if bad.size == 0:
        return
    game = int(start) + int(bad[0])
    status = int(game_out[bad[0], 0])
    if status == L.ST_ILLEGAL and any(p.plugin for p in config.policies):
        _plugin_failure(config, team, game)
    if status == L.ST_TURN_LIMIT:
        limit = config.components.data["readings"]["max_turns"]
        raise GameFailed(f"game {game} did not end within {limit} turns")
    if status == L.ST_INVARIANT:
        raise GameFailed(f"game {game}: an invariant is broken (see --check)")
    if status == L.ST_ILLEGAL:
        raise PolicyError(f"a policy made an illegal decision in game {game}")
    raise GameFailed(f"game {game} failed with status {status} {INVARIANT_MESSAGES}")


def _plugin_failure(config: HotvConfig, team, game: int) -> None:
    """Replay a game that stopped on an illegal decision to name the policy and, for a
    plugin that raised, its exception (numba raises it when ``decide`` runs from Python)."""
    from bnb_sim.games.heroes_village.play import replay_game
    from bnb_sim.games.heroes_village.policies import load_plugin
    from bnb_sim.plugins import PLUGIN_RAISED, first_line, plugin_dispatcher

    k, kf, kinds, params, plugins = config.arrays()
    s, rng, mem, mask = replay_game(
        k, kf, kinds, params, plugins, pet_codes(team), config.master, game, config.n_players
    )
    seat = int(s[L.S_SEAT])
    policy = config.seats[seat]
    if policy.plugin is None:
        return
    decision = int(s[L.S_STATUS_INFO])
    where = f"policy plugin '{policy.plugin}' (seat {seat}) in game {game}"
    if decision != PLUGIN_RAISED:
        raise PolicyError(f"{where} made an illegal decision {decision} (see the legal mask)")
    obs = np.zeros(L.S_SIZE, np.int64)
    from bnb_sim.games.heroes_village.bots import observe

    observe(s, k, obs)
    decide = plugin_dispatcher(policy.plugin, load_plugin(policy.plugin))
    try:
        decide(obs, mask, k, rng[L.RNG_POLICY + seat].copy(), params[seat].copy(), mem[seat])
    except Exception as exc:
        raise PolicyError(f"{where} raised {first_line(exc)}") from None
    raise PolicyError(f"{where} raised an exception inside the kernel")


def _constant(text: str, n: int) -> pd.Categorical:
    return pd.Categorical.from_codes(np.zeros(n, np.int8), [text])


def frames(config: HotvConfig, team, start: int, seat_out, game_out):
    """``(seats_df, games_df)`` (docs/run-format.md, Heroes of the Village tables)."""
    comps = config.components
    n = game_out.shape[0]
    P = config.n_players
    games = np.arange(start, start + n, dtype=np.int64)
    team_text = ",".join(team)
    blist = comps.buildings
    chosen = game_out[:, L.G_CHOSEN : L.G_CHOSEN + len(config.chosen)]
    numbers = np.array([b["number"] for b in blist])
    # the chosen buildings as text, through their few distinct combinations
    combos, inverse = np.unique(chosen, axis=0, return_inverse=True)
    labels = [",".join(str(x) for x in numbers[row]) for row in combos]
    building_text = pd.Categorical.from_codes(inverse.ravel().astype(np.int32), labels)
    g = {
        "game": games,
        "n_players": np.full(n, P, np.int8),
        "pets": _constant(team_text, n),
        "difficulty": _constant(config.difficulty, n),
        "buildings": building_text,
        "policy": _constant(" + ".join(dict.fromkeys(config.labels)), n),
    }
    for j, name in enumerate(L.GAME_OUTPUT):
        col = game_out[:, j]
        if name == "status":
            continue
        g[name] = col.astype(bool) if name in ("won", "lost_in_fight") else col.astype(np.int16)
    for r, name in enumerate(TRACK_COLUMNS):
        g[name] = game_out[:, L.G_TRACK + r].astype(np.int8)
    games_df = pd.DataFrame(g)
    seat = np.tile(np.arange(P, dtype=np.int8), n)
    s = {
        "game": np.repeat(games, P),
        "seat": seat,
        "player": seat,
        "policy": pd.Categorical(np.array(config.labels, dtype=object)[seat]),
        "pet": pd.Categorical(np.array(team, dtype=object)[seat]),
        "pets": _constant(team_text, n * P),
        "n_players": np.full(n * P, P, np.int8),
        "difficulty": _constant(config.difficulty, n * P),
        "won": np.repeat(games_df["won"].to_numpy(), P),
    }
    for j, name in enumerate(L.SEAT_STAT_NAMES):
        s[name] = seat_out[:, j].astype(np.int16)
    for v in comps.mob_values:
        s[f"fights_v{v}"] = seat_out[:, L.T_FIGHTS_BY_VALUE + v].astype(np.int16)
        s[f"wins_v{v}"] = seat_out[:, L.T_WINS_BY_VALUE + v].astype(np.int16)
    return pd.DataFrame(s), games_df


def play_block(config: HotvConfig, start: int, n: int, threads=None):
    """Every pet team of ``config`` on games ``start .. start + n - 1``: ``(seats, games)``."""
    seats, games = [], []
    for team in config.teams:
        seat_out, game_out = play_arrays(config, team, start, n, threads)
        a, b = frames(config, team, start, seat_out, game_out)
        seats.append(a)
        games.append(b)
    if len(seats) == 1:
        return seats[0], games[0]
    return _concat(seats), _concat(games)


def _concat(dfs):
    from pandas.api.types import union_categoricals

    out = {}
    for col in dfs[0].columns:
        parts = [d[col] for d in dfs]
        if isinstance(parts[0].dtype, pd.CategoricalDtype):
            out[col] = union_categoricals(parts, ignore_order=True)
        else:
            out[col] = np.concatenate([p.to_numpy() for p in parts])
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------- storage

SEAT_COLUMNS: dict[str, pa.DataType] = {
    "game": pa.int64(),
    "seat": pa.int8(),
    "player": pa.int8(),
    "policy": pa.string(),
    "pet": pa.string(),
    "pets": pa.string(),
    "n_players": pa.int8(),
    "difficulty": pa.string(),
    "won": pa.bool_(),
    **{name: pa.int16() for name in L.SEAT_STAT_NAMES},
}
GAME_COLUMNS: dict[str, pa.DataType] = {
    "game": pa.int64(),
    "n_players": pa.int8(),
    "pets": pa.string(),
    "difficulty": pa.string(),
    "buildings": pa.string(),
    "policy": pa.string(),
    "won": pa.bool_(),
    "turns": pa.int16(),
    "rounds": pa.int16(),
    "buildings_completed": pa.int16(),
    "illager_final": pa.int16(),
    "mobs_spawned": pa.int16(),
    "mobs_defeated": pa.int16(),
}


def run_params(config: HotvConfig, games: int, chunk_size: int) -> dict[str, Any]:
    """run.json ``params``: everything that decides the rows (the identity) plus ``check``.

    ``rows_per_game`` tells the shared storage that every pet team plays each game index
    (``games`` rows = teams, ``seats`` rows = teams x players; docs/run-format.md).
    """
    teams = len(config.teams)
    return {
        "games": int(games),
        "players": config.n_players,
        "chunk_size": int(chunk_size),
        "seed": config.seed,
        "policies": config.labels,
        "policy_specs": [p.to_dict() for p in config.policies],
        "pet_teams": [",".join(t) for t in config.teams],
        "teams": teams,
        "difficulty": config.difficulty,
        "start_space": config.start_space,
        "buildings": config.buildings,
        "check": config.check,
        "readings": config.components.readings,
        "rows_per_game": {"seats": teams * config.n_players, "games": teams},
    }


def protocol_config(config: HotvConfig):
    """``config`` as the protocol's config (:class:`~bnb_sim.games.adapter.WrappedConfig`):
    its identity is run.json's ``params`` without ``games`` and ``chunk_size``."""
    from bnb_sim.games.adapter import WrappedConfig

    params = run_params(config, 0, 1)
    for key in ("games", "chunk_size"):
        params.pop(key)
    return WrappedConfig(config, GAME_NAME, params)


def simulate_to_dir(
    config: HotvConfig,
    games: int,
    out: str | Path,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    command: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of every pet team into the run folder ``out``; returns a summary.

    The shared protocol run (:func:`bnb_sim.runner.protocol_run.simulate_to_dir`, which
    ``bnb simulate --game hotv`` uses): the shared writer's folder rules (lock, ``force``,
    ``resume`` with the same identity, torn parts played again), a local or Dask executor
    (``dask``: ``"local"`` or a scheduler address; the same rows).
    """
    from bnb_sim.core.registry import get_game
    from bnb_sim.runner.protocol_run import simulate_to_dir as shared

    return shared(
        get_game(GAME_NAME), protocol_config(config), config.components, games, out,
        chunk_size=chunk_size, threads=threads, resume=resume, force=force, dask=dask,
        command=command, progress=progress, notice=notice,
    )  # fmt: skip
