"""The ``bnb`` command line.

Sub-commands are imported lazily (pallets/click#945 pattern): ``bnb --help`` lists them
from the table below without importing any of them, so it never imports numba, pandas or
matplotlib. Each command module imports the heavy libraries it needs inside its function.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import click

from bnb_sim import __version__
from bnb_sim.cli.settings import attach_envvars, load_defaults
from bnb_sim.errors import BnbError

# name -> (module, attribute, one-line help shown by `bnb --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "odds": ("bnb_sim.cli.odds_cmd", "odds", "Exact combat odds for a weapon pile against a mob."),
    "components": (
        "bnb_sim.cli.components_cmd",
        "components",
        "Show or validate component data (hearts, XP, costs) with provenance.",
    ),
    "report": ("bnb_sim.cli.report_cmd", "report", "Write the report (md, html, png) of a run."),
    "readings": (
        "bnb_sim.cli.readings_cmd",
        "readings",
        "List the rule readings (hunger, bow, ...): values, defaults, rules.",
    ),
    "play": ("bnb_sim.cli.play_cmd", "play", "Play one game and print it turn by turn."),
    "tournament": (
        "bnb_sim.cli.tournament_cmd",
        "tournament",
        "Round robin on paired seeds: head-to-head, Bradley-Terry Elo, report.",
    ),
    "compare": (
        "bnb_sim.cli.compare_cmd",
        "compare",
        "Paired-seed A/B test of two policies (SPRT or precision stopping).",
    ),
    "ladder": (
        "bnb_sim.cli.ladder_cmd",
        "ladder",
        "A ladder of play strength: each rung vs the next, Elo scale, skill depth.",
    ),
    "robustness": (
        "bnb_sim.cli.robustness_cmd",
        "robustness",
        "How far a run's findings hold across play strength: paired rungs, verdicts.",
    ),
    "value": (
        "bnb_sim.cli.value_cmd",
        "value",
        "What an option (item, action, mob, pet) is worth: restricted play on paired seeds.",
    ),
    "luck": (
        "bnb_sim.cli.luck_cmd",
        "luck",
        "Luck or skill: each chance source's share of the outcome, per rung of play.",
    ),
    "sweep": (
        "bnb_sim.cli.sweep_cmd",
        "sweep",
        "Re-run games under component variants; effects on win rates and XP.",
    ),
    "sensitivity": (
        "bnb_sim.cli.sensitivity_cmd",
        "sensitivity",
        "Which estimated component values move a finding most (ranked, tornado plot).",
    ),
    "tune": (
        "bnb_sim.cli.tune_cmd",
        "tune",
        "Tune a bot's weights or the game's components toward a target (CMA-ES, NTBEA).",
    ),
    "run": (
        "bnb_sim.cli.run_cmd",
        "run",
        "Run an experiment file (simulations, tournaments, sweeps) into one report.",
    ),
    "simulate": (
        "bnb_sim.cli.simulate_cmd",
        "simulate",
        "Play N seeded games into a run directory (parallel, resumable, Dask).",
    ),
    "export": (
        "bnb_sim.cli.export_cmd",
        "export",
        "Write a run as CSV files (seats, games, parameters) for spreadsheets.",
    ),
    "train": (
        "bnb_sim.cli.train_cmd",
        "train",
        "Train a strong bot's model for your box; `train show FILE` describes one.",
    ),
    "bench": ("bnb_sim.cli.bench_cmd", "bench", "Measure games/s, odds/s and CLI start time."),
    "cache": (
        "bnb_sim.cli.cache_cmd",
        "cache",
        "Show the compiled-kernel caches and their sizes; clear old ones.",
    ),
    "warmup": (
        "bnb_sim.cli.warmup_cmd",
        "warmup",
        "Compile (or load) every numba kernel once and show where the cache lives.",
    ),
}


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported only when they run (or show help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, attribute, _ = COMMANDS[name]
        module = importlib.import_module(module_name)
        command = getattr(module, attribute)
        attach_envvars(command, (name,))  # BNB_<COMMAND>_<OPTION> (bnb_sim.cli.settings)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


_EPILOG = """\b
Every option can also come from the environment, BNB_<COMMAND>_<OPTION> (e.g.
BNB_SIMULATE_CHUNK_SIZE=20000; BNB_THREADS and BNB_QUIET for every command), or from
a config file (--config FILE, else ~/.config/bnb-sim/config.toml): [defaults] for
every command, [simulate], [components.show], ... for one. The command line wins,
then the environment, then the file (docs/design.md, "Settings")."""


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=_EPILOG
)
@click.version_option(__version__, prog_name="bnb")
@click.option(
    "--plugin-debug",
    is_flag=True,
    help="Compile policy plugins with bounds checking: an out-of-bounds index in a plugin "
    "stops the run with one line instead of corrupting memory (slower; also "
    "BNB_PLUGIN_DEBUG=1).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="BNB_CONFIG",
    metavar="FILE",
    help="Option defaults from this TOML file (also BNB_CONFIG). Default: "
    "~/.config/bnb-sim/config.toml when it exists.",
)
@click.option(
    "--no-config",
    is_flag=True,
    envvar="BNB_NO_CONFIG",
    help="Ignore the config file (also BNB_NO_CONFIG=1).",
)
@click.pass_context
def cli(ctx: click.Context, plugin_debug: bool, config_file: Path | None, no_config: bool) -> None:
    """bnb-sim: a Monte Carlo strategy analyzer for the Minecraft board games Builders & Biomes
    (with its Farmer's Market expansion) and Heroes of the Village (--game hotv)."""
    if plugin_debug:
        import os

        os.environ["BNB_PLUGIN_DEBUG"] = "1"  # read where plugins compile (also in workers)
    if not no_config and not ctx.resilient_parsing:
        # before click builds the sub-command's context, which reads its part of the map
        ctx.default_map = load_defaults(ctx, config_file)


def _check_arguments(argv: list[str]) -> None:
    """Every argument must be UTF-8 text: bytes of another encoding (a Latin-1 file name)
    could not be written into a run, a report or a CSV file, and would fail only at the end."""
    from bnb_sim.safe_io import check_text

    for arg in argv:
        problem = check_text(arg)
        if problem is not None:
            shown = repr(os.fsencode(arg))[2:-1]
            raise BnbError(
                f"argument '{shown}' {problem}: bnb-sim writes UTF-8 files and Parquet paths, "
                "so give it as UTF-8 (rename a file or folder with such a name)"
            )


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user errors become one line on stderr and exit code 2."""
    try:
        _check_arguments(sys.argv[1:] if argv is None else [str(a) for a in argv])
        cli.main(args=argv, prog_name="bnb", standalone_mode=False)
    except click.exceptions.Abort as exc:
        # click turns a KeyboardInterrupt outside a run's own handler (a Ctrl-C while the
        # engine compiles, before the run folder exists) into Abort: it is an interruption.
        cause = exc.__cause__ or exc.__context__
        click.echo("Interrupted." if isinstance(cause, KeyboardInterrupt) else "Aborted.", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as exc:  # click >= 8.2
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        sys.exit(0)
    except click.ClickException as exc:
        click.echo(f"bnb: error: {exc.format_message()}", err=True)
        sys.exit(2)
    except BnbError as exc:
        summary = sys.modules.get("bnb_sim.runner.run_summary")  # loaded if it can be raised
        if summary is not None and isinstance(exc, summary.RunInterrupted):
            click.echo(exc.report(), err=True)  # a stopped run: what is kept, how to go on
        else:
            click.echo(f"bnb: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
