"""Run many seeded games: in memory, or chunk by chunk into a run directory.

    import bnb_sim
    seats = bnb_sim.simulate(10_000, 4, ["heuristic", "random"], seed=1)    # a DataFrame
    summary = bnb_sim.simulate(1_000_000, 4, ["heuristic"], seed=1, out="runs/r1")
    seats, games, meta = bnb_sim.load_run("runs/r1")

Games ``start .. start + n - 1`` are played by :func:`bnb_sim.runner.batch.play_block`, whose
rows depend only on the config and the game index (docs/design.md, "Random streams"), so the
thread count, the chunk size and the backend (in process, Dask) never change a row.

A run directory (``docs/run-format.md``) is written one part per chunk: part ``k`` holds the
games ``[k * chunk_size, (k + 1) * chunk_size)``. Only one chunk is in memory at a time, so
memory stays flat as the number of games grows. An interrupted run (Ctrl-C, a crash) keeps
its finished parts; ``resume=True`` plays only the missing ones and, because every game is a
pure function of (seed, game index), ends with exactly the rows of an uninterrupted run.

Everything a user can get wrong is checked before anything is written: a failed check raises
:class:`~bnb_sim.errors.BnbError` (one line) and leaves no directory behind.
"""

from __future__ import annotations

import _thread
import json
import os
import platform
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bnb_sim import _args
from bnb_sim.errors import ArgumentTypeError, BnbError, RunError
from bnb_sim.runner.budget import MAX_GAMES_WITHOUT_YES, confirm_games
from bnb_sim.runner.config import GameConfig

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bnb_sim.analysis.stats import Rate

__all__ = [
    "MAX_GAMES_WITHOUT_YES",
    "MAX_IN_MEMORY_GAMES",
    "RunInterrupted",
    "RunPlan",
    "RunSummary",
    "default_chunk_size",
    "plan_run",
    "run_in_memory",
    "run_to_dir",
    "simulate",
]

#: Hard ceiling (game indices are int64; far beyond any sensible run).
MAX_GAMES = 10**12
#: ``simulate(out=None)`` keeps every row in memory; above this, write a run directory.
MAX_IN_MEMORY_GAMES = 2_000_000
#: A chunk is held in memory whole (about 1.3 KB per four-player game while it is built).
MAX_CHUNK_SIZE = 250_000  # ~1 GB of rows in memory; 1,000,000 took ~3.5 GB
MAX_THREADS = 1024

# Default chunk: about 0.5-1 s of work. Games per thread and chunk for all-random tables
# (cheap policies) and for anything with a thinking policy. A four-player chunk of 50,000
# games costs about 130 MB while it is played, turned into frames and written.
_PER_THREAD_RANDOM = 20_000
_PER_THREAD_OTHER = 10_000
_MIN_CHUNK = 1_000
_MAX_DEFAULT_CHUNK = 50_000

# Parameters that decide the rows; resume refuses a run.json that differs in any of them.
_IDENTITY_KEYS = (
    "games",
    "players",
    "policies",
    "policy_specs",
    "seed",
    "chunk_size",
    "variant",
    "seating",
    "pickaxe_optional",
    "readings",
    "max_turns",
)


# --------------------------------------------------------------------------------------
# results and errors


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


# --------------------------------------------------------------------------------------
# validation (no side effects)


@dataclass
class RunPlan:
    """Validated inputs of a run (built by :func:`plan_run`; nothing is written yet)."""

    config: GameConfig
    games: int
    chunk_size: int | None  # None: decided when the backend is known (or taken from run.json)
    threads: int | None
    out: Path | None = None
    resume: bool = False
    force: bool = False
    dask: str | None = None
    extra: dict = field(default_factory=dict)

    def n_parts(self, chunk_size: int) -> int:
        return -(-self.games // chunk_size)


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise BnbError(f"{name} must be an integer, got {value!r}")
    return int(value)


def check_games(games: Any, *, yes: bool = False) -> int:
    games = _int_arg(games, "games")
    if games <= 0:
        raise BnbError(f"games must be a positive number, got {games:,}")
    if games > MAX_GAMES:
        raise BnbError(f"games must be at most {MAX_GAMES:,}, got {games:,}")
    return confirm_games(games, "simulate", yes=yes)


def default_chunk_size(games: int, config: GameConfig, threads: int) -> int:
    """About 0.5-1 s of work per chunk: games per thread (more for all-random tables) times
    threads, between 1,000 and 50,000 (memory), and never more than the run."""
    from bnb_sim.games.builders_biomes.policies.kinds import RANDOM

    all_random = all(p.kind == RANDOM for p in config.policies)
    per_thread = _PER_THREAD_RANDOM if all_random else _PER_THREAD_OTHER
    size = min(max(per_thread * max(1, threads), _MIN_CHUNK), _MAX_DEFAULT_CHUNK)
    return max(1, min(size, games))


def plan_run(
    games: int,
    players: int | None,
    policies: str | Sequence[Any],
    seed: int = 0,
    *,
    components: Any = None,
    readings: Any = None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    check: bool = False,
    yes: bool = False,
    pickaxe: str | None = None,
    expansion: str | None = None,
) -> RunPlan:
    """Check every input and build the :class:`GameConfig`; raises BnbError, writes nothing."""

    for flag, name in ((resume, "resume"), (force, "force"), (check, "check"), (yes, "yes")):
        _args.boolean(flag, name)
    if out is not None:
        _args.path(out, "out")
    if dask is not None:
        _args.text(dask, "dask")
    games = check_games(games, yes=yes)
    if isinstance(policies, str):
        policies = [policies]
    if not isinstance(policies, list | tuple):
        raise ArgumentTypeError(
            f"policies must be a spec string or a list of them, got {_args.show(policies)}"
        )
    policies = list(policies)
    if not policies:
        raise BnbError("give at least one policy")
    if players is None:
        players = len(policies) if len(policies) > 1 else 4
    players = _args.integer(players, "players")
    if threads is not None:
        threads = _int_arg(threads, "threads")
        if not 1 <= threads <= MAX_THREADS:
            raise BnbError(f"threads must be between 1 and {MAX_THREADS}, got {threads}")
    if chunk_size is not None:
        chunk_size = _int_arg(chunk_size, "chunk size")
        if not 1 <= chunk_size <= MAX_CHUNK_SIZE:
            raise BnbError(
                f"chunk size must be between 1 and {MAX_CHUNK_SIZE:,}, got {chunk_size:,}"
            )
    if resume and force:
        raise BnbError("resume and force cannot be used together")
    if out is None and (resume or force):
        raise BnbError("resume and force need an output directory (out=, --out)")
    if dask is not None:
        from bnb_sim.runner.dask_backend import check_address

        dask = check_address(dask)
    config = GameConfig.create(
        players, policies, seed=seed, components=components, readings=readings,
        variant=variant, seating=seating, pickaxe=pickaxe, check=bool(check),
        expansion=expansion,
    )  # fmt: skip
    return RunPlan(
        config=config,
        games=games,
        chunk_size=chunk_size,
        threads=threads,
        out=None if out is None else Path(out),
        resume=bool(resume),
        force=bool(force),
        dask=dask,
    )


# --------------------------------------------------------------------------------------
# provenance for run.json


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """bnb_sim, Python and library versions (from package metadata: nothing is imported)."""
    from bnb_sim import __version__

    out: dict[str, str | None] = {"bnb_sim": __version__, "python": platform.python_version()}
    for name in ("numba", "llvmlite", "numpy", "pandas", "pyarrow", "dask", "distributed"):
        out[name] = _version(name)
    return out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info() -> dict[str, Any]:
    """Platform, CPU model, cores (and the cores this process may use)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "hostname": platform.node(),
    }


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_params(plan: RunPlan, chunk_size: int, threads: int, backend: str) -> dict[str, Any]:
    config = plan.config
    extra = (
        {} if config.components.expansion is None else {"expansion": config.components.expansion}
    )
    return {
        **extra,
        "games": plan.games,
        "players": config.n_players,
        "policies": config.labels,
        "policy_specs": [p.to_dict() for p in config.policies],
        "seed": int(config.seed),
        "chunk_size": int(chunk_size),
        "threads": int(threads),
        "backend": backend,
        "variant": config.variant,
        "seating": config.seating,
        "pickaxe_optional": config.pickaxe_optional,
        "readings": config.readings.to_dict(),
        "check": config.check,
        "max_turns": int(config.max_turns),
        "dask": plan.dask,
    }


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, ...)."""
    return json.loads(json.dumps(value))


def _check_resume(path: Path, meta: dict, params: dict, content_hash: str) -> None:
    """RunError unless the stored run was made with the same row-deciding parameters: every
    parameter but the few of NON_IDENTITY_PARAMS (so a parameter added later is checked
    too), and the components."""
    from bnb_sim.runner.verify import identity_params

    if meta.get("kind", "simulate") != "simulate":
        raise RunError(f"{path}: cannot resume: it is a '{meta.get('kind')}' run, not simulate")
    stored = identity_params(meta.get("params") or {})
    now = identity_params(params)
    keys = [k for k in _IDENTITY_KEYS if k in stored or k in now]
    keys += sorted((set(stored) | set(now)) - set(keys))
    wrong = []
    for key in keys:
        old, new = _normal(stored.get(key)), _normal(now.get(key))
        if old != new:
            if key == "policy_specs":
                wrong.append("policy parameters differ")
            else:
                wrong.append(f"{key} {old!r} (now {new!r})")
    old_hash = (meta.get("components") or {}).get("content_hash")
    if old_hash != content_hash:
        wrong.append(f"components {str(old_hash)[:12]} (now {content_hash[:12]})")
    if wrong:
        raise RunError(
            f"{path}: cannot resume: the run was made with other parameters: "
            + "; ".join(wrong[:3])
            + ("; ..." if len(wrong) > 3 else "")
        )


# --------------------------------------------------------------------------------------
# executing chunks


Task = tuple[int, int, int]  # (part k, first game, number of games)


class LocalExecutor:
    """Plays chunks in this process with the parallel numba kernel, one after the other."""

    backend = "local"

    def __init__(self, config: GameConfig, threads: int | None):
        from bnb_sim._jit import numba

        limit = int(numba.config.NUMBA_NUM_THREADS)
        self.config = config
        self.threads = limit if threads is None else max(1, min(int(threads), limit))

    def prepare(self) -> None:
        """Build the kernel inputs (static arrays, policy tables, plugins) and load or compile
        the kernel by playing game 0 once (discarded), so that the first chunk's time is
        game time; may raise BnbError."""
        from bnb_sim.runner.batch import play_arrays
        from bnb_sim.runner.dask_backend import quiet_numba_warnings

        quiet_numba_warnings()
        play_arrays(self.config, 0, 1, self.threads)

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[int, Any, Any]]:
        from bnb_sim.runner.batch import play_block

        for k, start, n in tasks:
            seats, games = play_block(self.config, start, n, self.threads)
            yield k, seats, games

    def stop(self) -> None:
        """Called after a Ctrl-C: nothing runs in the background here."""

    def close(self) -> None:
        pass


def _executor(plan: RunPlan):
    if plan.dask is None:
        return LocalExecutor(plan.config, plan.threads)
    from bnb_sim.runner.dask_backend import DaskExecutor

    return DaskExecutor(plan.config, plan.dask, plan.threads)


def _tasks(games: int, chunk_size: int, parts: Sequence[int]) -> list[Task]:
    return [(k, k * chunk_size, min(chunk_size, games - k * chunk_size)) for k in parts]


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


class _StopFlag:
    """SIGINT and SIGTERM handler: the first Ctrl-C asks to stop after the current chunk, a
    second one interrupts at once (the chunk in progress is lost; finished parts stay valid),
    except while the run is being wound down (``critical``: run.json is being written).
    SIGTERM stops at once: whoever sends it (a service manager, a batch scheduler) sends
    SIGKILL a few seconds later, and a chunk with a slow plugin could outlast that. If the
    engine has not noticed the stop after :attr:`TERM_GRACE_SECONDS` (a plugin stuck in one
    decision), the signal is delivered again, which ends the wait at once: the run stops with
    its resume command all the same."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)
    #: After a SIGTERM, how long the engine has to notice the stop before the wait for it is
    #: cut short (a plugin stuck in one decision never gets to the check; the run is then
    #: wound down at once, its chunk in progress lost, and the process may end).
    TERM_GRACE_SECONDS = 3.0

    def __init__(self, notice: Callable[[str], None] | None):
        self.signum: int | None = None
        self.critical = False
        self._notice = notice
        self._old: dict[int, Any] = {}
        self._escalation: threading.Timer | None = None

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def __enter__(self) -> _StopFlag:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._old[signum] = signal.getsignal(signum)
                signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:
            if self.critical:
                return
            raise KeyboardInterrupt
        self.signum = signum
        if signum != signal.SIGINT:
            from bnb_sim.runner.batch import request_stop

            request_stop()  # the kernel returns before its next decision; the chunk is replayed
            if self._notice is not None:
                name = signal.Signals(signum).name
                self._notice(f"{name}: stopping now (the chunk in progress is played again)")
            self._escalate_later(signum)
            return
        if self._notice is not None:
            self._notice(
                "Ctrl-C: stopping after the current chunk (press Ctrl-C again to stop now)"
            )

    def _escalate_later(self, signum: int) -> None:
        """If the engine has not stopped within TERM_GRACE_SECONDS, deliver the signal to the
        main thread again: a second signal interrupts the wait at once (``_handle``)."""
        if not self._old:  # not the main thread: no handler of ours to deliver to
            return

        def again() -> None:
            if self._old and not self.critical:
                _thread.interrupt_main(signum)

        self._escalation = threading.Timer(self.TERM_GRACE_SECONDS, again)
        self._escalation.daemon = True
        self._escalation.start()

    def __exit__(self, *exc) -> None:
        from bnb_sim.runner.batch import clear_stop_request

        if self._escalation is not None:
            self._escalation.cancel()
        for signum, old in self._old.items():
            signal.signal(signum, old)
        self._old.clear()
        clear_stop_request()


def _new_dirs(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet (deepest first)."""
    missing = []
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    return missing


def _python_call(plan: RunPlan, *, resume: bool) -> str:
    config = plan.config
    args = [
        f"{plan.games}",
        f"{config.n_players}",
        repr(config.labels),
        f"seed={int(config.seed)}",
    ]
    if config.components.source != "default":
        args.append(f"components={config.components.source!r}")
    changed = config.readings.non_default()
    if changed:
        args.append(f"readings={changed!r}")
    if plan.chunk_size is not None:
        args.append(f"chunk_size={plan.chunk_size}")
    if plan.threads is not None:
        args.append(f"threads={plan.threads}")
    if plan.dask is not None:
        args.append(f"dask={plan.dask!r}")
    args.append(f"out={str(plan.out)!r}")
    if resume:
        args.append("resume=True")
    return f"bnb_sim.simulate({', '.join(args)})"


def cli_command(argv: Sequence[str]) -> str:
    """``bnb`` and ``argv`` (the arguments after the program), quoted for a shell."""
    return "bnb " + shlex.join(list(argv))


def run_to_dir(
    plan: RunPlan,
    *,
    progress: Callable[[int, int], None] | None = None,
    command: str | None = None,
    resume_command: str | None = None,
    handle_sigint: bool = False,
    notice: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play the run of ``plan`` into ``plan.out``, one Parquet part per chunk.

    ``progress(done, total)`` is called once before the first chunk and after each part is
    written (``done`` counts stored games, earlier sessions included). A ``KeyboardInterrupt``
    (from Ctrl-C, or raised by ``progress``) stops the run between chunks: finished parts
    stay, ``run.json`` keeps status ``partial`` and :class:`RunInterrupted` is raised with
    ``resume_command``. With ``handle_sigint`` (the CLI) the first Ctrl-C or SIGTERM lets the
    chunk in progress finish first (``notice`` is told so).

    The run directory is locked for the whole call (a second writer is refused); on resume
    every stored part is verified and a torn or foreign one is played again (``notice`` is
    told). A file-system failure (disk full, read-only, a directory in the way) raises
    RunError saying what is stored and how to resume; a new directory is removed again if
    the run fails before its first part.
    """
    t_start = time.perf_counter()
    if plan.out is None:
        raise BnbError("run_to_dir needs an output directory")
    if resume_command is None:
        resume_command = _python_call(plan, resume=True)
    if command is None:
        command = _python_call(plan, resume=plan.resume)
    flag = _StopFlag(notice) if handle_sigint else None
    try:
        if flag is not None:
            flag.__enter__()
        return _run_to_dir(plan, progress, command, resume_command, flag, notice, t_start)
    finally:
        if flag is not None:
            flag.__exit__(None, None, None)


def _run_to_dir(plan, progress, command, resume_command, flag, notice, t_start) -> RunSummary:
    from bnb_sim.runner.lock import check_unlocked
    from bnb_sim.runner.storage import RunWriter, WriteFailed, check_target, read_meta

    path = plan.out
    # Everything that can fail on user input happens before the directory is touched.
    state = check_target(path, resume=plan.resume, force=plan.force)
    if state != "missing":
        check_unlocked(path)
    stored = read_meta(path) if plan.resume and state == "run" else None
    chunk_size = plan.chunk_size
    if stored is not None and chunk_size is None:
        chunk_size = stored["params"]["chunk_size"]
    comps = plan.config.components
    executor = _executor(plan)
    writer = None
    created: list[Path] = []
    try:
        if chunk_size is None:
            chunk_size = default_chunk_size(plan.games, plan.config, executor.threads)
        params = run_params(plan, chunk_size, executor.threads, executor.backend)
        if stored is not None:
            _check_resume(path, stored, params, comps.content_hash)
            # "check" is true only when every part was played with the invariant checks
            was_checked = bool((stored.get("params") or {}).get("check"))
            params["check"] = was_checked and plan.config.check
        executor.prepare()
        created = _new_dirs(path)
        writer = RunWriter(path, resume=plan.resume, force=plan.force, notice=notice)
        n_parts = plan.n_parts(chunk_size)
        old = writer.stored
        if old is not None:  # a run that existed: check again what RunWriter read
            _check_resume(path, old, params, comps.content_hash)
        started = _now()
        meta = {
            "format": 1,
            "kind": "simulate",
            "status": "partial",
            "command": (old or {}).get("command", command),
            "resume_command": resume_command,
            "params": params,
            "components": comps.to_json_dict(),
            "versions": versions(),
            "machine": machine_info(),
            "threads": executor.threads,
            "timing": {"started": ((old or {}).get("timing") or {}).get("started", started)},
            "parts": n_parts,
        }
        if old is not None:
            meta["resumed_with"] = command
        todo = writer.verify_parts(n_parts, meta) if old is not None else list(range(n_parts))
        counter = _WinCounter(plan.config.labels)
        missing = set(todo)
        for k in range(n_parts):
            if k not in missing:
                counter.add_part_file(writer.part_path("seats", k))
        sessions = list(((old or {}).get("timing") or {}).get("sessions") or [])
        writer.write_meta(meta)
        return _play_parts(
            plan, executor, writer, meta, _tasks(plan.games, chunk_size, todo), n_parts,
            chunk_size, counter, sessions, started, progress, flag, fresh=old is None,
            t_start=t_start,
        )  # fmt: skip
    except BaseException as exc:
        fresh = writer is not None and writer.stored is None and writer.written == 0
        if fresh:
            writer.discard(created)
        elif writer is None:
            _remove_empty(created)  # RunWriter may have made them before it failed
        if isinstance(exc, KeyboardInterrupt):  # before the first chunk
            signum = flag.signum if flag is not None and flag.signum else signal.SIGINT
            kept = writer is not None and not fresh
            done = _stored_games(writer, chunk_size, plan.games) if kept else 0
            raise RunInterrupted(path, done, plan.games, resume_command, signum, kept) from None
        if isinstance(exc, WriteFailed):
            kept = writer is not None and not fresh
            done = _stored_games(writer, chunk_size, plan.games) if kept else 0
            raise _write_failed(exc, path, done, plan.games, kept, resume_command) from None
        raise
    finally:
        executor.close()
        if writer is not None:
            writer.close()


def _stored_games(writer, chunk_size: int, games: int) -> int:
    """Games in the parts whose two files are on disk."""
    n_parts = -(-games // chunk_size)
    stored = [k for k in range(n_parts) if writer.has_part(k)]
    return sum(min(chunk_size, games - k * chunk_size) for k in stored)


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove the folders a failed new run created, deepest first, if they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


def _write_failed(exc, path: Path, done: int, total: int, kept: bool, resume_command: str):
    """The one line for a file-system failure: what failed, what is stored, how to go on."""
    head = f"{'disk full: ' if exc.disk_full else ''}{exc}"
    if not kept:
        return RunError(f"{head}; nothing was stored (the new run folder was removed)")
    fix = "free some space" if exc.disk_full else "fix that"
    return RunError(
        f"{head}; {done:,} of {total:,} games are stored in {path} (a valid, partial run); "
        f"{fix} and resume with: {resume_command}"
    )


def _release_arrow_memory() -> None:
    """Hand the Arrow pool's freed chunk buffers back to the OS (mimalloc/jemalloc keep them
    otherwise, and the process grows by about a chunk's size)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _timing(
    started: str, t0: float, played: int, sessions: list, games_stored: int, setup: float
) -> dict:
    seconds = time.perf_counter() - t0
    this = {
        "started": started,
        "finished": _now(),
        "seconds": round(seconds, 3),
        "setup_seconds": round(setup, 3),
        "games": played,
    }
    all_sessions = [*sessions, this]
    total = sum(float(s.get("seconds", 0.0)) for s in all_sessions)
    played_all = sum(int(s.get("games", 0)) for s in all_sessions)
    return {
        "started": all_sessions[0]["started"],
        "finished": this["finished"],
        "seconds": round(total, 3),
        "games_per_second": round(played_all / total, 1) if total > 0 else None,
        "setup_seconds": round(sum(float(s.get("setup_seconds", 0.0)) for s in all_sessions), 3),
        "games_stored": games_stored,
        "sessions": all_sessions,
    }


def _play_parts(
    plan, executor, writer, meta, tasks, n_parts, chunk_size, counter, sessions, started,
    progress, flag, *, fresh, t_start,
) -> RunSummary:  # fmt: skip
    from bnb_sim.runner.storage import WriteFailed

    total = plan.games
    done = total - sum(n for _, _, n in tasks)
    played = 0
    t0 = time.perf_counter()
    setup = t0 - t_start

    def save_timing() -> None:
        writer.write_meta({**meta, "timing": _timing(started, t0, played, sessions, done, setup)})

    try:
        if progress is not None:
            progress(done, total)
        if flag is not None and flag.requested:  # a signal while the run was being set up
            raise KeyboardInterrupt
        for k, seats, games in executor.run(tasks):
            writer.write_part(k, seats, games)
            n = len(games)
            counter.add(seats)
            del seats, games
            _release_arrow_memory()
            done += n
            played += n
            if progress is not None:
                progress(done, total)
            if flag is not None and flag.requested:
                raise KeyboardInterrupt
        if flag is not None:
            flag.critical = True  # every part is stored: finish the run whatever comes now
    except KeyboardInterrupt:
        if flag is not None:
            flag.critical = True  # a further Ctrl-C must not cut run.json's update short
        executor.stop()
        kept = not (fresh and writer.written == 0)
        if kept:
            _quietly(save_timing)
        signum = flag.signum if flag is not None and flag.signum else signal.SIGINT
        raise RunInterrupted(
            writer.path, done, total, meta["resume_command"], signum, kept
        ) from None
    except BaseException as exc:
        if flag is not None:
            flag.critical = True
        executor.stop()
        kept = not (fresh and writer.written == 0)
        if kept:
            _quietly(save_timing)
        if isinstance(exc, WriteFailed):
            raise _write_failed(
                exc, writer.path, done, total, kept, meta["resume_command"]
            ) from None
        raise
    seconds = time.perf_counter() - t0
    save_timing()
    writer.finish()
    return RunSummary(
        path=writer.path,
        games=total,
        played=played,
        seconds=seconds,
        games_per_second=played / seconds if seconds > 0 else 0.0,
        win_rates=counter.rates(),
        threads=executor.threads,
        chunks=n_parts,
        chunk_size=chunk_size,
        backend=executor.backend,
        setup_seconds=setup,
    )


def _quietly(action: Callable[[], None]) -> None:
    """Run a best-effort step while another error is being raised (its own error is not
    the news: a full disk that cannot take run.json's timing either)."""
    try:
        action()
    except Exception:
        pass


def run_in_memory(plan: RunPlan, *, progress: Callable[[int, int], None] | None = None):
    """Play the run of ``plan`` and return the per-seat DataFrame (all rows, game order)."""
    import pandas as pd

    if plan.games > MAX_IN_MEMORY_GAMES:
        raise BnbError(
            f"{plan.games:,} games is more than the {MAX_IN_MEMORY_GAMES:,} kept in memory; "
            "write them to a run directory with out=DIR (then load_run)"
        )
    executor = _executor(plan)
    try:
        executor.prepare()
        chunk_size = plan.chunk_size or default_chunk_size(
            plan.games, plan.config, executor.threads
        )
        tasks = _tasks(plan.games, chunk_size, range(plan.n_parts(chunk_size)))
        parts: dict[int, pd.DataFrame] = {}
        done = 0
        if progress is not None:
            progress(0, plan.games)
        try:
            for k, seats, games in executor.run(tasks):
                parts[k] = seats
                done += len(games)
                if progress is not None:
                    progress(done, plan.games)
        except BaseException:
            executor.stop()
            raise
    finally:
        executor.close()
    frames = [parts[k] for k in sorted(parts)]
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)


def _tqdm_progress(enabled: bool):
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr, and its closer."""
    if not enabled:
        return None, lambda: None
    from bnb_sim.feedback import _tqdm_class

    tqdm = _tqdm_class()  # tqdm.auto warned "IProgress not found" in notebooks sans ipywidgets
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(
                total=total, initial=done, unit=" games", unit_scale=True, file=sys.stderr,
                dynamic_ncols=True,
                smoothing=0.1, mininterval=0.5,
            )  # fmt: skip
        else:
            bar.update(done - bar.n)

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return progress, close


def simulate(
    games: int,
    players: int | None,
    policies: str | Sequence[Any],
    seed: int = 0,
    *,
    components: Any = None,
    readings: Any = None,
    variant: str | None = None,
    seating: str | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    progress: bool | Callable[[int, int], None] = False,
    check: bool = False,
    yes: bool = False,
    pickaxe: str | None = None,
    expansion: str | None = None,
) -> pd.DataFrame | RunSummary:
    """Play ``games`` seeded games of ``players`` players.

    * ``policies``: policy specs (``"random"``, ``"greedy"``, ``"heuristic"``,
      ``"heuristic:weights.toml"``, ``"heuristic:board=1.5"``, plugins) or PolicySpecs, cycled
      over the players; ``players=None`` means one player per policy (4 for a single policy).
    * ``readings``: rule readings, ``{"hunger": "one-by-one", "bow": "choose", ...}``
      (``bnb readings`` lists them; unnamed ones take their defaults). ``variant``,
      ``seating`` and ``pickaxe`` are aliases of the readings of those names.
    * ``seating``: ``"rotate"`` (default: game ``g`` starts with player ``g % players``, so
      seat effects cancel), ``"fixed"`` or ``"random"``; the seat is recorded on each row.
    * ``components``: a Components, a path (or list of paths) to component TOML, or None.
    * ``threads``: numba threads (default: all); with ``dask="local"`` the number of
      single-threaded worker processes. ``chunk_size``: games per chunk (default: about 0.5-1 s
      of work). Neither changes any row.
    * ``dask``: ``"local"`` (an embedded LocalCluster) or a scheduler address
      (``"tcp://host:8786"``); see ``docs/simulate.md`` for preparing workers.
    * ``progress``: True for a tqdm bar on stderr, or a ``callback(done, total)``.
    * ``yes``: allow more than 100,000,000 games.
    * ``pickaxe``: ``"optional"`` (default: a revealed stone pickaxe lets the player take a
      block or decline) or ``"mandatory"`` (R-FIGHT-3; see docs/rules.md).
    * ``expansion``: ``"farmers-market"`` plays with the Farmer's Market expansion (R-FM-*;
      its data goes under ``components`` files, which may override it).

    Without ``out``: returns the per-seat DataFrame (``docs/run-format.md``; at most
    2,000,000 games). With ``out``: writes the run directory chunk by chunk (memory stays
    flat) and returns a :class:`RunSummary`; an existing directory needs ``resume=True``
    (play the missing parts; the parameters must match run.json) or ``force=True``
    (overwrite). A Ctrl-C stops between chunks and raises :class:`RunInterrupted`, whose
    message holds the call that resumes the run.
    """
    plan = plan_run(
        games, players, policies, seed, components=components, readings=readings,
        variant=variant, seating=seating, threads=threads, chunk_size=chunk_size, out=out,
        resume=resume, force=force, dask=dask, check=check, yes=yes, pickaxe=pickaxe,
        expansion=expansion,
    )  # fmt: skip
    if callable(progress):
        callback, close = progress, (lambda: None)
    else:
        callback, close = _tqdm_progress(_args.boolean(progress, "progress (or a callable)"))
    try:
        if plan.out is None:
            return run_in_memory(plan, progress=callback)
        return run_to_dir(plan, progress=callback)
    finally:
        close()
