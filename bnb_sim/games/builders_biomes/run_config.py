"""What a Builders & Biomes simulation needs, validated in Python before any kernel runs.

:class:`GameConfig` holds the components, the players' policies, the seed and the rule
options. It derives the master key (``np.random.SeedSequence``, docs/design.md, "Random
streams") and packs everything into the arrays the kernels take. It is small and picklable,
so Dask workers can rebuild the same arrays from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np

from bnb_sim.core.seeds import master_key
from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.games.builders_biomes import readings as R
from bnb_sim.games.builders_biomes.components import Components, load_components
from bnb_sim.games.builders_biomes.policies.registry import PolicySpec, parse_policies
from bnb_sim.safe_io import check_text

VARIANTS = ("standard", "beginner")
SEATINGS = {"fixed": 0, "rotate": 1, "random": 2}
HUNGER = {"together": 0, "one-by-one": 1}  # state.HUNGER_*
DEFAULT_MAX_TURNS = 1000
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class GameConfig:
    """Everything that decides the games of a run, except the game indices.

    * ``policies``: one :class:`PolicySpec` per player (player ``p`` plays seat
      ``(p - rotation) % n``; see the ``seating`` reading).
    * ``readings``: the rule readings (:mod:`bnb_sim.games.builders_biomes.readings`: hunger,
      bonus_biomes, bow,
      pickaxe, boards, seating, variant); ``variant``, ``seating`` and ``pickaxe_optional``
      read them back for older callers.
    * ``check``: run the invariant checker after every decision (slow; for debugging).
    """

    game: ClassVar[str] = "builders_biomes"  # its name in the game registry (its entries)
    components: Components
    policies: tuple[PolicySpec, ...]
    seed: int = 0
    readings: R.Readings = R.DEFAULT
    check: bool = False
    max_turns: int = DEFAULT_MAX_TURNS
    log: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        from bnb_sim import _args

        if not isinstance(self.components, Components):
            raise ArgumentTypeError(
                f"components must be a Components object, got {type(self.components).__name__} "
                "(GameConfig.create also takes a path or None)"
            )
        if not isinstance(self.policies, tuple) or not all(
            isinstance(p, PolicySpec) for p in self.policies
        ):
            raise ArgumentTypeError(
                "policies must be a tuple of PolicySpec (GameConfig.create takes spec strings "
                "such as 'random')"
            )
        for name in ("check", "log"):
            object.__setattr__(self, name, _args.boolean(getattr(self, name), name))
        seed = _args.integer(self.seed, "seed", 0, MAX_SEED)
        object.__setattr__(self, "seed", seed)
        turns = _args.integer(self.max_turns, "max_turns", 1, 100_000)
        object.__setattr__(self, "max_turns", turns)
        n = len(self.policies)
        low, high = self.components.rule("players_min"), self.components.rule("players_max")
        if not low <= n <= high:
            raise BnbError(f"players must be between {low} and {high}, got {n}")
        if not isinstance(self.readings, R.Readings):  # a mapping of name -> value
            object.__setattr__(self, "readings", R.resolve(self.readings, players=n))
        self.readings.check_players(n)
        # a strong model is chosen for (and checked against) this run's players and expansion
        from bnb_sim.games.builders_biomes.policies.registry import resolve_policy

        expansion = self.components.expansion
        resolved = tuple(resolve_policy(p, n, expansion) for p in self.policies)
        object.__setattr__(self, "policies", resolved)
        from bnb_sim.games.builders_biomes.policies.restrictions import restriction_rows

        restriction_rows(resolved, self.components)  # names of items, mobs, types: checked now

    @classmethod
    def create(
        cls,
        players: int,
        policies,
        *,
        seed: int = 0,
        components=None,
        readings=None,
        variant: str | None = None,
        seating: str | None = None,
        pickaxe: str | None = None,
        pickaxe_optional: bool | None = None,
        expansion: str | None = None,
        **options,
    ) -> GameConfig:
        """Build from user values: ``policies`` are specs (strings) or PolicySpecs, cycled
        over ``players``; ``components`` a Components, a path, or None for the defaults;
        ``readings`` a mapping of reading name to value (or a Readings). ``variant``,
        ``seating``, ``pickaxe`` (``optional``/``mandatory``) and ``pickaxe_optional`` are
        aliases of readings; an alias that contradicts ``readings`` is an error."""
        from bnb_sim import _args

        for alias_name, alias_value in (("variant", variant), ("seating", seating)):
            if alias_value is not None:
                _args.text(alias_value, alias_name)
        if pickaxe is not None:
            _args.text(pickaxe, "pickaxe")
        if pickaxe_optional is not None:
            _args.boolean(pickaxe_optional, "pickaxe_optional")
            alias = "optional" if pickaxe_optional else "mandatory"
            if pickaxe is not None and pickaxe != alias:
                raise BnbError(
                    f"pickaxe={pickaxe!r} conflicts with pickaxe_optional={pickaxe_optional}"
                )
            pickaxe = alias
        players = _args.integer(players, "players")
        if isinstance(policies, str | PolicySpec):
            policies = [policies]
        if not isinstance(policies, list | tuple) or not all(
            isinstance(p, str | PolicySpec) for p in policies
        ):
            raise ArgumentTypeError(
                "policies must be a spec string (e.g. 'random') or a list of them, "
                f"got {_args.show(policies)}"
            )
        for p in policies:  # a label goes into every stored row: it must be UTF-8 text
            problem = check_text(p if isinstance(p, str) else p.label)
            if problem is not None:
                raise BnbError(f"policy {_args.show(p)}: the spec {problem}")
        if not isinstance(components, Components):
            components = load_components(components, expansion=expansion)
        elif expansion is not None and components.expansion != expansion:
            raise BnbError(
                f"expansion={expansion!r} but the components were loaded without it "
                f"(load them with load_components(..., expansion={expansion!r}))"
            )
        low, high = components.rule("players_min"), components.rule("players_max")
        if not low <= players <= high:
            raise BnbError(f"players must be between {low} and {high}, got {players}")
        if policies and all(isinstance(p, PolicySpec) for p in policies):
            if len(policies) > players:
                raise BnbError(f"{len(policies)} policies for {players} players")
            chosen = tuple(policies[i % len(policies)] for i in range(players))
        else:
            labels = [p.label if isinstance(p, PolicySpec) else p for p in policies]
            chosen = parse_policies(labels, players)
        resolved = R.resolve(
            readings,
            aliases={"variant": variant, "seating": seating, "pickaxe": pickaxe},
            players=players,
        )
        return cls(components, chosen, seed=seed, readings=resolved, **options)

    @property
    def n_players(self) -> int:
        return len(self.policies)

    @property
    def labels(self) -> list[str]:
        return [p.label for p in self.policies]

    @property
    def variant(self) -> str:
        """The ``variant`` reading (R-SCORE-4): one value, or one per player."""
        return self.readings["variant"]

    @property
    def seating(self) -> str:
        return self.readings["seating"]

    @property
    def pickaxe_optional(self) -> bool:
        return self.readings["pickaxe"] == "optional"

    @cached_property
    def master(self) -> np.uint64:
        return master_key(self.seed)

    def options_vector(self) -> np.ndarray:
        from bnb_sim.games.builders_biomes.engine import state as S

        r = self.readings
        opts = np.zeros(S.N_OPTS, np.int64)
        variants = r.per_player("variant", self.n_players)
        opts[S.OPT_BEGINNER] = sum(1 << p for p, v in enumerate(variants) if v == "beginner")
        opts[S.OPT_PICKAXE_OPTIONAL] = 1 if self.pickaxe_optional else 0
        opts[S.OPT_MAX_TURNS] = int(self.max_turns)
        opts[S.OPT_SEATING] = SEATINGS[self.seating]
        opts[S.OPT_HUNGER] = HUNGER[r["hunger"]]
        opts[S.OPT_BONUS_BUILT] = 1 if r["bonus_biomes"] == "built" else 0
        opts[S.OPT_BOW_CHOOSE] = 1 if r["bow"] == "choose" else 0
        opts[S.OPT_BOARDS_FIXED] = 1 if r["boards"] == "fixed" else 0
        opts[S.OPT_LOG] = 1 if self.log else 0
        opts[S.OPT_CHECK] = 1 if self.check else 0
        return opts

    @cached_property
    def kernel_inputs(self):
        """``(k, ft, kinds, params, plugins)`` for the engine's drivers (built once)."""
        from bnb_sim.games.builders_biomes.engine.static import build_static
        from bnb_sim.games.builders_biomes.policies.kinds import (
            BOT,
            GREEDY,
            HEURISTIC,
            ISMCTS,
            MC,
            N_PARAMS,
            STRONG,
        )

        arrays = self.components.arrays
        # search bots may roll out with a one-step bot, which reads the tables
        one_step = (GREEDY, HEURISTIC, STRONG, BOT, MC, ISMCTS)
        needs_tables = any(p.kind in one_step for p in self.policies)
        tables = _cached_tables(self.components) if needs_tables else None
        try:
            k, ft = build_static(arrays, self.options_vector(), tables)
        except ValueError as exc:
            raise BnbError(f"components: {exc}") from None
        if self.components.expansion is not None:  # Farmer's Market (R-FM-*)
            from bnb_sim.games.builders_biomes.engine.static import fill_farmers_market

            fill_farmers_market(k, self.components.data, self.readings)
        from bnb_sim.games.builders_biomes.policies.restrictions import fill_restrictions

        fill_restrictions(k, self.policies, self.components)  # never/always lists, if any
        width = max([N_PARAMS] + [len(p.params) for p in self.policies])
        params = np.zeros((self.n_players, width), np.float64)
        for i, spec in enumerate(self.policies):
            params[i, : len(spec.params)] = spec.params
        kinds = np.array([p.kind for p in self.policies], np.int64)
        # Always four entries: the tuple's length is part of the kernel's type, so padding it
        # lets one compiled kernel serve 2, 3 and 4 players.
        from bnb_sim.games.builders_biomes.engine.layout import MAX_SEATS
        from bnb_sim.plugins import no_plugin

        plugins = tuple(p.plugin_function() for p in self.policies)
        plugins = plugins + (no_plugin,) * (MAX_SEATS - len(plugins))
        return k, ft, kinds, params, plugins

    def __reduce__(self):
        """Pickled as plain data (its Dask payload: component data, policies, options) and
        rebuilt with the same component hash: a config travels so to a Dask worker with the
        game object (its components hold checks that do not pickle)."""
        payload = config_payload(self)
        if self.log:
            payload["options"]["log"] = True
        return config_from_payload, (payload,)

    def with_components(self, components: Components) -> GameConfig:
        """The same run under other components (for sweeps)."""
        from dataclasses import replace

        return replace(self, components=components)

    def identity(self) -> dict:
        """What decides the rows (the protocol's ``RunConfig.identity``): run.json's
        ``params`` besides ``games``, ``chunk_size`` and how the run was played."""
        expansion = self.components.expansion
        return {
            **({} if expansion is None else {"expansion": expansion}),
            "players": self.n_players,
            "policies": self.labels,
            "policy_specs": [p.to_dict() for p in self.policies],
            "seed": int(self.seed),
            "variant": self.variant,
            "seating": self.seating,
            "pickaxe_optional": self.pickaxe_optional,
            "readings": self.readings.to_dict(),
            "check": self.check,
            "max_turns": int(self.max_turns),
        }

    def to_dict(self) -> dict:
        return {
            "players": self.n_players,
            "policies": [p.to_dict() for p in self.policies],
            "seed": int(self.seed),
            "readings": self.readings.to_dict(),
            "variant": self.variant,
            "seating": self.seating,
            "pickaxe_optional": self.pickaxe_optional,
            "check": self.check,
            "max_turns": int(self.max_turns),
        }


def config_payload(config: GameConfig) -> dict:
    """The config as plain data that any process with bnb-sim installed can rebuild (a Dask
    worker: the ``dask_payload`` run hook)."""
    return {
        "components": config.components.data,
        "content_hash": config.components.content_hash,
        "source": config.components.source,
        "policies": tuple(config.policies),
        "options": {
            "seed": int(config.seed),
            "readings": config.readings,
            "check": config.check,
            "max_turns": int(config.max_turns),
        },
    }


def config_from_payload(payload: dict) -> GameConfig:
    """Rebuild the :func:`config_payload` config (the same component hash, or RunError)."""
    from bnb_sim.games.builders_biomes.components import components_from_dict
    from bnb_sim.runner.dask_backend import check_rebuilt_hash

    comps = components_from_dict(payload["components"], name=payload.get("source", "run"))
    check_rebuilt_hash(comps.content_hash, payload["content_hash"])
    return GameConfig(comps, tuple(payload["policies"]), **payload["options"])


_TABLES: dict[str, object] = {}


def _cached_tables(components: Components):
    """Policy tables depend only on the weapon and mob numbers; reuse them across configs."""
    from bnb_sim.games.builders_biomes.policies.tables import build_policy_tables

    key = _tables_key(components.arrays)
    if key not in _TABLES:
        if len(_TABLES) > 16:
            _TABLES.clear()
        _announce_slow_tables(components)
        _TABLES[key] = build_policy_tables(components.arrays)
    return _TABLES[key]


#: The component arrays the policy tables are built from (policies/tables.py)
_TABLE_INPUTS = ("tile_kind", "tile_hearts", "tile_xp", "tile_bonus_xp", "tok_start", "tok_table",
                 "tok_hearts", "tok_extra_reveals", "tok_xp", "tok_blocks", "tok_detonate",
                 "rules")  # fmt: skip


def _tables_key(arrays) -> str:
    """A digest of exactly the arrays the tables read: components that differ elsewhere (a
    building's cost, a sensitivity analysis's item letter) share one table, which takes
    about a second to build."""
    import hashlib

    digest = hashlib.sha256()
    for name in _TABLE_INPUTS:
        value = np.ascontiguousarray(getattr(arrays, name))
        digest.update(f"{name}:{value.dtype}:{value.shape}".encode())
        digest.update(value.tobytes())
    return digest.hexdigest()


#: Piles in the bots' odds table above which building it takes seconds (the default
#: components have 3,645; about 20,000 piles per second were measured).
SLOW_TABLE_PILES = 100_000


def _announce_slow_tables(components: Components) -> None:
    """Say so on stderr before a long silent pause (custom weapon counts can make the table
    hundreds of thousands of piles)."""
    import sys

    from bnb_sim.games.builders_biomes.engine.odds import table_shape

    a = components.arrays
    piles = table_shape(a.tok_start, a.tok_table, a.tok_detonate)[3]
    if piles > SLOW_TABLE_PILES:
        print(
            f"bnb: building the bots' odds table for these components ({piles:,} weapon piles; "
            f"about {max(1, round(piles / 20_000))} s)...",
            file=sys.stderr,
            flush=True,
        )
