"""Stop handling for a game's own run loop, the way ``bnb simulate`` of Builders & Biomes does it.

A game that writes its runs through the shared :class:`~bnb_sim.runner.storage.RunWriter` but
plays them with its own loop (Heroes of the Village) wraps that loop in :func:`stoppable_run`:

* Ctrl-C asks to stop after the chunk in progress (a second Ctrl-C stops at once), SIGTERM
  stops at once (:class:`~bnb_sim.runner.stop_flag._StopFlag`); the loop learns it through
  :meth:`StopCheck.progress`, which raises ``KeyboardInterrupt`` after the part just stored;
* the interruption becomes :class:`~bnb_sim.runner.run_summary.RunInterrupted` (how many games
  are stored, the resume command, exit code 130 or 143);
* a file-system failure (a full disk) becomes the one line that says what failed, how many
  games are stored and how to resume.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

from bnb_sim.errors import RunError

Progress = Callable[[int, int], None]


class StopCheck:
    """What :func:`stoppable_run` yields: ``progress(done, total)`` for the loop."""

    def __init__(self, flag, progress: Progress | None):
        self.flag = flag
        self._progress = progress

    def progress(self, done: int, total: int) -> None:
        """Pass the progress on, then stop if a signal asked for it (between chunks)."""
        if self._progress is not None:
            self._progress(done, total)
        if self.flag.requested:
            raise KeyboardInterrupt


def stored_games(path: Path) -> int:
    """Games (game indices) in the parts of the run ``path`` whose two files are on disk."""
    from bnb_sim.runner.run_files import TABLES, part_name, read_meta

    try:
        meta = read_meta(path)
    except RunError:
        return 0
    games, chunk = meta["params"]["games"], meta["params"]["chunk_size"]
    stored = 0
    for k in range(meta["parts"]):
        if all((path / table / part_name(k)).is_file() for table in TABLES):
            stored += min(chunk, games - k * chunk)
    return stored


@contextlib.contextmanager
def stoppable_run(
    path: str | Path,
    games: int,
    resume_command: str,
    *,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
) -> Iterator[StopCheck]:
    """Signals, interruptions and file-system failures of a run into ``path`` (module doc)."""
    from bnb_sim.runner.run_dir import _write_failed
    from bnb_sim.runner.run_files import WriteFailed
    from bnb_sim.runner.run_summary import RunInterrupted
    from bnb_sim.runner.stop_flag import _StopFlag

    path = Path(path)
    with _StopFlag(notice) as flag:
        try:
            yield StopCheck(flag, progress)
        except KeyboardInterrupt:
            flag.critical = True  # a further signal must not cut the report of it short
            done = stored_games(path)
            kept = path.is_dir()
            signum = flag.signum or signal.SIGINT
            raise RunInterrupted(path, done, games, resume_command, signum, kept) from None
        except WriteFailed as exc:
            done = stored_games(path)
            raise _write_failed(exc, path, done, games, path.is_dir(), resume_command) from None
