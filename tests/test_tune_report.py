"""The `bnb tune game` report as a designer reads it (issue 25, item 4; review "first contact
3", question 5): sensitivity panels in percentage points with error bars and a y-axis that
does not magnify noise, no clipped title, headers that do not break mid-word, the same game
count in the header and the stage table, and no "best" that cannot be told apart."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bnb_sim.analysis.report_builder import _html_table
from bnb_sim.cli import main
from bnb_sim.tune.report import build_game_report, format_game, sensitivity_figure

# the designer's two-point grid, small: Enderman 6 or 7 hearts, fairness targets
ARGS = ["--param", "mobs.enderman.hearts=6,7", "--target", "first_player_advantage=0",
        "--target", "balance=max", "--players", "3", "--policy", "greedy",
        "--budget", "2000", "--method", "grid", "--seed", "2", "-q"]  # fmt: skip


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "t"
    main(["tune", "game", *ARGS, "--json", "--out", str(out)])
    return json.loads((out / "tune.json").read_text())["result"]


def test_header_and_stage_table_count_the_same_games(tuned, tmp_path):
    """The header said "85,000 games" and the stage table "total 100,000": the table now
    shows planned and played games, and its played total is the header's number."""
    played = tuned["played_games"]
    assert sum(played.values()) == tuned["games"]
    md = build_game_report(tuned).write(tmp_path / "r")["markdown"].read_text()
    header = re.search(r"([\d,]+) games played", md)
    assert header and int(header.group(1).replace(",", "")) == tuned["games"]
    total = re.search(r"\| total \| ([\d,]+) \| ([\d,]+) \|", md)
    assert total and int(total.group(2).replace(",", "")) == tuned["games"]


def test_sensitivity_has_error_bars_in_pp_and_a_steady_axis(tuned):
    """A grid plays each value once: the error bars come from that evaluation's own games
    (they were missing), the advantage is in pp, and the y-axis spans at least 4 pp (it was
    zoomed to 0.0001)."""
    rows = [r for r in tuned["sensitivity"] if r["target"] == "first_player_advantage"]
    assert rows and all(r["evaluations"] == 1 and r["se"] > 0 for r in rows)
    balance = [r for r in tuned["sensitivity"] if r["target"] == "balance"]
    assert all(r["se"] > 0 for r in balance)
    fig = sensitivity_figure(tuned)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert high - low >= 4.0  # pp, not probability units
    mean = [r["mean"] for r in rows]
    assert low < 100 * min(mean) and 100 * max(mean) < high
    assert "pp" in ax.get_ylabel()
    bars = [c for c in ax.containers if hasattr(c, "has_yerr") and c.has_yerr]
    segments = bars[0].lines[2][0].get_segments()
    assert all(abs(s[1][1] - s[0][1]) > 0 for s in segments)  # bars with a length


def test_sensitivity_title_is_not_clipped(tuned):
    """The title read "r: each target by parameter value (search evaluation": every text
    of the figure now lies inside it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = sensitivity_figure(tuned)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    texts = [fig._suptitle, *(ax.title for ax in fig.axes)]
    for text in texts:
        if text is None or not text.get_text():
            continue
        extent = text.get_window_extent(renderer)
        assert extent.x0 >= box.x0 - 1 and extent.x1 <= box.x1 + 1, text.get_text()
        assert extent.y1 <= box.y1 + 1, text.get_text()


def test_table_headers_wrap_at_underscores_not_mid_word():
    """Headers broke as "first_player_advantag e" (CSS overflow-wrap: anywhere on th)."""
    import pandas as pd

    html = _html_table(pd.DataFrame({"first_player_advantage": ["+1.0 pp"]}), None)
    assert "<th>first_<wbr>player_<wbr>advantage</th>" in html
    from importlib import resources

    css = resources.files("bnb_sim").joinpath("analysis/templates/report.html").read_text()
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", css)
    for selector, body in rules:
        names = [s.strip() for s in selector.split(",")]
        if "th" in names:
            assert "anywhere" not in body and "break-all" not in body, selector


def test_no_best_without_a_detectable_difference(tuned):
    """One heart more or less hardly moves fairness with 2,000 games: the answer must not
    be called "best" unless its gap to the runner-up excludes 0."""
    text = format_game(tuned)
    findings = [f.text for f in build_game_report(tuned).findings]
    leader = tuned["leader"]
    if leader.get("best") is None:
        assert "no detectable difference" in text and "the best setting" not in text
        assert "no detectable difference" in findings[0]  # on the first screen
    else:
        assert "the best setting" in text and "the best setting" in findings[0]
    assert np.isfinite(tuned["final"]["answer"]["score"])
