"""Exact odds of one fight (R-HV-6, R-HV-9, R-HV-11), from the Fight die's faces.

A fight is up to ``fight_rolls`` rolls of the Fight die; it stops at the first number that,
with the Wolf's bonus, reaches the mob's fight value. An arrow moves the Illager one space
away from the village, an Illager face one space toward it (the Panda ignores the first one).
Every face is equally likely, so the exact distribution follows from the face list by summing
over the roll sequences; fractions keep it exact. Pure Python (no numba).

The fight is taken on its own: a fight that the Illager ends by reaching the village is not
cut short here, and a Panda whose protection was used earlier in the turn (the ``turn``
reading) is not modelled (``--pet panda`` means a fresh protection).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from bnb_sim.games.heroes_village import layout as L


@dataclass(frozen=True)
class FightOdds:
    """The exact distribution of one fight against a mob of fight value ``value``."""

    value: int
    pet: str | None
    faces: tuple[int, ...]
    rolls: int
    p_defeated: Fraction
    expected_rolls: Fraction
    rolls_distribution: dict[int, Fraction]  # rolls used -> probability
    net_toward: dict[int, Fraction]  # net spaces toward the village -> probability
    defeated_by_rolls: dict[int, Fraction]  # P(defeated on roll r)

    @property
    def expected_toward(self) -> Fraction:
        return sum((Fraction(m) * p for m, p in self.net_toward.items()), Fraction(0))

    def to_dict(self) -> dict:
        def f(x: Fraction) -> float:
            return float(x)

        return {
            "value": self.value,
            "pet": self.pet,
            "faces": [_face_name(x) for x in self.faces],
            "rolls": self.rolls,
            "p_defeated": f(self.p_defeated),
            "p_defeated_exact": str(self.p_defeated),
            "expected_rolls": f(self.expected_rolls),
            "expected_net_toward_village": f(self.expected_toward),
            "rolls_distribution": {
                str(k): f(v) for k, v in sorted(self.rolls_distribution.items())
            },
            "net_toward_village": {str(k): f(v) for k, v in sorted(self.net_toward.items())},
            "defeated_on_roll": {str(k): f(v) for k, v in sorted(self.defeated_by_rolls.items())},
        }


def _face_name(code: int) -> int | str:
    for name, c in L.FACE_CODES.items():
        if c == code:
            return name
    return code


def fight_odds(
    faces: list[int] | tuple[int, ...],
    value: int,
    rolls: int = 3,
    wolf_bonus: int = 0,
    panda_ignores: int = 0,
    pet: str | None = None,
) -> FightOdds:
    """Exact distribution of one fight (faces in the engine's codes, see ``layout``)."""
    n = len(faces)
    share = Fraction(1, n)
    # alive states: (panda protections left, net toward) -> probability
    alive: dict[tuple[int, int], Fraction] = {(panda_ignores, 0): Fraction(1)}
    p_win = Fraction(0)
    rolls_dist: dict[int, Fraction] = defaultdict(Fraction)
    net: dict[int, Fraction] = defaultdict(Fraction)
    won_on: dict[int, Fraction] = defaultdict(Fraction)
    for r in range(1, rolls + 1):
        nxt: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
        for (panda, toward), p in alive.items():
            for face in faces:
                q = p * share
                if face >= 0:
                    if face + wolf_bonus >= value:
                        p_win += q
                        rolls_dist[r] += q
                        net[toward] += q
                        won_on[r] += q
                        continue
                    nxt[(panda, toward)] += q
                elif face == L.FACE_ARROW:
                    nxt[(panda, toward - 1)] += q
                elif face == L.FACE_ILLAGER:
                    if panda > 0:
                        nxt[(panda - 1, toward)] += q
                    else:
                        nxt[(panda, toward + 1)] += q
                else:
                    nxt[(panda, toward)] += q
        alive = nxt
    for (_, toward), p in alive.items():
        rolls_dist[rolls] += p
        net[toward] += p
    expected = sum((Fraction(r) * p for r, p in rolls_dist.items()), Fraction(0))
    return FightOdds(
        value=value,
        pet=pet,
        faces=tuple(faces),
        rolls=rolls,
        p_defeated=p_win,
        expected_rolls=expected,
        rolls_distribution=dict(rolls_dist),
        net_toward={k: v for k, v in net.items() if v},
        defeated_by_rolls=dict(won_on),
    )


def odds_for(comps, value: int, pet: str | None = None) -> FightOdds:
    """:func:`fight_odds` with the dice and pet strengths of the components."""
    strength = comps.pet_strength
    return fight_odds(
        comps.fight_faces,
        value,
        rolls=comps.data["rules"]["fight_rolls"],
        wolf_bonus=strength["wolf"] if pet == "wolf" else 0,
        panda_ignores=strength["panda"] if pet == "panda" else 0,
        pet=pet,
    )


def kf_table(comps):
    """The ``kf`` array of the kernels: P(defeated) and expected net movement toward the
    village per pet case (plain, wolf, panda) and fight value (the team bot reads it)."""
    import numpy as np

    kf = np.zeros(L.KF_SIZE, np.float64)
    for case, pet in enumerate((None, "wolf", "panda")):
        for v in range(L.MAX_VALUE):
            odds = odds_for(comps, v, pet)
            kf[L.KF_PWIN + case * L.MAX_VALUE + v] = float(odds.p_defeated)
            kf[L.KF_TOWARD + case * L.MAX_VALUE + v] = float(odds.expected_toward)
    return kf


def estimates_used(comps, mobs: list[str], pet: str | None = None) -> list[dict]:
    """The estimated component values the odds against ``mobs`` rest on (the Fight die's
    faces, the rolls, the pet's strength, the mobs' fight values), each with its plausible
    range and reason (docs/components.md, "Ranges")."""
    from bnb_sim.estimates import used_estimates

    keys = ["dice.fight.faces", "rules.fight_rolls"]
    if pet in ("wolf", "panda"):
        keys.append("pets.wolf.fight_bonus" if pet == "wolf" else "pets.panda.ignore_illager")
    keys += [f"mobs.{name}.value" for name in mobs]
    return used_estimates(comps.estimate_ranges(), keys)
