"""The report folder of a command (``--out``/``--force``): the one rule for every command that
writes one (a folder that exists and is not empty is replaced only with ``--force``), and
its creation before any game is played. Imports no other CLI module, so the option
decorators (:mod:`bnb_sim.cli.options`) and every command can use it."""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim.errors import BnbError

__all__ = ["prepare_out", "refuse_overwrite"]

_FORCE = "bnb.out.force"  # the context's meta key of the command's --force flag


def refuse_overwrite(out: Path, force: bool | None = None) -> None:
    """Raise a one-line :class:`BnbError` if ``out`` holds files and ``--force`` was not given.

    ``force`` defaults to the current command's ``--force`` flag.
    """
    if force is None:
        ctx = click.get_current_context(silent=True)
        force = bool(ctx and ctx.meta.get(_FORCE))
    if force or not out.exists():
        return
    if not out.is_dir():
        raise BnbError(f"{out}: exists and is not a folder")
    if any(out.iterdir()):
        raise BnbError(f"{out}: the folder exists and is not empty (use --force to replace it)")


def prepare_out(out: Path) -> Path:
    """Refuse a non-empty folder without --force, and create the report folder now, so a bad
    --out fails before the games are played; a folder made here that is still empty when
    the command ends (it failed) is removed."""
    refuse_overwrite(out)
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BnbError(f"{out}: cannot write the report there ({exc.strerror or exc})") from None
    ctx = click.get_current_context(silent=True)
    if created and ctx is not None:
        ctx.call_on_close(lambda: _remove_if_empty(out))
    return out


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()  # only succeeds on an empty folder
    except OSError:
        pass
