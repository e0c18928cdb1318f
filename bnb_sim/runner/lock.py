"""One writer per run directory: an ``flock``'d lock file inside the run folder.

``RunLock(run).acquire()`` takes an exclusive, non-blocking :func:`fcntl.flock` on
``RUN/.bnb-sim.lock``. The kernel holds the lock for as long as the file descriptor is open
and releases it when the process ends in any way (a crash or SIGKILL included), so a lock is
never left stale and needs no clean-up. The file stays in the folder (removing it would let
two processes lock two different files of the same name); its text is the holder's pid and
host, only for the message a second process gets. The lock file is opened without following
links and must be a plain file with no other name: a folder received from someone else may
hold a ``.bnb-sim.lock`` link to one of your files, which would otherwise be truncated.

A second writer (``bnb simulate`` on a held folder, with or without ``--resume`` /
``--force``) gets :class:`~bnb_sim.errors.RunError` at once: "... is in use by another
bnb-sim process (pid N on host)". Readers (``load_run``, ``bnb report``) do not lock: parts
are renamed into place complete, and every part is verified when it is read.
"""

from __future__ import annotations

import errno
import os
import platform
import stat
from pathlib import Path

from bnb_sim.errors import RunError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: a byte-range lock, also dropped on exit
    fcntl = None
    import msvcrt

LOCK_NAME = ".bnb-sim.lock"
_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, errno.EDEADLK)
#: Never through a link, never blocking (a FIFO planted under the lock's name).
_NO_LINK = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _try_lock(fd: int) -> None:
    """Lock ``fd`` exclusively without waiting; OSError (errno in _BUSY) if it is held."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:  # pragma: no cover
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _holder(file: Path) -> str:
    try:
        fd = os.open(file, os.O_RDONLY | _NO_LINK)
        try:
            text = os.read(fd, 200).decode("utf-8").strip() if _plain(fd) else ""
        finally:
            os.close(fd)
    except (OSError, UnicodeDecodeError):
        text = ""
    return f" ({text})" if text.isprintable() and text else ""


def _plain(fd: int) -> bool:
    """A regular file with one name (not a hard link to some other file of the user's)."""
    info = os.fstat(fd)
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


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
        existed = os.path.lexists(self.file)
        try:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT | _NO_LINK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP or os.path.islink(self.file):
                raise self._not_plain("a link") from None
            raise RunError(
                f"{self.run}: cannot write to the run directory ({exc.strerror})"
            ) from None
        try:
            plain = _plain(fd)
        except OSError:
            plain = False
        if not plain:
            os.close(fd)
            raise self._not_plain("not a plain file of its own (a hard link, a pipe...)")
        self.created = self.created or not existed
        return fd

    def _not_plain(self, what: str) -> RunError:
        return RunError(
            f"{self.file}: the lock file is {what}; nothing was written through it. Remove it "
            "(it is not part of the run) and try again"
        )

    def _same_file(self, fd: int) -> bool:
        try:
            return os.path.samestat(os.fstat(fd), os.lstat(self.file))
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
        fd = os.open(file, os.O_RDONLY | _NO_LINK)
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
