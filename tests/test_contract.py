"""The contract every registered game keeps (issue 24 item 5), in the spirit of OpenSpiel's
``api_test``: parametrised over the registry (Builders & Biomes, Heroes of the Village and
the test suite's dice race), keyed on what the protocol offers, never on a game's name."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from bnb_sim.core import registry
from bnb_sim.core.game_api import STEP_METHODS, STEP_PROPERTIES, StepGame
from bnb_sim.core.protocol import GAME_BASE, OUTCOMES, SEAT_BASE, has_step_api
from bnb_sim.runner.storage import part_name

GAMES = registry.names()
COMMANDS = ("simulate", "compare", "tournament", "sweep", "tune")


@pytest.fixture(params=GAMES)
def game(request):
    return registry.get_game(request.param)


def small_config(game, seed=11):
    comps = game.load_components([])
    return game.make_config(comps, players=2 if game.outcome == "competitive" else None,
                            policies=[game.default_policy], seed=seed, options={})  # fmt: skip


def plain(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with text columns as plain strings (blocks may encode categories differently)."""
    out = df.reset_index(drop=True).copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype) or out[col].dtype == object:
            out[col] = out[col].astype(str).astype(object)
        elif pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].astype(str).astype(object)
    return out


def test_the_registry_holds_the_three_games():
    assert {"builders_biomes", "heroes_village", "dice_race"} <= set(GAMES)
    assert registry.get_game("hotv").name == "heroes_village"


def test_a_game_declares_its_kind_and_base_columns(game):
    assert game.outcome in OUTCOMES
    seat_cols, game_cols = game.columns()
    assert set(SEAT_BASE) <= set(seat_cols), f"{game.name}: seat rows lack base columns"
    assert set(GAME_BASE) <= set(game_cols)


def test_a_seeded_block_is_reproducible_and_independent_of_the_split(game):
    config = small_config(game)
    seats, games = game.play_block(config, 0, 10)
    again_seats, again_games = game.play_block(config, 0, 10)
    pd.testing.assert_frame_equal(seats, again_seats)
    pd.testing.assert_frame_equal(games, again_games)
    parts = [game.play_block(config, 0, 5), game.play_block(config, 5, 5)]
    split_seats = pd.concat([p[0] for p in parts], ignore_index=True)
    split_games = pd.concat([p[1] for p in parts], ignore_index=True)
    pd.testing.assert_frame_equal(plain(seats), plain(split_seats))
    pd.testing.assert_frame_equal(plain(games), plain(split_games))
    assert sorted(games["game"].unique()) == list(range(10))


def test_another_seed_gives_other_games(game):
    a = game.play_block(small_config(game, seed=1), 0, 20)[0]
    b = game.play_block(small_config(game, seed=2), 0, 20)[0]
    assert not a.reset_index(drop=True).equals(b.reset_index(drop=True))


def test_the_declared_columns_appear_in_the_run_files(game, tmp_path):
    from bnb_sim.cli import main

    out = tmp_path / "run"
    try:
        main(["simulate", "--game", game.name, "--games", "6", "--policy",
              game.default_policy, "--seed", "4", "--out", str(out), "--quiet"])  # fmt: skip
    except SystemExit as exc:
        assert not exc.code
    seat_cols, game_cols = game.columns()
    assert set(seat_cols) <= set(pq.read_schema(out / "seats" / part_name(0)).names)
    assert set(game_cols) <= set(pq.read_schema(out / "games" / part_name(0)).names)
    from bnb_sim.games import game_of_run

    assert game_of_run(json.loads((out / "run.json").read_text())).name == game.name


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_accepts_the_game(game, command):
    from bnb_sim.cli import cli

    cmd = cli.commands[command] if command in cli.commands else None
    if cmd is None:
        cmd = cli.get_command(None, command)
    sub = getattr(cmd, "commands", None)
    commands = list(sub.values()) if sub else [cmd]
    with_game = [c for c in commands if any(p.name == "game" for p in c.params)]
    if not with_game:
        pytest.skip(f"bnb {command} has no --game option yet")
    import click

    for c in with_game:
        param = next(p for p in c.params if p.name == "game")
        ctx = click.Context(c)
        spec = param.type_cast_value(ctx, game.name)
        resolved = param.callback(ctx, param, spec) if param.callback else spec
        assert resolved.name == game.name


def test_random_games_through_the_step_api(game):
    if not has_step_api(game):
        pytest.skip(f"{game.name} offers no step-by-step Game (protocol: new_game) yet")
    config = small_config(game)
    rng = np.random.default_rng(5)
    for index in range(3):
        state = game.new_game(config, index)
        _has_the_step_names(game, state)
        seats = {int(r["seat"]) for r in game.new_game(config, index).play().result()}
        for _ in range(20_000):
            if state.is_over():
                break
            assert state.current_seat in seats, f"{game.name}: seat {state.current_seat} moves"
            legal = state.legal_actions()
            assert legal, f"{game.name}: a game not over must have a legal action"
            state.apply_action(int(rng.choice(legal)))
        assert state.is_over() and state.legal_actions() == []
        rows = state.result()
        assert sum(bool(r["won"]) for r in rows) >= (1 if game.outcome == "competitive" else 0)
        assert all(isinstance(line, str) for line in state.events())


def _has_the_step_names(game, state) -> None:
    """One name for one thing: the step game has StepGame's members, its properties as
    properties (``current_seat``, not a method of another name)."""
    import inspect

    assert isinstance(state, StepGame), f"{game.name}: {type(state).__name__}"
    for name in STEP_PROPERTIES:
        assert isinstance(inspect.getattr_static(type(state), name), property), (game.name, name)
    for name in STEP_METHODS:
        assert callable(getattr(state, name)), (game.name, name)


def test_game_0_of_a_batch_equals_game_0_of_the_step_api(game):
    if not has_step_api(game):
        pytest.skip(f"{game.name} offers no step-by-step Game (protocol: new_game) yet")
    config = small_config(game)
    seats, _ = game.play_block(config, 0, 2)
    for index in (0, 1):
        played = game.new_game(config, index).play().result()
        stepped = {int(r["seat"]): bool(r["won"]) for r in played}
        batch = seats[seats["game"] == index]
        assert stepped == {
            int(s): bool(w) for s, w in zip(batch["seat"], batch["won"], strict=True)
        }


def test_the_optional_hooks_a_game_declares_answer_in_their_shape(game):
    """Every hook of ``bnb_sim.core.protocol.HOOKS`` that a game declares is callable and
    answers as the protocol documents (the cheap ones are called here; ``odds`` and
    ``play_transcript`` take the command's options, so their signature is checked)."""
    import inspect

    from bnb_sim.core.protocol import HOOKS, hook
    from bnb_sim.errors import BnbError

    declared = {name: hook(game, name) for name in HOOKS if hook(game, name) is not None}
    if not declared:
        pytest.skip(f"{game.name} declares no optional hook")
    if "readings" in declared:
        readings = list(game.readings())
        assert readings, f"{game.name}: readings() lists none"
        for r in readings:
            assert r.default in r.values and r.rule and r.summary and r.why_default
            json.dumps(r.to_dict())
            assert [x.name for x in game.readings(r.name)] == [r.name]
        with pytest.raises(BnbError, match="unknown reading"):
            game.readings("no_such_reading")
    if "parse_readings" in declared:
        assert game.parse_readings((), {}) == {}
    for names in ("policy_names", "policy_plugins"):
        if names in declared:
            assert all(isinstance(n, str) and n for n in declared[names]())
    if "policy_names" in declared:
        assert game.default_policy in game.policy_names()
    if "policy_labels" in declared:
        policy = game.default_policy
        assert len(game.policy_labels([policy])) == 1
        with pytest.raises(BnbError):
            game.policy_labels(["no_such_policy"])
        with pytest.raises(BnbError, match="twice|same policy"):
            game.policy_labels([policy, policy], distinct="tournament")
    if "ladder_rungs" in declared:  # at least two rungs, each a policy the game knows
        rungs = list(game.ladder_rungs())
        assert len(rungs) >= 2 and len(set(rungs)) == len(rungs)
        if "policy_labels" in declared:
            assert len(game.policy_labels(rungs, distinct="ladder")) == len(rungs)
    if "component_tables" in declared:
        lines = list(game.component_tables(game.load_components([])))
        assert lines and all(isinstance(line, str) for line in lines)
    if "compile_jobs" in declared:
        jobs = list(game.compile_jobs())
        names = [job.name for job in jobs]
        assert jobs and len(set(names)) == len(names) and all(job.label for job in jobs)
    if "bench_steps" in declared:  # the measures run in bnb bench (seconds each), not here
        steps = list(game.bench_steps(quick=True, repeats=1))
        keys = [key for key, _, _ in steps]
        assert steps and len(set(keys)) == len(keys)
        assert all(isinstance(label, str) and callable(measure) for _, label, measure in steps)
    if "bench_plan" in declared:  # every setting it lists makes a config (bnb bench)
        from bnb_sim.core.protocol import BenchPlan

        comps = game.load_components([])
        plan = game.bench_plan(comps)
        assert isinstance(plan, BenchPlan) and plan.policies and plan.players
        for policy in plan.policies:
            for players in plan.players:
                game.make_config(comps, players=players, policies=[policy], seed=1, options={})
    if "play_arrays" in declared:
        inspect.signature(declared["play_arrays"]).bind(None, 0, 1, 1)
    for name in ("odds", "play_transcript", "train"):
        if name in declared:
            inspect.signature(declared[name]).bind(game.load_components([]), {})
    if "show_model" in declared:
        inspect.signature(declared["show_model"]).bind("model.toml")
    assert ("policy_params" in declared) == ("policy_spec" in declared), "tuning needs both"
    names = list(game.policy_names()) if "policy_names" in declared else [game.default_policy]
    tunable = 0
    for spec in names if "policy_params" in declared else []:
        try:  # a spec with tunable parameters is written back as a spec that reads the same
            family, params = game.policy_params(spec)
        except BnbError:
            continue
        values = {p.name: p.lo if p.lo > float("-inf") else p.value for p in params}
        written = game.policy_spec(family, values)
        assert {p.name: p.value for p in game.policy_params(written)[1]} == values
        game.make_config(game.load_components([]), players=None, policies=[written], seed=0,
                         options={})  # fmt: skip
        tunable += 1
    assert tunable or "policy_params" not in declared, "no policy name has tunable parameters"


def test_a_hook_that_is_not_callable_is_refused_on_registration():
    from bnb_sim.core.protocol import check_game

    class Broken:
        name, title, aliases, outcome = "broken", "Broken", (), "competitive"
        options, default_policy, readings = (), "x", ("not", "callable")

        def load_components(self, paths): ...
        def make_config(self, components, **kw): ...
        def play_block(self, config, start, n, threads=None): ...
        def columns(self, config=None): ...
        def report_sections(self, seats, games, meta): ...

    with pytest.raises(ValueError, match="not callable: readings"):
        check_game(Broken())


@pytest.mark.parametrize("name", sorted(registry.BUILTIN))
def test_a_built_in_game_passes_the_check_and_its_run_hooks_answer(name):
    """Issue 24, one game interface: a built-in game is one protocol object; ``check_game``
    accepts it, and every run hook it offers (``bnb_sim.core.protocol.ENTRIES``) is a method
    (callable) or, for the attributes, a module or object that imports; shared code reaches
    each through ``GameSpec.entry`` under the entry's own name."""
    from bnb_sim.core.protocol import ENTRIES, ENTRY_ATTRIBUTES, check_game, entry_hook
    from bnb_sim.games import GAMES

    game = registry.get_game(name)
    check_game(game)
    offered = {what for what in ENTRIES if entry_hook(game, what) is not None}
    assert {"load_components", "columns", "play_block", "new_game"} <= offered, name
    for what in offered:
        found = entry_hook(game, what)
        assert what in ENTRY_ATTRIBUTES or callable(found), f"{name}.{ENTRIES[what]}"
        assert GAMES[name].entry(what) == found
    assert GAMES[name].game is game and GAMES[name].protocol is None  # not protocol-only
    assert (GAMES[name].title, GAMES[name].outcome) == (game.title, game.outcome)
