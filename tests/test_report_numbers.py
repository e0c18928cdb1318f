"""Numbers formatted for people (issue 25, item 8): each percentage with the decimals its own
interval needs, not the finest row's (the designer read "21.6892% [21.4569, 21.9233]"
because the bell's 0-of-120,000 row forced four decimals on the item column), n kept next to
it; no p value or per-game figure with five decimals anywhere in a report."""

from __future__ import annotations

import re

import pandas as pd
from small_runs import fm_report, hotv_report, mirror_report  # noqa: F401 (fixtures)

from bnb_sim.analysis import tables
from bnb_sim.analysis.numbers import fmt_p
from bnb_sim.analysis.stats import wilson_interval

FIVE_DECIMALS = re.compile(r"(?<![\w.])[+\-]?\d+\.\d{5,}(?![\w.])")


def _rows(counts):
    rows = []
    for k, n in counts:
        lo, hi = wilson_interval(k, n)
        rows.append({"k": k, "n": n, "rate": k / n, "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def test_each_rate_cell_has_its_own_precision_and_keeps_n():
    frame = _rows([(26_027, 120_000), (0, 120_000), (412, 120_000)])
    cells = tables.rate_cells(frame, with_n=True)
    assert cells[0] == "21.69% [21.46, 21.92] n=120,000"  # not 21.6892% [21.4569, 21.9233]
    assert cells[1].startswith("0.0000% [0.0000, 0.003") and cells[1].endswith("n=120,000")
    assert cells[2] == "0.343% [0.312, 0.378] n=120,000"


def test_p_values_never_show_five_decimals():
    assert fmt_p(0.00056) == "< 0.001"
    assert fmt_p(0.0123) == "0.012" and fmt_p(0.5) == "0.5" and fmt_p(float("nan")) == "–"


def _five_decimal_numbers(markdown: str) -> list[str]:
    return FIVE_DECIMALS.findall(markdown)


def test_no_report_prints_a_number_with_five_decimals(mirror_report, fm_report, hotv_report):  # noqa: F811
    for report in (mirror_report, fm_report, hotv_report):
        md = report["markdown"].read_text()
        assert _five_decimal_numbers(md) == [], report["dir"]


def test_the_five_decimal_scan_finds_what_the_designer_saw():
    assert _five_decimal_numbers("| rule | 12.73375 | p 0.00056 | 21.6892% |") == [
        "12.73375",
        "0.00056",
    ]
