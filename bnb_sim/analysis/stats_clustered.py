"""Clustered rates and means: rows of one game (or seed) are not independent.

:func:`clustered_rate` and :func:`clustered_wilson` (a Wilson interval with the design effect
of the clusters), :func:`clustered_mean_ci`, :func:`rates_by_cluster` per group, and the
cluster bootstrap (:func:`cluster_bootstrap_ci`, whose pattern resampling
:mod:`bnb_sim.analysis.ratings` reuses): every interval treats the cluster as the unit.

Only numpy is imported at module level; pandas and scipy.special inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from bnb_sim.analysis.stats_intervals import (
    Rate,
    _as_float_1d,
    _check_confidence,
    _t,
    wilson_interval,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


# The pattern bootstrap materialises (chunk x patterns) weight matrices; keep them below this
# many entries (about 16 MB of int64).
_MAX_WEIGHT_ENTRIES = 2_000_000


# --------------------------------------------------------------------------------------------
# clustered rates and means (rows of one game / seed are not independent)
# --------------------------------------------------------------------------------------------


def _cluster_sums(values: np.ndarray, clusters: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums ``Y_g`` of the non-NaN values and their counts ``M_g``."""
    import pandas as pd

    values = _as_float_1d(values)
    clusters = np.asarray(clusters).ravel()
    if clusters.shape != values.shape:
        raise ValueError("values and clusters must have the same length")
    if clusters.dtype.kind in "iu" and clusters.size and np.all(clusters[1:] >= clusters[:-1]):
        # sorted integers (a run's games): codes from the changes, no hash table; the same
        # cluster order as pd.factorize
        codes = np.zeros(clusters.size, np.int64)
        np.cumsum(clusters[1:] != clusters[:-1], out=codes[1:])
    else:
        codes, _ = pd.factorize(clusters, sort=False)
    nan = np.isnan(values)
    if nan.any() or (codes < 0).any():
        ok = ~nan & (codes >= 0)
        codes, values = codes[ok], values[ok]
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    sums = np.bincount(codes, weights=values, minlength=n_clusters)
    counts = np.bincount(codes, minlength=n_clusters).astype(float)
    keep = counts > 0
    return sums[keep], counts[keep]


def _integer_cluster_moments(values: Any, clusters: Any):
    """``(n, G, ΣY, ΣY², ΣYM, ΣM², sd)`` of :func:`clustered_mean_ci` for integer values in
    clusters that are sorted integers (a run's counts by game), block by block of whole
    clusters: no float64 copy of the rows, and exact, since every sum is of integers (``sd``
    from the exact integer ``Σx`` and ``Σx²``). None for other input (the general path)."""
    if not isinstance(values, np.ndarray) or not isinstance(clusters, np.ndarray):
        return None
    if values.ndim != 1 or values.dtype.kind not in "iub" or clusters.dtype.kind not in "iu":
        return None
    if values.shape != clusters.shape or not values.size:
        return None
    if np.any(clusters[1:] < clusters[:-1]):
        return None
    from bnb_sim.analysis.table_blocks import game_blocks

    g, total, yy, ym, mm, sx, sxx = 0, 0.0, 0.0, 0.0, 0.0, 0, 0
    for rows in game_blocks(clusters):
        part, block = values[rows], clusters[rows]
        codes = np.zeros(block.size, np.int64)
        np.cumsum(block[1:] != block[:-1], out=codes[1:])
        y = np.bincount(codes, weights=part)
        m = np.bincount(codes).astype(float)
        g += y.size
        total += float(y.sum())
        yy, ym, mm = yy + float(y @ y), ym + float(y @ m), mm + float(m @ m)
        wide = part.astype(np.int64)
        sx += int(wide.sum())
        sxx += int((wide * wide).sum())
    n = int(values.size)
    sd = math.sqrt(max(n * sxx - sx * sx, 0) / (n * (n - 1))) if n > 1 else math.nan
    return n, g, total, yy, ym, mm, sd


def _ratio_se(sums, counts, sumsq, sumym, summ2, n_clusters) -> np.ndarray:
    """Linearised (cluster-robust) standard error of ``Σ Y_g / Σ M_g`` from moment sums.

    With ``p = ΣY/ΣM`` the estimator is linearised as ``Σ_g (Y_g - p M_g) / ΣM``, so
    ``var = G/(G-1) · Σ_g (Y_g - p M_g)² / (ΣM)²``, where ``Σ(Y - pM)² = ΣY² - 2pΣYM + p²ΣM²``.
    Vectorised over groups; ``G < 2`` gives NaN.
    """
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    g = np.asarray(n_clusters, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sums / counts
        ss = np.maximum(sumsq - 2.0 * p * sumym + p * p * summ2, 0.0)
        var = np.where(g > 1, g / (g - 1.0) * ss / (counts * counts), np.nan)
    return np.sqrt(var)


def clustered_wilson(k, n, se, n_clusters, multi, confidence: float = 0.95):
    """Wilson interval for a rate whose rows come in clusters (games, seeds), vectorised.

    ``k / n`` is the rate over rows, ``se`` its cluster-robust standard error (for example
    from :func:`clustered_rate`), ``n_clusters`` the clusters and ``multi`` whether any cluster
    holds more than one row of the group. Groups with one row per cluster get the plain Wilson
    interval (the rows are independent). For the others the Wilson interval is computed at the
    *effective* sample size ``n_eff = p(1-p) / se²`` (Kish's design effect), which keeps the
    Wilson shape near 0 and 1 but uses the clustered variance: narrower than the row interval
    when the rows of a game are negatively correlated (one winner per game), wider when they
    are positively correlated. Where the clustered variance is 0 (the rate is 0 or 1, or every
    cluster has exactly the same share) it is no guide, so the interval is the row Wilson
    interval or, if that is narrower, Wilson on the clusters (``k/n`` of ``n_clusters``):
    the conservative choice.
    """
    k, n, se = (np.asarray(v, dtype=float) for v in (k, n, se))
    g = np.asarray(n_clusters, dtype=float)
    multi = np.asarray(multi, dtype=bool)
    lo, hi = wilson_interval(k, n, confidence)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
        usable = multi & np.isfinite(se) & (se > 0) & (p > 0) & (p < 1)
        n_eff = np.where(usable, p * (1.0 - p) / np.where(usable, se * se, 1.0), 1.0)
    e_lo, e_hi = wilson_interval(np.where(usable, p * n_eff, 0.0), n_eff, confidence)
    g_safe = np.maximum(g, 1.0)
    c_lo, c_hi = wilson_interval(np.where(n > 0, p, 0.0) * g_safe, g_safe, confidence)
    flat = multi & ~usable & (n > 0)
    lo = np.where(usable, e_lo, np.where(flat, np.minimum(lo, c_lo), lo))
    hi = np.where(usable, e_hi, np.where(flat, np.maximum(hi, c_hi), hi))
    return lo, hi


def clustered_rate(values: Any, clusters: Any, confidence: float = 0.95) -> Rate:
    """Rate of 0/½/1 ``values`` (one per row) with a Wilson interval clustered by ``clusters``.

    ``k`` and ``n`` are the row counts (``n`` rows, ``k`` their sum); the interval is
    :func:`clustered_wilson` with the cluster-robust (linearised) standard error of the ratio
    ``Σ_g Y_g / Σ_g M_g``. With one row per cluster this is exactly the Wilson interval.
    Example: the win rate of a policy that plays two seats of every game, clustered by game.
    """
    sums, counts = _cluster_sums(values, clusters)
    k, n, g = float(sums.sum()), float(counts.sum()), sums.size
    se = _ratio_se(k, n, (sums * sums).sum(), (sums * counts).sum(), (counts * counts).sum(), g)
    lo, hi = clustered_wilson(k, n, se, g, bool(np.any(counts > 1)), confidence)
    return Rate(k, int(n), k / n if n else math.nan, float(lo), float(hi), float(confidence))


def clustered_mean_ci(values: Any, clusters: Any, confidence: float = 0.95) -> dict[str, Any]:
    """Mean of ``values`` over rows with a t interval clustered by ``clusters`` (NaNs dropped).

    The mean is the ratio ``Σ_g Y_g / Σ_g M_g`` (``Y_g`` the sum and ``M_g`` the number of rows
    of cluster ``g``); its standard error is the linearised cluster-robust one (see
    :func:`_ratio_se`) and the interval is ``mean ± t_{G-1}·se`` with ``G`` clusters. Use it
    for rows that share a game or a seed: a policy in two seats, every game of one seed in a
    tournament. Returns ``dict(mean, lo, hi, n, sd, se, n_clusters, note)`` like
    :func:`mean_ci` (``n`` rows, ``sd`` their standard deviation); ``note`` says why there
    is no interval (``"n < 2"``, ``"all values equal"``) and is ``""`` otherwise.
    """
    moments = _integer_cluster_moments(values, clusters)
    if moments is None:
        arr = _as_float_1d(values)
        sums, counts = _cluster_sums(arr, clusters)
        clean = arr[~np.isnan(arr)]
        n, g = int(counts.sum()), int(sums.size)
        total, yy, ym, mm = (
            sums.sum(),
            (sums * sums).sum(),
            (sums * counts).sum(),
            (counts * counts).sum(),
        )
        sd = float(clean.std(ddof=1)) if n > 1 else math.nan
    else:
        n, g, total, yy, ym, mm, sd = moments
    out: dict[str, Any] = {
        "mean": float(total / n) if n else math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "n": n,
        "sd": sd,
        "se": math.nan,
        "n_clusters": g,
        "note": "",
    }
    if g < 2:
        out["note"] = "n < 2"
        return out
    se = float(_ratio_se(total, n, yy, ym, mm, g))
    out["se"] = se
    if not se > 0:
        out["note"] = "all values equal"
        return out
    half = _t(confidence, g - 1) * se
    out.update(lo=out["mean"] - half, hi=out["mean"] + half)
    return out


def rates_by_cluster(
    df: pd.DataFrame,
    by: str | list[str],
    cluster: str,
    column: str = "won",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """:func:`rates_by` with intervals clustered by ``cluster`` (a game or seed column).

    Same columns as :func:`rates_by` plus ``n_clusters``. A group with at most one row per
    cluster keeps its exact Wilson interval; a group with several rows in some cluster (a
    policy in several seats of a game) gets :func:`clustered_wilson`. Vectorised: one
    group-by over (group, cluster), then moment sums per group.
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    values = pd.to_numeric(df[column].astype("Float64"), errors="raise").astype(float)
    tmp = df[keys].copy()
    tmp["_c"] = df[cluster].to_numpy()
    tmp["_v"] = values.to_numpy()
    tmp = tmp[~np.isnan(tmp["_v"].to_numpy())]
    per = tmp.groupby([*keys, "_c"], observed=True, sort=True, dropna=False)["_v"].agg(
        y="sum", m="count"
    )
    per["yy"] = per["y"] ** 2
    per["ym"] = per["y"] * per["m"]
    per["mm"] = per["m"] ** 2
    per["multi"] = per["m"] > 1
    out = (
        per.groupby(level=list(range(len(keys))), observed=True, sort=True)
        .agg(
            k=("y", "sum"),
            n=("m", "sum"),
            yy=("yy", "sum"),
            ym=("ym", "sum"),
            mm=("mm", "sum"),
            n_clusters=("y", "size"),
            multi=("multi", "any"),
        )
        .reset_index()
    )
    out["n"] = out["n"].astype("int64")
    k = out["k"].to_numpy(dtype=float)
    n = out["n"].to_numpy(dtype=float)
    g = out["n_clusters"].to_numpy(dtype=float)
    se = _ratio_se(k, n, out["yy"].to_numpy(), out["ym"].to_numpy(), out["mm"].to_numpy(), g)
    lo, hi = clustered_wilson(k, n, se, g, out["multi"].to_numpy(), confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["rate"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    out["lo"] = lo
    out["hi"] = hi
    out["n_clusters"] = out["n_clusters"].astype("int64")
    return out[[*keys, "k", "n", "rate", "lo", "hi", "n_clusters"]]


# --------------------------------------------------------------------------------------------
# cluster bootstrap
# --------------------------------------------------------------------------------------------


def _unique_patterns(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``values`` (clusters x m) and how often each occurs.

    Rows of small non-negative integers (win flags, seat presence, ranks, policy codes) are
    packed into one int64 key first, which is much faster than ``np.unique(axis=0)``.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 2 and v.size and np.all(v >= 0) and np.all(v == np.rint(v)):
        iv = v.astype(np.int64)
        radix = iv.max(axis=0) + 1
        if float(np.sum(np.log2(radix))) < 62:
            mult = np.cumprod(np.concatenate(([1], radix[:-1]))).astype(np.int64)
            key = (iv * mult).sum(axis=1)
            _, first, counts = np.unique(key, return_index=True, return_counts=True)
            return v[first], counts
    patterns, counts = np.unique(v, axis=0, return_counts=True)
    return patterns, counts


def _pattern_bootstrap(
    patterns: np.ndarray,
    counts: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_boot: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Bootstrap replicates of a statistic of cluster *sums*.

    Resampling ``C = counts.sum()`` clusters with replacement is the same, in distribution, as
    drawing how many copies of each distinct cluster pattern are taken from a multinomial
    ``(C, counts / C)``. So when the statistic only depends on column sums over clusters
    (rates, means, win matrices), a replicate is ``weights @ patterns`` and the whole bootstrap
    is a few matrix products, however many clusters there are. ``statistic`` maps a
    ``(B, m)`` array of column sums to ``B`` values (or ``(B, ...)``).

    With few distinct patterns (win/loss data) the weights come from ``rng.multinomial``; when
    most clusters are distinct (continuous data) drawing ``C`` cluster indices and counting them
    per pattern is faster and has the same distribution.
    """
    n_clusters = int(counts.sum())
    k = patterns.shape[0]
    by_index = 5 * k > n_clusters
    if by_index:
        pattern_of = np.repeat(np.arange(k), counts)
        chunk = max(1, min(n_boot, _MAX_WEIGHT_ENTRIES // max(n_clusters, 1)))
    else:
        pvals = counts / n_clusters
        chunk = max(1, min(n_boot, _MAX_WEIGHT_ENTRIES // max(k, 1)))
    out = []
    done = 0
    while done < n_boot:
        size = min(chunk, n_boot - done)
        if by_index:
            picks = pattern_of[rng.integers(0, n_clusters, size=(size, n_clusters))]
            picks += (np.arange(size) * k)[:, None]
            weights = np.bincount(picks.ravel(), minlength=size * k).reshape(size, k)
        else:
            weights = rng.multinomial(n_clusters, pvals, size=size)
        out.append(statistic(weights.astype(float) @ patterns))
        done += size
    return np.concatenate(out, axis=0)


def _percentile(reps: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - _check_confidence(confidence)
    with np.errstate(invalid="ignore"):
        reps = np.where(np.isfinite(reps), reps, np.nan)
    lo, hi = np.nanquantile(reps, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lo, hi


def cluster_bootstrap_ci(
    df: pd.DataFrame,
    cluster: str,
    statistic: str | Callable[[pd.DataFrame], float],
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, float]:
    """Percentile bootstrap interval, resampling whole clusters (games, seeds, seat-swapped pairs).

    ``statistic`` is either

    - a column name: the statistic is the mean of that column over all rows (a ratio estimator,
      ``sum / count`` over the resampled clusters; NaN values are ignored). This path is fully
      vectorised: a replicate is a multinomial weighting of the distinct per-cluster
      ``(sum, count)`` patterns, which has exactly the distribution of resampling clusters with
      replacement, so millions of games cost a few matrix products; or
    - a callable ``f(df) -> float`` applied to each resampled DataFrame. Resampled clusters are
      relabelled ``0..C-1`` in the ``cluster`` column so a cluster drawn twice counts as two
      clusters if ``f`` groups by it. This path costs one DataFrame copy per replicate.

    Deterministic for a given ``seed`` (numpy ``default_rng``). Returns
    ``dict(estimate, lo, hi, n_clusters)``; ``estimate`` is the statistic on the original data.

    Known behaviour: the percentile bootstrap has no small-sample (t) correction, so with few
    clusters (< ~50) it undercovers somewhat; with a hundred or more clusters and a smooth
    statistic it is close to nominal (see ``tests/test_stats.py`` for the calibration check).
    Statistics like a maximum gap are biased near a boundary; see :func:`balance_metric`.
    """
    _check_confidence(confidence)
    if n_boot < 1:
        raise ValueError("n_boot must be >= 1")
    rng = np.random.default_rng(seed)
    if isinstance(statistic, str):
        return _bootstrap_mean_column(df, cluster, statistic, n_boot, confidence, rng)
    return _bootstrap_callable(df, cluster, statistic, n_boot, confidence, rng)


def _bootstrap_mean_column(df, cluster, column, n_boot, confidence, rng) -> dict[str, float]:
    import pandas as pd

    values = pd.to_numeric(df[column].astype("Float64")).astype(float)
    tmp = pd.DataFrame({"c": df[cluster].to_numpy(), "v": values.to_numpy()})
    agg = tmp.groupby("c", sort=True, dropna=False)["v"].agg(["sum", "count"])
    sums = agg.to_numpy(dtype=float)
    n_clusters = int(sums.shape[0])
    total = sums.sum(axis=0)
    estimate = total[0] / total[1] if total[1] > 0 else math.nan
    if n_clusters == 0:
        return {"estimate": math.nan, "lo": math.nan, "hi": math.nan, "n_clusters": 0}
    patterns, counts = _unique_patterns(sums)

    def stat(s: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[:, 0] / s[:, 1]

    reps = _pattern_bootstrap(patterns, counts, stat, n_boot, rng)
    lo, hi = _percentile(reps, confidence)
    return {"estimate": float(estimate), "lo": float(lo), "hi": float(hi), "n_clusters": n_clusters}


def _bootstrap_callable(df, cluster, statistic, n_boot, confidence, rng) -> dict[str, float]:
    import pandas as pd

    codes, _ = pd.factorize(df[cluster], sort=True)
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    estimate = float(statistic(df))
    if n_clusters == 0:
        return {"estimate": estimate, "lo": math.nan, "hi": math.nan, "n_clusters": 0}
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_clusters)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    cluster_pos = df.columns.get_loc(cluster)
    reps = np.empty(n_boot)
    for b in range(n_boot):
        pick = rng.integers(0, n_clusters, size=n_clusters)
        sz = sizes[pick]
        total = int(sz.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(sz) - sz, sz)
        rows = order[np.repeat(starts[pick], sz) + offsets]
        sample = df.iloc[rows].copy()
        sample.iloc[:, cluster_pos] = np.repeat(np.arange(n_clusters), sz)
        reps[b] = float(statistic(sample))
    lo, hi = _percentile(reps, confidence)
    return {"estimate": estimate, "lo": float(lo), "hi": float(hi), "n_clusters": n_clusters}
