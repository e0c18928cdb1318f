"""``bnb cache``: where the compiled kernels live, and clearing old ones (numba-free).

Each installation compiles its kernels into fingerprinted folders under one cache root, one
per kernel group (each game, the shared modules; docs/design.md, "Kernels and the cache"), so
folders of older versions and edited code pile up. ``bnb cache`` lists them with their sizes;
``bnb cache clear`` removes the ones this installation does not use (``--all``: its own too,
which makes the next run compile again).
"""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim import jsonsafe


def _folders() -> tuple[object, list[dict]]:
    from bnb_sim.cache_paths import cache_dirs, cache_folders, cache_root, folder_bytes

    current = set(cache_dirs())
    rows = [
        {"path": str(f), "bytes": folder_bytes(f), "current": f in current} for f in cache_folders()
    ]
    return cache_root(), rows


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def cache(ctx: click.Context, as_json: bool) -> None:
    """Show the kernel caches (this installation's and old ones) and their sizes."""
    if ctx.invoked_subcommand is not None:
        return
    root, rows = _folders()
    if as_json:
        click.echo(jsonsafe.dumps({"root": str(root), "folders": rows}, indent=2))
        return
    click.echo(f"cache root: {root}")
    if not rows:
        click.echo("no compiled kernels yet (the first run compiles them; `bnb warmup` too)")
    for row in rows:
        mark = "in use" if row["current"] else "old"
        click.echo(f"  {_size(row['bytes']):>10}  {mark:6}  {row['path']}")
    old = [r for r in rows if not r["current"]]
    if old:
        total = _size(sum(r["bytes"] for r in old))
        click.echo(f"{len(old)} old folder(s), {total}: `bnb cache clear` removes them")


@cache.command("clear")
@click.option(
    "--all", "everything", is_flag=True, help="Also remove this installation's own kernels."
)
@click.option("--yes", is_flag=True, help="Do not ask (needed with --all when not interactive).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing.")
def clear(everything: bool, yes: bool, quiet: bool) -> None:
    """Remove the kernel caches this installation does not use (old versions, other clones:
    a clone whose cache is removed compiles again on its next run)."""
    from bnb_sim.cache_paths import remove_folder

    _, rows = _folders()
    doomed = [r for r in rows if everything or not r["current"]]
    if everything and any(r["current"] for r in rows) and not yes:
        if not click.get_text_stream("stdin").isatty():
            raise click.UsageError(
                "cache clear --all: add --yes (the next run compiles every kernel)"
            )
        click.confirm("Remove this installation's kernels too (the next run compiles)?", abort=True)
    freed = 0
    for row in doomed:
        remove_folder(Path(row["path"]))
        freed += row["bytes"]
    if not quiet:
        click.echo(f"removed {len(doomed)} folder(s), {_size(freed)}")
