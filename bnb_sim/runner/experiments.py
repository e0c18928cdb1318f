"""The game-playing side of tournaments, comparisons, sweeps and experiment files.

Every function here plays games with :func:`bnb_sim.runner.batch.play_block`, which is the
only thing that imports the engine (numba); the imports are inside the functions, so this
module imports cleanly without numba and the analysis modules never need it.

Determinism: a game depends only on (seed, game index, seat, policies, components, options),
so every result below is a function of its arguments, whatever the thread count.
Paired designs use ``seating="fixed"`` configs with the policy list permuted by hand (or
``seating="rotate"`` where both sides rotate the same way), so that two configs that differ
only in the policy of one seat play the same deal with the same dice.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.feedback import expect_games, games_played
from bnb_sim.runner.budget import confirm_games, experiment_games, tournament_games

__all__ = [
    "play_games",
    "run_compare",
    "run_experiment",
    "run_item",
    "run_simulation",
    "run_sweep",
    "run_tournament",
]

CHUNK_GAMES = 50_000
Progress = Callable[[str], None] | None

# the columns tournaments and sweeps keep (the rest is dropped to save memory)
_TOURNAMENT_SEAT_COLUMNS = ("game", "seat", "player", "policy", "rank", "won", "xp")
_SWEEP_SEAT_PREFIXES = ("xp", "fights_", "wins_")


def _say(progress: Progress, text: str) -> None:
    if progress is not None:
        progress(text)


def _config(players: int, policies: Sequence[str], **kw):
    from bnb_sim.runner.config import GameConfig

    return GameConfig.create(int(players), list(policies), **kw)


def design_readings(readings, variant, *, seating: str | None = None, what: str = "") -> dict:
    """The readings of a design that fixes the seating itself (tournaments, comparisons,
    sweeps), as a dict. ``readings``: a mapping of the readings the user gave. A seating
    reading that differs from the design's, or one ``variant`` per player (the designs move
    the players between seats), is an error."""
    from bnb_sim.games.builders_biomes import readings as R

    resolved = R.resolve(readings, aliases={"variant": variant}).to_dict()
    if seating is not None:
        asked = None if isinstance(readings, R.Readings) else dict(readings or {}).get("seating")
        if asked is not None and R.check_value("seating", asked) != seating:
            raise BnbError(
                f"{what}: the seating is part of the design ({seating}); drop the seating reading"
            )
        resolved["seating"] = seating
    if "," in resolved["variant"]:
        raise BnbError(
            f"{what}: one variant per player is not supported here (the design moves the "
            "players between seats); give one value"
        )
    return resolved


def play_games(
    config,
    games: int,
    *,
    start: int = 0,
    threads: int | None = None,
    keep: Callable[[str], bool] | None = None,
    chunk: int = CHUNK_GAMES,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games ``start .. start+games-1`` of ``config`` as ``(seats, games)`` frames.

    Played in chunks (memory); ``keep`` selects the seat columns to keep.
    """
    seat_parts, game_parts = [], []
    done = 0
    while done < games:
        n = min(chunk, games - done)
        seats, games_df = _play_block(config, start + done, n, threads)
        games_played(n)  # the current progress meter, if any (bnb_sim.feedback)
        if keep is not None:
            seats = seats[[c for c in seats.columns if keep(c)]]
        seat_parts.append(seats)
        game_parts.append(games_df)
        done += n
    if len(seat_parts) == 1:
        return seat_parts[0], game_parts[0]
    return (
        pd.concat(seat_parts, ignore_index=True),
        pd.concat(game_parts, ignore_index=True),
    )


def _play_block(config, start: int, n: int, threads: int | None):
    """:func:`bnb_sim.runner.batch.play_block`, without numba's "first-class function type
    is experimental" warning (emitted once per config by the policy dispatch; harmless)."""
    from bnb_sim.runner.batch import play_block

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        return play_block(config, start, n, threads)


def _specs(policies: Sequence[str]):
    from bnb_sim.analysis.tournament import split_policy_list
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy

    return [parse_policy(p) for p in split_policy_list(list(policies))]


# --------------------------------------------------------------------------------------
# simulation


def run_simulation(
    players: int,
    policies: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    progress: Progress = None,
    run_dir=None,
    yes: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Play a simulation: ``(seats, games, meta)`` in the run-format layout.

    In memory by default; with ``run_dir`` the games go into a run directory through
    :func:`bnb_sim.runner.simulate.simulate` (chunked Parquet parts; an existing directory is
    resumed, so re-running an experiment reuses finished parts) and are loaded back.
    """
    confirm_games(games, "simulation", yes=yes)
    if run_dir is not None:
        return _simulate_to_dir(
            run_dir,
            players,
            policies,
            games,
            yes=yes,
            seed=seed,
            components=components,
            readings=readings,
            variant=variant,
            seating=seating,
            threads=threads,
            progress=progress,
        )
    config = _config(
        players,
        _labels(policies),
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        seating=seating,
    )
    _say(progress, f"  {games:,} games, {players} players: {', '.join(config.labels)}")
    expect_games(games)
    start = time.perf_counter()
    seats, games_df = play_games(config, games, threads=threads)
    seconds = time.perf_counter() - start
    comps = config.components
    meta = {
        "kind": "simulate",
        "status": "complete",
        "params": {
            "games": int(games),
            "players": int(players),
            "policies": config.labels,
            "policy_specs": [p.to_dict() for p in config.policies],
            "seed": int(seed),
            "variant": config.variant,
            "seating": config.seating,
            "pickaxe_optional": config.pickaxe_optional,
            "readings": config.readings.to_dict(),
            "threads": threads,
        },
        "components": {
            "source": comps.source,
            "content_hash": comps.content_hash,
            "estimated_values": comps.n_estimates,
            "estimated_keys": [r["key"] for r in comps.estimates()],
        },
        "timing": {
            "seconds": round(seconds, 3),
            "games_per_second": round(games / seconds) if seconds > 0 else None,
        },
    }
    return seats, games_df, meta


def _simulate_to_dir(run_dir, players, policies, games, *, progress: Progress = None, **kw):
    from pathlib import Path

    from bnb_sim.runner.simulate import simulate
    from bnb_sim.runner.storage import load_run

    path = Path(run_dir)
    resume = (path / "run.json").exists()
    _say(progress, f"  {games:,} games into {path}{' (resuming)' if resume else ''}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        simulate(int(games), int(players), _labels(policies), out=path, resume=resume, **kw)
    return load_run(path)


def _labels(policies: Sequence[str]) -> list[str]:
    return [s.label for s in _specs(policies)]


# --------------------------------------------------------------------------------------
# tournament


def play_tournament(
    policies: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    progress: Progress = None,
    yes: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, ...]]]:
    """Play every table of the round robin in every cyclic seating on seeds ``0..games-1``.

    Returns ``(seats, games, combos)``; ``game`` is a unique id
    ``(combo * players + rotation) * games + seed_index`` and ``seed_index`` the game index.
    """
    from bnb_sim.analysis.tournament import schedule, seatings
    from bnb_sim.games.builders_biomes.components import Components, load_components

    confirm_games(tournament_games(len(policies), players, games), "tournament", yes=yes)
    from bnb_sim.games.builders_biomes.policies.registry import check_distinct

    chosen = design_readings(readings, variant, seating="fixed", what="tournament")
    specs = _specs(policies)
    check_distinct(specs, "tournament")
    by_label = {s.label: s for s in specs}
    labels = [s.label for s in specs]
    combos = schedule(labels, players)
    if not isinstance(components, Components):
        components = load_components(components)
    games = int(games)
    if games < 1:
        raise BnbError("tournament: games must be at least 1")
    _say(
        progress,
        f"  {len(combos)} table(s) x {players} seatings x {games:,} seeds = "
        f"{len(combos) * players * games:,} games",
    )
    expect_games(len(combos) * players * games)
    seat_parts, game_parts = [], []
    for c, combo in enumerate(combos):
        for r, seating in enumerate(seatings(combo)):
            config = _config(
                players,
                [by_label[p] for p in seating],
                seed=seed,
                components=components,
                readings=chosen,
            )
            seats, games_df = play_games(
                config, games, threads=threads, keep=lambda col: col in _TOURNAMENT_SEAT_COLUMNS
            )
            uid_base = (c * players + r) * games
            seats = seats.assign(
                seed_index=seats["game"].to_numpy(),
                game=seats["game"].to_numpy() + uid_base,
                policy=seats["policy"].astype(str),
                combo=np.int32(c),
                rotation=np.int8(r),
            )
            games_df = games_df[["game", "winners", "turns"]].assign(
                seed_index=games_df["game"].to_numpy(),
                game=games_df["game"].to_numpy() + uid_base,
            )
            seat_parts.append(seats)
            game_parts.append(games_df)
    seats = pd.concat(seat_parts, ignore_index=True)
    games_all = pd.concat(game_parts, ignore_index=True)
    return seats, games_all, combos


def run_tournament(
    policies: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    n_boot: int = 200,
    anchor: str | None = "auto",
    name: str | None = None,
    progress: Progress = None,
    yes: bool = False,
):
    """Play and analyse a tournament; returns a :class:`~bnb_sim.analysis.tournament.
    TournamentResult`."""
    from bnb_sim.analysis.tournament import analyse_tournament

    seats, games_df, combos = play_tournament(
        policies,
        players,
        games,
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        threads=threads,
        progress=progress,
        yes=yes,
    )
    labels = _labels(policies)
    chosen = design_readings(readings, variant, seating="fixed", what="tournament")
    return analyse_tournament(
        seats,
        games_df,
        policies=labels,
        players=players,
        seed=seed,
        n_boot=n_boot,
        anchor=anchor,
        combos=combos,
        name=name,
        params={
            "policies": labels,
            "players": int(players),
            "games": int(games),
            "seed": int(seed),
            "variant": chosen["variant"],
            "readings": chosen,
            "bootstrap": int(n_boot),
            "estimated": _estimates(components),
        },
    )


def _estimates(components, chosen=()) -> dict:
    """The estimated component values the games rest on (the report's warning)."""
    from bnb_sim.analysis.estimated import estimates_meta
    from bnb_sim.games.builders_biomes.components import Components, load_components

    if not isinstance(components, Components):
        components = load_components(components)
    return estimates_meta(components, chosen)


# --------------------------------------------------------------------------------------
# compare


def _side_outcomes(seats: pd.DataFrame, games_df: pd.DataFrame, player: int):
    """(score, outright win, shared win) per game of player index ``player``."""
    rows = seats[seats["player"].to_numpy() == player]
    won = rows["won"].to_numpy(dtype=bool)
    winners = games_df["winners"].to_numpy(dtype=float)
    if won.size != winners.size:
        raise RuntimeError("compare: expected one row per game for the tested player")
    score = np.where(won, 1.0 / np.maximum(winners, 1.0), 0.0)
    outright = won & (winners == 1)
    shared = won & (winners > 1)
    return score, outright, shared


def compare_player(
    a: str,
    b: str,
    *,
    opponents: Sequence[str] = (),
    players: int | None = None,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
):
    """``(play, mode, players, opponents)``: ``play(start, n)`` gives the per-seed frame.

    Head-to-head (no opponents): configs ``[A, B]`` and ``[B, A]`` with fixed seats on the
    same game indices. Against a field: ``[A, *opponents]`` and ``[B, *opponents]`` with the
    seating rotating by game index in both, so A and B take the same seat against the same
    opponents on every seed.
    """
    from bnb_sim.analysis.compare import FIELD, HEAD_TO_HEAD
    from bnb_sim.games.builders_biomes.components import Components, load_components

    play_block = _play_block
    if not isinstance(components, Components):
        components = load_components(components)
    spec_a, spec_b = _specs([a])[0], _specs([b])[0]
    opp = _specs(opponents) if opponents else []
    if not opp:
        if players not in (None, 2):
            raise BnbError("compare: a head-to-head comparison (no --opponents) has 2 players")
        chosen = design_readings(readings, variant, seating="fixed", what="compare")
        kw = dict(seed=seed, components=components, readings=chosen)
        ab = _config(2, [spec_a, spec_b], **kw)
        ba = _config(2, [spec_b, spec_a], **kw)

        def play(start: int, n: int) -> pd.DataFrame:
            s1, g1 = play_block(ab, start, n, threads)
            s2, g2 = play_block(ba, start, n, threads)
            games_played(2 * n)
            sa1, wa1, ta1 = _side_outcomes(s1, g1, 0)
            sb1, wb1, tb1 = _side_outcomes(s1, g1, 1)
            sb2, wb2, tb2 = _side_outcomes(s2, g2, 0)
            sa2, wa2, ta2 = _side_outcomes(s2, g2, 1)
            return pd.DataFrame(
                {
                    "seed": np.arange(start, start + n),
                    "score_a": (sa1 + sa2) / 2.0,
                    "score_b": (sb1 + sb2) / 2.0,
                    "wins_a": wa1.astype(int) + wa2,
                    "wins_b": wb1.astype(int) + wb2,
                    "shared_a": ta1.astype(int) + ta2,
                    "shared_b": tb1.astype(int) + tb2,
                    "games": 2,
                }
            )

        return play, HEAD_TO_HEAD, 2, []

    n_players = int(players) if players is not None else 1 + len(opp)
    if not 2 <= n_players <= 4:
        raise BnbError(f"compare: players must be between 2 and 4, got {n_players}")
    if len(opp) > n_players - 1:
        raise BnbError(f"compare: {len(opp)} opponents do not fit {n_players} players")
    table = [opp[i % len(opp)] for i in range(n_players - 1)]
    chosen = design_readings(readings, variant, seating="rotate", what="compare")
    kw = dict(seed=seed, components=components, readings=chosen)
    with_a = _config(n_players, [spec_a, *table], **kw)
    with_b = _config(n_players, [spec_b, *table], **kw)

    def play_field(start: int, n: int) -> pd.DataFrame:
        s1, g1 = play_block(with_a, start, n, threads)
        s2, g2 = play_block(with_b, start, n, threads)
        games_played(2 * n)
        sa, wa, ta = _side_outcomes(s1, g1, 0)
        sb, wb, tb = _side_outcomes(s2, g2, 0)
        return pd.DataFrame(
            {
                "seed": np.arange(start, start + n),
                "score_a": sa,
                "score_b": sb,
                "wins_a": wa.astype(int),
                "wins_b": wb.astype(int),
                "shared_a": ta.astype(int),
                "shared_b": tb.astype(int),
                "games": 2,
            }
        )

    return play_field, FIELD, n_players, [s.label for s in table]


def run_compare(
    a: str,
    b: str,
    *,
    opponents: Sequence[str] = (),
    players: int | None = None,
    sprt: tuple[float, float] | None = None,
    precision: float | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 200_000,
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    name: str | None = None,
    progress: Progress = None,
    first_batch: int | None = None,
    yes: bool = False,
):
    """Play A vs B on paired seeds until the stopping rule decides (see
    :mod:`bnb_sim.analysis.compare`); returns a :class:`~bnb_sim.analysis.compare.
    CompareResult`."""
    from bnb_sim.analysis import compare as C

    confirm_games(max_games, "compare", yes=yes)  # the most it can play
    rule = C.make_rule(sprt, precision, alpha, beta)
    play, mode, n_players, table = compare_player(
        a,
        b,
        opponents=opponents,
        players=players,
        seed=seed,
        components=components,
        readings=readings,
        variant=variant,
        threads=threads,
    )
    chosen = design_readings(
        readings, variant, seating="fixed" if not opponents else "rotate", what="compare"
    )
    label_a, label_b = _labels([a])[0], _labels([b])[0]
    _say(progress, f"  {label_a} vs {label_b} ({mode}, {n_players} players)")
    expect_games(int(max_games))  # an upper bound: the stopping rule may end it sooner
    pairs, reason = C.run_sequential(
        play,
        rule,
        games_per_seed=2,
        max_games=max_games,
        first_batch=first_batch or C.FIRST_BATCH,
        progress=progress,
    )
    return C.summarise(
        pairs,
        rule,
        reason,
        a=label_a,
        b=label_b,
        mode=mode,
        opponents=table,
        players=n_players,
        seed=seed,
        name=name,
        params={
            "a": label_a,
            "b": label_b,
            "opponents": table,
            "players": n_players,
            "sprt": list(sprt) if sprt else None,
            "precision": precision,
            "alpha": alpha,
            "beta": beta,
            "max_games": int(max_games),
            "seed": int(seed),
            "variant": chosen["variant"],
            "readings": chosen,
        },
    )


# --------------------------------------------------------------------------------------
# sweep


def _sweep_keep(column: str) -> bool:
    return column in ("game", "seat", "policy", "won") or column.startswith(_SWEEP_SEAT_PREFIXES)


def run_sweep(
    sets: Sequence[tuple[str, Sequence[Any]]] | None = None,
    *,
    games: int,
    players: int,
    policies: Sequence[str],
    mode: str = "grid",
    seed: int = 0,
    components=None,
    readings=None,
    variant: str | None = None,
    threads: int | None = None,
    variants: Sequence | None = None,
    name: str | None = None,
    progress: Progress = None,
    yes: bool = False,
):
    """Play the same seeds under every variant and analyse the effects (see
    :mod:`bnb_sim.analysis.sweep`); returns a :class:`~bnb_sim.analysis.sweep.SweepResult`.

    ``sets`` = ``[(path, [values...]), ...]`` (or prebuilt ``variants``); ``components`` is the
    baseline (a Components, a path or None for the default file).
    """
    from bnb_sim.analysis.sweep import analyse_sweep, build_variants
    from bnb_sim.games.builders_biomes.components import Components, load_components

    if not isinstance(components, Components):
        components = load_components(components)
    if variants is None:
        variants = build_variants(components, sets or [], mode)
    confirm_games(len(variants) * int(games), "sweep", yes=yes)
    labels = _labels(policies)
    chosen = design_readings(readings, variant, seating="rotate", what="sweep")
    frames = {}
    expect_games(int(games) * len(variants))
    for i, v in enumerate(variants):
        _say(progress, f"  variant {i + 1}/{len(variants)}: {v.name}")
        config = _config(
            players,
            labels,
            seed=seed,
            components=v.components,
            readings=chosen,
        )
        frames[v.name] = play_games(config, int(games), threads=threads, keep=_sweep_keep)
    paths = list(dict.fromkeys(p for v in variants for p in v.changes))
    return analyse_sweep(
        variants,
        frames,
        policies=labels,
        players=players,
        games=games,
        seed=seed,
        mode=mode,
        name=name,
        params={
            "paths": paths,
            "mode": mode,
            "games": int(games),
            "players": int(players),
            "policies": labels,
            "seed": int(seed),
            "variant": chosen["variant"],
            "readings": chosen,
            "estimated": _estimates(components, paths),
        },
    )


# --------------------------------------------------------------------------------------
# experiments


def run_item(spec, *, threads: int | None = None, progress: Progress = None, yes: bool = False):
    """Play one item of an experiment (a *Spec of :mod:`bnb_sim.analysis.experiment`); the
    caller has counted its games (:func:`run_experiment`)."""
    if callable(getattr(spec, "run", None)):  # an item of another game plays itself
        return spec.run(threads=threads, progress=progress, yes=yes)
    common = dict(seed=spec.seed, components=spec.components, readings=spec.readings)
    if spec.kind != "simulation":
        common["yes"] = yes
    if spec.kind == "simulation":
        return run_simulation(
            spec.players,
            spec.policies,
            spec.games,
            threads=threads,
            progress=progress,
            run_dir=spec.run_dir,
            yes=yes,
            **common,
        )
    if spec.kind == "tournament":
        return run_tournament(
            spec.policies,
            spec.players,
            spec.games,
            threads=threads,
            n_boot=spec.bootstrap,
            anchor=spec.anchor,
            name=spec.name,
            progress=progress,
            **common,
        )
    if spec.kind == "sweep":
        return run_sweep(
            games=spec.games,
            players=spec.players,
            policies=spec.policies,
            mode=spec.mode,
            variants=spec.variants,
            threads=threads,
            name=spec.name,
            progress=progress,
            **common,
        )
    if spec.kind == "compare":
        return run_compare(
            spec.a,
            spec.b,
            opponents=spec.opponents,
            players=spec.players,
            sprt=spec.sprt,
            precision=spec.precision,
            alpha=spec.alpha,
            beta=spec.beta,
            max_games=spec.max_games,
            threads=threads,
            name=spec.name,
            progress=progress,
            **common,
        )
    if spec.kind == "tune":
        from bnb_sim.tune.experiment_item import run_tune_item

        return run_tune_item(spec, threads=threads, progress=progress)
    raise BnbError(f"unknown experiment item kind '{spec.kind}'")


def run_experiment(
    experiment, *, threads: int | None = None, progress: Progress = None, yes: bool = False
):
    """Play every item of an experiment in file order; returns the list of ItemOutcome.

    The games of all items are counted first: above the ``--yes`` threshold nothing plays.
    """
    from bnb_sim.analysis.experiment import ItemOutcome

    confirm_games(experiment_games(experiment), f"run: {experiment.source}", yes=yes)
    threads = threads or experiment.threads
    outcomes = []
    for i, spec in enumerate(experiment.items):
        _say(progress, f"[{i + 1}/{len(experiment.items)}] {spec.kind} '{spec.name}'")
        start = time.perf_counter()
        result = run_item(spec, threads=threads, progress=progress, yes=yes)
        outcomes.append(ItemOutcome(spec, result, time.perf_counter() - start))
    return outcomes
