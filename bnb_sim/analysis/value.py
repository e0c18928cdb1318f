"""What an option is worth, by restricted play (``bnb value``; docs/statistics.md, "Value").

The design follows Jaffe, Miller, Andersen, Liu, Karlin, Popović and Popović, *Evaluating
competitive game balance with restricted play* (AIIDE 2012): the same bot plays once freely
and once with one option forbidden (``never``) or forced (``always``), on the same game
indices, against the same unrestricted opponents, and the difference in its win share is the
option's causal worth to that bot. With rotated seating the restricted player sits in every
seat in turn, so the value is averaged over seats (and reported per seat).

Estimator: for game index ``g``, ``v_g = w_free(g) - w_never(g)`` (``never``: the worth of being
allowed the option) or ``v_g = w_always(g) - w_free(g)`` (``always``: the worth of taking it
whenever legal), where ``w`` is the player's win share in that game (1 for a win, ``1/k`` for a
``k``-way tie, 0 otherwise; the team's win for a cooperative game). The value is the mean of
``v_g`` over the ``n`` game indices, with a Student t interval on the ``v_g``: each game index
is one cluster holding one paired difference, so the t interval on the differences *is* the
interval clustered on the game index. When every ``v_g`` is equal (a bot that never meets the
option plays every game identically) the interval is the bound of
:func:`~bnb_sim.analysis.stats.constant_sample_interval`. Several options: p values against 0
are Holm-adjusted, and an option is named best (worst) only when its paired gap to every other
option excludes 0 (:mod:`bnb_sim.analysis.leaders`). Numpy and pandas only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MODES = ("never", "always", "replaced")  # replaced: a pet against the others (HotV)
METHOD = (
    "restricted play (Jaffe et al. 2012): the same bot with the option forbidden (never) or "
    "forced (always) against the unrestricted bot on the same game indices; t interval on the "
    "per-game paired differences (one cluster per game index)"
)


@dataclass
class OptionValue:
    """The value of one option: per-game paired differences and their summary."""

    option: str
    mode: str
    per_game: np.ndarray  # v_g, one per game index
    seats: np.ndarray  # the restricted player's seat in each game
    free_rate: float  # the player's win share without the restriction
    restricted_rate: float  # ... with it
    effect: dict[str, Any]  # stats.paired_difference of v_g against 0
    changed: int  # games in which the player's win share changed
    p_holm: float = math.nan
    by_seat: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def separated(self) -> bool:
        """Whether the interval excludes 0."""
        lo, hi = self.effect["lo"], self.effect["hi"]
        return bool(np.isfinite(lo) and np.isfinite(hi) and (lo > 0 or hi < 0))

    def to_dict(self) -> dict[str, Any]:
        e = self.effect
        return {
            "option": self.option,
            "mode": self.mode,
            "value": e["mean_diff"],
            "lo": e["lo"],
            "hi": e["hi"],
            "n": int(e["n"]),
            "p_value": e["p_value"],
            "p_holm": self.p_holm,
            "note": e["note"],
            "games_changed": int(self.changed),
            "win_share_free": self.free_rate,
            "win_share_restricted": self.restricted_rate,
            "by_seat": {
                str(s): {"value": d["mean_diff"], "lo": d["lo"], "hi": d["hi"], "n": int(d["n"])}
                for s, d in self.by_seat.items()
            },
        }


def option_value(
    option: str, mode: str, free: np.ndarray, restricted: np.ndarray, seats: np.ndarray
) -> OptionValue:
    """The value of ``option`` from the player's per-game win shares ``free`` and
    ``restricted`` (the same game indices, in the same order) and its ``seats``."""
    from bnb_sim.analysis.stats_paired import paired_difference

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    free = np.asarray(free, dtype=float)
    restricted = np.asarray(restricted, dtype=float)
    seats = np.asarray(seats)
    if not (free.shape == restricted.shape == seats.shape):
        raise ValueError("option_value: free, restricted and seats differ in length")
    better, worse = (restricted, free) if mode == "always" else (free, restricted)
    per_game = better - worse
    effect = paired_difference(better, worse, bounds=(-1.0, 1.0))
    by_seat = {
        int(s): paired_difference(better[seats == s], worse[seats == s], bounds=(-1.0, 1.0))
        for s in np.unique(seats)
    }
    return OptionValue(
        option=option,
        mode=mode,
        per_game=per_game,
        seats=seats,
        free_rate=float(free.mean()) if free.size else math.nan,
        restricted_rate=float(restricted.mean()) if restricted.size else math.nan,
        effect=effect,
        changed=int(np.count_nonzero(per_game)),
        by_seat=by_seat,
    )


@dataclass
class ValueResult:
    """The values of one or more options for one bot and one set-up (``bnb value``)."""

    game: str
    players: int
    policy: str
    seed: int
    n_games: int
    setup: dict[str, Any]  # expansion, readings, components, opponents: what the runs shared
    options: list[OptionValue]
    outcome: str = "win share"  # "team win" for a cooperative game
    wall_s: float = math.nan
    ranking: Any = None  # leaders.Ranking over the options (two or more)

    def __post_init__(self):
        from bnb_sim.analysis.leaders import holm, paired_ranking

        adjusted = holm([o.effect["p_value"] for o in self.options])
        for o, p in zip(self.options, adjusted, strict=True):
            o.p_holm = float(p)
        self.options.sort(key=lambda o: -o.effect["mean_diff"])
        if len(self.options) > 1:
            self.ranking = paired_ranking(
                {o.option: o.per_game for o in self.options}, bounds=(-2.0, 2.0)
            )

    def __repr__(self) -> str:
        best = f"; best {self.best}" if self.best else ""
        shown = ", ".join(
            f"{o.option} {100 * o.effect['mean_diff']:+.1f} pp "
            f"[{100 * o.effect['lo']:+.1f}, {100 * o.effect['hi']:+.1f}]"
            for o in self.options[:4]
        )
        more = f", ... ({len(self.options)} options)" if len(self.options) > 4 else ""
        return (f"<ValueResult {self.game}, {self.players} players, {self.policy}: "
                f"{shown}{more}{best}; {self.n_games:,} games per run>")  # fmt: skip

    @property
    def best(self) -> str | None:
        """The option worth most, named only when separated from every other one."""
        if self.ranking is None or not self.ranking.leader.separated:
            return None
        return self.ranking.leader.first

    @property
    def worst(self) -> str | None:
        if self.ranking is None or not self.ranking.trailer.separated:
            return None
        return self.ranking.trailer.first

    def to_dict(self) -> dict[str, Any]:
        out = {
            "game": self.game,
            "players": self.players,
            "policy": self.policy,
            "seed": self.seed,
            "games": self.n_games,
            "outcome": self.outcome,
            "setup": self.setup,
            "method": METHOD,
            "multiple_comparisons": (
                "p_holm: Holm-adjusted over the options; best/worst named only when the paired "
                "gap to every other option excludes 0 (an intersection-union test)"
            ),
            "options": [o.to_dict() for o in self.options],
            "best": self.best,
            "worst": self.worst,
        }
        if self.ranking is not None:
            out["ranking"] = {
                "best": self.ranking.leader.to_dict(),
                "worst": self.ranking.trailer.to_dict(),
            }
        if math.isfinite(self.wall_s):
            out["wall_s"] = round(self.wall_s, 1)
        return out


def _arrow(result: ValueResult) -> str:
    modes = {o.mode for o in result.options}
    return "with → replaced" if modes == {"replaced"} else "free → restricted"


def value_rows(result: ValueResult) -> list[dict[str, str]]:
    """The ranked table: one row per option, its value with the interval and n."""
    from bnb_sim.analysis.table_format import fmt_signed_pp

    rows = []
    for rank, o in enumerate(result.options, start=1):
        e = o.effect
        note = "no game changed" if o.changed == 0 else e["note"] or None
        rows.append(
            {
                "rank": str(rank),
                "option": f"{o.mode} {o.option}",
                "value [95% CI]": fmt_signed_pp(e["mean_diff"], e["lo"], e["hi"], note=note),
                "p (Holm)": f"{o.p_holm:.2g}" if math.isfinite(o.p_holm) else "",
                "n": f"{int(e['n']):,}",
                "games changed": f"{o.changed:,}",
                f"{result.outcome} {_arrow(result)}": (
                    f"{100 * o.free_rate:.1f}% → {100 * o.restricted_rate:.1f}%"
                ),
            }
        )
    return rows


def verdict_lines(result: ValueResult) -> list[str]:
    """Best and worst in words: named only when separated, else "tied"."""
    if result.ranking is None:
        o = result.options[0]
        sign = "helps" if o.effect["mean_diff"] > 0 else "hurts"
        if not o.separated:
            return [f"{o.option}: no detectable value (the interval includes 0)."]
        return [f"{o.option} {sign} the {result.policy} bot (the interval excludes 0)."]
    best = result.ranking.leader.claim("is worth most", name=lambda s: f"`{s}`")
    worst = result.ranking.trailer.claim("is worth least", name=lambda s: f"`{s}`")
    return [f"{best[0].upper()}{best[1:]}.", f"{worst[0].upper()}{worst[1:]}."]


def format_value(result: ValueResult) -> str:
    """Plain-text answer of ``bnb value``."""
    rows = value_rows(result)
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in cols}
    lines = [
        f"Value of options to '{result.policy}' ({result.game}, {result.players} players, "
        f"{result.n_games:,} game indices per option, seed {result.seed})",
        "  ".join(c.ljust(widths[c]) for c in cols),
    ]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in cols) for r in rows]
    lines += verdict_lines(result)
    lines.append(
        ("value: replaced pet:X = team win rate of the teams with X minus the same teams with X "
         "replaced by each other pet. " if _arrow(result) == "with → replaced" else
         "value: never X = win share allowed X minus forbidden X; always X = forced minus free. ")
        + "Paired on the game index (95% t intervals; p Holm-adjusted over the options)."
    )  # fmt: skip
    return "\n".join(lines)
