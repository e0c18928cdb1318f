"""``bnb tune policy`` and ``bnb tune game`` as functions of the Python API, for every game
with tune hooks (Builders & Biomes, Heroes of the Village, a protocol game with
``policy_params``)::

    import bnb_sim
    t = bnb_sim.tune_policy("heuristic", against=["greedy"], players=2, budget=4000,
                            params=["board=0..3"], out="reports/tune-h")
    t["weights"], t["comparison"]          # the answer and its check on fresh seeds
    g = bnb_sim.tune_game(["path.start_normal=6..11"], ["win_rate=0.5"], game="hotv",
                          players=3, budget=2000)

The same plan, checks (one line before any game), games and numbers as the command with the
same arguments; the result is the dict ``bnb tune ... --json`` prints. With ``out`` the
tuning folder holds ``tune.json``, the answer file and the report, and ``resume=True`` goes
on from a stopped tuning; without ``out`` it is played in a temporary folder.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError


def _texts(value: Any, name: str) -> list[str]:
    """A list of strings from one string or a list of them."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ArgumentTypeError(f"{name} must be a list of strings, got {_args.show(value)}")
    return list(value)


def _number(value: Any, name: str) -> float:
    """A finite int or float (not a bool), as the command's float options."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentTypeError(f"{name} must be a number, got {_args.show(value)}")
    if not math.isfinite(value):
        raise BnbError(f"{name} must be a finite number, got {value}")
    return float(value)


def _optional(value: Any, name: str, low: int, high: int) -> int | None:
    return None if value is None else _args.integer(value, name, low, high)


def _sprt(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ArgumentTypeError(f"sprt must be a pair (elo0, elo1), got {_args.show(value)}")
    return _number(value[0], "sprt[0]"), _number(value[1], "sprt[1]")


def _reading_items(readings: Mapping[str, str] | None) -> list[str]:
    if readings is None:
        return []
    if not isinstance(readings, Mapping) or not all(isinstance(k, str) for k in readings):
        raise ArgumentTypeError(f"readings must be a mapping of NAME: VALUE, got "
                                f"{_args.show(readings)}")  # fmt: skip
    return [f"{k}={v}" for k, v in readings.items()]


def _setting(game: str | None, components: Any, readings, variant, budget: int, yes: bool):
    """``(game name, loaded components, component files, readings)``, checked."""
    from bnb_sim.runner.budget import MAX_GAMES_WITHOUT_YES
    from bnb_sim.runner.study_hooks import game_name
    from bnb_sim.study_args import _components
    from bnb_sim.tune.hooks import tune_hooks

    name = game_name(None if game is None else _args.text(game, "game"))
    if _args.integer(budget, "budget", 1) > MAX_GAMES_WITHOUT_YES and not _args.boolean(yes, "yes"):
        raise BnbError(f"tune: budget {budget:,} is above {MAX_GAMES_WITHOUT_YES:,} games; "
                       "give yes=True to confirm")  # fmt: skip
    if isinstance(components, str | os.PathLike):
        files = [os.fspath(components)]
    elif isinstance(components, list | tuple):
        files = [os.fspath(p) for p in components]
    else:  # None or loaded data: no files to name
        files = []
    comps = _components(components, None, name)
    parsed = tune_hooks(name).parse_readings(_reading_items(readings), variant)
    return name, comps, files, parsed


@contextlib.contextmanager
def _folder(out, resume: bool, force: bool):
    """``(folder, lock)``: ``out`` checked and locked, or a temporary folder."""
    from bnb_sim.tune.store import open_tune_folder

    if out is None:
        if resume:
            raise BnbError("tune: resume=True needs out= (the folder of the stopped tuning)")
        with tempfile.TemporaryDirectory(prefix="bnb-tune-") as tmp:
            yield Path(tmp) / "tune", None
        return
    folder = Path(_args.path(out, "out"))
    lock = open_tune_folder(folder, resume=_args.boolean(resume, "resume"),
                            force=_args.boolean(force, "force"))  # fmt: skip
    try:
        yield folder, lock
    finally:
        lock.release()


def _play(runner, plan, out, resume, force, threads, progress, write) -> dict:
    """Run the tuning in its folder (or a temporary one); ``write(folder, result)`` writes
    the answer and the report into ``out`` while it is still locked (one writer)."""
    from bnb_sim.feedback import games_meter
    from bnb_sim.study_args import _threads

    shown = _args.boolean(progress, "progress")
    with _folder(out, resume, force) as (folder, lock), games_meter(shown):
        result = runner(plan, folder, resume=bool(resume), force=bool(force),
                        threads=_threads(threads), lock=lock)  # fmt: skip
        if out is not None:
            write(folder, result)
    return result


def tune_policy(
    policy: str,
    *,
    against: Sequence[str] | str = (),
    players: int = 2,
    budget: int,
    params: Sequence[str] | str = (),
    seed: int = 0,
    population: int | None = None,
    sigma: float = 0.2,
    seeds_per_candidate: int | None = None,
    top: int = 3,
    sprt: tuple[float, float] | None = None,
    game: str | None = None,
    components: Any = None,
    readings: Mapping[str, str] | None = None,
    variant: str | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    yes: bool = False,
) -> dict:
    """``bnb tune policy``: search ``policy``'s numeric parameters (``params``:
    ``"NAME=LO..HI"``) with CMA-ES against the field ``against`` (a cooperative game: the
    team, every seat), re-evaluate the best on fresh seeds and compare the answer with the
    start. Returns the result dict (``weights``, ``spec``, ``comparison``, ...); with
    ``out`` the weights file and the report are written there too."""
    from bnb_sim.analysis.tournament_schedule import split_policy_list
    from bnb_sim.tune.policy_tune import plan_policy_tune, run_policy_tune, write_weights
    from bnb_sim.tune.report import build_policy_report
    from bnb_sim.tune.store import WEIGHTS_FILE

    name, comps, _, parsed = _setting(game, components, readings, variant, budget, yes)
    plan = plan_policy_tune(
        _args.text(policy, "policy"), against=split_policy_list(_texts(against, "against")),
        players=_args.integer(players, "players", 2, 4), budget=budget,
        params=_texts(params, "params"), seed=_args.integer(seed, "seed", 0),
        population=_optional(population, "population", 2, 1000), sigma=_number(sigma, "sigma"),
        seeds_per_candidate=_optional(seeds_per_candidate, "seeds_per_candidate", 1, 1_000_000),
        top=_args.integer(top, "top", 1, 50), components=comps, readings=parsed,
        sprt=_sprt(sprt), game=name,
    )  # fmt: skip

    def write(folder: Path, result: dict) -> None:
        write_weights(folder / WEIGHTS_FILE, plan.family, result["weights"],
                      header=["tuned by: bnb_sim.tune_policy"], spec=result["spec"],
                      game=plan.game)  # fmt: skip
        build_policy_report(result, command="bnb_sim.tune_policy(...)").write(folder)

    return _play(run_policy_tune, plan, out, resume, force, threads, progress, write)


def tune_game(
    params: Sequence[str] | str,
    targets: Sequence[str] | str,
    *,
    players: int = 4,
    policies: Sequence[str] | str = (),
    budget: int,
    method: str = "auto",
    games_per_eval: int | None = None,
    top: int = 3,
    explore: float = 1.0,
    neighbours: int = 50,
    seed: int = 0,
    game: str | None = None,
    components: Any = None,
    readings: Mapping[str, str] | None = None,
    variant: str | None = None,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    yes: bool = False,
) -> dict:
    """``bnb tune game``: search component values (``params``: ``"PATH=LO..HI"`` or
    ``"PATH=V1,V2"``) toward ``targets`` (``"first_player_advantage=0"``, ``"balance=max"``,
    a cooperative game's ``"win_rate=0.5"``) with NTBEA or a grid, and replay the best on
    fresh seeds with 95% intervals. Returns the result dict (``best``, ``reeval``, ...);
    with ``out`` the component override and the report are written there too."""
    from bnb_sim.tune.game_tune import plan_game_tune, run_game_tune, write_override
    from bnb_sim.tune.report import build_game_report
    from bnb_sim.tune.store import OVERRIDE_FILE

    name, comps, files, parsed = _setting(game, components, readings, variant, budget, yes)
    plan = plan_game_tune(
        params=_texts(params, "params"), targets=_texts(targets, "targets"),
        players=_args.integer(players, "players", 2, 4), policies=_texts(policies, "policies"),
        budget=budget, seed=_args.integer(seed, "seed", 0), method=_args.text(method, "method"),
        games_per_eval=_optional(games_per_eval, "games_per_eval", 2, 10_000_000),
        top=_args.integer(top, "top", 1, 50), explore=_number(explore, "explore"),
        neighbours=_args.integer(neighbours, "neighbours", 1, 10_000),
        components=comps, component_files=files, readings=parsed, game=name,
    )  # fmt: skip

    def write(folder: Path, result: dict) -> None:
        override = write_override(plan, result["best"], folder / OVERRIDE_FILE,
                                  header=["tuned by: bnb_sim.tune_game"])  # fmt: skip
        build_game_report(result, override=override, command="bnb_sim.tune_game(...)").write(folder)

    return _play(run_game_tune, plan, out, resume, force, threads, progress, write)
