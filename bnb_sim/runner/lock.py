"""One writer per run directory: an ``flock``'d lock file inside the run folder.

``RunLock(run).acquire()`` takes an exclusive, non-blocking :func:`fcntl.flock` on
``RUN/.bnb-sim.lock``. The kernel holds the lock for as long as the file descriptor is open
and releases it when the process ends in any way (a crash or SIGKILL included), so a lock is
never left stale and needs no clean-up. The file stays in the folder (removing it would let
two processes lock two different files of the same name); its text is the holder's pid and
host, only for the message a second process gets.

A second writer (``bnb simulate`` on a held folder, with or without ``--resume`` /
``--force``) gets :class:`~bnb_sim.errors.RunError` at once: "... is in use by another
bnb-sim process (pid N on host)". Readers (``load_run``, ``bnb report``) do not lock: parts
are renamed into place complete, and every part is verified when it is read.
"""

from __future__ import annotations

import errno
import os
import platform
from pathlib import Path

from bnb_sim.errors import RunError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: a byte-range lock, also dropped on exit
    fcntl = None
    import msvcrt

LOCK_NAME = ".bnb-sim.lock"
_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, errno.EDEADLK)


def _try_lock(fd: int) -> None:
    """Lock ``fd`` exclusively without waiting; OSError (errno in _BUSY) if it is held."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:  # pragma: no cover
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _holder(file: Path) -> str:
    try:
        text = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    return f" ({text})" if text else ""


class RunLock:
    """The exclusive lock of one run directory (the directory must exist)."""

    def __init__(self, run: str | os.PathLike):
        self.run = Path(run)
        self.file = self.run / LOCK_NAME
        self._fd: int | None = None
        self.created = False  # whether this process created the lock file

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> RunLock:
        """Take the lock; RunError if another process holds it or the folder is not writable."""
        for _ in range(5):  # a holder may remove a fresh run (and its lock file) meanwhile
            fd = self._open()
            try:
                _try_lock(fd)
            except OSError as exc:
                os.close(fd)
                if exc.errno in _BUSY:
                    raise RunError(
                        f"{self.run}: is in use by another bnb-sim process{_holder(self.file)}; "
                        "wait for it to finish (or stop it) and try again"
                    ) from None
                raise RunError(
                    f"{self.run}: cannot lock the run directory ({exc.strerror})"
                ) from None
            if self._same_file(fd):
                self._fd = fd
                self._write_holder(fd)
                return self
            os.close(fd)  # the file we locked was unlinked after we opened it: try again
        raise RunError(f"{self.run}: cannot lock the run directory (its lock file keeps changing)")

    def _open(self) -> int:
        existed = self.file.exists()
        try:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise RunError(
                f"{self.run}: cannot write to the run directory ({exc.strerror})"
            ) from None
        self.created = self.created or not existed
        return fd

    def _same_file(self, fd: int) -> bool:
        try:
            return os.path.samestat(os.fstat(fd), os.stat(self.file))
        except OSError:
            return False

    @staticmethod
    def _write_holder(fd: int) -> None:
        if fcntl is None:  # pragma: no cover - the locked byte cannot be rewritten there
            return
        text = f"pid {os.getpid()} on {platform.node() or 'this host'}\n".encode()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, text, 0)
        except OSError:
            pass  # only the message of a second process depends on it

    def release(self, *, remove: bool = False) -> None:
        """Drop the lock; ``remove`` also deletes the lock file (for a run folder being
        removed again, while the lock is still held)."""
        if self._fd is None:
            return
        try:
            if remove:
                self.file.unlink(missing_ok=True)
        except OSError:
            pass  # e.g. a read-only folder: the file stays, the lock goes with the descriptor
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def check_unlocked(run: str | os.PathLike) -> None:
    """RunError now if another process holds ``run`` (a cheap early check; nothing created)."""
    file = Path(run) / LOCK_NAME
    try:
        fd = os.open(file, os.O_RDONLY)
    except OSError:
        return  # no lock file: nobody holds it (or we will find out when we lock)
    try:
        _try_lock(fd)
    except OSError as exc:
        if exc.errno in _BUSY:
            raise RunError(
                f"{Path(run)}: is in use by another bnb-sim process{_holder(file)}; "
                "wait for it to finish (or stop it) and try again"
            ) from None
    finally:
        os.close(fd)
