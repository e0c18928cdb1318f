"""Playing a paired comparison of two policies: head to head or against a field of opponents, on
the same game indices (:func:`compare_player`), until the stopping rule decides
(:func:`run_compare`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnb_sim.errors import BnbError
from bnb_sim.feedback import expect_games, games_played
from bnb_sim.runner.budget import confirm_games
from bnb_sim.runner.design_play import (
    Progress,
    _config,
    _labels,
    _play_block,
    _say,
    _specs,
    design_readings,
)
from bnb_sim.runner.study_hooks import study_hooks


def _winners(seats: pd.DataFrame, games_df: pd.DataFrame) -> np.ndarray:
    """The number of winners of each game: the games frame's ``winners`` where the game
    records it, else counted from the seats' ``won`` (one row per seat, games in order)."""
    if "winners" in games_df.columns:
        return games_df["winners"].to_numpy(dtype=float)
    return seats.groupby("game", sort=True)["won"].sum().to_numpy(dtype=float)


def _side_outcomes(seats: pd.DataFrame, games_df: pd.DataFrame, player: int):
    """(score, outright win, shared win) per game of player index ``player``."""
    rows = seats[seats["player"].to_numpy() == player]
    won = rows["won"].to_numpy(dtype=bool)
    winners = _winners(seats, games_df)
    if won.size != winners.size:
        raise RuntimeError("compare: expected one row per game for the tested player")
    score = np.where(won, 1.0 / np.maximum(winners, 1.0), 0.0)
    outright = won & (winners == 1)
    shared = won & (winners > 1)
    return score, outright, shared


def check_policies(
    specs: Sequence[str],
    *,
    players: int | None = None,
    game: str | None = None,
    options: dict | None = None,
) -> None:
    """Refuse a policy spec ``game`` does not know, before any game is played: in the words
    of its ``policy_labels`` hook where it offers one, else of its ``make_config`` (one
    config of the specs, not played)."""
    from bnb_sim.core.protocol import hook
    from bnb_sim.core.registry import get_game
    from bnb_sim.runner.study_hooks import game_name

    labels = hook(get_game(game_name(game)), "policy_labels")
    if labels is not None:
        labels(list(specs), distinct=None)
        return
    own = {"options": dict(options)} if options else {}
    _config(players or 2, list(specs), game=game, **own)


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
    game: str | None = None,
    options: dict | None = None,
):
    """``(play, mode, players, opponents)``: ``play(start, n)`` gives the per-seed frame.

    Head-to-head (no opponents): configs ``[A, B]`` and ``[B, A]`` with fixed seats on the
    same game indices. Against a field: ``[A, *opponents]`` and ``[B, *opponents]`` with the
    seating rotating by game index in both, so A and B take the same seat against the same
    opponents on every seed. ``game``: the game's name (None: the default game);
    ``options``: its own options (:class:`~bnb_sim.core.protocol.OptionSpec` values given).
    """
    from bnb_sim.analysis.compare import FIELD, HEAD_TO_HEAD

    def play_block(config, start: int, n: int, threads: int | None):
        return _play_block(config, start, n, threads, game)

    components = study_hooks(game).load_components(components)
    spec_a, spec_b = _specs([a], game)[0], _specs([b], game)[0]
    opp = _specs(opponents, game) if opponents else []
    own = {"options": dict(options)} if options else {}  # a game without options takes none
    if not opp:
        if players not in (None, 2):
            raise BnbError("compare: a head-to-head comparison (no --opponents) has 2 players")
        chosen = design_readings(readings, variant, seating="fixed", what="compare", game=game)
        kw = dict(seed=seed, components=components, readings=chosen, game=game, **own)
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
    chosen = design_readings(readings, variant, seating="rotate", what="compare", game=game)
    kw = dict(seed=seed, components=components, readings=chosen, game=game, **own)
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
    game: str | None = None,
    options: dict | None = None,
):
    """Play A vs B on paired seeds until the stopping rule decides (see
    :mod:`bnb_sim.analysis.compare`); returns a :class:`~bnb_sim.analysis.compare.
    CompareResult`. ``game``, ``options``: as :func:`compare_player`'s (any competitive
    game)."""
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
        game=game,
        options=options,
    )
    seating = "fixed" if not opponents else "rotate"
    chosen = design_readings(readings, variant, seating=seating, what="compare", game=game)
    label_a, label_b = _labels([a], game)[0], _labels([b], game)[0]
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
            "variant": chosen.get("variant"),  # a game without readings has none
            "readings": chosen,
        },
    )
