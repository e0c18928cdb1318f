"""Builders & Biomes through the game protocol (:mod:`bnb_sim.core.protocol`).

Cheap to import (no numba, no pandas): every part is imported when it is used. This object
is the whole game as shared code sees it (issue 24: one game interface): its names, its
commands' own options (``command_options``), its optional hooks
(:data:`bnb_sim.core.protocol.HOOKS`: readings, component tables, odds, a turn-by-turn game,
policy specs, training, bench and compile jobs; how ``bnb readings``, ``components show``,
``odds``, ``play``, ``compare``, ``tournament``, ``train``, ``bench`` and ``warmup`` reach
its code), its report hooks (``report_sections``, ``report_layout``: how the shared ``bnb
report`` writes its report) and its run hooks (:data:`bnb_sim.core.protocol.ENTRIES`: the run
config, batch and Dask parts of ``bnb simulate``, the step API, and the modules of ``bnb
luck``, ``tune`` and the designed studies), which the run commands' own code reaches through
:meth:`bnb_sim.games.GameSpec.entry`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bnb_sim.core.protocol import OptionSpec
from bnb_sim.games.adapter import WrappedConfig, column_types, players_for

#: The commands that take ``--variant`` (every command that plays games of a set-up).
_VARIANT_COMMANDS = ("simulate", "play", "compare", "tournament", "sweep", "tune", "ladder",
                     "robustness", "sensitivity", "value")  # fmt: skip


class BuildersBiomes:
    name = "builders_biomes"
    title = "Minecraft: Builders & Biomes"
    aliases = ("builders-and-biomes", "bnb")
    outcome = "competitive"
    #: its own options: those of ``bnb odds``, ``bnb train`` and ``bnb play`` (the commands
    #: that play runs of games take none)
    options = (
        OptionSpec(
            "pile",
            "Builders & Biomes: the weapon pile, tokens by name or alias with counts, e.g. "
            "stone_sword,potato*3,bow*2,tnt.",
            commands=("odds",),
            metavar="SPEC",
        ),
        OptionSpec(
            "hearts",
            "Builders & Biomes: mob hearts to beat.",
            kind="int",
            commands=("odds",),
            low=1,
            high=1_000_000,
        ),
        OptionSpec(
            "picture",
            "Builders & Biomes: also draw the final table (boards, buildings, cube layers, "
            "scores) into FILE: SVG, or PNG when FILE ends in .png.",
            kind="file",
            commands=("play",),
            flags=("--svg",),
            suffixes=(".svg", ".png"),
        ),
        OptionSpec(
            "field",
            "Builders & Biomes: the fixed opponents of training, comma-separated (one-step "
            "bots or bot files); snapshots of the model join them every --self-every "
            "generations.",
            default="heuristic,greedy,heuristic:weapon=2",
            commands=("train",),
            metavar="SPECS",
        ),
        OptionSpec(
            "self_every",
            "Builders & Biomes: a snapshot of the model joins the field every N generations "
            "(0: never).",
            kind="int",
            default=25,
            commands=("train",),
            metavar="N",
            low=0,
        ),
    )
    #: its expansions (``--expansion NAME``; their data: ``components.expansion.EXPANSIONS``)
    expansions = {"farmers-market": "Builders & Biomes: vegetables, farmland, the marketplace"}
    #: the commands' flags that set one of its rule readings (``bnb readings``)
    reading_flags = (
        OptionSpec(
            "variant",
            "Builders & Biomes: rules variant, = --reading variant=... (beginner: scoring "
            "counts every matching space, R-SCORE-4). Default: standard.",
            kind="choice",
            choices=("standard", "beginner"),
            commands=_VARIANT_COMMANDS,
            reading="variant",
        ),
        OptionSpec(
            "seating",
            "Builders & Biomes: who starts, = --reading seating=...: rotate (the default; "
            "player g % P starts game g, so seat effects cancel), fixed (the given order) or "
            "random (from the seed).",
            kind="choice",
            choices=("rotate", "fixed", "random"),
            commands=("simulate", "play"),
            reading="seating",
        ),
        OptionSpec(
            "fixed_seats",
            "Builders & Biomes: keep the given order in every game (= --seating fixed).",
            kind="flag",
            commands=("simulate",),
            reading="seating",
            sets="fixed",
        ),
        OptionSpec(
            "pickaxe",
            "Builders & Biomes: = --reading pickaxe=...: may a player decline the block of a "
            "revealed stone pickaxe (R-FIGHT-3)? Default: optional.",
            kind="choice",
            choices=("optional", "mandatory"),
            commands=("simulate", "play"),
            reading="pickaxe",
        ),
    )
    #: the command options that only this game takes (refused with another game), besides
    #: its reading flags above
    command_options = ("pile", "hearts", "picture", "field", "self_every", "dask", "reading")
    #: the commands it leaves to the shared protocol handlers: none (they were written for it)
    protocol_commands = ()
    default_policy = "heuristic"
    #: Columns its report never reads: ``bnb report`` reads the run without them (memory).
    report_unread = {
        "seats": ("player", "rank", "turns", "n_players"),
        "games": ("winner_policy", "first_policy"),
    }

    def load_components(self, paths: Sequence[str] | None = None, *, expansion=None) -> Any:
        """Its validated components: ``paths`` over the defaults (``expansion``, e.g.
        ``"farmers-market"``, merged first: ``--expansion``)."""
        from bnb_sim.games.builders_biomes.components import load_components

        return load_components(paths, expansion=expansion)

    def make_config(self, components, *, players, policies, seed, options: Mapping[str, Any]):
        from bnb_sim.games.builders_biomes.run_config import GameConfig

        policies = list(policies) or [self.default_policy]
        n = players_for(players, policies, 4)
        config = GameConfig.create(
            n, policies, seed=seed, components=components, readings=options.get("readings")
        )
        return WrappedConfig(config, self.name, config.to_dict())

    def make_run_config(self, components, *, players, policies, seed, options):
        """A run's config (``bnb simulate``): its ``GameConfig`` itself, as :meth:`create_config`
        makes it for ``plan_run`` (``options``: ``readings``, ``check``); :meth:`play_block`
        plays it, and it pickles as plain data (Dask)."""
        policies = list(policies) or [self.default_policy]
        return self.create_config(
            players_for(players, policies, 4), policies, seed=seed, components=components,
            readings=options.get("readings"), check=bool(options.get("check", False)),
        )  # fmt: skip

    def play_block(self, config, start: int, n: int, threads=None):
        """Rows of games ``start .. start + n - 1`` of a config of :meth:`make_config` (wrapped)
        or of a run config (its ``GameConfig``: :meth:`create_config`, what a RunPlan of
        ``bnb simulate`` holds); the same rows for both."""
        from bnb_sim.games.builders_biomes.batch import play_block

        return play_block(_game_config(config), start, n, threads)

    def columns(self, config=None):
        from bnb_sim.runner.storage import GAME_COLUMNS, SEAT_COLUMNS

        return column_types(SEAT_COLUMNS), column_types(GAME_COLUMNS)

    def report_sections(self, seats, games, meta):
        """Its sections of ``bnb report`` (overview, win rates, play, items, provenance)."""
        from bnb_sim.games.builders_biomes.report import report_sections

        return report_sections(seats, games, meta)

    def report_layout(self, seats, games, meta):
        """Its report's title, subtitle and note, with its own win rates (ReportLayout)."""
        from bnb_sim.games.builders_biomes.report import report_layout

        return report_layout(seats, games, meta)

    def column_prefixes(self, config=None) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(seat_prefixes, game_prefixes)``: its per-species and per-type seat columns
        (``fights_*``, ``wins_*``, ...; all int16), named after the component file."""
        from bnb_sim.runner.storage import SEAT_PREFIXES

        return SEAT_PREFIXES, ()

    def changed_settings(self, config) -> dict[str, Any]:
        """What a run config sets apart from the defaults, as keyword arguments of
        ``bnb_sim.simulate`` (the Python call and the ``--reading`` items of a run's
        command): its component file, its readings that are not the defaults."""
        out: dict[str, Any] = {}
        if config.components.source != "default":
            out["components"] = config.components.source
        changed = config.readings.non_default()
        if changed:
            out["readings"] = changed
        return out

    def run_components(self, components) -> dict[str, Any]:
        """run.json's ``components`` (source, content hash, estimates, data; docs/run-format.md)."""
        return components.to_json_dict()

    def run_summary(self, summary, config):
        """``bnb simulate``'s summary: games, time and speed, and the win rate of each policy
        per seat played (``RunSummary.text()``; with ``--json`` its ``to_dict()``)."""
        from bnb_sim.core.protocol import CommandOutput

        return CommandOutput(summary.text(), summary.to_dict())

    def run_header(self, config) -> dict[str, Any]:
        """run.json names no game: its runs predate the registry, which reads a run without
        ``game`` as this (the default) game's."""
        return {}

    def readings(self, name: str | None = None) -> list:
        """Its rule readings (``bnb readings``): all, or the one called ``name``."""
        from bnb_sim.games.builders_biomes import readings as R

        return [R.check_name(name)] if name else list(R.READINGS.values())

    def parse_readings(self, assignments: Sequence[str], aliases: Mapping[str, Any]):
        """The readings a command was given: ``NAME=VALUE`` texts and alias flags
        (``{"--variant": value or None}``); BnbError on a contradiction or a bad value."""
        from bnb_sim.games.builders_biomes import readings as R

        given = R.parse_assignments(assignments)
        R.resolve(given, aliases=dict(aliases))  # raises on a contradiction
        out = dict(given)
        for label, value in aliases.items():
            if value is not None:
                name = R.ALIASES[label]
                out[name] = R.check_value(name, value)
        return out

    def component_tables(self, components) -> list[str]:
        """The readable tables of ``bnb components show`` (estimates marked ~)."""
        from bnb_sim.games.builders_biomes.components.tables import render

        return render(components)

    def odds(self, components, options: Mapping[str, Any]):
        """Exact fight odds of a weapon pile (``bnb odds``, R-FIGHT-2 to R-FIGHT-5)."""
        from bnb_sim.games.builders_biomes.odds_text import odds_output

        return odds_output(components, options)

    def play_transcript(self, components, options: Mapping[str, Any]):
        """One game played and told turn by turn, or as JSON (``bnb play``)."""
        from bnb_sim.games.builders_biomes.play_text import play_output

        return play_output(components, options)

    def policy_labels(self, specs: Sequence[str], *, distinct: str | None = None) -> list[str]:
        """Each policy spec parsed (PolicyError on a bad one), as its label; ``distinct``
        (the command's name): refuse one spec listed twice, however it is written."""
        from bnb_sim.games.builders_biomes.policies.registry import check_distinct, parse_policy

        parsed = [parse_policy(spec) for spec in specs]
        if distinct:
            check_distinct(parsed, distinct)
        return [p.label for p in parsed]

    def train(self, components, options: Mapping[str, Any]):
        """Train a ``strong`` model (``bnb train``): CMA-ES by self-play against a field."""
        from bnb_sim.games.builders_biomes.strong_command import train_output

        return train_output(components, options)

    def show_model(self, file: str):
        """What the ``strong`` model in ``file`` values (``bnb train show``)."""
        from bnb_sim.games.builders_biomes.strong_command import show_output

        return show_output(file)

    def bench_steps(self, quick: bool = False, repeats: int = 3) -> list:
        """The fight speed checks of ``bnb bench``: exact odds/s and Monte Carlo combats/s."""
        from bnb_sim.games.builders_biomes.bench_odds import bench_steps

        return bench_steps(quick=quick, repeats=repeats)

    def compile_jobs(self) -> list:
        """Its kernels as ``bnb_sim.precompile.Job`` objects (``bnb warmup``)."""
        from bnb_sim.games.builders_biomes.compile_jobs import jobs

        return jobs()

    def policy_plugins(self) -> list[str]:
        """The installed policy plugins (entry points not shadowed by a built-in policy)."""
        from bnb_sim.games.builders_biomes.policies.registry import plugin_names

        return plugin_names()

    def policy_names(self) -> list[str]:
        """Policy names for shell completion: the built-ins, ``heuristic:`` and the plugins."""
        from bnb_sim.games.builders_biomes.policies.registry import BUILTIN, plugin_names

        return [*BUILTIN, "heuristic:", *plugin_names()]

    def ladder_rungs(self) -> list[str]:
        """``bnb ladder``'s default rungs, weakest first (each measured above the one before,
        docs/policies.md "Ladder")."""
        from bnb_sim.analysis.ladder import DEFAULT_RUNGS

        return list(DEFAULT_RUNGS)

    def new_game(self, config: WrappedConfig, game_index: int):
        """The step-by-step game (OpenSpiel style) of ``config``'s game ``game_index``, with
        its event log (``events()``, as every game's :class:`~bnb_sim.core.game_api.StepGame`;
        the log changes no decision and no row)."""
        import dataclasses

        from bnb_sim.games.builders_biomes.game import Game

        return Game(dataclasses.replace(config.inner, log=True), game_index)

    # --- run hooks (bnb_sim.core.protocol.ENTRIES): the runner's and studies' own code ---

    def new_game_from_values(self, *args, **options):
        """``bnb_sim.new_game()``: ``(seed, game_index, players, policies, **options)``."""
        from bnb_sim.games.builders_biomes.game import new_game

        return new_game(*args, **options)

    def create_config(self, players: int, policies, **options):
        """A run config from user values (``bnb simulate``, ``bnb bench``)."""
        from bnb_sim.games.builders_biomes.run_hooks import create_config

        return create_config(players, policies, **options)

    def run_block(self, config, start: int, n: int, threads: int | None = None):
        """``(seats, games)`` of games ``start .. start + n - 1`` of a run config."""
        from bnb_sim.games.builders_biomes.batch import play_block

        return play_block(config, start, n, threads)

    def play_arrays(self, config, start: int, n: int, threads: int | None = None):
        """The batch kernel's raw output (warm-ups, ``bnb bench``)."""
        from bnb_sim.games.builders_biomes.batch import play_arrays

        return play_arrays(config, start, n, threads)

    def games_per_thread(self, config) -> int:
        from bnb_sim.games.builders_biomes.run_hooks import games_per_thread

        return games_per_thread(config)

    def dask_payload(self, config) -> dict:
        from bnb_sim.games.builders_biomes.run_hooks import dask_payload

        return dask_payload(config)

    def dask_config(self, payload: dict):
        from bnb_sim.games.builders_biomes.run_hooks import dask_config

        return dask_config(payload)

    def warm_engine(self, players, components=None, *, notice: bool = True, config=None):
        from bnb_sim.games.builders_biomes.compile_jobs import warm_engine

        return warm_engine(players, components, notice=notice, config=config)

    def sensitivity_setup(self, components=None, **options):
        """``bnb sensitivity``'s :class:`bnb_sim.runner.sensitivity.Setup`."""
        from bnb_sim.games.builders_biomes.sensitivity import setup

        return setup(components, **options)

    @property
    def luck(self):
        """Its chance sources and luck designs (``bnb luck``; a module)."""
        from bnb_sim.games.builders_biomes import luck

        return luck

    @property
    def tune(self):
        """What ``bnb tune`` needs of it (a module)."""
        from bnb_sim.games.builders_biomes import tune_hooks

        return tune_hooks

    @property
    def studies(self):
        """What the runner's designed studies need of it (a module)."""
        from bnb_sim.games.builders_biomes import study_hooks

        return study_hooks

    @property
    def robustness(self):
        """Its rungs and findings of ``bnb robustness``."""
        from bnb_sim.games.builders_biomes.robustness import ROBUSTNESS

        return ROBUSTNESS


GAME = BuildersBiomes()


def _game_config(config):
    """The ``GameConfig`` of a config: a wrapped one's (:meth:`BuildersBiomes.make_config`),
    or the run config itself."""
    return config.inner if isinstance(config, WrappedConfig) else config
