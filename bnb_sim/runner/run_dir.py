"""Playing a run into a run directory, one Parquet part per chunk (``docs/run-format.md``):
:func:`run_to_dir` checks the folder, locks it, resumes the missing parts, keeps run.json's
timing per session and turns an interruption or a file-system failure into one line that
says what is stored and how to resume. It is the one run-folder path of every game: a plan of
the default game's config (:func:`~bnb_sim.runner.run_plan.plan_run`) or of a protocol object
and its config (:func:`~bnb_sim.runner.protocol_run.simulate_to_dir`); what run.json says of
the game comes through the protocol (:mod:`bnb_sim.runner.run_meta`).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bnb_sim.errors import BnbError, RunError
from bnb_sim.runner.executor import _executor, _tasks
from bnb_sim.runner.run_meta import (
    _check_resume,
    _now,
    check_same_game,
    machine_info,
    run_description,
    run_params,
    versions,
)
from bnb_sim.runner.run_plan import RunPlan, default_chunk_size
from bnb_sim.runner.run_summary import RunInterrupted, RunSummary, _WinCounter
from bnb_sim.runner.stop_flag import _StopFlag


def _new_dirs(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet (deepest first)."""
    missing = []
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    return missing


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
        resume_command = plan.python_call(resume=True) or "the same call with resume=True"
    if command is None:
        command = plan.python_call(resume=plan.resume)
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
    from bnb_sim.runner.run_files import WriteFailed, check_target, read_meta
    from bnb_sim.runner.run_writer import writer_class

    path = plan.out
    # Everything that can fail on user input happens before the directory is touched.
    header, components = run_description(plan)
    state = check_target(path, resume=plan.resume, force=plan.force)
    if state != "missing":
        check_unlocked(path)
    stored = read_meta(path) if plan.resume and state == "run" else None
    chunk_size = plan.chunk_size
    if stored is not None and chunk_size is None:
        chunk_size = stored["params"]["chunk_size"]
    executor = _executor(plan)
    writer = None
    created: list[Path] = []
    try:
        if chunk_size is None:
            chunk_size = default_chunk_size(plan.games, plan.config, executor.threads, plan.game)
        params = run_params(plan, chunk_size, executor.threads, executor.backend)
        if stored is not None:
            _check_stored(path, stored, header, plan, params, components)
        executor.prepare()
        created = _new_dirs(path)
        writer = writer_class(plan)(path, resume=plan.resume, force=plan.force, notice=notice)
        n_parts = plan.n_parts(chunk_size)
        old = writer.stored
        if old is not None:  # a run that existed: check again what RunWriter read
            _check_stored(path, old, header, plan, params, components)
        started = _now()
        meta = {
            "format": 1,
            "kind": "simulate",
            **header,
            "status": "partial",
            "command": (old or {}).get("command", command),
            "resume_command": resume_command,
            "params": params,
            "components": components,
            "versions": versions(),
            "machine": machine_info(),
            "threads": executor.threads,
            "timing": {"started": ((old or {}).get("timing") or {}).get("started", started)},
            "parts": n_parts,
        }
        if meta["command"] is None:  # a call that did not say (a game's own Python API)
            del meta["command"]
        if old is not None and command is not None:
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


def _check_stored(path, meta, header, plan, params, components) -> None:
    """RunError unless the stored run is this game's with the same identity; ``params``
    then records whether every part was played with the invariant checks (``check``)."""
    check_same_game(path, meta, header, plan)
    _check_resume(path, meta, params, components["content_hash"])
    if "check" in params:  # true only when every part was played with the checks
        was_checked = bool((meta.get("params") or {}).get("check"))
        params["check"] = was_checked and bool(params["check"])


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
    from bnb_sim.runner.run_files import WriteFailed

    total = plan.games
    sizes = {k: n for k, _, n in tasks}  # game indices (a game may play several rows of each)
    done = total - sum(sizes.values())
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
            n = sizes[k]
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
