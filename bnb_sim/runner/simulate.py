"""Run many seeded games: in memory, or chunk by chunk into a run directory.

    import bnb_sim
    seats = bnb_sim.simulate(10_000, 4, ["heuristic", "random"], seed=1)    # a DataFrame
    summary = bnb_sim.simulate(1_000_000, 4, ["heuristic"], seed=1, out="runs/r1")
    seats, games, meta = bnb_sim.load_run("runs/r1")

Games ``start .. start + n - 1`` are played by :func:`bnb_sim.runner.batch.play_block`, whose
rows depend only on the config and the game index (ENGINEERING.md §2), so the thread count,
the chunk size and the backend (in process, Dask) never change a row.

A run directory (``docs/run-format.md``) is written one part per chunk: part ``k`` holds the
games ``[k * chunk_size, (k + 1) * chunk_size)``. Only one chunk is in memory at a time, so
memory stays flat as the number of games grows. An interrupted run (Ctrl-C, a crash) keeps
its finished parts; ``resume=True`` plays only the missing ones and, because every game is a
pure function of (seed, game index), ends with exactly the rows of an uninterrupted run.

Everything a user can get wrong is checked before anything is written: a failed check raises
:class:`~bnb_sim.errors.BnbError` (one line) and leaves no directory behind.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
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
    """The run stopped early (Ctrl-C) between chunks; the run directory is a valid partial run.

    ``resume_command`` continues it (``bnb simulate ... --resume``, or the Python call with
    ``resume=True``).
    """

    exit_code = 130

    def __init__(self, path: Path, done: int, games: int, resume_command: str):
        self.path = Path(path)
        self.done = int(done)
        self.games = int(games)
        self.resume_command = resume_command
        super().__init__(
            f"interrupted: {done:,} of {games:,} games are stored in {path} (status partial); "
            f"resume with: {resume_command}"
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
      sits in several seats of a game counts each seat);
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

    def text(self) -> str:
        """A few lines for people: games, time, speed, win rates with n and interval, path."""
        resumed = f" ({self.played:,} played now)" if self.played != self.games else ""
        lines = [
            f"games     {self.games:,}{resumed}",
            f"time      {self.seconds:,.1f} s (+{self.setup_seconds:.1f} s start-up), "
            f"{self.games_per_second:,.0f} games/s, "
            f"{self.threads} thread{'s' if self.threads != 1 else ''} ({self.backend}), "
            f"{self.chunks} chunk{'s' if self.chunks != 1 else ''} of {self.chunk_size:,}",
            "win rate  (per seat played, 95% Wilson interval)",
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
    from bnb_sim.policies.kinds import RANDOM

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
) -> RunPlan:
    """Check every input and build the :class:`GameConfig`; raises BnbError, writes nothing."""
    from bnb_sim import _args

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
    return {
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
    """RunError unless the stored run was made with the same row-deciding parameters."""
    if meta.get("kind", "simulate") != "simulate":
        raise RunError(f"{path}: cannot resume: it is a '{meta.get('kind')}' run, not simulate")
    stored = meta.get("params") or {}
    wrong = []
    for key in _IDENTITY_KEYS:
        old, new = _normal(stored.get(key)), _normal(params[key])
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
    """Seat rows and wins per policy label, accumulated chunk by chunk (memory stays flat)."""

    def __init__(self, labels: Sequence[str]):
        self.labels = list(dict.fromkeys(labels))
        self.won = np.zeros(len(self.labels), np.float64)
        self.rows = np.zeros(len(self.labels), np.int64)

    def add(self, seats) -> None:
        policy = seats["policy"].astype("category")
        won = seats["won"].to_numpy(dtype=np.float64)
        index = {label: i for i, label in enumerate(self.labels)}
        remap = np.array([index[str(c)] for c in policy.cat.categories], np.int64)
        codes = remap[policy.cat.codes.to_numpy()]
        n = len(self.labels)
        self.won += np.bincount(codes, weights=won, minlength=n)
        self.rows += np.bincount(codes, minlength=n)

    def add_part_file(self, file: Path) -> None:
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(file, columns=["policy", "won"], read_dictionary=["policy"])
        except Exception as exc:  # a damaged part of a resumed run
            raise RunError(f"{file}: corrupt Parquet part ({exc})") from None
        self.add(table.to_pandas())

    def rates(self) -> dict[str, Rate]:
        from bnb_sim.analysis.stats import Rate

        return {
            label: Rate.of(float(self.won[i]), int(self.rows[i]))
            for i, label in enumerate(self.labels)
        }


class _StopFlag:
    """SIGINT handler: the first Ctrl-C asks to stop after the current chunk, the second one
    interrupts at once (the chunk in progress is lost; finished parts stay valid)."""

    def __init__(self, notice: Callable[[str], None] | None):
        self.requested = False
        self._notice = notice
        self._old: Any = None
        self._installed = False

    def __enter__(self) -> _StopFlag:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        if self._notice is not None:
            self._notice("stopping after the current chunk (press Ctrl-C again to stop now)")

    def __exit__(self, *exc) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._old)
            self._installed = False


def _new_dirs(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet (deepest first)."""
    missing = []
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    return missing


def _remove_fresh_run(path: Path, created: list[Path]) -> None:
    """Undo a new run that failed before its first part: run.json, seats/, games/, new dirs."""
    from bnb_sim.runner.storage import META_NAME, TABLES

    try:
        (path / META_NAME).unlink(missing_ok=True)
        for table in TABLES:
            shutil.rmtree(path / table, ignore_errors=True)
        for folder in created:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    except OSError:
        pass


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
    ``resume_command``. With ``handle_sigint`` (the CLI) the first Ctrl-C lets the chunk in
    progress finish first (``notice`` is told so).
    """
    from bnb_sim.runner.storage import RunWriter

    t_start = time.perf_counter()
    if plan.out is None:
        raise BnbError("run_to_dir needs an output directory")
    path = plan.out
    if resume_command is None:
        resume_command = _python_call(plan, resume=True)
    if command is None:
        command = _python_call(plan, resume=plan.resume)

    # Everything that can fail on user input happens before the directory is touched.
    stored = None
    if plan.resume and path.is_dir() and any(path.iterdir()):
        from bnb_sim.runner.storage import read_meta

        stored = read_meta(path)
    elif not plan.force:
        _refuse_existing(path)
    chunk_size = plan.chunk_size
    if stored is not None and chunk_size is None:
        chunk_size = (stored.get("params") or {}).get("chunk_size")
    comps = plan.config.components
    executor = _executor(plan)
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
        writer = RunWriter(path, resume=plan.resume, force=plan.force)
        n_parts = plan.n_parts(chunk_size)
        if writer.meta is not None:  # a run that existed: check again what RunWriter read
            _check_resume(path, writer.meta, params, comps.content_hash)
        todo = writer.missing_parts(n_parts)
        counter = _WinCounter(plan.config.labels)
        missing = set(todo)
        for k in range(n_parts):
            if k not in missing:
                counter.add_part_file(writer.part_path("seats", k))
        sessions = list(((writer.meta or {}).get("timing") or {}).get("sessions") or [])
        started = _now()
        meta = {
            "format": 1,
            "kind": "simulate",
            "status": "partial",
            "command": (writer.meta or {}).get("command", command),
            "resume_command": resume_command,
            "params": params,
            "components": comps.to_json_dict(),
            "versions": versions(),
            "machine": machine_info(),
            "threads": executor.threads,
            "timing": {"started": (writer.meta or {}).get("timing", {}).get("started", started)},
            "parts": n_parts,
        }
        if stored is not None:
            meta["resumed_with"] = command
        writer.write_meta(meta)
        summary = _play_parts(
            plan, executor, writer, meta, _tasks(plan.games, chunk_size, todo), n_parts,
            chunk_size, counter, sessions, started, progress, handle_sigint, notice, created,
            fresh=stored is None, t_start=t_start,
        )  # fmt: skip
        return summary
    finally:
        executor.close()


def _refuse_existing(path: Path) -> None:
    from bnb_sim.runner.storage import META_NAME, TABLES

    if path.exists() and not path.is_dir():
        raise RunError(f"{path}: exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        looks = any((path / name).exists() for name in (META_NAME, *TABLES))
        what = "a run" if looks else "a non-empty folder"
        raise RunError(
            f"{path}: already exists ({what}); use --resume to continue it "
            "or --force to overwrite it"
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
    progress, handle_sigint, notice, created, *, fresh, t_start,
) -> RunSummary:  # fmt: skip
    total = plan.games
    done = total - sum(n for _, _, n in tasks)
    played = 0
    written = 0
    t0 = time.perf_counter()
    setup = t0 - t_start
    flag = _StopFlag(notice) if handle_sigint else None
    try:
        if flag is not None:
            flag.__enter__()
        if progress is not None:
            progress(done, total)
        for k, seats, games in executor.run(tasks):
            writer.write_part(k, seats, games)
            written += 1
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
    except KeyboardInterrupt:
        executor.stop()
        writer.write_meta({**meta, "timing": _timing(started, t0, played, sessions, done, setup)})
        raise RunInterrupted(writer.path, done, total, meta["resume_command"]) from None
    except BaseException:
        executor.stop()
        if fresh and written == 0:
            _remove_fresh_run(writer.path, created)
        else:
            try:
                timing = _timing(started, t0, played, sessions, done, setup)
                writer.write_meta({**meta, "timing": timing})
            except Exception:
                pass
        raise
    finally:
        if flag is not None:
            flag.__exit__(None, None, None)
    seconds = time.perf_counter() - t0
    writer.write_meta({**meta, "timing": _timing(started, t0, played, sessions, done, setup)})
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
    from tqdm.auto import tqdm

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
    )  # fmt: skip
    if callable(progress):
        callback, close = progress, (lambda: None)
    else:
        callback, close = _tqdm_progress(bool(progress))
    try:
        if plan.out is None:
            return run_in_memory(plan, progress=callback)
        return run_to_dir(plan, progress=callback)
    finally:
        close()
