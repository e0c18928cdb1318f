"""A game's report sections as data and back: :class:`bnb_sim.core.protocol.ReportSection`
(what a game's ``report_sections`` hook returns) and the report's
:class:`~bnb_sim.analysis.report_builder.Section` (what the builder renders).

:func:`to_section` makes the rendered section of a game's data; :func:`section_data` is its
inverse, for a game that builds its sections with the shared report pieces (tables, plots,
warning boxes) and hands them over as data: ``to_section(section_data(s))`` renders exactly
as ``s`` does (tests/test_report_data.py).
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def _frame(block: Any) -> pd.DataFrame:
    """A table block's rows as a frame: with ``columns`` exactly those columns and each cell
    as given; without them the first row's keys, types inferred (as the rows were made)."""
    if block.columns:
        return pd.DataFrame(list(block.rows), columns=list(block.columns), dtype=object)
    return pd.DataFrame(list(block.rows))


def to_section(data: Any):
    """The report :class:`~bnb_sim.analysis.report_builder.Section` of a game's
    :class:`~bnb_sim.core.protocol.ReportSection` data: paragraphs, tables, then its blocks
    in order; ``summary`` as given."""
    from bnb_sim.analysis.report_builder import Section

    section = Section(data.title, data.anchor or None)
    for text in data.paragraphs:
        section.text(text)
    for caption, rows in data.tables:
        section.table(pd.DataFrame(list(rows)), caption=caption or None)
    for block in data.blocks:
        if block.kind == "text":
            section.text(block.text)
        elif block.kind == "heading":
            section.heading(block.text, block.level)
        elif block.kind == "table":
            section.table(_frame(block), caption=block.caption or None)
        elif block.kind == "figure" and block.figure is None:
            section.image(block.name, block.png, block.caption, block.alt or None)
        elif block.kind == "figure":
            section.figure(block.name, block.figure, block.caption, block.alt or None)
        else:
            section.warning(block.title, block.text, block.items)
    section.summary.update(dict(data.summary))
    return section


def findings_of(data: Any) -> list:
    """The key findings (:class:`~bnb_sim.analysis.report_builder.Finding`) a game's section
    data contributes (its ``findings``: ``{"text": ..., numbers...}`` mappings)."""
    from bnb_sim.analysis.report_builder import Finding

    return [Finding(str(f["text"]), {k: v for k, v in f.items() if k != "text"})
            for f in data.findings]  # fmt: skip


def _block(part: Any):
    """One rendered block of a :class:`Section` as a :class:`ReportBlock`."""
    from bnb_sim.analysis import report_builder as rb
    from bnb_sim.core.protocol import ReportBlock

    if isinstance(part, rb._Heading):
        return ReportBlock("heading", text=part.text, level=part.level)
    if isinstance(part, rb._Text):
        return ReportBlock("text", text=part.text)
    if isinstance(part, rb._Table):
        rows = tuple(dict(zip(part.df.columns, row, strict=True))
                     for row in part.df.itertuples(index=False))  # fmt: skip
        return ReportBlock("table", rows=rows, columns=tuple(part.df.columns),
                           caption=part.caption or "")  # fmt: skip
    if isinstance(part, rb._Figure):
        return ReportBlock("figure", name=part.name, png=part.png, caption=part.caption,
                           alt=part.alt)  # fmt: skip
    return ReportBlock("warning", title=part.title, text=part.text, items=tuple(part.items))


def section_data(section: Any, findings=()):
    """A rendered :class:`Section` as :class:`~bnb_sim.core.protocol.ReportSection` data
    (its blocks in order, its summary, its anchor), with ``findings`` (:class:`Finding`
    objects) as the key findings it contributes."""
    from bnb_sim.core.protocol import ReportSection

    return ReportSection(
        section.title,
        blocks=tuple(_block(part) for part in section.blocks),
        summary=section.summary,
        findings=tuple(f.to_dict() for f in findings),
        anchor=section.anchor,
    )
