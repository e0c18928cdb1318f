"""A game's report sections as data (issue 24, "one game interface"): Builders & Biomes
builds its sections with the shared report pieces and hands them to the shared ``bnb
report`` as :class:`~bnb_sim.core.protocol.ReportSection` data; the data renders exactly as
the section it came from (headings, tables with their column types and empty tables,
figures, warning boxes with items, anchors, summaries)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fake_runs import FakeSpec, write_fake_run

from bnb_sim.analysis.protocol_report import _placed, read_run
from bnb_sim.analysis.report_builder import Finding, Section
from bnb_sim.analysis.report_data import findings_of, section_data, to_section
from bnb_sim.core.protocol import ReportBlock
from bnb_sim.core.registry import get_game


def _same(section: Section) -> None:
    back = to_section(section_data(section))
    assert back.to_markdown() == section.to_markdown()
    assert back.to_html() == section.to_html()
    assert back.summary == section.summary and back.anchor == section.anchor
    assert [f.png for f in back.figures] == [f.png for f in section.figures]


def test_every_block_kind_survives_the_round_trip():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([1, 2], [2, 1])
    section = Section("Odd parts", anchor="odd")
    section.heading("A sub-heading", level=4).text("Text with `code` and **bold**.")
    section.table(pd.DataFrame({"n": [1, None], "s": ["a|b", "c"], 3: [0.5, np.nan]}), "cap")
    section.table(pd.DataFrame(columns=["empty", "table"]))
    section.figure("A Figure!", fig, "its caption", alt="its text")
    section.warning("Careful.", "Read this:", items=["one", "two"], code="careful")
    section.summary["numbers"] = {"x": 1}
    _same(section)


def test_findings_travel_with_the_section():
    data = section_data(Section("s"), [Finding("It holds.", {"kind": "k", "n": 3})])
    (found,) = findings_of(data)
    assert (found.text, found.numbers) == ("It holds.", {"kind": "k", "n": 3})


def test_a_figure_block_takes_rendered_png_bytes():
    block = ReportBlock("figure", png=b"\x89PNG", name="x", caption="c")
    assert block.png and block.figure is None
    with pytest.raises(ValueError, match="figure"):
        ReportBlock("figure", name="x")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    run = tmp_path_factory.mktemp("data") / "run"
    write_fake_run(run, FakeSpec(n_games=400, chunk_size=200, seed=2))
    return run


def test_builders_biomes_sections_render_as_they_were_built(fake):
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.report_wins import _policy_order
    from bnb_sim.games.builders_biomes.report import _steps

    seats, games, meta = read_run(fake, get_game("bnb"))
    seats, games, meta = shown_run(seats, games, meta)
    order = _policy_order(seats, meta)
    built = [make() for _, make in _steps(seats, games, meta, str(fake), order)]
    for section in filter(None, built):
        _same(section)


def test_the_attached_section_goes_before_the_named_one():
    a, b, x = Section("A"), Section("B"), Section("X")
    assert [s.title for s in _placed([a, b], x, "B")] == ["A", "X", "B"]
    assert [s.title for s in _placed([a, b], x, "")] == ["A", "B", "X"]
    assert [s.title for s in _placed([a, b], x, "none")] == ["A", "B", "X"]
    assert _placed([a, b], None, "B") == [a, b]
