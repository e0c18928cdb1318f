"""Balance sweeps: the same games under component variants, effects against the baseline.

``bnb sweep --set mobs.enderman.hearts=5,6,7 --games N`` re-runs one simulation (players,
policies, seed, rule variant) under each value. Rules:

* **Values.** ``--set PATH=V1,V2,...``: ``PATH`` is a dotted key of the component file (as
  ``bnb components`` lists them, e.g. ``mobs.enderman.hearts``,
  ``scoring.a.values.desert``, ``weapons.tnt.detonate_hearts``); each value is read as a
  TOML value (``5``, ``"x"``, ``[1, 2]``), a bare word as a string. Commas inside ``[...]`` or
  quotes do not split. A wrong path or value is a :class:`~bnb_sim.errors.ComponentError`
  naming it.
* **Several ``--set``** form a **grid** (every combination) by default, or a **zip** (the
  i-th values together; every list must have the same length) with ``--zip``. At most
  :data:`MAX_VARIANTS` variants (the baseline not counted).
* **Baseline.** The unchanged component file. A variant whose values all equal the file's
  values *is* the baseline (it is not played twice); otherwise the baseline is added.
* **Paired design.** Every variant plays the same game indices with the same seating
  rotation, so a seed's deal and dice are shared (as far as the change lets them be); effects
  are paired differences per seed against the baseline: per policy, the seed's win share
  (wins / seats of that policy) and mean XP; over all players, each XP source and the game
  length. Intervals: Student t on the per-seed differences (95%); when no seed changed (all
  differences equal) a win-rate effect gets the bound of
  :func:`~bnb_sim.analysis.stats.constant_sample_interval` and other effects say there is no
  interval, never a zero-width one. Win rates themselves carry Wilson intervals (clustered
  by game when a policy plays several seats).

Nothing here imports numba; :mod:`bnb_sim.runner.experiments` plays the games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots, tables
from bnb_sim.analysis.estimated import add_estimated_warning
from bnb_sim.analysis.names import display_names, rename_frame
from bnb_sim.analysis.report import ReportBuilder, Section, readings_text
from bnb_sim.analysis.stats import mean_ci, paired_difference, pct_digits
from bnb_sim.analysis.sweep_fairness import (
    analyse_fairness,
    fairness_findings,
    fairness_lines,
    fairness_section,
    fairness_summary,
    is_mirror,
    mirror_text,
)
from bnb_sim.analysis.sweep_plots import _short, effect_plot
from bnb_sim.errors import BnbError, ComponentError
from bnb_sim.safe_io import digits

__all__ = [
    "MAX_VARIANTS",
    "SweepResult",
    "Variant",
    "analyse_sweep",
    "build_sweep_report",
    "build_variants",
    "effect_plot",
    "format_sweep",
    "parse_set_option",
    "split_values",
    "sweep_sections",
    "sweep_summary",
    "variant_combinations",
]

MAX_VARIANTS = 50
SEAT_COLUMNS_NEEDED = ("game", "seat", "policy", "won", "xp")


# --------------------------------------------------------------------------------------
# variants


def split_values(text: str) -> list[str]:
    """Split ``5,6,7`` on commas that are not inside ``[...]``, ``{...}`` or quotes."""
    parts, depth, quote, current = [], 0, "", []
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip())
    return parts


def parse_set_option(text: str, origin: str = "--set") -> tuple[str, list[Any]]:
    """``"mobs.enderman.hearts=5,6,7"`` -> ``("mobs.enderman.hearts", [5, 6, 7])``."""
    from bnb_sim.games.builders_biomes.components import parse_assignment

    path, eq, values = str(text).partition("=")
    path = path.strip()
    if not eq or not path or not values.strip():
        raise ComponentError(
            origin, str(text), "expected PATH=V1,V2,..., e.g. mobs.enderman.hearts=5,6,7"
        )
    out = []
    for raw in split_values(values):
        if not raw:
            raise ComponentError(origin, path, f"empty value in '{values.strip()}'")
        out.append(parse_assignment(f"{path}={raw}", origin=origin)[1])
    if len({repr(v) for v in out}) != len(out):
        raise ComponentError(origin, path, "a value is listed twice")
    return path, out


def _lookup(data: Any, path: str) -> Any:
    node = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and (i := digits(part)) is not None and i < len(node):
            node = node[i]
        else:
            return None
    return node


def _fmt_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("'", '"')


@dataclass
class Variant:
    """One set of component values: ``changes`` maps dotted paths to values."""

    name: str
    changes: dict[str, Any]
    components: Any  # bnb_sim.games.builders_biomes.components.Components
    baseline: bool = False


def variant_combinations(
    sets: Sequence[tuple[str, Sequence[Any]]],
    mode: str = "grid",
    origin: str = "--set",
    max_variants: int = MAX_VARIANTS,
) -> list[tuple]:
    """The value combinations of ``sets`` = ``[(path, [values...]), ...]``: every combination
    (``"grid"``) or the i-th values together (``"zip"``), in order. Any game's sweep checks its
    ``--set`` lists here: :class:`BnbError` for an empty sweep, a path set twice, a zip of
    unequal lengths or too many variants, :class:`ComponentError` for a path without values.
    """
    sets = [(str(p), list(v)) for p, v in sets]
    if not sets:
        raise BnbError("sweep: nothing to sweep; give --set PATH=V1,V2,...")
    paths = [p for p, _ in sets]
    if len(set(paths)) != len(paths):
        dup = next(p for p in paths if paths.count(p) > 1)
        raise BnbError(f"sweep: path '{dup}' is set twice")
    for path, values in sets:
        if not values:
            raise ComponentError(origin, path, "no values to sweep")
    if mode == "zip":
        lengths = {len(v) for _, v in sets}
        if len(lengths) != 1:
            raise BnbError(
                "sweep: --zip needs the same number of values for every --set, got "
                + ", ".join(f"{p}: {len(v)}" for p, v in sets)
            )
        combos = list(zip(*[v for _, v in sets], strict=True))
    elif mode == "grid":
        total = math.prod(len(v) for _, v in sets)
        if total > max_variants:
            raise BnbError(
                f"sweep: {' x '.join(str(len(v)) for _, v in sets)} = {total} variants; "
                f"the limit is {max_variants} besides the baseline (use fewer values, or --zip)"
            )
        combos = list(itertools.product(*[v for _, v in sets]))
    else:
        raise BnbError(f"sweep: mode must be 'grid' or 'zip', got '{mode}'")
    if len(combos) > max_variants:
        raise BnbError(
            f"sweep: {len(combos)} variants; the limit is {max_variants} besides the baseline"
        )
    return combos


def build_variants(
    base,
    sets: Sequence[tuple[str, Sequence[Any]]],
    mode: str = "grid",
    origin: str = "--set",
    max_variants: int = MAX_VARIANTS,
) -> list[Variant]:
    """Variants of ``base`` (a Components) for ``sets`` = ``[(path, [values...]), ...]``.

    Variants come in grid (or zip) order; the baseline keeps its place when the file's values
    are among the swept ones and comes first otherwise. Raises :class:`ComponentError` for a
    bad path or value and :class:`BnbError` for an empty sweep, a zip of unequal lengths or
    too many variants.
    """
    sets = [(str(p), list(v)) for p, v in sets]
    combos = variant_combinations(sets, mode, origin, max_variants)
    paths = [p for p, _ in sets]
    base_values = {p: _lookup(base.data, p) for p in paths}
    variants: list[Variant] = []
    baseline: Variant | None = None
    for combo in combos:
        changes = dict(zip(paths, combo, strict=True))
        comps = base.with_values(changes, origin=origin)  # validates every path and value
        name = ", ".join(f"{p}={_fmt_value(v)}" for p, v in changes.items())
        is_base = all(
            base_values[p] == v and type(base_values[p]) is type(v) for p, v in changes.items()
        )
        if is_base and baseline is None:
            baseline = Variant(f"{name} (baseline)", changes, base, baseline=True)
            variants.append(baseline)
        else:
            variants.append(Variant(name, changes, comps))
    if baseline is None:  # the file's values are not among the swept ones: play them first
        shown = ", ".join(f"{p}={_fmt_value(base_values[p])}" for p in paths)
        variants.insert(0, Variant(f"{shown} (baseline)", dict(base_values), base, baseline=True))
    return variants


# --------------------------------------------------------------------------------------
# analysis


@dataclass
class SweepResult:
    variants: list[Variant]
    policies: list[str]
    players: int
    games: int
    seed: int
    win_rates: pd.DataFrame  # variant, policy, k, n, rate, lo, hi
    win_effects: pd.DataFrame  # variant, policy, mean_diff, lo, hi, n, p_value
    xp: pd.DataFrame  # variant, policy, mean, lo, hi, n
    xp_effects: pd.DataFrame  # variant, policy, mean_diff, lo, hi, n, p_value
    xp_sources: pd.DataFrame  # index variant, columns xp_* (mean per player and game)
    source_effects: pd.DataFrame  # variant, source, mean_diff, lo, hi, n, p_value
    fights: pd.DataFrame  # variant, mob, attempts, k, n, rate, lo, hi
    length: pd.DataFrame  # variant, mean, lo, hi, n, mean_diff, d_lo, d_hi
    ties: pd.DataFrame  # variant, k, n, rate, lo, hi
    fairness: pd.DataFrame = field(default_factory=pd.DataFrame)  # see sweep_fairness
    fairness_changes: pd.DataFrame = field(default_factory=pd.DataFrame)
    mode: str = "grid"
    params: dict = field(default_factory=dict)
    name: str | None = None

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.variants)
        return (
            f"<SweepResult {len(self.variants)} variants ({names}); policies "
            f"{', '.join(self.policies)}; {self.players} players, {self.games:,} games each>"
        )


def _per_game_policy(seats: pd.DataFrame, column: str, policies: Sequence[str]) -> pd.DataFrame:
    """Per game (rows, sorted) and policy (columns): the mean of ``column`` over its seats."""
    values = seats[column].to_numpy(dtype=float)
    frame = pd.DataFrame(
        {"game": seats["game"].to_numpy(), "policy": seats["policy"].astype(str), "v": values}
    )
    wide = frame.pivot_table(index="game", columns="policy", values="v", aggfunc="mean")
    return wide.reindex(columns=list(policies)).sort_index()


def _per_game(seats: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    frame = seats[["game", *columns]].astype({c: float for c in columns})
    return frame.groupby("game", sort=True)[list(columns)].mean()


def _aligned(a: pd.DataFrame | pd.Series, b: pd.DataFrame | pd.Series):
    index = a.index.intersection(b.index)
    return a.loc[index], b.loc[index]


def analyse_sweep(
    variants: Sequence[Variant],
    frames: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    *,
    policies: Sequence[str],
    players: int,
    games: int,
    seed: int = 0,
    mode: str = "grid",
    params: dict | None = None,
    name: str | None = None,
    confidence: float = 0.95,
) -> SweepResult:
    """Tables of a sweep: ``frames[variant.name] = (seats, games)``, baseline first.
    Policies given by a file are shown by their names (:mod:`bnb_sim.analysis.names`)."""
    names = [v.name for v in variants]
    base_name = next(v.name for v in variants if v.baseline)
    shown = display_names(policies)
    if any(k != v for k, v in shown.items()):
        frames = {
            key: (rename_frame(seats, shown), rename_frame(games_, shown))
            for key, (seats, games_) in frames.items()
        }
        params = {**(params or {}), "policy_names": {v: k for k, v in shown.items() if k != v}}
    policies = list(dict.fromkeys(shown[str(p)] for p in policies))
    win_rows, effect_rows, xp_rows, xp_effect_rows = [], [], [], []
    source_rows, fight_frames, length_rows, tie_rows = [], [], [], []
    base_seats, base_games = frames[base_name]
    base_win = _per_game_policy(base_seats, "won", policies)
    base_xp = _per_game_policy(base_seats, "xp", policies)
    sources = tables.xp_sources(base_seats.columns)
    base_sources = _per_game(base_seats, sources) if sources else None
    base_turns = base_games.set_index("game")["turns"].astype(float).sort_index()
    source_means = {}
    for variant in names:
        seats, games_df = frames[variant]
        rates = tables.win_rates(seats, "policy", policies)
        rates.insert(0, "variant", variant)
        win_rows.append(rates)
        win = _per_game_policy(seats, "won", policies)
        xp = _per_game_policy(seats, "xp", policies)
        for policy in policies:
            ci = mean_ci(xp[policy].to_numpy(), confidence)
            xp_rows.append({"variant": variant, "policy": policy, **ci})
            if variant != base_name:
                a, b = _aligned(win[policy], base_win[policy])
                # a win share is in [0, 1], so a difference is in [-1, 1]: when no seed
                # changed, that bounds how often one could (no zero-width interval)
                diff = paired_difference(a, b, confidence, bounds=(-1.0, 1.0))
                effect_rows.append({"variant": variant, "policy": policy, **diff})
                a, b = _aligned(xp[policy], base_xp[policy])
                xp_effect_rows.append(
                    {"variant": variant, "policy": policy, **paired_difference(a, b, confidence)}
                )
        if sources:
            per_game = _per_game(seats, sources)
            source_means[variant] = per_game.mean(axis=0)
            if variant != base_name:
                for source in [*sources, "total"]:
                    if source == "total":
                        a, b = _aligned(per_game.sum(axis=1), base_sources.sum(axis=1))
                    else:
                        a, b = _aligned(per_game[source], base_sources[source])
                    source_rows.append(
                        {"variant": variant, "source": source, **paired_difference(a, b)}
                    )
        fights = tables.fights_by_mob(seats)
        fights.insert(0, "variant", variant)
        fight_frames.append(fights)
        turns = games_df.set_index("game")["turns"].astype(float).sort_index()
        row = {"variant": variant, **mean_ci(turns.to_numpy(), confidence)}
        if variant != base_name:
            a, b = _aligned(turns, base_turns)
            diff = paired_difference(a, b, confidence)
            row.update(mean_diff=diff["mean_diff"], d_lo=diff["lo"], d_hi=diff["hi"])
        length_rows.append(row)
        ties = tables.tie_rate(games_df, seats)
        tie_rows.append({"variant": variant, **ties.to_dict()})
    xp_sources = pd.DataFrame(source_means).T.reindex(names) if source_means else pd.DataFrame()
    xp_sources.index.name = "variant"
    fairness, fairness_changes = analyse_fairness(names, base_name, frames, confidence)
    return SweepResult(
        variants=list(variants),
        policies=policies,
        players=int(players),
        games=int(games),
        seed=int(seed),
        win_rates=pd.concat(win_rows, ignore_index=True),
        win_effects=pd.DataFrame(effect_rows),
        xp=pd.DataFrame(xp_rows),
        xp_effects=pd.DataFrame(xp_effect_rows),
        xp_sources=xp_sources,
        source_effects=pd.DataFrame(source_rows),
        fights=pd.concat(fight_frames, ignore_index=True),
        length=pd.DataFrame(length_rows),
        ties=pd.DataFrame(tie_rows),
        fairness=fairness,
        fairness_changes=fairness_changes,
        mode=mode,
        params=dict(params or {}),
        name=name,
    )


# --------------------------------------------------------------------------------------
# plots


# in bnb_sim.analysis.sweep_plots (kept importable from here)


# --------------------------------------------------------------------------------------
# report


def _paths(result: SweepResult) -> list[str]:
    return list(dict.fromkeys(p for v in result.variants for p in v.changes))


def _digits(df: pd.DataFrame) -> int:
    """One number of decimals for a whole table of rates or differences (stats.pct_digits)."""
    return pct_digits(df["lo"].to_numpy(float), df["hi"].to_numpy(float))


def _effect_cell(row, percent: bool, digits: int | None = None) -> str:
    note = row.get("note", "") if hasattr(row, "get") else ""
    note = note if isinstance(note, str) else ""
    if percent:
        text = tables.fmt_signed_pp(row["mean_diff"], row["lo"], row["hi"], digits, note)
        if note == "all differences equal" and math.isfinite(row["lo"]):
            text += f" (no seed changed, n={int(row['n']):,})"
        return text
    if not math.isfinite(row["mean_diff"]):
        return "n/a"
    if not (math.isfinite(row["lo"]) and math.isfinite(row["hi"])):
        return f"{tables._num(row['mean_diff'], 2, True)} ({tables.no_interval_text(note)})"
    return (
        f"{tables._num(row['mean_diff'], 2, True)} [{tables._num(row['lo'], 2, True)}, "
        f"{tables._num(row['hi'], 2, True)}]"
    )


def _wide(df: pd.DataFrame, cells: list[str], columns: str, index: Sequence[str], order):
    wide = df.assign(cell=cells).pivot(index="variant", columns=columns, values="cell")
    wide = wide.reindex(index=list(index), columns=[c for c in order if c in wide.columns])
    return wide.fillna("–").rename_axis("variant").reset_index()


def sweep_sections(result: SweepResult, name: str | None = None) -> list[Section]:
    """Report sections: fairness per variant first (:mod:`~bnb_sim.analysis.sweep_fairness`),
    then the design, win-rate effects (table + plot; one sentence in a mirror match, where
    they are fixed by construction), XP effects, fights, length."""
    name = name if name is not None else result.name
    pre = f"{name}: " if name else ""
    slug = (name or "sweep").lower()
    paths = _paths(result)
    names = [v.name for v in result.variants]
    others = [v.name for v in result.variants if not v.baseline]
    base_name = next(v.name for v in result.variants if v.baseline)

    setup = Section(f"{pre}Sweep design" if name else "Sweep design")
    setup.text(
        f"{len(others)} variant{'s' if len(others) != 1 else ''} of "
        f"{', '.join(f'`{p}`' for p in paths)} ({result.mode}) against the baseline (the "
        f"component file's values), each on the same {result.games:,} seeds (game indices 0.."
        f"{result.games - 1}): {result.players} players, policies "
        f"{', '.join(result.policies)}, seating rotating with the game index. Effects are paired "
        "differences per seed against the baseline with 95% Student t intervals; win rates "
        "carry 95% Wilson intervals."
    )
    setup.text(f"Rule readings: {readings_text(result.params)}.")
    setup.table(
        pd.DataFrame(
            {
                "variant": names,
                "changed values": [
                    "–"
                    if v.baseline
                    else ", ".join(f"`{p}` = {_fmt_value(x)}" for p, x in v.changes.items())
                    for v in result.variants
                ],
                "games": [f"{result.games:,}"] * len(names),
            }
        )
    )
    setup.text(
        "The swept values are this sweep's settings (house rules under test), not estimates; "
        "the baseline keeps the component file's values and provenance."
    )

    wins = Section(f"{pre}Effect on win rates")
    if is_mirror(result.policies):  # a one-policy table: the rate is fixed by construction
        wins.text(mirror_text(result))
    else:
        _win_blocks(wins, result, names, others, paths, pre, slug, base_name)
    rest = _xp_and_other(result, names, others, paths, pre, slug, base_name)
    return [fairness_section(result, name), setup, wins, *rest]


def _win_blocks(wins, result, names, others, paths, pre, slug, base_name) -> None:
    """The win-rate tables and plot of a sweep with more than one policy."""
    wins.text(
        "Win rate of each policy under each variant (95% Wilson interval, n = seats played), "
        "then the paired difference from the baseline: per seed, the policy's win share "
        "(wins / its seats), variant minus baseline, averaged over seeds."
    )
    wr = result.win_rates
    wins.table(
        _wide(wr, tables.rate_cells(wr, with_n=True), "policy", names, result.policies),
        "Win rate [95% CI] n=seats, per variant and policy.",
    )
    if len(result.win_effects):
        we = result.win_effects
        wins.table(
            _wide(
                we,
                [_effect_cell(r, True, _digits(we)) for _, r in we.iterrows()],
                "policy",
                others,
                result.policies,
            ),
            f"Change in win rate against `{base_name}` [95% CI], in percentage points.",
        )
        wins.figure(
            f"{slug}-win-rate-effects",
            effect_plot(
                we,
                others,
                result.policies,
                paths,
                f"{pre}Change in win rate against the baseline",
                "win-rate change (pp, paired 95% CI)",
                True,
                value="mean_diff",
                zero_line=True,
            ),
            f"Paired change in each policy's win rate against `{base_name}` on the same "
            "seeds, 95% Student t intervals (dashed: no change).",
        )
    if not len(result.win_effects):  # the effect plot above says the same, relative
        wins.figure(
            f"{slug}-win-rates",
            effect_plot(
                wr,
                names,
                result.policies,
                paths,
                f"{pre}Win rate per variant",
                "win rate (95% CI)",
                True,
            ),
            "Win rate of each policy under each variant, 95% Wilson intervals.",
        )


def _xp_and_other(result, names, others, paths, pre, slug, base_name) -> list[Section]:
    """The XP effects, fights and game-length sections of a sweep."""
    xp = Section(f"{pre}Effect on XP")
    xp.text(
        "Mean final XP per player and game (policy's seats averaged per seed; Student t "
        "interval), the paired change against the baseline, and the mean XP per source."
    )
    x = result.xp
    xp.table(
        _wide(x, tables.mean_cells(x), "policy", names, result.policies),
        "Mean XP [95% CI] per variant and policy.",
    )
    if len(result.xp_effects):
        xe = result.xp_effects
        xp.table(
            _wide(
                xe,
                [_effect_cell(r, False) for _, r in xe.iterrows()],
                "policy",
                others,
                result.policies,
            ),
            f"Change in mean XP against `{base_name}` [95% CI], XP per player and game.",
        )
    if len(result.xp_effects):
        xp.figure(
            f"{slug}-xp-effects",
            effect_plot(
                result.xp_effects,
                others,
                result.policies,
                paths,
                f"{pre}Change in mean XP against the baseline",
                "XP change per player and game (paired 95% CI)",
                False,
                value="mean_diff",
                zero_line=True,
            ),
            f"Paired change in each policy's mean final XP against `{base_name}` on the same "
            "seeds, 95% Student t intervals (dashed: no change).",
        )
    else:
        xp.figure(
            f"{slug}-xp",
            effect_plot(
                x,
                names,
                result.policies,
                paths,
                f"{pre}Mean XP per variant",
                "mean final XP per player (95% CI)",
                False,
            ),
            "Mean final XP of each policy under each variant, 95% Student t intervals.",
        )
    if len(result.xp_sources.columns):
        src = result.xp_sources
        label = {c: tables.source_label(c) for c in src.columns}
        shown = src.rename(columns=label).map("{:.2f}".format)
        shown["total"] = src.sum(axis=1).map("{:.2f}".format)
        xp.table(shown.reset_index(), "Mean XP per player and game from each source.")
        if len(result.source_effects):
            se = result.source_effects
            order = [*src.columns, "total"]
            wide = _wide(
                se, [_effect_cell(r, False) for _, r in se.iterrows()], "source", others, order
            )
            wide.columns = [label.get(c, c) for c in wide.columns]
            xp.table(wide, f"Change in mean XP per source against `{base_name}` [95% CI].")
        xp.figure(
            f"{slug}-xp-sources",
            plots.stacked_bars(
                src.set_axis(_short(list(src.index), paths), axis=0),
                f"{pre}Mean XP by source per variant",
                "mean XP per player and game",
                label,
            ),
            "Where the XP comes from under each variant (means over all players).",
        )

    other = Section(f"{pre}Fights and game length")
    f = result.fights
    if len(f):
        mobs = list(dict.fromkeys(f["mob"]))
        other.table(
            _wide(f, tables.rate_cells(f, with_n=True), "mob", names, mobs).rename(
                columns={m: tables.label(m) for m in mobs}
            ),
            "Fights won per mob [95% Wilson CI] n=attempts (fights of one player are not "
            "independent: approximate).",
        )
    ln = result.length
    other.table(
        pd.DataFrame(
            {
                "variant": ln["variant"],
                "turns per game [95% CI]": tables.mean_cells(ln),
                "change vs baseline [95% CI]": [
                    "–"
                    if not math.isfinite(r.get("mean_diff", math.nan))
                    else _effect_cell(
                        {"mean_diff": r["mean_diff"], "lo": r["d_lo"], "hi": r["d_hi"]}, False
                    )
                    for _, r in ln.iterrows()
                ],
                "shared wins [95% CI]": [
                    f"{tables.fmt_rate(t['rate'], t['lo'], t['hi'])} n={int(t['n']):,}"
                    for _, t in result.ties.iterrows()
                ],
            }
        ),
        "Game length (turns of all players) and the share of games with a shared win.",
    )
    return [xp, other]


def sweep_summary(result: SweepResult) -> dict[str, Any]:
    def records(df: pd.DataFrame) -> list[dict]:
        return df.to_dict(orient="records") if len(df) else []

    return {
        "kind": "sweep",
        "mode": result.mode,
        "paths": _paths(result),
        "variants": [
            {"name": v.name, "changes": v.changes, "baseline": v.baseline} for v in result.variants
        ],
        "policies": result.policies,
        "players": result.players,
        "games": result.games,
        "seed": result.seed,
        "win_rate": records(result.win_rates),
        "win_rate_effect": records(result.win_effects),
        "xp": records(result.xp),
        "xp_effect": records(result.xp_effects),
        "xp_sources": {v: row.to_dict() for v, row in result.xp_sources.iterrows()},
        "xp_source_effect": records(result.source_effects),
        "fights": records(result.fights),
        "turns": records(result.length),
        "tie_rate": records(result.ties),
        **fairness_summary(result),
        "params": result.params,
    }


def build_sweep_report(result: SweepResult, title: str | None = None) -> ReportBuilder:
    builder = ReportBuilder(
        title or f"bnb-sim sweep: {', '.join(_paths(result))}",
        f"{len(result.variants)} variants (baseline included) · {result.games:,} games each · "
        f"{result.players} players · seed {result.seed}",
    )
    for section in sweep_sections(result):
        builder.add(section)
    add_estimated_warning(builder.sections[0], result.params.get("estimated"))
    builder.summary.update(sweep_summary(result))
    builder.findings += sweep_findings(result)
    return builder


def format_sweep(result: SweepResult) -> str:
    """Terminal table: fairness per variant, then win rate (its change unless every seat
    plays the same policy) and XP per variant and policy."""
    lines = [
        f"sweep of {', '.join(_paths(result))}: {result.games:,} games per variant, "
        f"{result.players} players, seed {result.seed}"
    ]
    lines += fairness_lines(result)
    names = [v.name for v in result.variants]
    mirror = is_mirror(result.policies)
    change = "" if mirror else ", change vs baseline"
    lines.append(f"  per policy (win rate [95% CI] n=seats{change}, mean XP):")
    for variant in names:
        lines.append(f"  {variant}")
        for policy in result.policies:
            r = result.win_rates[
                (result.win_rates["variant"] == variant) & (result.win_rates["policy"] == policy)
            ]
            if not len(r):
                continue
            r = r.iloc[0]
            digits = _digits(result.win_rates)
            text = f"win {tables.fmt_rate(r['rate'], r['lo'], r['hi'], digits)} n={int(r['n']):,}"
            if len(result.win_effects) and not mirror:
                e = result.win_effects[
                    (result.win_effects["variant"] == variant)
                    & (result.win_effects["policy"] == policy)
                ]
                if len(e):
                    text += f"  change {_effect_cell(e.iloc[0], True, _digits(result.win_effects))}"
            x = result.xp[(result.xp["variant"] == variant) & (result.xp["policy"] == policy)]
            if len(x):
                x = x.iloc[0]
                text += f"  XP {tables.fmt_mean(x['mean'], x['lo'], x['hi'])}"
            lines.append(f"    {policy.ljust(max(len(p) for p in result.policies))}  {text}")
    return "\n".join(lines)


def _largest(effects: pd.DataFrame) -> pd.Series | None:
    """The row with the largest absolute finite effect (``mean_diff``), or None."""
    if not len(effects) or "mean_diff" not in effects.columns:
        return None
    finite = effects[np.isfinite(effects["mean_diff"].to_numpy(dtype=float))]
    if not len(finite):
        return None
    return finite.loc[finite["mean_diff"].abs().idxmax()]


def _detected(row) -> bool:
    lo, hi = float(row["lo"]), float(row["hi"])
    return math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)


def sweep_findings(result: SweepResult, prefix: str = "") -> list:
    """Key findings of a sweep: fairness first (each variant's first-player advantage and
    balance against the baseline's, :func:`~bnb_sim.analysis.sweep_fairness.fairness_findings`),
    then the largest win-rate effect (none in a mirror match, where it is fixed by
    construction) and the largest XP effect, with interval and n, and whether detectable."""
    from bnb_sim.analysis.leaders import largest_of
    from bnb_sim.analysis.report import Finding

    base = next((v.name for v in result.variants if v.baseline), "the baseline")
    found = fairness_findings(result, prefix)
    row = None if is_mirror(result.policies) else _largest(result.win_effects)
    if row is not None:
        cell = _effect_cell(row, True)
        words = "the biggest effect" if _detected(row) else "no detectable effect; the largest"
        found.append(
            Finding(
                f"{prefix}Win rate: {words} is **{row['variant']}** for {row['policy']}: "
                f"{cell} against {base} (n = {int(row['n']):,} paired games; "
                f"{largest_of(result.win_effects['mean_diff'])}).",
                {"kind": "largest_win_rate_effect", "variant": row["variant"],
                 "policy": row["policy"], "value": row["mean_diff"], "lo": row["lo"],
                 "hi": row["hi"], "n": int(row["n"]), "detected": _detected(row)},
            )
        )  # fmt: skip
    row = _largest(result.xp_effects)
    if row is not None:
        words = "the biggest effect" if _detected(row) else "no detectable effect; the largest"
        found.append(
            Finding(
                f"{prefix}Final XP: {words} is **{row['variant']}** for {row['policy']}: "
                f"{_effect_cell(row, False)} XP against {base} (n = {int(row['n']):,} paired "
                f"games; {largest_of(result.xp_effects['mean_diff'])}).",
                {"kind": "largest_xp_effect", "variant": row["variant"], "policy": row["policy"],
                 "value": row["mean_diff"], "lo": row["lo"], "hi": row["hi"],
                 "n": int(row["n"]), "detected": _detected(row)},
            )
        )  # fmt: skip
    return found
