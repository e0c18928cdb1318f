"""What a long command tells its user while it works: progress and the first compile.

* :func:`progress_meter` gives a ``progress(done, total)`` callback: a tqdm bar on a terminal,
  periodic plain lines (``40,000/100,000 games (40%), 7,760 games/s, ETA 0:08``) on a pipe or
  a log file (CI, ``nohup``), nothing when quiet. In a notebook without ipywidgets it falls
  back to the plain bar instead of tqdm's ``IProgress not found`` warning.
* :func:`games_meter` makes such a meter *current* for the code below it: the runner's game
  loop (:func:`bnb_sim.runner.experiments.play_games`) reports every block it plays to it, so
  tournaments, sweeps, comparisons and experiments show rate and ETA without threading a
  callback through every layer.
* :func:`status_lines` makes a sink for short "what I am doing now" lines current: code deep
  below (``bnb report``'s loading, tables and figures) calls :func:`status`, which prints
  only inside such a block (the CLI without ``--quiet``), so the Python API stays silent.
* :func:`compile_notice` announces a cold kernel cache ("compiling the game engine, first run
  only, about 2 min") and keeps saying that it works while numba compiles.

Nothing here imports numba at module level; :func:`cache_is_cold` looks only at files.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

#: How often a plain (non-terminal) progress line is printed, in seconds (by default; the
#: environment variable ``BNB_PROGRESS_INTERVAL`` sets it: :func:`plain_interval`).
PLAIN_INTERVAL_S = 10.0
INTERVAL_ENV = "BNB_PROGRESS_INTERVAL"
#: The compile time quoted to the user (measured: 1-3 min on 2 busy cores, under 1 min on 8).
#: Measured from an empty cache: a run of the built-in bots about a minute on 2 quiet cores;
#: search bots, bot files, plugins or --check add a few minutes.
COMPILE_ESTIMATE = "about 1 minute on 2 cores (search bots, bot files or --check: 2-4)"

Progress = Callable[[int, int], None]


def _eta(seconds: float) -> str:
    seconds = max(int(round(seconds)), 0)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def plain_interval() -> float:
    """``BNB_PROGRESS_INTERVAL`` in seconds (default 10); BnbError for a value that is not a
    number of seconds from 0 to a day."""
    text = os.environ.get(INTERVAL_ENV, "").strip()
    if not text:
        return PLAIN_INTERVAL_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 86_400:
        from bnb_sim.errors import BnbError

        raise BnbError(f"{INTERVAL_ENV}={text[:40]!r}: give the seconds between progress lines, "
                       "a number from 0 to 86400")  # fmt: skip
    return value


class PlainMeter:
    """Progress as plain lines on ``stream``, at most one per ``interval`` seconds (and the
    last one), for streams that are not terminals."""

    def __init__(self, desc: str = "", stream: TextIO | None = None, interval: float | None = None):
        self.desc = desc
        self.stream = stream or sys.stderr
        self.interval = plain_interval() if interval is None else interval
        self.start = time.perf_counter()
        self.last = -float("inf")
        self.first_done: int | None = None

    def line(self, done: int, total: int) -> str:
        elapsed = time.perf_counter() - self.start
        base = self.first_done or 0
        rate = (done - base) / elapsed if elapsed > 0 else 0.0
        pct = f" ({100 * done / total:.0f}%)" if total else ""
        eta = f", ETA {_eta((total - done) / rate)}" if rate > 0 and 0 < done < total else ""
        head = f"{self.desc}: " if self.desc else ""
        return f"  {head}{done:,}/{total:,} games{pct}, {rate:,.0f} games/s{eta}"

    def __call__(self, done: int, total: int) -> None:
        if self.first_done is None:
            self.first_done = done
            self.start = time.perf_counter()
            return
        now = time.perf_counter()
        if done >= total or now - self.last >= self.interval:
            self.last = now
            print(self.line(done, total), file=self.stream, flush=True)

    def close(self) -> None:
        pass


def _tqdm_class():
    """tqdm's notebook bar where it can draw (ipywidgets installed), else the plain one."""
    if "ipykernel" in sys.modules:
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            from tqdm.std import tqdm

            return tqdm
        from tqdm.notebook import tqdm

        return tqdm
    from tqdm.std import tqdm

    return tqdm


def in_notebook() -> bool:
    return "ipykernel" in sys.modules


def progress_meter(
    enabled: bool = True, desc: str = "", stream: TextIO | None = None
) -> tuple[Progress | None, Callable[[], None]]:
    """``(progress(done, total), close())``: tqdm on a terminal or in a notebook, plain lines
    otherwise, ``(None, no-op)`` when not ``enabled``."""
    if not enabled:
        return None, lambda: None
    stream = stream or sys.stderr
    if not (in_notebook() or getattr(stream, "isatty", lambda: False)()):
        meter = PlainMeter(desc, stream)
        return meter, meter.close
    tqdm = _tqdm_class()
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None or bar.total != total:
            if bar is not None:
                bar.close()
            bar = state["bar"] = tqdm(
                total=total, initial=done, unit=" games", unit_scale=True, file=stream,
                dynamic_ncols=True, smoothing=0.1, mininterval=0.5, desc=desc or None,
            )  # fmt: skip
        else:
            bar.update(done - bar.n)

    def close() -> None:
        bar = state.pop("bar", None)
        if bar is not None:
            bar.close()

    return progress, close


# --------------------------------------------------------------------------------------
# the current games meter (tournament, sweep, compare, run)


class _GamesMeter:
    def __init__(self, progress: Progress):
        self.progress = progress
        self.total = 0
        self.done = 0

    def expect(self, total: int) -> None:
        self.total, self.done = int(total), 0
        self.progress(0, self.total)

    def advance(self, n: int) -> None:
        self.done += int(n)
        self.progress(min(self.done, max(self.total, self.done)), max(self.total, self.done))


_CURRENT: contextvars.ContextVar[_GamesMeter | None] = contextvars.ContextVar(
    "bnb_games_meter", default=None
)


@contextlib.contextmanager
def games_meter(enabled: bool = True, desc: str = "") -> Iterator[None]:
    """Show progress (rate, ETA) for every game the runner plays inside the block."""
    progress, close = progress_meter(enabled, desc)
    if progress is None:
        yield
        return
    token = _CURRENT.set(_GamesMeter(progress))
    try:
        yield
    finally:
        _CURRENT.reset(token)
        close()


def expect_games(total: int) -> None:
    """The runner announces how many games the next stage plays (a new bar / line series)."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.expect(total)


def games_played(n: int) -> None:
    """The runner reports ``n`` more games played."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.advance(n)


# --------------------------------------------------------------------------------------
# status lines (bnb report, bnb bench, bnb export)

_STATUS: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "bnb_status", default=None
)


@contextlib.contextmanager
def status_lines(
    enabled: bool = True, prefix: str = "", stream: TextIO | None = None
) -> Iterator[None]:
    """Print every :func:`status` line of the block on ``stream`` (stderr) after the seconds
    since the block began (``  3.2 s  win rates``), so a long step is never silent; nothing
    when not ``enabled``."""
    if not enabled:
        yield
        return
    out = stream or sys.stderr
    start = time.perf_counter()

    def say(text: str) -> None:
        elapsed = time.perf_counter() - start
        print(f"{prefix}{elapsed:6.1f} s  {text}", file=out, flush=True)

    token = _STATUS.set(say)
    try:
        yield
    finally:
        _STATUS.reset(token)


def status(text: str) -> None:
    """Say what the command does now (printed only inside :func:`status_lines`)."""
    sink = _STATUS.get()
    if sink is not None:
        sink(text)


# --------------------------------------------------------------------------------------
# the first compile


def cache_is_cold(folder: str | os.PathLike) -> bool:
    """Whether numba's cache folder holds no compiled kernel yet (no ``*.nbi`` index file):
    the next run compiles the engine from scratch (minutes, not seconds)."""
    path = Path(folder)
    if not path.is_dir():
        return True
    return next(path.rglob("*.nbi"), None) is None


def game_cache_is_cold(game: str | None) -> bool:
    """Whether the kernels of ``game`` (a name; None: the first game) have no compiled kernel
    in this installation's cache yet. A game whose code lies outside the package keeps its
    kernels where numba puts them (it says nothing here): False."""
    import inspect

    from bnb_sim._jit import cache_dir
    from bnb_sim.cache_paths import _PACKAGE, group_of
    from bnb_sim.games import get_game

    path = Path(inspect.getfile(type(get_game(game).game))).resolve()
    if not path.is_relative_to(_PACKAGE):
        return False
    return cache_is_cold(cache_dir(group_of(path)))


@contextlib.contextmanager
def compile_notice(
    enabled: bool = True,
    stream: TextIO | None = None,
    every: float = 1.0,
    *,
    cold: bool | None = None,
    game: str | Sequence[str] | None = None,
) -> Iterator[bool]:
    """Around the first kernel call: if the cache is cold, say so now and keep showing that it
    works (a ticking line on a terminal, a line every 15 s otherwise) until the block ends.
    Yields whether the cache was cold (``cold``: the caller knows; default: the kernel folder
    of ``game``, a name or several, None the first game, holds no compiled kernel yet)."""
    from bnb_sim._jit import CACHE_DIR  # imports numba (about a second)

    if cold is None:
        names = [game] if game is None or isinstance(game, str) else list(game)
        cold = any(game_cache_is_cold(name) for name in names)
    if not (enabled and cold):
        yield cold
        return
    stream = stream or sys.stderr
    tty = getattr(stream, "isatty", lambda: False)()
    print(
        f"bnb: compiling the game engine, first run only, {COMPILE_ESTIMATE} "
        f"(cached in {Path(CACHE_DIR).parent})",
        file=stream,
        flush=True,
    )
    stop = threading.Event()
    start = time.perf_counter()

    def tick() -> None:
        frames, i, last = "|/-\\", 0, start
        while not stop.wait(every):
            elapsed = time.perf_counter() - start
            if tty:
                print(f"\r  compiling {frames[i % 4]} {elapsed:4.0f} s", end="", file=stream)
                stream.flush()
                i += 1
            elif elapsed - (last - start) >= 15:
                last = time.perf_counter()
                print(f"  still compiling ({elapsed:.0f} s)", file=stream, flush=True)

    thread = threading.Thread(target=tick, name="bnb-compile-notice", daemon=True)
    thread.start()
    try:
        yield cold
    finally:
        stop.set()
        thread.join()
        elapsed = time.perf_counter() - start
        print(("\r" if tty else "") + f"  compiled in {elapsed:.0f} s", file=stream, flush=True)


def compile_processes() -> int:
    """Processes a first run compiles in (``BNB_COMPILE_JOBS``; default: the usable cores,
    at most 4). 1 compiles in the command's own process."""
    value = os.environ.get("BNB_COMPILE_JOBS", "").strip()
    if value.isdigit() and int(value) >= 1:
        return int(value)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def warm_engine(
    players: list[int], components=None, *, notice: bool = True, config=None, game=None
) -> float:
    """Compile (or load from the cache) the batch kernel for each player count now, under
    :func:`compile_notice`; returns the seconds it took (kept apart from playing time).

    ``config``: the run's own config (its policies and ``--check``), so only the driver it
    needs compiles; without it, the built-in bots' of ``game`` (a name; None: the default
    game). The game's ``warm_engine`` entry point does the work (for Builders & Biomes,
    :func:`bnb_sim.games.builders_biomes.compile_jobs.warm_engine`)."""
    from bnb_sim.games import entry_of_config, get_game

    if config is not None:
        warm = entry_of_config(config, "warm_engine")
    else:
        warm = get_game(game).need("warm_engine")
    return warm(players, components, notice=notice, config=config)


def warm_game(game: str | None, players: list[int], *, notice: bool = True) -> float:
    """Compile (or load from the cache) the batch kernel a run of ``game`` (a name; None:
    the default game) plays, under :func:`compile_notice`; returns the seconds it took.

    A game with a warm-up of its own (its ``warm_engine`` entry) warms for each player count
    of ``players`` (:func:`warm_engine`); any other, the first of its compile jobs (the protocol's
    ``compile_jobs`` hook: its batch kernel) and the jobs it comes after, in this process;
    a game with neither has nothing to compile ahead."""
    from bnb_sim.core.protocol import hook
    from bnb_sim.core.registry import get_game as protocol_game
    from bnb_sim.games import get_game
    from bnb_sim.precompile import warm_here

    spec = get_game(game)
    if _own_warm_up(spec):
        return warm_engine(players, notice=notice, game=spec.name)
    jobs_hook = hook(protocol_game(spec.name), "compile_jobs")
    jobs = list(jobs_hook()) if jobs_hook is not None else []
    if not jobs:
        return 0.0
    start = time.perf_counter()
    with compile_notice(notice, game=spec.name):
        warm_here(jobs, [jobs[0].name])
    return time.perf_counter() - start


def warmup_step(game: str | None, players: int = 2):
    """``(key, step)`` for ``bnb run`` and the commands that warm before they play: the
    engine a run of ``game`` plays (items with equal keys share it: per player count for a
    game with a warm-up of its own, else its batch kernel) and :func:`warm_game` for it."""
    import functools

    from bnb_sim.games import get_game

    spec = get_game(game)
    key = (spec.name, players) if _own_warm_up(spec) else (spec.name, "batch kernel")
    return key, functools.partial(warm_game, spec.name, [players], notice=False)


def _own_warm_up(spec) -> bool:
    """Whether a registry entry declares its own ``warm_engine`` (a game that implements
    only the protocol declares no entries)."""
    return spec.protocol is None and spec.entry("warm_engine") is not None
