"""``bnb report RUN_DIR``: write the report of a simulate run (md, html, png, json)."""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim.cli.options import echo_report, json_option, out_option, refuse_overwrite


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path))
@out_option(None, "Folder for the report (created if needed). Default: reports/<run dir name>.")
@click.option("--title", default=None, help="Report title. Default: from the run dir name.")
@json_option
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def report(run_dir: Path, out: Path | None, title: str | None, as_json: bool, quiet: bool) -> None:
    """Write report.md, a self-contained report.html, PNG figures and summary.json for RUN_DIR.

    Win rates (per policy, seat, policy x seat) with 95% Wilson intervals, first-player
    advantage and balance, XP, game length, scoring choices, fights and provenance.
    Progress lines (reading, each table, writing) go to stderr unless --quiet.
    """
    import bnb_sim.analysis.protocol_report  # noqa: F401 (pandas & co before the clock starts)
    from bnb_sim.cli.protocol_cmds import write_report
    from bnb_sim.games import game_of_run
    from bnb_sim.runner.run_files import read_meta

    spec = game_of_run(read_meta(run_dir))  # one report for every game: the shared one
    if out is None:
        out = Path("reports") / (run_dir.resolve().name or "run")
    refuse_overwrite(out)
    from bnb_sim.feedback import status_lines

    with status_lines(not quiet, prefix="bnb report: "):
        written = write_report(spec, run_dir, out, title=title)
    echo_report(written, as_json)
