"""``bnb export RUN --csv DIR``: a run as CSV files for spreadsheets (no numba)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("export")
@click.argument("run_dir", type=click.Path(path_type=Path), metavar="RUN")
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    metavar="DIR",
    help="Folder for seats.csv, games.csv and run.csv (created if needed).",
)
@click.option("--force", "-f", is_flag=True, help="Replace DIR if it exists and is not empty.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def export(run_dir: Path, csv_dir: Path, force: bool, quiet: bool) -> None:
    """Write the run directory RUN (from `bnb simulate --out`) as CSV files into DIR:
    seats.csv (one row per game and seat), games.csv (one row per game) and run.csv (the
    run's parameters as key,value rows). The columns are those of docs/run-format.md."""
    from bnb_sim.feedback import status_lines
    from bnb_sim.runner.export import export_csv

    with status_lines(not quiet, prefix="bnb export: "):
        written = export_csv(run_dir, csv_dir, force=force)
    rows = written["rows"]
    click.echo(
        f"wrote {written['seats']} ({rows['seats']:,} rows), "
        f"{written['games']} ({rows['games']:,} rows), {written['run']}"
    )
