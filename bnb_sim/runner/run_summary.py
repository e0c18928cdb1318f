"""What a run into a directory ends with: :class:`RunSummary` (games, speed and the win rate of each
policy, built chunk by chunk by :class:`_WinCounter` without keeping the rows) or
:class:`RunInterrupted` (stopped early, with the command that resumes it).
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bnb_sim.errors import BnbError, RunError

if TYPE_CHECKING:  # pragma: no cover
    from bnb_sim.analysis.stats import Rate


class RunInterrupted(BnbError):
    """The run stopped early (Ctrl-C, SIGTERM) between chunks; the run directory is a valid
    partial run (or, when no part was stored yet, a new directory is removed again).

    ``resume_command`` continues it (``bnb simulate ... --resume``, or the Python call with
    ``resume=True``). ``exit_code`` is 128 + the signal number: 130 for SIGINT (Ctrl-C), 143
    for SIGTERM.
    """

    def __init__(
        self,
        path: Path,
        done: int,
        games: int,
        resume_command: str,
        signum: int = signal.SIGINT,
        kept: bool = True,
    ):
        self.path = Path(path)
        self.done = int(done)
        self.games = int(games)
        self.resume_command = resume_command
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        self.kept = kept
        super().__init__(f"{self.headline()}; resume with: {resume_command}")

    def partial(self) -> dict[str, Any]:
        """What ``bnb simulate --json`` prints for a stopped run."""
        return {
            "status": "partial",
            "path": str(self.path),
            "games": self.games,
            "games_stored": self.done,
            "signal": self.signal_name,
            "resume_command": self.resume_command,
        }

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    def report(self) -> str:
        """The two lines the command line prints: what happened, and the command to go on."""
        headline = self.headline()
        go_on = "Resume with:" if self.kept else "Start it again with:"
        return f"{headline[0].upper()}{headline[1:]}. {go_on}\n  {self.resume_command}"

    def headline(self) -> str:
        how = "interrupted" if self.signum == signal.SIGINT else f"stopped by {self.signal_name}"
        if not self.kept:
            return f"{how} before the first part was stored: nothing was kept in {self.path}"
        return (
            f"{how}: {self.done:,} of {self.games:,} games are stored in {self.path} "
            "(a valid, partial run)"
        )


@dataclass(frozen=True)
class RunSummary:
    """What :func:`simulate` returns when it writes a run directory (``out=``).

    * ``path``: the run directory; ``games``: games in the run (all of them when it is
      complete); ``played``: games played by this call (fewer than ``games`` on resume);
    * ``seconds`` and ``games_per_second``: wall time of this call's games and
      ``played / seconds``; ``setup_seconds``: the start-up before the first chunk (loading or
      compiling the kernels, starting Dask workers, checking the directory);
    * ``win_rates``: policy label -> :class:`~bnb_sim.analysis.stats.Rate` over the seat rows
      of that policy in the whole run (won / seats played, 95% Wilson interval; a label that
      sits in several seats of a game counts each seat, and its interval is clustered by game);
    * ``threads``: numba threads (in process) or single-threaded Dask workers used;
      ``chunks``: parts in the run; ``chunk_size``: games per part; ``status``: ``complete``.
    """

    path: Path
    games: int
    played: int
    seconds: float
    games_per_second: float
    win_rates: dict[str, Rate]
    threads: int
    chunks: int
    chunk_size: int
    status: str = "complete"
    backend: str = "local"
    setup_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "status": self.status,
            "games": self.games,
            "played": self.played,
            "seconds": round(self.seconds, 3),
            "setup_seconds": round(self.setup_seconds, 3),
            "games_per_second": round(self.games_per_second, 1),
            "threads": self.threads,
            "backend": self.backend,
            "chunks": self.chunks,
            "chunk_size": self.chunk_size,
            "win_rates": {label: rate.to_dict() for label, rate in self.win_rates.items()},
        }

    def __repr__(self) -> str:
        rates = "; ".join(f"{label} {rate}" for label, rate in self.win_rates.items())
        return (
            f"<RunSummary {self.path}: {self.games:,} games ({self.status}), "
            f"{self.games_per_second:,.0f} games/s; win rates {rates}>"
        )

    def __str__(self) -> str:
        return self.text()

    def text(self) -> str:
        """A few lines for people: games, time, speed, win rates with n and interval, path."""
        resumed = f" ({self.played:,} played now)" if self.played != self.games else ""
        lines = [
            f"games     {self.games:,}{resumed}",
            f"time      {self.seconds:,.1f} s (+{self.setup_seconds:.1f} s start-up), "
            f"{self.games_per_second:,.0f} games/s, "
            f"{self.threads} thread{'s' if self.threads != 1 else ''} ({self.backend}), "
            f"{self.chunks} chunk{'s' if self.chunks != 1 else ''} of {self.chunk_size:,}",
            "win rate  (per seat played, 95% Wilson interval, clustered by game)",
        ]
        width = max([len(label) for label in self.win_rates] + [6])
        for label, rate in self.win_rates.items():
            lines.append(f"  {label:<{width}}  {rate}")
        lines.append(f"data      {self.path}")
        return "\n".join(lines)


class _WinCounter:
    """Seat rows and wins per policy label, accumulated chunk by chunk (memory stays flat).

    Besides the counts it keeps, per label, the moment sums of the per-game wins ``Y_g`` and
    seats ``M_g`` (``ΣY², ΣYM, ΣM²``, games, whether a game had several seats of the label),
    so that a label playing several seats of a game gets the interval clustered by game
    (:func:`bnb_sim.analysis.stats.clustered_wilson`) without keeping the rows.
    """

    def __init__(self, labels: Sequence[str]):
        self.labels = list(dict.fromkeys(labels))
        n = len(self.labels)
        self.won = np.zeros(n, np.float64)
        self.rows = np.zeros(n, np.int64)
        self.moments = np.zeros((n, 3), np.float64)  # ΣY², ΣYM, ΣM² over games
        self.games = np.zeros(n, np.int64)
        self.multi = np.zeros(n, bool)

    def add(self, seats) -> None:
        policy = seats["policy"].astype("category")
        won = seats["won"].to_numpy(dtype=np.float64)
        index = {label: i for i, label in enumerate(self.labels)}
        remap = np.array([index[str(c)] for c in policy.cat.categories], np.int64)
        codes = remap[policy.cat.codes.to_numpy()]
        n = len(self.labels)
        self.won += np.bincount(codes, weights=won, minlength=n)
        self.rows += np.bincount(codes, minlength=n)
        if "game" not in seats.columns:
            return
        _, game = np.unique(seats["game"].to_numpy(), return_inverse=True)
        key = game.astype(np.int64) * n + codes
        cells, inverse = np.unique(key, return_inverse=True)
        y = np.bincount(inverse, weights=won)
        m = np.bincount(inverse).astype(np.float64)
        label = cells % n
        for j, values in enumerate((y * y, y * m, m * m)):
            self.moments[:, j] += np.bincount(label, weights=values, minlength=n)
        self.games += np.bincount(label, minlength=n)
        self.multi |= np.bincount(label, weights=(m > 1), minlength=n) > 0

    def add_part_file(self, file: Path) -> None:
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(
                file, columns=["game", "policy", "won"], read_dictionary=["policy"]
            )
        except Exception as exc:  # a damaged part of a resumed run
            raise RunError(f"{file}: corrupt Parquet part ({exc})") from None
        self.add(table.to_pandas())

    def rates(self) -> dict[str, Rate]:
        from bnb_sim.analysis.stats import Rate, _ratio_se, clustered_wilson

        k, n = self.won, self.rows.astype(float)
        se = _ratio_se(k, n, *self.moments.T, self.games)
        lo, hi = clustered_wilson(k, n, se, self.games, self.multi)
        return {
            label: Rate(
                float(k[i]),
                int(n[i]),
                float(k[i] / n[i]) if n[i] else float("nan"),
                float(lo[i]),
                float(hi[i]),
            )  # fmt: skip
            for i, label in enumerate(self.labels)
        }
