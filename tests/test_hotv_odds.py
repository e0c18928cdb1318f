"""Exact fight odds of Heroes of the Village (R-HV-6, R-HV-9, R-HV-11): equal to a brute force
over every roll sequence, and matched by the fights inside simulated games."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from fractions import Fraction

import pytest
from click.testing import CliRunner

from bnb_sim.analysis.stats import Rate
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.odds import fight_odds, odds_for

A, I, B = L.FACE_ARROW, L.FACE_ILLAGER, L.FACE_BLANK
FACE_SETS = [
    [4, 5, 6, 6, A, I],  # the default
    [4, 5, 6, B, A, I],
    [3, 4, 5, 6, A, I],
    [4, 5, 6, I, I, A],
]


def brute_force(faces, value, rolls, bonus, panda):
    """Every sequence of ``rolls`` faces, equally likely; the fight stops at a success."""
    won = Fraction(0)
    expected_rolls = Fraction(0)
    net = defaultdict(Fraction)
    p = Fraction(1, len(faces) ** rolls)
    for seq in itertools.product(faces, repeat=rolls):
        left, toward, used, success = panda, 0, 0, False
        for face in seq:
            used += 1
            if face >= 0 and face + bonus >= value:
                success = True
                break
            if face == A:
                toward -= 1
            elif face == I:
                if left:
                    left -= 1
                else:
                    toward += 1
        won += p * success
        expected_rolls += p * used
        net[toward] += p
    return won, expected_rolls, {k: v for k, v in net.items() if v}


@pytest.mark.parametrize("faces", FACE_SETS)
@pytest.mark.parametrize("pet", [None, "wolf", "panda"])
def test_r_hv_6_exact_odds_equal_the_brute_force(faces, pet):
    for value in range(1, 9):
        bonus = 1 if pet == "wolf" else 0
        panda = 1 if pet == "panda" else 0
        exact = fight_odds(faces, value, 3, bonus, panda, pet)
        won, rolls, net = brute_force(faces, value, 3, bonus, panda)
        assert exact.p_defeated == won
        assert exact.expected_rolls == rolls
        assert exact.net_toward == net
        assert sum(exact.rolls_distribution.values()) == 1


def test_r_hv_9_wolf_and_panda_odds_follow_their_abilities():
    comps = load_components()
    plain, wolf, panda = (odds_for(comps, 6, pet) for pet in (None, "wolf", "panda"))
    assert wolf.p_defeated > plain.p_defeated  # +1 on the rolls
    assert panda.p_defeated == plain.p_defeated  # the Panda only softens the Illager faces
    assert panda.expected_toward < plain.expected_toward
    # with the default faces: 1 - (4/6)^3 against a 6
    assert plain.p_defeated == 1 - Fraction(4, 6) ** 3


def test_r_hv_11_odds_follow_the_faces_in_the_components(tmp_path):
    override = tmp_path / "dice.toml"
    override.write_text(
        '[dice.fight]\nfaces = [4, 5, 6, "blank", "arrow", "illager"]\n'
        'provenance = "estimate"\nreason = "a blank sixth face"\n'
    )
    comps = load_components([override])
    assert odds_for(comps, 6).p_defeated == 1 - Fraction(5, 6) ** 3


def test_bnb_odds_game_hotv_prints_the_exact_odds():
    from bnb_sim.cli import cli

    out = CliRunner().invoke(
        cli, ["odds", "--game", "hotv", "--mob", "6", "--pet", "wolf", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["p_defeated_exact"] == "7/8" and data["mobs"] == ["creeper", "enderman"]
    assert abs(sum(data["net_toward_village"].values()) - 1) < 1e-12
    text = CliRunner().invoke(
        cli, ["odds", "--game", "heroes-of-the-village", "--mob", "silverfish"]
    )
    assert text.exit_code == 0 and "P(defeated)" in text.output and "96.30%" in text.output
    bad = CliRunner().invoke(cli, ["odds", "--game", "hotv", "--mob", "dragon"])
    assert bad.exit_code != 0


@pytest.mark.slow
def test_r_hv_6_fights_inside_simulated_games_agree_with_the_exact_odds():
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    comps = load_components()
    config = make_config(comps, 4, ["team"], "wolf,cat,panda,horse", seed=11)
    seats, _ = play_block(config, 0, 20_000)
    outside = 0
    checked = 0
    for wolf in (True, False):
        part = seats[(seats["pet"] == "wolf") == wolf]
        for v in comps.mob_values:
            n = int(part[f"fights_v{v}"].sum())
            k = int(part[f"wins_v{v}"].sum())
            assert n > 2000
            exact = float(odds_for(comps, v, "wolf" if wolf else None).p_defeated)
            lo, hi = Rate.of(k, n, 0.999).lo, Rate.of(k, n, 0.999).hi
            checked += 1
            outside += not lo <= exact <= hi
    assert checked == 6 and outside == 0
