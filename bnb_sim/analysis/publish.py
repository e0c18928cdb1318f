"""Put a report folder in place whole, or not at all.

:func:`publish` writes every file of a report into a temporary folder next to the target
(``.<name>.tmp-<pid>``, fsynced), and only then moves it into place:

* no target, or an empty one (``bnb run`` creates it early): the temporary folder is renamed
  onto it, in one step;
* an earlier report (a folder holding only report files: ``report.html``, ``summary.json``,
  ``report.md``, PNGs): it is renamed aside, the new folder is renamed in, the old one is
  deleted, so readers see the old report or the new one and never a mix;
* a folder that also holds other things (run folders of an experiment, your own files): each
  new file is renamed into it, one by one (every file is complete; nothing else there is
  touched or deleted).

A failure before the move (a full disk, a read-only folder) removes the temporary folder and
leaves the target as it was; :class:`~bnb_sim.errors.BnbError` says so in one line.
:func:`check_writable` tells early, without creating anything, whether the target can be
written at all.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from bnb_sim.errors import BnbError
from bnb_sim.safe_io import UnreadableFile, load_json

_REPORT_SUFFIXES = (".png", ".md", ".html", ".json")
MAX_SUMMARY_BYTES = 100_000_000


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _fail(out: Path, exc: OSError) -> BnbError:
    return BnbError(f"{out}: cannot write the report there ({_reason(exc)}); nothing was changed")


def check_writable(out: str | os.PathLike) -> None:
    """BnbError unless ``out`` (or the nearest folder above it that exists) can take files;
    creates nothing."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BnbError(f"{out}: cannot write the report there (it is a file, not a folder)")
    probe = out.absolute()
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise BnbError(f"{out}: cannot write the report there ({probe} is a file)")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise BnbError(f"{out}: cannot write the report there ({probe} is not writable)")


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _is_report_folder(folder: Path) -> bool:
    """Whether ``folder`` holds only what a report writes (so it may be replaced whole)."""
    names = os.listdir(folder)
    if "report.html" not in names or "summary.json" not in names:
        return False
    for name in names:
        if not name.endswith(_REPORT_SUFFIXES) or not (folder / name).is_file():
            return False
        if (folder / name).is_symlink():
            return False
    try:  # untrusted: a regular file of bounded size and nesting (safe_io)
        summary = load_json(folder / "summary.json", MAX_SUMMARY_BYTES)
    except UnreadableFile:
        return False
    return isinstance(summary, dict) and "title" in summary


def publish(out: str | os.PathLike, files: Mapping[str, bytes]) -> Path:
    """Write ``files`` (name -> bytes) as the folder ``out``, all or nothing (module doc)."""
    out = Path(out)
    check_writable(out)
    parent = out.absolute().parent
    tmp = parent / f".{out.name or 'report'}.tmp-{os.getpid()}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        for name, data in files.items():
            _write_file(tmp / name, data)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _fail(out, exc) from None
    try:
        _move_into_place(tmp, out, list(files))
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _fail(out, exc) from None
    return out


def _move_into_place(tmp: Path, out: Path, names: list[str]) -> None:
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        os.replace(tmp, out)  # a rename onto an empty folder replaces it
        return
    if _is_report_folder(out):
        old = out.absolute().parent / f".{out.name}.old-{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        os.rename(out, old)
        try:
            os.rename(tmp, out)
        except OSError:
            os.rename(old, out)  # put the earlier report back
            raise
        shutil.rmtree(old, ignore_errors=True)
        return
    in_the_way = [n for n in names if (out / n).exists() and not (out / n).is_file()]
    if in_the_way:
        raise IsADirectoryError(21, f"{out / in_the_way[0]} is a folder, not a report file")
    for name in names:  # other things live there too: replace our files one by one
        os.replace(tmp / name, out / name)
    tmp.rmdir()
