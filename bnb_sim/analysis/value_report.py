"""The report of ``bnb value`` and its hook into run reports (docs/statistics.md, "Value").

:func:`build_value_report` writes the answer first (key findings: the best and worst option
only when separated, each value with its interval and n), then the ranked table, a forest plot
and the per-seat values. A value result saved as ``value.json`` inside a run folder (``bnb value
... --attach RUN``) is picked up by that run's report: :func:`value_hook` adds the causal values
to the Farmer's Market items section (Builders & Biomes) or the pet section (Heroes of the
Village), next to the correlation those sections show.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis.figure_scope import renders_figures
from bnb_sim.analysis.value import METHOD, ValueResult, value_rows, verdict_lines

VALUE_FILE = "value.json"


def forest_plot(rows: list[dict[str, Any]], title: str, outcome: str = "win share"):
    """Values with 95% intervals, one line per option, 0 marked."""
    from bnb_sim.analysis import plots

    fig, axes = plots.new_figure(min(max(1.2 + 0.32 * len(rows), 2.4), 14))
    ax = axes[0, 0]
    y = np.arange(len(rows))
    value = np.array([r["value"] for r in rows], dtype=float) * 100
    lo = np.array([r["lo"] for r in rows], dtype=float) * 100
    hi = np.array([r["hi"] for r in rows], dtype=float) * 100
    lo, hi = np.where(np.isfinite(lo), lo, value), np.where(np.isfinite(hi), hi, value)
    ax.errorbar(value, y, xerr=np.vstack([value - lo, hi - value]), fmt="o", color="#1f77b4",
                ecolor="#333333", elinewidth=1, capsize=2)  # fmt: skip
    ax.axvline(0.0, color="#888888", linestyle="--", linewidth=1)
    ax.set_yticks(y, [f"{r['mode']} {r['option']}" for r in rows])
    ax.invert_yaxis()
    plots._style(ax, title, f"value, percentage points of {outcome} (95% CI)")
    return fig


def value_sections(result: ValueResult) -> list:
    """The value section (method, ranked table, plot, per seat)."""
    from bnb_sim.analysis.report_builder import Section
    from bnb_sim.analysis.table_format import fmt_signed_pp

    sec = Section("Value of options (restricted play)")
    opp = ", ".join(sorted(set(result.setup.get("opponents", [])))) or result.policy
    sec.text(
        f"The `{result.policy}` bot played {result.n_games:,} game indices freely and the same "
        f"indices once per option with that option forbidden (`never`) or forced (`always`), "
        f"against {opp}, seats rotated. The value is the difference in its {result.outcome} "
        "per game index (never: allowed minus forbidden; always: forced minus free), a t "
        "interval on the paired differences. p values are Holm-adjusted over the options; the "
        "best and worst are named only when the paired gap to every other option excludes 0."
    )
    for line in verdict_lines(result):
        sec.text(line)
    sec.table(pd.DataFrame(value_rows(result)), caption="Options ranked by value")
    rows = [o.to_dict() for o in result.options]
    sec.figure("value-forest", forest_plot(rows, f"Value to {result.policy}", result.outcome),
               "Value of each option with its 95% interval (0: no effect)")  # fmt: skip
    seats = sorted({s for o in result.options for s in o.by_seat})
    if len(seats) > 1:
        table = {"option": [f"{o.mode} {o.option}" for o in result.options]}
        for s in seats:
            table[f"seat {s}"] = [
                fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"], note=d["note"] or None)
                if (d := o.by_seat.get(s)) else "" for o in result.options
            ]  # fmt: skip
        sec.table(pd.DataFrame(table), caption="Value by the restricted player's seat")
    sec.summary["value"] = result.to_dict()
    return [sec]


def value_findings(result: ValueResult) -> list:
    """Key findings: the verdict lines, each with the numbers behind it."""
    from bnb_sim.analysis.report_builder import Finding

    numbers = {"options": len(result.options), "games_per_option": result.n_games}
    out = [Finding(line, dict(numbers)) for line in verdict_lines(result)]
    top = result.options[0]
    e = top.effect
    if math.isfinite(e["mean_diff"]):
        from bnb_sim.analysis.table_format import fmt_signed_pp

        text = (f"Largest value: {top.mode} {top.option} "
                f"{fmt_signed_pp(e['mean_diff'], e['lo'], e['hi'], note=e['note'] or None)} "
                f"(n = {int(e['n']):,} game indices"
                + ("; the largest of several, an unadjusted interval)" if len(result.options) > 1
                   else ")"))  # fmt: skip
        out.append(Finding(text, {"value": e["mean_diff"], "lo": e["lo"], "hi": e["hi"],
                                  "n": int(e["n"])}))  # fmt: skip
    return out


@renders_figures()
def build_value_report(result: ValueResult, title: str | None = None):
    from bnb_sim.analysis.report_builder import ReportBuilder

    builder = ReportBuilder(
        title or f"bnb-sim value of options: {result.policy}",
        f"{result.game} · {result.players} players · {result.n_games:,} game indices per option "
        f"· seed {result.seed}",
    )
    for section in value_sections(result):
        builder.add(section)
    builder.summary["value"] = result.to_dict()
    builder.summary["method"] = METHOD
    builder.findings += value_findings(result)
    return builder


def save_value(result: ValueResult, folder: str | Path) -> Path:
    """Write ``value.json`` into ``folder`` (a run folder: its report then shows the values)."""
    from bnb_sim import jsonsafe
    from bnb_sim.safe_io import write_atomic

    path = Path(folder) / VALUE_FILE
    write_atomic(path, jsonsafe.dumps(result.to_dict(), indent=2))
    return path


def attach_value(result: ValueResult, run: str | Path) -> Path:
    """Save ``result`` into the run folder ``run`` (``--attach``): refused unless the folder
    holds a run of the same game and number of players, so a report never shows values of
    another set-up."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games import DEFAULT_GAME

    meta_path = Path(run) / "run.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise BnbError(f"--attach {run}: not a run folder (no readable run.json)") from None
    game = meta.get("game", DEFAULT_GAME)  # a run.json of before games were named
    players = (meta.get("params") or {}).get("players")
    if game != result.game or (players is not None and int(players) != result.players):
        raise BnbError(
            f"--attach {run}: that run is {game} with {players} players; these values are "
            f"{result.game} with {result.players}"
        )
    return save_value(result, run)


def load_value(folder: str | Path | None) -> dict[str, Any] | None:
    """The ``value.json`` of a run folder, or None (missing or unreadable: no hook)."""
    if folder is None:
        return None
    path = Path(folder) / VALUE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def value_hook(section, folder: str | Path | None, what: str) -> None:
    """Add the causal values saved with a run (if any) to ``section``: ``what`` names the
    options the section is about (``"buy:"`` for items, ``"pet:"`` for pets)."""
    from bnb_sim.analysis.table_format import fmt_signed_pp

    data = load_value(folder)
    if not data:
        return
    rows = [o for o in data.get("options", []) if str(o.get("option", "")).startswith(what)]
    if not rows:
        return
    section.text(
        f"**Causal value** (bnb value, restricted play, {data.get('games', 0):,} game indices "
        f"per option, policy `{data.get('policy')}`): what the option is worth when the same "
        "bot is forbidden it (or forced to take it) on the same games. The comparison above "
        "is a correlation and stays as context."
    )
    section.table(
        pd.DataFrame(
            {
                "option": [f"{o['mode']} {o['option']}" for o in rows],
                "value [95% CI]": [
                    fmt_signed_pp(o["value"], o["lo"], o["hi"], note=o.get("note") or None)
                    for o in rows
                ],
                "p (Holm)": [
                    f"{o['p_holm']:.2g}" if o.get("p_holm") is not None else "" for o in rows
                ],  # fmt: skip
                "n": [f"{int(o['n']):,}" for o in rows],
            }
        ),
        caption="Causal value of each option (paired on the game index)",
    )
    section.summary["causal_value"] = {o["option"]: o for o in rows}


def publish_value(result: ValueResult, *, as_json: bool, attach, out, echo, echo_written) -> None:
    """What ``bnb value`` shows and writes once the values are in, for either game: the
    table (or ``--json``), the values saved into ``--attach RUN``, the report in ``--out``.
    ``echo`` and ``echo_written`` are the command's printers (this layer knows no CLI)."""
    from bnb_sim import jsonsafe
    from bnb_sim.analysis.value import format_value

    echo(jsonsafe.dumps(result.to_dict(), indent=2) if as_json else format_value(result))
    if attach is not None:
        path = attach_value(result, attach)
        if not as_json:
            echo(f"saved the values into {path}: `bnb report {attach}` shows them")
    if out is not None:
        written = build_value_report(result).write(out)
        if not as_json:
            echo_written(written)
