"""What a simulation needs, validated in Python before any kernel runs.

:class:`GameConfig` holds the components, the players' policies, the seed and the rule
options. It derives the master key (``np.random.SeedSequence``, docs/design.md, "Random
streams") and packs everything into the arrays the kernels take. It is small and picklable,
so Dask workers can rebuild the same arrays from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from bnb_sim import readings as R
from bnb_sim.components import Components, load_components
from bnb_sim.errors import BnbError
from bnb_sim.policies.registry import PolicySpec, parse_policies

VARIANTS = ("standard", "beginner")
SEATINGS = {"fixed": 0, "rotate": 1, "random": 2}
HUNGER = {"together": 0, "one-by-one": 1}  # state.HUNGER_*
DEFAULT_MAX_TURNS = 1000
MAX_SEED = 2**63 - 1


def master_key(seed: int) -> np.uint64:
    """The 64-bit master key of a user seed (SeedSequence spreads nearby seeds apart)."""
    return np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]


@dataclass(frozen=True)
class GameConfig:
    """Everything that decides the games of a run, except the game indices.

    * ``policies``: one :class:`PolicySpec` per player (player ``p`` plays seat
      ``(p - rotation) % n``; see the ``seating`` reading).
    * ``readings``: the rule readings (:mod:`bnb_sim.readings`: hunger, bonus_biomes, bow,
      pickaxe, boards, seating, variant); ``variant``, ``seating`` and ``pickaxe_optional``
      read them back for older callers.
    * ``check``: run the invariant checker after every decision (slow; for debugging).
    """

    components: Components
    policies: tuple[PolicySpec, ...]
    seed: int = 0
    readings: R.Readings = R.DEFAULT
    check: bool = False
    max_turns: int = DEFAULT_MAX_TURNS
    log: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        n = len(self.policies)
        low, high = self.components.rule("players_min"), self.components.rule("players_max")
        if not low <= n <= high:
            raise BnbError(f"players must be between {low} and {high}, got {n}")
        if not isinstance(self.readings, R.Readings):  # a mapping of name -> value
            object.__setattr__(self, "readings", R.resolve(self.readings, players=n))
        self.readings.check_players(n)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise BnbError(f"seed must be an integer, got {self.seed!r}")
        if not 0 <= int(self.seed) <= MAX_SEED:
            raise BnbError(f"seed must be between 0 and {MAX_SEED}")
        if not 1 <= int(self.max_turns) <= 100_000:
            raise BnbError("max_turns must be between 1 and 100000")

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
        if pickaxe_optional is not None:
            alias = "optional" if pickaxe_optional else "mandatory"
            if pickaxe is not None and pickaxe != alias:
                raise BnbError(
                    f"pickaxe={pickaxe!r} conflicts with pickaxe_optional={pickaxe_optional}"
                )
            pickaxe = alias
        if isinstance(players, bool) or not isinstance(players, int | np.integer):
            raise BnbError(f"players must be an integer, got {players!r}")
        if isinstance(policies, str | PolicySpec):
            policies = [policies]
        if not isinstance(components, Components):
            components = load_components(components, expansion=expansion)
        elif expansion is not None and components.expansion != expansion:
            raise BnbError(
                f"expansion={expansion!r} but the components were loaded without it "
                f"(load them with load_components(..., expansion={expansion!r}))"
            )
        low, high = components.rule("players_min"), components.rule("players_max")
        if not low <= int(players) <= high:
            raise BnbError(f"players must be between {low} and {high}, got {players}")
        specs = [p for p in policies if isinstance(p, PolicySpec)]
        if specs and len(specs) == len(list(policies)):
            chosen = tuple(specs[i % len(specs)] for i in range(int(players)))
        else:
            chosen = parse_policies([str(p) for p in policies], int(players))
        resolved = R.resolve(
            readings,
            aliases={"variant": variant, "seating": seating, "pickaxe": pickaxe},
            players=int(players),
        )
        return cls(components, chosen, seed=int(seed), readings=resolved, **options)

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
        from bnb_sim.engine import state as S

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
        from bnb_sim.engine.static import build_static
        from bnb_sim.policies.kinds import GREEDY, HEURISTIC, N_PARAMS

        arrays = self.components.arrays
        needs_tables = any(p.kind in (GREEDY, HEURISTIC) for p in self.policies)
        tables = _cached_tables(self.components) if needs_tables else None
        try:
            k, ft = build_static(arrays, self.options_vector(), tables)
        except ValueError as exc:
            raise BnbError(f"components: {exc}") from None
        if self.components.expansion is not None:  # Farmer's Market (R-FM-*)
            from bnb_sim.engine.static import fill_farmers_market

            fill_farmers_market(k, self.components.data, self.readings)
        width = max([N_PARAMS] + [len(p.params) for p in self.policies])
        params = np.zeros((self.n_players, width), np.float64)
        for i, spec in enumerate(self.policies):
            params[i, : len(spec.params)] = spec.params
        kinds = np.array([p.kind for p in self.policies], np.int64)
        # Always four entries: the tuple's length is part of the kernel's type, so padding it
        # lets one compiled kernel serve 2, 3 and 4 players.
        from bnb_sim.engine.layout import MAX_SEATS
        from bnb_sim.policies.plugin import no_plugin

        plugins = tuple(p.plugin_function() for p in self.policies)
        plugins = plugins + (no_plugin,) * (MAX_SEATS - len(plugins))
        return k, ft, kinds, params, plugins

    def with_components(self, components: Components) -> GameConfig:
        """The same run under other components (for sweeps)."""
        from dataclasses import replace

        return replace(self, components=components)

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


_TABLES: dict[str, object] = {}


def _cached_tables(components: Components):
    """Policy tables depend only on the weapon and mob numbers; reuse them across configs."""
    from bnb_sim.policies.tables import build_policy_tables

    key = components.content_hash
    if key not in _TABLES:
        if len(_TABLES) > 16:
            _TABLES.clear()
        _TABLES[key] = build_policy_tables(components.arrays)
    return _TABLES[key]
