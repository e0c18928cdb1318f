"""Compile kernels in several processes at once, safely (``bnb warmup --jobs N``, first runs).

numba compiles in one thread, and two processes that compile the same function into one cache
at the same time can corrupt it or crash (docs/design.md, "Kernels and the cache"). Here a
*job* compiles one part of the kernels in a child process whose numba cache is private: a copy
of the shared cache made of hard links (free), so the child loads what is compiled already and
writes what it compiles beside it. numba writes a new file and renames it over the old name,
so the shared cache's files are never touched. When the child ends, this process merges the
child's new entries into the shared cache, one merge at a time (a file lock), and only then
starts the jobs that call those kernels (``after``): each kernel is compiled once, by one
process, and the shared cache has one writer.

A job is ``module:function``: a function of no arguments that compiles (or loads) its kernels,
usually by calling them once on small inputs. Games declare theirs (the ``compile_jobs`` entry
point, :mod:`bnb_sim.games`); this module imports no game.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: A job that runs longer than this is stopped (and reported failed).
JOB_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Job:
    """One part of the kernels, compiled in its own process."""

    name: str  # unique, e.g. "bnb:rules"
    label: str  # what it compiles, for people
    target: str  # "module:function" (no arguments) that compiles or loads the kernels
    after: tuple[str, ...] = ()  # jobs whose kernels this one calls: merged before it starts
    weight: float = 10.0  # expected CPU seconds from an empty cache (to order the jobs)
    group: str = "shared"  # the kernel group (bnb_sim.cache_paths) whose folder marks it done


@dataclass
class JobResult:
    job: Job
    ok: bool
    seconds: float  # wall time of the child
    cpu: float  # the child's CPU seconds (user + system), compile included
    error: str = ""


def needed(jobs: Sequence[Job], names: Sequence[str]) -> list[Job]:
    """``names`` and every job they come after, in the order of ``jobs``."""
    by_name = {job.name: job for job in jobs}
    todo, keep = list(names), set()
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        if name not in by_name:
            raise KeyError(f"no compile job named {name!r}")
        keep.add(name)
        todo.extend(by_name[name].after)
    return [job for job in jobs if job.name in keep]


def marker(job: Job) -> Path:
    """The file whose presence says that ``job``'s kernels are in this installation's cache
    (a hint for scheduling only: a job compiles whatever it does not find)."""
    from bnb_sim.cache_paths import cache_root, folder_name

    return cache_root() / folder_name(job.group) / "jobs" / f"{job.name.replace(':', '-')}.done"


def _stamp() -> str:
    """What a marker records: numba keeps a cache entry only for the numba and Python that
    wrote it, so a marker written under others says nothing about this installation."""
    from importlib.metadata import version

    return f"numba {version('numba')}, python {sys.version_info[0]}.{sys.version_info[1]}\n"


def is_done(job: Job) -> bool:
    try:
        return marker(job).read_text() == _stamp()
    except OSError:
        return False


def mark_done(job: Job) -> None:
    path = marker(job)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_stamp())


def split_done(jobs: Sequence[Job]) -> tuple[list[Job], list[Job]]:
    """``jobs`` split into those to run and those this cache marks done already."""
    done = [job for job in jobs if is_done(job)]
    return [job for job in jobs if job not in done], done


def ensure(
    jobs: Sequence[Job],
    names: Sequence[str],
    processes: int,
    on_done: Callable[[JobResult], None] | None = None,
) -> list[JobResult]:
    """Run the jobs ``names`` need (themselves and what they come after) that are not done
    yet, in up to ``processes`` processes; nothing when all are done."""
    todo, _ = split_done(needed(jobs, names))
    return run_jobs(todo, processes, on_done) if todo else []


def warm_here(jobs: Sequence[Job], names: Sequence[str]) -> None:
    """Compile or load, in this process, the kernels of the jobs ``names`` and of every job
    they come after, in the order of ``jobs`` (the warm-up before a run: its compile time
    is then kept apart from its playing time). An error propagates."""
    import importlib

    for job in needed(jobs, names):
        module, _, name = job.target.partition(":")
        getattr(importlib.import_module(module), name)()


def run_jobs(
    jobs: Sequence[Job],
    processes: int,
    on_done: Callable[[JobResult], None] | None = None,
) -> list[JobResult]:
    """Run ``jobs`` in up to ``processes`` child processes at a time, each after the jobs it
    names in ``after`` (a job whose predecessor failed fails without running; a predecessor
    not in ``jobs`` must be done already); of the ready jobs, the one at the head of the
    longest chain of waiting jobs starts first. Each job that
    succeeds is marked done (:func:`marker`). Returns the results in the order they ended."""
    from bnb_sim.cache_paths import cache_root

    names = {job.name for job in jobs}
    pending = [job for job in jobs]
    done: dict[str, bool] = {}
    for job in pending:
        for name in job.after:
            if name not in names:
                done[name] = True  # ensure() left it out: it is done
    rank = _critical_path(pending)
    shared = cache_root()
    running: dict[str, tuple[Job, subprocess.Popen, Path, float]] = {}
    results: list[JobResult] = []
    processes = max(1, int(processes))
    try:
        while pending or running:
            for job in [j for j in pending if any(done.get(a) is False for a in j.after)]:
                pending.remove(job)
                result = JobResult(job, False, 0.0, 0.0, "an earlier job failed")
                done[job.name] = False
                results.append(result)
                if on_done is not None:
                    on_done(result)
            ready = [j for j in pending if all(done.get(a) for a in j.after)]
            ready.sort(key=lambda j: -rank[j.name])
            while ready and len(running) < processes:
                job = ready.pop(0)
                pending.remove(job)
                private = Path(tempfile.mkdtemp(prefix="bnb-compile-"))
                seed_private_cache(shared, private)
                running[job.name] = (job, _start(job, private), private, time.perf_counter())
            if not running:
                continue
            finished = _wait_any(running)
            job, proc, private, started = running.pop(finished)
            result = _collect(job, proc, time.perf_counter() - started)
            if result.ok:
                with cache_lock(shared):
                    merge_cache(private, shared)
                    mark_done(job)
            shutil.rmtree(private, ignore_errors=True)
            done[job.name] = result.ok
            results.append(result)
            if on_done is not None:
                on_done(result)
    finally:
        for _, proc, private, _ in running.values():
            proc.kill()
            proc.wait()
            shutil.rmtree(private, ignore_errors=True)
    return results


def _critical_path(jobs: Sequence[Job]) -> dict[str, float]:
    """Per job, its weight plus the longest chain of jobs that wait for it: the job that
    holds up the end the most starts first (a long job that nothing waits for can go later)."""
    waiting: dict[str, list[Job]] = {job.name: [] for job in jobs}
    for job in jobs:
        for name in job.after:
            if name in waiting:
                waiting[name].append(job)
    rank: dict[str, float] = {}

    def longest(job: Job) -> float:
        if job.name not in rank:
            rank[job.name] = job.weight + max((longest(j) for j in waiting[job.name]), default=0)
        return rank[job.name]

    for job in jobs:
        longest(job)
    return rank


_CHILD = (
    "import resource, sys, time\n"
    "from bnb_sim import jsonsafe\n"
    "from bnb_sim.precompile import run_target\n"
    "error = run_target(sys.argv[1])\n"
    "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(jsonsafe.dumps({'cpu': usage.ru_utime + usage.ru_stime, 'error': error}))\n"
)


def run_target(target: str) -> str:
    """Call ``module:function`` (in a job's child process); the error text, or ''."""
    import importlib
    import traceback

    from bnb_sim.runner.dask_backend import quiet_numba_warnings

    quiet_numba_warnings()
    module, _, name = target.partition(":")
    try:
        getattr(importlib.import_module(module), name)()
    except Exception as exc:  # reported by the parent, with the last lines of the trace
        traceback.print_exc()
        return f"{type(exc).__name__}: {exc}"
    return ""


def _start(job: Job, private: Path) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(private), BNB_USER_NUMBA_CACHE_DIR=str(private))
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, job.target],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_any(running: dict) -> str:
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while True:
        for name, (_, proc, _, started) in running.items():
            if proc.poll() is not None:
                return name
            if time.perf_counter() - started > JOB_TIMEOUT_S:
                proc.kill()
                return name
        if time.monotonic() > deadline:  # pragma: no cover - the per-job timeout comes first
            raise TimeoutError("compile jobs did not finish")
        time.sleep(0.05)


def _collect(job: Job, proc: subprocess.Popen, seconds: float) -> JobResult:
    out, err = proc.communicate()
    lines = [line for line in out.strip().splitlines() if line.startswith("{")]
    report = json.loads(lines[-1]) if lines else {}
    cpu = float(report.get("cpu", 0.0))
    error = report.get("error", "")
    if proc.returncode != 0 or not lines:
        tail = [line for line in err.strip().splitlines() if line.strip()]
        error = error or (tail[-1] if tail else f"exit code {proc.returncode}")
    return JobResult(job, not error, seconds, cpu, error)


# ----------------------------------------------------------------------------- the cache


def seed_private_cache(shared: Path, private: Path) -> None:
    """Fill ``private`` with hard links to this installation's kernel folders in ``shared``
    (copies where links are impossible), so a job loads what is compiled already."""
    from bnb_sim.cache_paths import folder_name, groups

    for group in groups():
        source = shared / folder_name(group)
        if not source.is_dir():
            continue
        for path in source.rglob("*"):
            if not path.is_file() or ".tmp." in path.name:
                continue
            target = private / path.relative_to(shared)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, target)
            except OSError:
                shutil.copy2(path, target)


@contextlib.contextmanager
def cache_lock(root: Path) -> Iterator[None]:
    """An exclusive lock on the cache root (one merge at a time, across processes)."""
    root.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: merges are not concurrent there
        yield
        return
    with open(root / ".bnb-merge.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_index(path: Path):
    """``(version, stamp, overloads)`` of a numba index file, or None."""
    try:
        with open(path, "rb") as f:
            version = pickle.load(f)
            stamp, overloads = pickle.loads(f.read())
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
        return None
    return version, stamp, overloads


def _write_atomic(path: Path, data: bytes) -> None:
    temp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    temp.write_bytes(data)
    os.replace(temp, path)


def merge_cache(private: Path, shared: Path) -> int:
    """Add the entries ``private`` holds and ``shared`` lacks; returns how many were added.

    numba keeps one index per function (``*.nbi``: numba's version, a stamp of the source,
    then ``{(signature, target, bytecode hash): data file}``) and one data file per entry
    (``*.N.nbc``). An entry is copied under a data-file name free in ``shared``; an index
    whose version or stamp differs from the shared one replaces it (the shared one is stale).
    """
    from numba.core.serialize import dumps

    added = 0
    for index in private.rglob("*.nbi"):
        target = shared / index.relative_to(private)
        with contextlib.suppress(OSError):
            if target.exists() and os.path.samefile(index, target):
                continue  # the hard link the job started from: nothing new
        mine = _read_index(index)
        if mine is None:
            continue
        version, stamp, overloads = mine
        theirs = _read_index(target) if target.exists() else None
        merged = dict(theirs[2]) if theirs and theirs[:2] == (version, stamp) else {}
        base = index.name[: -len(".nbi")]
        used = set(merged.values())
        changed = False
        for key, data_name in overloads.items():
            if key in merged:
                continue
            number = 1
            while (
                f"{base}.{number}.nbc" in used or (target.parent / f"{base}.{number}.nbc").exists()
            ):
                number += 1
            name = f"{base}.{number}.nbc"
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(target.parent / name, (index.parent / data_name).read_bytes())
            merged[key] = name
            used.add(name)
            added += 1
            changed = True
        if changed or theirs is None:
            _write_atomic(target, pickle.dumps(version, protocol=-1) + dumps((stamp, merged)))
    return added
