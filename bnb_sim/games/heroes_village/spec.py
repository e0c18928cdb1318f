"""Heroes of the Village through the game protocol (:mod:`bnb_sim.core.protocol`).

Cheap to import (no numba, no pandas). ``bnb compare``, ``tournament`` and
``report`` (its :meth:`report_sections`) serve the game through this object
(its ``protocol_commands``), ``bnb sweep`` (one command for every game) by its outcome kind
and :meth:`sweep_variants`, and ``bnb play``, ``odds``, ``components
show``, ``train``, ``train show``, ``bench`` and ``warmup`` (and the warm-up before a run)
through its optional hooks (:data:`bnb_sim.core.protocol.HOOKS`; their texts are
:mod:`bnb_sim.games.heroes_village.command_text`); the other commands reach its code through
its run hooks (:data:`bnb_sim.core.protocol.ENTRIES`: Dask, the step API, ``bnb value``,
``ladder``, ``luck``, ``robustness``, ``sensitivity``, ``tune``). What the game adds to
the shared texts and sweeps is here: :meth:`describe` (pets and difficulty),
:meth:`sweep_variants` (its dotted paths, mobs by name, the component file first) and
:meth:`with_readings`. The step-by-step ``Game`` is offered once the game has one
(``HotvGame(config, game_index)`` in ``bnb_sim.games.heroes_village.game``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim.core.protocol import COMMANDS, OptionSpec
from bnb_sim.errors import SpecError
from bnb_sim.games.adapter import WrappedConfig, column_types, players_for

_STEP_MODULE = "bnb_sim.games.heroes_village.game"
# its options of a setting: every run, bnb play and the studies it serves with its own entries
_PLAY_AND_RUNS = (*COMMANDS, "play", "ladder", "luck", "robustness", "sensitivity")
_SETTING = (*_PLAY_AND_RUNS, "value", "train")  # bnb value and bnb train play every pet team


class HeroesVillage:
    name = "heroes_village"
    title = "Minecraft: Heroes of the Village"
    aliases = ("heroes-of-the-village", "hotv")
    outcome = "cooperative"
    options = (
        OptionSpec(
            "pets",
            "Heroes of the Village: pets in seat order (wolf,cat,fox), or 'all' for every "
            "combination of distinct pets on the same seeds.",
            commands=_PLAY_AND_RUNS,
            metavar="LIST",
        ),
        OptionSpec(
            "difficulty",
            "Heroes of the Village: the box's two Illager starts: space 9 (standard, the "
            "default) or 11 (easy); normal is an old name of standard. The box's other lever "
            "is --buildings (level:3,3,3 is its hardest set).",
            kind="choice",
            choices=("standard", "easy", "normal"),
            commands=_SETTING,
        ),
        OptionSpec(
            "buildings",
            "Heroes of the Village: the three buildings, by number (1,5,9) or one drawn per "
            "game from each level (level:1,2,3, the default).",
            commands=_SETTING,
            metavar="CHOICE",
        ),
        OptionSpec(
            "teams",
            "Heroes of the Village: pet teams drawn per generation (default 4).",
            kind="int",
            commands=("train",),
            low=1,
            high=20,
        ),
        OptionSpec(
            "pet",
            "Heroes of the Village: the fighter's pet (wolf: +1, panda: ignores an Illager face).",
            kind="choice",
            choices=("wolf", "cat", "fox", "panda", "horse", "llama"),  # layout.PET_NAMES
            commands=("odds",),
        ),
        OptionSpec(
            "check",
            "Check the rule invariants after every decision (slow).",
            kind="flag",
            commands=("simulate",),
        ),
    )
    default_policy = "team"
    #: the shared commands' options that only this game takes (refused with another game)
    command_options = ("pets", "difficulty", "buildings", "pet", "dask", "reading", "teams")
    #: the commands it leaves to the shared protocol handlers (bnb_sim.cli.protocol_cmds)
    protocol_commands = ("compare", "tournament", "report")

    def load_components(self, paths: Sequence[str] | None = None) -> Any:
        """Its validated components: ``paths`` merged over the defaults in order."""
        from bnb_sim.games.heroes_village.components import load_components

        return load_components(paths)

    def make_config(self, components, *, players, policies, seed, options: Mapping[str, Any]):
        from bnb_sim.games.heroes_village.runner import make_config, run_params

        policies = list(policies) or [self.default_policy]
        pets = options.get("pets")
        if pets == "all":  # the studies compare policies on one team (simulate ranks teams)
            raise SpecError("give one pet team (bnb simulate --pets all ranks the pet teams)")
        if players is None and not (pets and pets not in ("all", "none")):
            players = players_for(None, policies, 3)
        config = make_config(
            components, players, policies, pets, options.get("difficulty") or "standard",
            options.get("buildings"), seed, bool(options.get("check", False)),
        )  # fmt: skip
        params = run_params(config, 0, 1)
        for key in ("games", "chunk_size"):
            params.pop(key)
        return WrappedConfig(config, self.name, params)

    def make_run_config(self, components, *, players, policies, seed, options):
        """``bnb simulate``'s config (``--pets all``: every pet team; run_hooks)."""
        from bnb_sim.games.heroes_village import run_hooks

        return run_hooks.make_run_config(components, players=players, policies=policies,
                                         seed=seed, options=options)  # fmt: skip

    def run_components(self, components) -> dict:
        from bnb_sim.games.heroes_village.run_hooks import run_components

        return run_components(components)

    def run_headline(self, config: WrappedConfig, games: int) -> str:
        from bnb_sim.games.heroes_village.run_hooks import run_headline

        return run_headline(config, games)

    def play_block(self, config: WrappedConfig, start: int, n: int, threads=None):
        from bnb_sim.games.heroes_village.runner import play_block

        return play_block(config.inner, start, n, threads)

    def columns(self, config=None):
        from bnb_sim.games.heroes_village.runner import GAME_COLUMNS, SEAT_COLUMNS

        return column_types(SEAT_COLUMNS), column_types(GAME_COLUMNS)

    def describe(self, config: WrappedConfig) -> str:
        """The setting in the study texts: "3 players, pets wolf,cat,fox, standard", and the
        readings that differ from their defaults (", reading cat=first-draw"), so a study
        under another reading says so wherever it states its setting."""
        from bnb_sim.games.heroes_village.readings import setting_suffix

        inner = config.inner
        text = f"{inner.n_players} players, pets {','.join(inner.teams[0])}, {inner.difficulty}"
        return text + setting_suffix(inner.components.readings)

    def with_readings(self, components, items: Sequence[str]):
        """The components with ``--reading NAME=VALUE`` items set (checked)."""
        from bnb_sim.games.heroes_village.readings import parse_assignments

        return components.with_readings(parse_assignments(list(items)))

    def sweep_variants(self, components, sets, mode: str = "grid"):
        """``bnb sweep --set``'s variants: the component file first (``components``), then
        each combination (``grid``) or position (``zip``) of the values."""
        from bnb_sim.games.heroes_village.variants import sweep_variants

        return sweep_variants(components, sets, zip_mode=mode == "zip")

    def report_sections(self, seats, games, meta):
        """Its sections of ``bnb report`` (pets, difficulty, losses, fights, actions)."""
        from bnb_sim.games.heroes_village.report import report_sections

        return report_sections(seats, games, meta)

    def readings(self, name: str | None = None) -> list:
        """Its rule readings (``bnb readings --game hotv``): all, or the one called ``name``."""
        from bnb_sim.errors import BnbError
        from bnb_sim.games.heroes_village.readings import READINGS

        key = (name or "").strip().lower().replace("-", "_")
        if name and key not in READINGS:
            raise BnbError(f"unknown reading {name!r} (known: {', '.join(READINGS)})")
        return [READINGS[key]] if name else list(READINGS.values())

    def parse_readings(self, assignments: Sequence[str], aliases: Mapping[str, Any]):
        """The readings a command was given (``--reading NAME=VALUE``, checked); it has no
        alias flags (another game's, such as ``--variant``, are refused before)."""
        from bnb_sim.errors import BnbError
        from bnb_sim.games.heroes_village.readings import parse_assignments

        given = [flag for flag, value in aliases.items() if value is not None]
        if given:
            raise BnbError(f"{given[0]} is not an option of {self.title}")
        return parse_assignments(list(assignments))

    def component_tables(self, components) -> list[str]:
        """The readable tables of ``bnb components show --game hotv`` (estimates marked ~)."""
        from bnb_sim.games.heroes_village.show import render

        return render(components)

    def odds(self, components, options: Mapping[str, Any]):
        """Exact odds of one fight (``bnb odds --game hotv --mob V --pet P``)."""
        from bnb_sim.games.heroes_village.command_text import odds_output

        return odds_output(components, options)

    def play_transcript(self, components, options: Mapping[str, Any]):
        """One game told event by event, or as JSON (``bnb play --game hotv``)."""
        from bnb_sim.games.heroes_village.command_text import play_output

        return play_output(components, options)

    def train(self, components, options: Mapping[str, Any]):
        """Train a ``strong`` model (``bnb train --game hotv``): CMA-ES over the team bot's
        weights, scored by the team win rate over pet teams and game indices."""
        from bnb_sim.games.heroes_village.strong_command import train_output

        return train_output(components, options)

    def show_model(self, file: str):
        """What the ``strong`` model in ``file`` values (``bnb train show``)."""
        from bnb_sim.games.heroes_village.command_text import show_output

        return show_output(file)

    def bench_plan(self, components):
        """``bnb bench --game hotv``: random, team and strong at 2 and 4 players."""
        from bnb_sim.core.protocol import BenchPlan

        return BenchPlan(("random", "team", "strong"), (2, 4),
                         "Heroes of the Village batch kernel", components.readings)  # fmt: skip

    def play_arrays(self, config: WrappedConfig, start: int, n: int, threads=None):
        """The batch kernel's raw output for the config's first pet team (``bnb bench``)."""
        from bnb_sim.games.heroes_village.runner import play_arrays

        return play_arrays(config.inner, config.inner.teams[0], start, n, threads)

    def compile_jobs(self) -> list:
        """Its kernels as ``bnb_sim.precompile.Job`` objects (``bnb warmup``); the first, the
        batch kernel, is what the warm-up before a run compiles."""
        from bnb_sim.games.heroes_village.compile_jobs import compile_jobs

        return compile_jobs()

    # --- run hooks (bnb_sim.core.protocol.ENTRIES): the runner's and studies' own code ---

    def new_game_from_values(self, *args, **options):
        """``bnb_sim.new_game(game="hotv")``: ``(seed, game_index, players, policies,
        pets=, difficulty=, ...)``."""
        from bnb_sim.games.heroes_village.game import new_game

        return new_game(*args, **options)

    def run_block(self, config, start: int, n: int, threads: int | None = None):
        """``(seats, games)`` of games ``start .. start + n - 1`` of a run config (Dask)."""
        from bnb_sim.games.heroes_village.runner import play_block

        return play_block(config, start, n, threads)

    def dask_payload(self, config) -> dict:
        from bnb_sim.games.heroes_village.runner import dask_payload

        return dask_payload(config)

    def dask_config(self, payload: dict):
        from bnb_sim.games.heroes_village.runner import dask_config

        return dask_config(payload)

    def value_study(self, options, **values):
        """``bnb value --game hotv``: each pet's worth to the team (a ValueResult)."""
        from bnb_sim.games.heroes_village.value import play_values

        return play_values(options, **values)

    def sensitivity_setup(self, components=None, **options):
        """``bnb sensitivity --game hotv``'s :class:`bnb_sim.runner.sensitivity.Setup`."""
        from bnb_sim.games.heroes_village.sensitivity import setup

        return setup(components, **options)

    def team_play(self, **options):
        """``bnb ladder --game hotv``'s setting (:mod:`bnb_sim.runner.team_ladder`)."""
        from bnb_sim.games.heroes_village.ladder import team_play

        return team_play(**options)

    @property
    def luck(self):
        """Its chance sources and luck designs (``bnb luck --game hotv``; a module)."""
        from bnb_sim.games.heroes_village import luck

        return luck

    @property
    def tune(self):
        """What ``bnb tune --game hotv`` needs of it (a module)."""
        from bnb_sim.games.heroes_village import tune_hooks

        return tune_hooks

    @property
    def robustness(self):
        """Its rungs and findings of ``bnb robustness --game hotv``."""
        from bnb_sim.games.heroes_village.robustness import ROBUSTNESS

        return ROBUSTNESS

    def __getattr__(self, name: str):
        # the step API only where the game has one: has_step_api() reads this attribute
        if name == "new_game" and _step_class() is not None:
            return self._new_game
        raise AttributeError(name)

    def _new_game(self, config: WrappedConfig, game_index: int):
        """The step-by-step game of ``config``'s game ``game_index`` (one pet team)."""
        return _step_class()(config.inner, game_index)


def _step_class():
    """``HotvGame(config, game_index)`` of the step module, or None while there is none."""
    if importlib.util.find_spec(_STEP_MODULE) is None:
        return None
    return getattr(importlib.import_module(_STEP_MODULE), "HotvGame", None)


GAME = HeroesVillage()
