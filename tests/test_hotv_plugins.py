"""Heroes of the Village plugins: a ``Plugin(..., game="heroes_village")`` under the shared
``bnb_sim.policies`` entry-point group plays through the batch kernel; errors name it."""

from __future__ import annotations

import pathlib
import textwrap
import types
from importlib import metadata

import numpy as np
import pandas as pd
import pytest

from bnb_sim import entry_points as entry_point_module
from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies import registry
from bnb_sim.games.heroes_village import layout as L
from bnb_sim.games.heroes_village.components import load_components
from bnb_sim.games.heroes_village.policies import PLUGIN, parse_policy
from bnb_sim.games.heroes_village.runner import make_config, play_arrays, play_block

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "bnb_plugin_example"
COMPS = load_components()

BAD = textwrap.dedent(
    """
    from bnb_sim.plugins import Plugin


    def _illegal(obs, legal, static, rng, params, mem):
        return 999


    def _raises(obs, legal, static, rng, params, mem):
        if obs[0] >= 0:
            raise ValueError("the pouch is empty")
        return 0


    def _peek(obs, legal, static, rng, params, mem):
        # what it sees of the face-down stacks and the mob pile, kept in its memory
        hidden = 0
        for i in range(obs.shape[0]):
            if obs[i] == -1:
                hidden += 1
        mem[0] = hidden
        for a in range(legal.shape[0]):
            if legal[a]:
                return a
        return -1


    ILLEGAL = Plugin(_illegal, game="hotv")
    RAISES = Plugin(_raises, game="heroes-of-the-village")
    PEEK = Plugin(_peek, game="heroes_village")
    """
)


@pytest.fixture
def entry_points(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    (tmp_path / "bnb_test_hotv_plugins.py").write_text(BAD)
    monkeypatch.syspath_prepend(str(tmp_path))
    mapping = {
        "village": "bnb_plugin_example.village:VILLAGE",
        "cautious": "bnb_plugin_example.cautious:CAUTIOUS",
        "illegal": "bnb_test_hotv_plugins:ILLEGAL",
        "raises": "bnb_test_hotv_plugins:RAISES",
        "peek": "bnb_test_hotv_plugins:PEEK",
    }
    eps = [
        metadata.EntryPoint(name=n, value=v, group=entry_point_module.ENTRY_POINT_GROUP)
        for n, v in mapping.items()
    ]

    def fake(group=None, **_):
        return [ep for ep in eps if group in (None, ep.group)]

    monkeypatch.setattr(entry_point_module, "metadata", types.SimpleNamespace(entry_points=fake))


def config(policies, **kw):
    return make_config(COMPS, 3, policies, kw.pop("pets", "wolf,cat,fox"), seed=7, **kw)


def test_the_example_plugin_plays_beside_the_team_bot(entry_points):
    spec = parse_policy("village:fight=0.5")
    assert spec.kind == PLUGIN and spec.plugin == "village" and spec.weights() == {"fight": 0.5}
    cfg = config(["village", "team"])
    seats, games = play_block(cfg, 0, 300)
    assert set(seats["policy"]) == {"village", "team"}
    assert seats.loc[seats["policy"] == "village", "builds"].sum() > 0
    one = play_arrays(cfg, cfg.teams[0], 0, 200, threads=1)
    two = play_arrays(config(["village", "team"]), cfg.teams[0], 0, 200, threads=2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    # the plugin's parameter changes its play; the team bot's seats keep their streams
    other = play_block(config(["village:fight=0", "team"]), 0, 300)[0]
    assert other.loc[other["policy"] == "village:fight=0", "fights"].sum() == 0
    assert games["won"].mean() > 0.05


def test_a_plugin_sees_no_face_down_tile_or_mob(entry_points):
    from bnb_sim.games.heroes_village.bots import observe
    from tests.hotv_helpers import Game

    g = Game()
    obs = np.zeros(L.S_SIZE, np.int64)
    observe(g.s, g.k, obs)
    for st in range(L.MAX_STACKS):
        top = int(g.s[L.S_STACK_H + st]) - 1
        row = obs[L.S_STACK + st * L.MAX_TILES : L.S_STACK + (st + 1) * L.MAX_TILES]
        assert all(row[j] == -1 for j in range(L.MAX_TILES) if j != top)
        if top >= 0:
            assert row[top] == g.s[L.S_STACK + st * L.MAX_TILES + top]
    assert (obs[L.S_MOB_PILE : L.S_MOB_PILE + L.MAX_TOKENS] == -1).all()
    seen = obs != g.s
    assert not seen[: L.S_STACK].any() and not seen[L.S_TILE_LAID : L.S_MOB_PILE].any()
    play_block(config(["peek"]), 0, 5)  # and a plugin plays with that observation


def test_plugin_errors_name_the_plugin_and_the_game(entry_points):
    with pytest.raises(PolicyError, match="raises' .* in game 0 raised ValueError: the pouch"):
        play_block(config(["team", "raises"]), 0, 20)
    with pytest.raises(PolicyError, match="'illegal' .* in game 0 made an illegal decision 999"):
        play_block(config(["illegal"]), 0, 20)
    with pytest.raises(PolicyError, match="plays Minecraft: Builders & Biomes"):
        parse_policy("cautious")
    with pytest.raises(PolicyError, match="plays Minecraft: Heroes of the Village"):
        registry.parse_policy("village")
    with pytest.raises(PolicyError, match="unknown weight 'speed'"):
        parse_policy("village:speed=2")
    with pytest.raises(PolicyError, match="unknown policy 'nobody'"):
        parse_policy("nobody")


def test_simulate_game_hotv_with_a_plugin(entry_points, tmp_path, capsys):
    from bnb_sim.runner.storage import load_run
    from tests.test_hotv_sim import run_cli

    run = tmp_path / "run"
    code, out, err = run_cli(capsys, ["simulate", "--game", "hotv", "-n", "200", "--players", "2",
                                      "--policy", "village", "--policy", "team", "-o", run,
                                      "--quiet"])  # fmt: skip
    assert code == 0, err
    seats, games, meta = load_run(run)
    assert meta["params"]["policy_specs"][0]["plugin"] == "village"
    assert list(pd.unique(seats["policy"])) == ["village", "team"]
