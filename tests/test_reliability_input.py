"""Hostile values, round 3 of the reliability review (../reviews: reliability-2): numbers that
are not numbers, edited run descriptions, plugins that misbehave while they are imported,
experiment folders, odd API arguments. The group id (T1, W4, ...) starts each test's name.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
import types
from importlib import metadata
from pathlib import Path

import pytest
from fake_runs import FakeSpec, write_fake_run
from test_cli_simulate import run_cli

import bnb_sim
from bnb_sim import entry_points as entry_point_module
from bnb_sim.analysis.experiment import load_experiment
from bnb_sim.errors import BnbError, PolicyError, RunError, SpecError
from bnb_sim.runner.storage import read_meta

SPEC = FakeSpec(n_games=300, chunk_size=100, policies=("greedy", "random"), seat_weight=(0.5, 0.5))


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("BNB_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("reliability-input") / "run"
    write_fake_run(path, SPEC)
    return path


def _one_line(code: int, err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("bnb: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _edited(run: Path, tmp_path: Path, edit) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(run, copy)
    meta = json.loads((copy / "run.json").read_text())
    edit(meta)
    (copy / "run.json").write_text(json.dumps(meta))
    return copy


# ---- T1: '²'.isdigit() is true, int('²') fails --------------------------------------------


def _hotv():
    from bnb_sim.games.heroes_village.components import load_components

    return load_components()


def _bnb():
    from bnb_sim.games.builders_biomes.components import load_components

    return load_components()


def _t1_buildings(text):
    from bnb_sim.games.heroes_village.components import parse_buildings

    return parse_buildings(text, _hotv())


def _t1_mob(text):
    from bnb_sim.games.heroes_village.command_text import _mob_value

    return _mob_value(_hotv(), text)


def _t1_set_path(path):
    from bnb_sim.games.heroes_village.variants import _set_path

    return _set_path(_hotv().data, path, 5)


def _t1_sweep_lookup(path):
    from bnb_sim.analysis.sweep import _lookup

    assert _lookup(_bnb().data, path) is None  # no such value: not a crash
    raise SpecError("no such value")


def _t1_target(text):
    from bnb_sim.tune.targets import parse_target

    return parse_target(text, ["random", "greedy"])


def _t1_with_values(path):
    return _bnb().with_values({path: 3})


T1_CASES = {
    "hotv-buildings": (_t1_buildings, "1,5,²"),
    "hotv-buildings-level": (_t1_buildings, "level:1,2,³"),
    "hotv-odds-mob": (_t1_mob, "²"),
    "hotv-sweep-path": (_t1_set_path, "mobs.².value"),
    "sweep-path": (_t1_sweep_lookup, "mobs.zombie.tiles.².xp"),
    "tune-target-winrate": (_t1_target, "win_rate:²=0.5"),
    "tune-param-path": (_t1_with_values, "mobs.zombie.tiles.².xp"),
}


@pytest.mark.parametrize("case", sorted(T1_CASES))
def test_t1_superscript_digits_are_not_numbers_anywhere(case):
    call, text = T1_CASES[case]
    with pytest.raises(BnbError) as info:  # before: ValueError from int('²')
        call(text)
    assert "\n" not in str(info.value)


def test_t1_superscript_in_an_experiment_set(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(
        '[[simulation]]\ngames = 10\npolicies = ["random"]\n'
        'set = { "mobs.zombie.tiles.².xp" = 3 }\n'
    )
    with pytest.raises(BnbError, match="no such key"):
        load_experiment(path)


def test_t1_superscript_part_files_key_of_run_json(fake_run, tmp_path, capsys):
    def edit(meta):
        meta["part_files"]["²"] = meta["part_files"].pop("0")

    run = _edited(fake_run, tmp_path, edit)
    code, _, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    _one_line(code, err, "part_files.²", "is not a part of this run")


def test_t1_digits_accepts_plain_numbers_only():
    from bnb_sim.safe_io import digits

    assert digits("0") == 0 and digits("42") == 42 and digits("9" * 18) == 10**18 - 1
    for text in ("²", "٣", "1²", "", " 1", "-1", "+1", "1.0", "9" * 19, None, 5):
        assert digits(text) is None, text


# ---- W4, T6: what a run.json describes is covered by its description hash ------------------


def _clear_estimates(meta):
    meta["components"].update(estimated_values=0, estimated_keys=[])


RUN_EDITS = {
    "estimates-cleared": (_clear_estimates, "description hash"),
    "bb-game-key-hotv": (lambda m: m.update(game="heroes_village"), "description hash"),
    "game-int": (lambda m: m.update(game=5), "'game' must be a string"),
    "game-unknown": (lambda m: m.update(game="chess"), "'game' names no game"),
}


@pytest.mark.parametrize("case", sorted(RUN_EDITS))
def test_w4_t6_an_edited_run_description_is_refused(fake_run, tmp_path, capsys, case):
    edit, needle = RUN_EDITS[case]
    run = _edited(fake_run, tmp_path, edit)
    with pytest.raises(RunError, match=needle):
        read_meta(run)
    code, _, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    _one_line(code, err, needle)


def test_t6_a_hotv_run_without_its_game_key_is_refused(tmp_path, capsys):
    run = tmp_path / "hv"
    args = ["simulate", "--game", "hotv", "-n", "20", "--players", "2", "-q", "-o", run]
    code, _, err = run_cli(capsys, args)
    assert code == 0, err
    meta = json.loads((run / "run.json").read_text())
    del meta["game"]
    (run / "run.json").write_text(json.dumps(meta))
    code, _, err = run_cli(capsys, ["report", run, "-o", tmp_path / "rep"])
    _one_line(code, err, "description hash")


def test_w4_runs_without_a_description_hash_are_read_as_before(fake_run, tmp_path):
    run = _edited(fake_run, tmp_path, lambda meta: meta.pop("description_hash", None))
    assert read_meta(run)["components"]["estimated_values"] == SPEC.estimated_values


# ---- T8: Heroes of the Village seeds and game indices -------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["play", "--game", "hotv", "--game-index", "99999999999999999999"],
         "--game-index must be between 0 and"),
        (["play", "--game", "hotv", "--game-index", "-1"], "--game-index"),
        (["simulate", "--game", "hotv", "-n", "10", "--players", "2", "--seed",
          "99999999999999999999", "-o", "x"], "seed must be between 0 and"),
        (["simulate", "--game", "hotv", "-n", "10", "--players", "2", "--seed", "-1", "-o",
          "x"], "seed must be between 0 and"),
    ],
)  # fmt: skip
def test_t8_hotv_seed_and_game_index_out_of_range(tmp_path, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, args)
    _one_line(code, err, needle)
    assert not (tmp_path / "x").exists()


# ---- T10: BNB_PROGRESS_INTERVAL ---------------------------------------------------------


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf"])
def test_t10_a_bad_progress_interval_is_one_line(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv("BNB_PROGRESS_INTERVAL", value)
    args = ["simulate", "-n", "30", "-p", "2", "--policy", "random", "-o", tmp_path / "x"]
    code, _, err = run_cli(capsys, args)
    _one_line(code, err, "BNB_PROGRESS_INTERVAL")
    assert not (tmp_path / "x").exists()


def test_t10_a_good_progress_interval_is_used(monkeypatch):
    from bnb_sim.feedback import PlainMeter

    monkeypatch.setenv("BNB_PROGRESS_INTERVAL", "2.5")
    assert PlainMeter().interval == 2.5


# ---- T11, W5, U9: plugins that misbehave --------------------------------------------------

PLUGINS = textwrap.dedent(
    '''
    """Plugins for the reliability tests."""
    from bnb_sim.plugins import Plugin


    def _first(obs, legal, static, rng, params, mem):
        for a in range(65):
            if legal[a]:
                return a
        return 64


    BAD_PARAMS = Plugin(_first, params={"risk": "high"})
    NAN_PARAMS = Plugin(_first, params={"risk": float("nan")})
    '''
)
MODULES = {
    "bnb_rel_plugins": PLUGINS,
    "bnb_rel_sysexit": "import sys\nsys.exit(0)\n",
    "bnb_rel_kbint": "raise KeyboardInterrupt\n",
}


@pytest.fixture
def plugins(monkeypatch, tmp_path):
    """Register ``name -> module:attr`` entry points (modules of MODULES on sys.path)."""
    for name, text in MODULES.items():
        (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))

    def register(mapping):
        group = entry_point_module.ENTRY_POINT_GROUP
        eps = [metadata.EntryPoint(name=n, value=v, group=group) for n, v in mapping.items()]
        fake = types.SimpleNamespace(
            entry_points=lambda group=None, **_: [e for e in eps if group in (None, e.group)]
        )
        monkeypatch.setattr(entry_point_module, "metadata", fake)
        for module in MODULES:
            sys.modules.pop(module, None)

    return register


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("bnb_rel_plugins:BAD_PARAMS", "default of parameter 'risk' must be a finite number"),
        ("bnb_rel_plugins:NAN_PARAMS", "default of parameter 'risk' must be a finite number"),
        ("bnb_rel_sysexit:PLUGIN", "called sys.exit(0) while it was imported"),
        ("bnb_rel_kbint:PLUGIN", "raised KeyboardInterrupt while it was imported"),
    ],
)
def test_t11_w5_u9_a_plugin_that_misbehaves_on_import_is_one_policy_error(plugins, target, needle):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    plugins({"p_bad": target})
    with pytest.raises(PolicyError) as info:
        parse_policy("p_bad")
    assert needle in str(info.value) and "policy plugin 'p_bad'" in str(info.value)


def test_w5_u9_the_cli_does_not_exit_0_or_130_on_such_a_plugin(plugins, tmp_path, capsys):
    for target in ("bnb_rel_sysexit:PLUGIN", "bnb_rel_kbint:PLUGIN"):
        plugins({"p_bad": target})
        args = ["simulate", "-n", "20", "-p", "2", "--policy", "p_bad", "--policy", "random"]
        code, _, err = run_cli(capsys, [*args, "-o", tmp_path / "r"])
        _one_line(code, err, "p_bad", "while it was imported")
        assert not (tmp_path / "r").exists()


# ---- W6: a search parameter given twice ---------------------------------------------------


@pytest.mark.parametrize("spec", ["mc:rollouts=2,rollouts=3", "ismcts:c=1,iterations=5,c=2"])
def test_w6_a_search_parameter_given_twice_is_refused(spec):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    with pytest.raises(PolicyError, match="given twice"):
        parse_policy(spec)


# ---- W3, W8, U2: experiment folders ---------------------------------------------------------

TUNE_ITEM = """
[[tune]]
name = "{name}"
budget = 400
against = ["greedy"]
params = ["board=0..3"]
dir = "{folder}"
"""


def test_w8_a_tune_dir_is_resolved_against_the_experiment_file(tmp_path, monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    path = sub / "exp.toml"
    path.write_text(TUNE_ITEM.format(name="t", folder="tn"))
    monkeypatch.chdir(tmp_path)
    (item,) = load_experiment(Path("sub/exp.toml")).items
    assert Path(item.dir).absolute() == sub / "tn"  # before: ./tn


@pytest.mark.parametrize("what", ["run", "files"])
def test_w3_a_tune_dir_that_is_a_run_or_holds_files_is_refused_before_playing(
    tmp_path, fake_run, what
):
    if what == "run":
        shutil.copytree(fake_run, tmp_path / "p")
    else:
        (tmp_path / "p").mkdir()
        (tmp_path / "p" / "notes.md").write_text("mine")
    path = tmp_path / "exp.toml"
    path.write_text(TUNE_ITEM.format(name="t", folder="p"))
    needle = "simulate run folder" if what == "run" else "not a tuning run"
    with pytest.raises(BnbError, match=needle):
        load_experiment(path)


SIMULATION_ITEM = """
[[simulation]]
name = "{name}"
games = 20
policies = ["{policy}"]
run_dir = "r"
"""


@pytest.mark.parametrize("kind", ["simulation", "tune"])
def test_u2_two_items_sharing_a_folder_are_refused_before_anything_plays(tmp_path, kind):
    if kind == "simulation":
        text = SIMULATION_ITEM.format(name="a", policy="random")
        text += SIMULATION_ITEM.format(name="b", policy="greedy")
    else:
        text = TUNE_ITEM.format(name="a", folder="tn") + TUNE_ITEM.format(name="b", folder="tn")
    path = tmp_path / "exp.toml"
    path.write_text(text)
    with pytest.raises(BnbError, match="is also the folder of 'a'"):
        load_experiment(path)


# ---- T13, the old progress case: the Python API -------------------------------------------


@pytest.mark.parametrize("action", [99, 65, -1, -(10**20), 10**30])
def test_t13_action_to_string_of_an_action_out_of_range(action):
    game = bnb_sim.new_game(seed=1, players=2)
    with pytest.raises(BnbError, match="action must be between 0 and 64"):
        game.action_to_string(action)


def test_t13_action_to_string_of_every_action_id_in_every_phase_seen():
    game = bnb_sim.new_game(seed=3, players=2)
    while not game.is_over():
        for action in range(65):
            assert isinstance(game.action_to_string(action), str)
        game.apply_action(game.policy_action())


def test_old_progress_must_be_a_bool_or_a_callable(tmp_path):
    with pytest.raises(TypeError, match="progress"):
        bnb_sim.simulate(10, 2, ["random"], progress="yes", out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


# ---- H2: --svg into a FIFO ------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_h2_a_picture_into_a_fifo_is_refused_before_the_game(tmp_path, capsys):
    fifo = tmp_path / "f.svg"
    os.mkfifo(fifo)
    args = ["play", "--seed", "1", "--players", "2", "--policy", "random", "--svg", fifo]
    code, out, err = run_cli(capsys, args)  # before: blocked in open() for ever
    _one_line(code, err, "f.svg", "not a regular file")
    assert out == ""


def test_h2_the_picture_replaces_a_link_instead_of_writing_through_it(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    os.symlink(victim, tmp_path / "t.svg")
    args = ["play", "--seed", "1", "--players", "2", "--policy", "random", "-q"]
    code, _, err = run_cli(capsys, [*args, "--svg", tmp_path / "t.svg"])
    assert code == 0, err
    assert victim.read_text() == "mine"
    assert (tmp_path / "t.svg").read_text().startswith("<?xml")
