"""What ``bnb simulate`` says, for every game: the command text that run.json records (and the
command that resumes the run), the progress meter on stderr and the summary on stdout.

The game is named (``--game NAME`` in the command and the ``--yes`` refusal, the progress
meter's label) unless it is the default game, which a command names by leaving ``--game``
out. The summary is the game's own where it offers the ``run_summary`` hook
(:data:`bnb_sim.core.protocol.HOOKS`), else the shared one: its ``run_headline`` (or its
title, games, players and policies), a cooperative game's team win rate, time and speed,
and the run folder. Nothing heavy is imported until a function runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click


def command_argv(game_args: list[str], p: dict[str, Any]) -> list[str]:
    """The command's arguments in a canonical order, without --resume/--force (run.json's
    ``command``, and with ``--resume`` added, the command that resumes the run).

    ``game_args``: ``--game NAME`` (none for the default game); ``p``: the checked values
    (``games``, ``players`` and ``threads``/``chunk_size``/``dask`` as given or None,
    ``policies``, ``seed``, ``out``), ``options`` (the game's own options as arguments),
    ``readings`` (``NAME=VALUE`` items) and the flags ``check``, ``yes``, ``quiet``,
    ``as_json``. The ``--expansion`` and ``--components`` files come from the context."""
    args = ["simulate", *game_args, "--games", str(p["games"])]
    if p["players"] is not None:
        args += ["--players", str(p["players"])]
    for policy in p["policies"]:
        args += ["--policy", policy]
    args += ["--seed", str(p["seed"]), "--out", str(p["out"])]
    if p["threads"] is not None:
        args += ["--threads", str(p["threads"])]
    if p["chunk_size"] is not None:
        args += ["--chunk-size", str(p["chunk_size"])]
    args += p["options"]
    ctx = click.get_current_context()
    if ctx.meta.get("bnb.expansion"):  # Farmer's Market (cli/options.py)
        args += ["--expansion", ctx.meta["bnb.expansion"]]
    for path in ctx.meta.get("bnb.simulate.components", []):
        args += ["--components", str(path)]
    for item in p["readings"]:
        args += ["--reading", item]
    if p["dask"] is not None:
        args += ["--dask", p["dask"]]
    for flag in ("check", "yes", "quiet"):
        if p[flag]:
            args.append(f"--{flag}")
    if p["as_json"]:
        args.append("--json")
    return args


def option_argv(game: Any, options: dict[str, Any]) -> list[str]:
    """The game's options given (not at their default) as command-line arguments."""
    out: list[str] = []
    for option in game.options:
        value = options.get(option.name)
        if value is None or value == option.default or value is False:
            continue
        out += [option.flags[0]] if option.kind == "flag" else [option.flags[0], str(value)]
    return out


def reading_items(game: Any, config: Any, given: tuple[str, ...]) -> list[str]:
    """The ``--reading`` items the command records: the readings that the config sets apart
    from the game's defaults, where the game says (its ``changed_settings`` hook, which also
    turns alias flags such as ``--variant`` into readings), else the items as given."""
    own = getattr(game, "changed_settings", None)
    if not callable(own):
        return list(given)
    return [f"{name}={value}" for name, value in own(config).get("readings", {}).items()]


def progress_bar(enabled: bool, desc: str = ""):
    """``(progress(done, total), close(), write(message))`` on stderr: the shared meter
    (:func:`bnb_sim.feedback.progress_meter`: a tqdm bar on a terminal or in a notebook, a
    plain line every 10 s otherwise, ``desc`` first; none when not ``enabled``), and
    ``write`` for a notice, printed above a bar."""
    from bnb_sim.feedback import PlainMeter, progress_meter

    progress, close = progress_meter(enabled, desc=desc)
    if progress is None or isinstance(progress, PlainMeter):
        return progress, close, lambda message: click.echo(message, err=True)

    def write(message: str) -> None:
        from bnb_sim.feedback import _tqdm_class

        _tqdm_class().write(message, file=sys.stderr)  # clears the bar, prints, redraws

    return progress, close, write


def run_output(game: Any, config: Any, summary: Any, games: int, out: Path):
    """The summary of a finished run (a :class:`~bnb_sim.core.protocol.CommandOutput`): the
    game's ``run_summary(summary, config)``, or the shared summary."""
    from bnb_sim.core.protocol import CommandOutput, hook

    own = hook(game, "run_summary")
    if own is not None:
        return own(summary, config)
    from bnb_sim.runner.protocol_run import summary_dict

    data = summary_dict(summary, config)
    rate = _team_rate(out) if game.outcome == "cooperative" else None
    if rate is not None:
        data["win_rate"] = rate.to_dict()
    headline = getattr(game, "run_headline", None)  # the game's own words for its setting
    lines = [headline(config, games) if callable(headline) else
             f"{game.title}: {games:,} games, {config.n_players} players, "
             f"policy {', '.join(dict.fromkeys(config.labels))}"]  # fmt: skip
    if rate is not None:
        clustered = " (95% CI clustered by game index)" if data["rows_per_game"] > 1 else ""
        lines.append(f"  team win rate {rate}{clustered}")
    if data["games_per_second"] is not None:
        lines.append(f"  {data['seconds']:.1f} s ({data['games_per_second']:,.0f} games/s)")
    lines.append(f"  run folder: {out}  (bnb report {out})")
    return CommandOutput("\n".join(lines), data)


def _team_rate(out):
    """A cooperative run's team win rate: seat 0's ``won`` of every game row, clustered by
    game index (a config that plays several variants of an index plays them on the same
    draws, so the index is the unit)."""
    from bnb_sim.analysis.stats import clustered_rate
    from bnb_sim.runner.run_reader import load_run

    seats, _, _ = load_run(out, seat_columns=["game", "seat", "won"], game_columns=["game"])
    first = seats[seats["seat"] == 0]
    return clustered_rate(first["won"].to_numpy(dtype=float), first["game"].to_numpy())
