"""``bnb simulate --game hotv``: N games (per pet team) into a run folder, with a progress bar,
the stop handling of the shared runner and the team win rate at the end.
"""

from __future__ import annotations

import shlex
import sys

import click

from bnb_sim import jsonsafe
from bnb_sim.games.heroes_village.cli_common import _check_seed, _components, _reading_argv


def simulate(
    *, games, players, policies, seed, out, threads=None, chunk_size=None, components=None,
    resume=False, force=False, as_json=False, quiet=False, yes=False, check=False, pets=None,
    difficulty=None, buildings=None, dask=None, reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb simulate --game hotv``: N games (per pet team) into a run folder."""
    if "policies" in defaults or not policies:
        policies = ()
    _check_seed(seed)
    from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir
    from bnb_sim.runner.budget import confirm_games
    from bnb_sim.runner.stopping import stoppable_run

    config = make_config(
        _components(components, reading), players, list(policies) or ["team"], pets,
        difficulty or "standard", buildings, seed, check,
    )  # fmt: skip
    confirm_games(games * len(config.teams), "simulate --game hotv", yes=yes)  # every pet team
    argv = [
        "bnb", "simulate", "--game", "hotv", "--games", str(games),
        "--players", str(config.n_players), "--seed", str(seed), "--out", str(out),
        "--difficulty", config.difficulty, "--buildings", config.buildings,
    ]  # fmt: skip
    for p in policies:
        argv += ["--policy", p]
    if pets:
        argv += ["--pets", pets]
    if check:
        argv.append("--check")
    if dask:
        argv += ["--dask", dask]
    argv += _reading_argv(reading)
    bar = _progress(not quiet and sys.stderr.isatty())
    try:  # Ctrl-C, SIGTERM and a full disk end with what is stored and how to resume
        with stoppable_run(out, games, shlex.join([*argv, "--resume"]), progress=bar.update,
                           notice=_notice) as stop:  # fmt: skip
            summary = simulate_to_dir(
                config, games, out, chunk_size=chunk_size, threads=threads, resume=resume,
                force=force, dask=dask, command=" ".join(argv), progress=stop.progress,
                notice=_notice,
            )  # fmt: skip
    finally:
        bar.close()
    from bnb_sim.runner.run_reader import load_run

    _, g, _ = load_run(out, seat_columns=["game"], game_columns=["game", "won", "pets"])
    from bnb_sim.analysis.stats import clustered_rate

    # every pet team plays every game index on the same draws: the index is the unit
    rate = clustered_rate(g["won"].to_numpy(dtype=float), g["game"].to_numpy())
    summary["win_rate"] = rate.to_dict()
    if as_json:
        click.echo(jsonsafe.dumps(summary, indent=2))
        return
    teams = summary["teams"]
    click.echo(
        f"Heroes of the Village: {games:,} games x {teams} pet team(s), "
        f"{config.n_players} players, {config.difficulty}, "
        f"policy {', '.join(dict.fromkeys(config.labels))}"
    )
    click.echo(f"  team win rate {rate}" + (" (95% CI clustered by game index)" if teams > 1
                                             else ""))  # fmt: skip
    click.echo(f"  {summary['seconds']:.1f} s ({summary['games_per_second']:,.0f} games/s)")
    click.echo(f"  run folder: {out}  (bnb report {out})")


def _notice(message: str) -> None:
    click.echo(message, err=True)


class _progress:
    def __init__(self, enabled: bool):
        self.bar = None
        self.enabled = enabled

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=" games", file=sys.stderr, unit_scale=True)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
