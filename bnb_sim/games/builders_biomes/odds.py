"""Combat odds for a weapon pile: validated Python façade over the exact and Monte Carlo kernels.

>>> odds = combat_odds("stone_sword,wooden_sword,potato*3", mob="skeleton")  # doctest: +SKIP
>>> odds.p_win  # both swords must come up: 3/10                            # doctest: +SKIP
0.3

Exact values come from a memoised chance tree in plain Python
(:mod:`bnb_sim.games.builders_biomes.exact_odds`, the same tree and sums as the kernel
:mod:`bnb_sim.games.builders_biomes.engine.odds` that fills the bots' all-piles table);
``simulate=N`` adds Monte Carlo estimates with 95% intervals
(:mod:`bnb_sim.games.builders_biomes.engine.combat`), which is a check on the exact numbers
rather than a replacement. Rules: R-FIGHT-2 to R-FIGHT-5 (docs/rules-reference.md).

Exact odds never import numba; only ``simulate=N`` loads the Monte Carlo kernel.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bnb_sim.errors import SpecError

MAX_PILE_TOKENS = 64
MAX_SIMULATE = 10_000_000
MAX_HEARTS = 10**6  # far above any mob; keeps the kernels' int64 arithmetic exact
ODDS_STREAM = 0x0DD5  # RNG stream id of the Monte Carlo combat estimator
_Z95 = 1.959963984540054

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_COUNT = re.compile(r"[0-9]+")

# statistics of the Monte Carlo kernel, in its STAT_* order: (key, is a probability)
_SIM_FIELDS = (
    ("p_win", True),
    ("p_win_no_tnt", True),
    ("expected_revealed", False),
    ("expected_hoe_xp", False),
    ("expected_pickaxe_blocks", False),
    ("expected_tnt_spent", False),
)


# --------------------------------------------------------------------------- components


_DEFAULT_COMPONENTS: list[Any] = []


def get_components(components: Any) -> Any:
    """A loaded Components from a Components, a path, or None (the default data, cached)."""
    if components is None:
        if not _DEFAULT_COMPONENTS:
            from bnb_sim.games.builders_biomes.components import load_components

            _DEFAULT_COMPONENTS.append(load_components(None))
        return _DEFAULT_COMPONENTS[0]
    from bnb_sim.games.builders_biomes.components import Components, load_components

    if isinstance(components, Components):
        return components
    return load_components(components)  # a path or a list of paths; refuses anything else


def _fight_reveal(comps: Any) -> int:
    from bnb_sim.games.builders_biomes.components.arrays import RULE_FIGHT_REVEAL

    return int(comps.arrays.rules[RULE_FIGHT_REVEAL])


def _token_arrays(comps: Any) -> tuple[np.ndarray, ...]:
    a = comps.arrays
    return tuple(
        np.ascontiguousarray(x, dtype=np.int64)
        for x in (a.tok_hearts, a.tok_extra_reveals, a.tok_xp, a.tok_blocks, a.tok_detonate)
    )


# --------------------------------------------------------------------------- validation


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_hearts(hearts: Any) -> int:
    if not _is_int(hearts) or not 1 <= hearts <= MAX_HEARTS:
        raise SpecError(f"hearts must be an integer from 1 to {MAX_HEARTS:,}, got {_show(hearts)}")
    return int(hearts)


def _check_count(value: Any, what: str, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise SpecError(f"{what} must be an integer from {low:,} to {high:,}, got {value!r}")
    return int(value)


def _check_seed(seed: Any) -> int:
    if not _is_int(seed) or seed < 0:
        raise SpecError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _show(value: Any, limit: int = 80) -> str:
    """repr of a user value for a one-line message, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _valid_names(comps: Any) -> str:
    return ", ".join(sorted(comps.weapon_aliases))


def _resolve_token(name: Any, comps: Any, spec: Any) -> int:
    if not isinstance(name, str):
        raise SpecError(f"pile: token name must be a string, got {name!r}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key not in comps.weapon_aliases:
        raise SpecError(
            f"pile: unknown weapon token {_show(name.strip())} in {_show(spec)}; "
            f"valid: {_valid_names(comps)}"
        )
    return int(comps.resolve_weapon(key))


def parse_pile(spec: Any, comps: Any = None) -> np.ndarray:
    """Token counts (int64[T], index = token type) of a pile spec.

    ``spec`` is a string such as ``"stone_sword,wooden_sword,potato*3,bow*2,tnt"`` (names or
    aliases, ``name*k`` repeats, whitespace tolerated), a mapping name -> count, or an integer
    array of counts per token type. Raises :class:`SpecError` naming the bad part.
    """
    comps = get_components(comps)
    n_types = len(comps.weapon_names)
    counts = np.zeros(n_types, np.int64)
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise SpecError("pile: empty pile spec; give tokens such as 'stone_sword,potato*3'")
        for position, raw in enumerate(text.split(","), start=1):
            part = raw.strip()
            if not part:
                raise SpecError(f"pile: empty item at position {position} in {_show(spec)}")
            name, star, count_text = part.partition("*")
            name = name.strip()
            count_text = count_text.strip()
            normal = name.lower().replace("-", "_").replace(" ", "_")
            if not name or "*" in count_text or not _NAME.fullmatch(normal):
                raise SpecError(
                    f"pile: malformed item {_show(part)} in {_show(spec)}; "
                    "expected NAME or NAME*COUNT"
                )
            count = 1
            if star:
                if not _COUNT.fullmatch(count_text) or not count_text.strip("0"):
                    raise SpecError(
                        f"pile: count in {_show(part)} must be a positive integer, "
                        f"got {_show(count_text)}"
                    )
                count = int(count_text) if len(count_text.lstrip("0")) < 10 else MAX_PILE_TOKENS + 1
            counts[_resolve_token(name, comps, spec)] += min(count, MAX_PILE_TOKENS + 1)
    elif isinstance(spec, Mapping):
        for name, count in spec.items():
            if not _is_int(count) or count < 1:
                raise SpecError(
                    f"pile: count of {name!r} must be a positive integer, got {count!r}"
                )
            counts[_resolve_token(name, comps, dict(spec))] += min(int(count), MAX_PILE_TOKENS + 1)
    elif isinstance(spec, (np.ndarray, list, tuple)):
        array = np.asarray(spec)
        if array.shape != (n_types,) or not np.issubdtype(array.dtype, np.integer):
            raise SpecError(f"pile: expected {n_types} integer counts (one per token type)")
        # compare before casting: a uint64 2**64-1 would become -1 as int64
        if np.issubdtype(array.dtype, np.signedinteger) and (array < 0).any():
            raise SpecError("pile: token counts must not be negative")
        if (array > MAX_PILE_TOKENS).any():
            raise SpecError(f"pile: a token count is more than the limit of {MAX_PILE_TOKENS}")
        counts[:] = array  # each count <= 64 now, so neither the cast nor the sum overflows
    else:
        raise SpecError(f"pile: expected a spec string or a mapping, got {type(spec).__name__}")
    total = int(counts.sum())
    if total == 0:
        raise SpecError("pile: empty pile; a fight needs at least one token")
    if total > MAX_PILE_TOKENS:
        raise SpecError(f"pile: {total} tokens is more than the limit of {MAX_PILE_TOKENS}")
    return counts


def _mob_hearts(mob: Any, comps: Any) -> int:
    if not isinstance(mob, str):
        raise SpecError(f"mob must be a name, got {mob!r}")
    key = mob.strip().lower().replace("-", "_").replace(" ", "_")
    table = {str(k).lower(): v for k, v in comps.mob_hearts.items()}
    if key not in table:
        raise SpecError(f"unknown mob {mob!r}; valid: {', '.join(sorted(table))}")
    return int(table[key])


def _mobs_with(hearts: int, comps: Any) -> list[str]:
    return [name for name in comps.mob_names if int(comps.mob_hearts[name]) == hearts]


# --------------------------------------------------------------------------- results


#: What the exact odds assume about the decisions inside a fight (the readings they hold for).
ASSUMPTIONS = {
    "bow": "always: every revealed bow reveals one more token (reading bow=always; under "
    "bow=choose a player who declines reveals less)",
    "tnt": "detonated only to turn a loss into a win, as few as needed",
    "pickaxe": "its block does not change the fight (counted as 'pickaxe blocks' whether "
    "taken or declined)",
}


@dataclass(frozen=True)
class CombatOdds:
    """Exact fight statistics of one pile against one heart value (R-FIGHT-2 to R-FIGHT-5)."""

    hearts: int
    p_win: float  # TNT detonated optimally (only to turn a loss into a win, as few as needed)
    p_win_no_tnt: float
    expected_revealed: float
    expected_hoe_xp: float
    expected_pickaxe_blocks: float
    expected_tnt_spent: float
    hearts_distribution: dict[int, float]  # P(max achievable hearts = k), k with P > 0
    pile: list[dict[str, Any]]  # {"name", "count", "hearts"} per token type held
    mobs: list[str] = field(default_factory=list)  # mobs with exactly these hearts
    simulated: dict[str, Any] | None = None  # Monte Carlo estimates with 95% intervals
    # the estimated component values these odds rest on (key, value, range, reason)
    estimated: list[dict[str, Any]] = field(default_factory=list)

    def __repr__(self) -> str:
        pile = ", ".join(
            item["name"] + (f"*{item['count']}" if item["count"] > 1 else "") for item in self.pile
        )
        mobs = f" ({', '.join(self.mobs)})" if self.mobs else ""
        checked = ""
        if self.simulated:
            checked = f"; Monte Carlo {self.simulated.get('n', 0):,} fights"
        return (
            f"CombatOdds({pile} vs {self.hearts} hearts{mobs}: win {100 * self.p_win:.2f}% "
            f"(exact; {100 * self.p_win_no_tnt:.2f}% without TNT), "
            f"{self.expected_revealed:.2f} tokens revealed{checked})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (hearts-distribution keys become strings)."""
        out: dict[str, Any] = {
            "hearts": self.hearts,
            "mobs": list(self.mobs),
            "p_win": self.p_win,
            "p_win_no_tnt": self.p_win_no_tnt,
            "expected_revealed": self.expected_revealed,
            "expected_hoe_xp": self.expected_hoe_xp,
            "expected_pickaxe_blocks": self.expected_pickaxe_blocks,
            "expected_tnt_spent": self.expected_tnt_spent,
            "hearts_distribution": {str(k): p for k, p in self.hearts_distribution.items()},
            "pile": [dict(item) for item in self.pile],
            "assumes": dict(ASSUMPTIONS),
            "estimated": [dict(e) for e in self.estimated],
        }
        if self.simulated is not None:
            out["simulated"] = self.simulated
        return out


def _pile_listing(counts: np.ndarray, comps: Any) -> list[dict[str, Any]]:
    hearts = comps.arrays.tok_hearts
    return [
        {"name": comps.weapon_names[t], "count": int(c), "hearts": int(hearts[t])}
        for t, c in enumerate(counts)
        if c > 0
    ]


# what a token's numbers do in a fight (R-FIGHT-2 to R-FIGHT-5); start and table counts do not
_FIGHT_FIELDS = ("hearts", "extra_reveals", "xp_on_reveal", "blocks_on_reveal", "detonate_hearts")


def estimates_used(counts: np.ndarray, comps: Any, hearts: Sequence[int]) -> list[dict[str, Any]]:
    """The estimated component values that odds of this pile against these heart values rest
    on: the numbers of each token type in the pile, the hearts of the mobs with those hearts
    and the number of tokens revealed, each with its plausible range and reason."""
    from bnb_sim.estimates import used_estimates

    names = [n for n, c in zip(comps.weapon_names, counts, strict=True) if c > 0]
    keys = [f"weapons.{n}.{f}" for n in names for f in _FIGHT_FIELDS]
    keys += [f"mobs.{m}.hearts" for h in hearts for m in _mobs_with(h, comps)]
    keys.append("rules.fight_reveal")
    return used_estimates(comps.estimate_ranges(), keys)


def _exact(counts: np.ndarray, comps: Any, h_max: int) -> tuple:
    # plain Python, not the kernel: one pile's tree takes milliseconds, loading numba a second
    from bnb_sim.games.builders_biomes.exact_odds import exact_odds

    try:
        return exact_odds(counts, *_token_arrays(comps), np.int64(_fight_reveal(comps)), h_max)
    except ValueError as exc:  # key space overflow (needs ~60 distinct token kinds)
        raise SpecError(f"pile: {exc}") from None


def _max_hearts(counts: np.ndarray, comps: Any) -> int:
    hearts, _, _, _, detonate = _token_arrays(comps)
    gain = np.where(detonate > 0, np.maximum(detonate - hearts, 0), 0)
    return int((counts * (hearts + gain)).sum())


def _odds_rows(counts, comps, heart_values, simulate, seed) -> list[CombatOdds]:
    # hearts beyond the pile's maximum all lose: evaluate them at max + 1
    cap = _max_hearts(counts, comps) + 1
    h_max = min(max(heart_values), cap)
    p_win, p_no, e_spent, dist, e_rev, e_xp, e_blocks = _exact(counts, comps, np.int64(h_max))
    distribution = {k: float(p) for k, p in enumerate(dist) if p > 0.0}
    listing = _pile_listing(counts, comps)
    rows = []
    for hearts in heart_values:
        estimated = estimates_used(counts, comps, [hearts])
        h = min(hearts, cap)
        sim = _simulate_counts(counts, comps, hearts, simulate, seed) if simulate else None
        rows.append(
            CombatOdds(
                hearts=hearts,
                p_win=float(p_win[h]),
                p_win_no_tnt=float(p_no[h]),
                expected_revealed=float(e_rev),
                expected_hoe_xp=float(e_xp),
                expected_pickaxe_blocks=float(e_blocks),
                expected_tnt_spent=float(e_spent[h]),
                hearts_distribution=dict(distribution),
                pile=[dict(item) for item in listing],
                mobs=_mobs_with(hearts, comps),
                simulated=sim,
                estimated=estimated,
            )
        )
    return rows


def combat_odds(
    pile: Any,
    hearts: int | None = None,
    *,
    mob: str | None = None,
    components: Any = None,
    simulate: int = 0,
    seed: int = 0,
) -> CombatOdds:
    """Exact odds of ``pile`` against a mob of ``hearts`` hearts (or the named ``mob``).

    ``components`` is a loaded Components, a path to a component file, or None (default
    data). ``simulate=N`` adds Monte Carlo estimates from N fights (seeded by ``seed``).
    """
    comps = get_components(components)
    if hearts is not None and mob is not None:
        raise SpecError("give either hearts or mob, not both")
    if mob is not None:
        hearts = _mob_hearts(mob, comps)
    elif hearts is None:
        raise SpecError("give hearts (a positive integer) or a mob name")
    hearts = _check_hearts(hearts)
    simulate = _check_count(simulate, "simulate", 0, MAX_SIMULATE)
    seed = _check_seed(seed)
    counts = parse_pile(pile, comps)
    return _odds_rows(counts, comps, [hearts], simulate, seed)[0]


def combat_odds_table(
    pile: Any, *, components: Any = None, simulate: int = 0, seed: int = 0
) -> list[CombatOdds]:
    """Exact odds of ``pile`` for every distinct heart value of the mobs, lowest first."""
    comps = get_components(components)
    simulate = _check_count(simulate, "simulate", 0, MAX_SIMULATE)
    seed = _check_seed(seed)
    counts = parse_pile(pile, comps)
    values = sorted({int(h) for h in comps.mob_hearts.values() if int(h) >= 1})
    if not values:
        raise SpecError("the component data has no mobs with hearts")
    return _odds_rows(counts, comps, values, simulate, seed)


# --------------------------------------------------------------------------- Monte Carlo


def _wilson(successes: float, n: int) -> tuple[float, float]:
    p = successes / n
    z2 = _Z95 * _Z95
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = _Z95 * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def master_key(seed: int) -> np.uint64:
    """The uint64 master key of a user seed (SeedSequence hashing, docs/design.md)."""
    return np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]


def _simulate_counts(counts, comps, hearts, n, seed) -> dict[str, Any]:
    from bnb_sim.games.builders_biomes.engine.combat import simulate_combats

    sums = simulate_combats(
        counts,
        *_token_arrays(comps),
        np.int64(_fight_reveal(comps)),
        np.int64(hearts),
        np.int64(n),
        master_key(seed),
        np.int64(ODDS_STREAM),
    )
    out: dict[str, Any] = {"n": n, "seed": seed}
    for row, (key, is_probability) in enumerate(_SIM_FIELDS):
        total, squares = float(sums[row, 0]), float(sums[row, 1])
        mean = total / n
        variance = max(squares / n - mean * mean, 0.0) * (n / (n - 1) if n > 1 else 0.0)
        se = math.sqrt(variance / n)
        if is_probability:
            low, high = _wilson(total, n)
        else:
            low, high = mean - _Z95 * se, mean + _Z95 * se
        out[key] = {"estimate": mean, "low": low, "high": high, "se": se}
    return out


def simulate_combat(
    pile: Any, hearts: int, n: int, *, seed: int = 0, components: Any = None
) -> dict[str, Any]:
    """Monte Carlo estimates from ``n`` fights, each with a 95% interval.

    Probabilities get Wilson intervals, expectations mean ± 1.96 standard errors. The same
    ``(pile, hearts, n, seed)`` always gives the same numbers.
    """
    comps = get_components(components)
    hearts = _check_hearts(hearts)
    n = _check_count(n, "n", 1, MAX_SIMULATE)
    seed = _check_seed(seed)
    counts = parse_pile(pile, comps)
    return _simulate_counts(counts, comps, hearts, n, seed)


__all__ = [
    "CombatOdds",
    "combat_odds",
    "combat_odds_table",
    "get_components",
    "master_key",
    "parse_pile",
    "simulate_combat",
]
