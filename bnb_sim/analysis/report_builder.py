"""The building blocks of every report and the builder that writes them.

* :class:`Section` collects blocks (text, tables, figures, warning boxes) and a ``summary``
  dict of machine-readable numbers; it renders itself as Markdown and as HTML.
* :class:`Finding` is one headline answer of a report (the key findings at the top).
* :class:`ReportBuilder` collects sections and findings and writes ``report.md``, a
  self-contained ``report.html``, the PNG figures and ``summary.json``
  (:meth:`ReportBuilder.write`).

The simulate, compare, tournament, sweep, ladder, tune and game reports all build on these.
Nothing here imports numba.
"""

from __future__ import annotations

import base64
import gc
import html
import json
import math
import os
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bnb_sim.analysis import plots
from bnb_sim.analysis.stats_intervals import Rate

# --------------------------------------------------------------------------------------
# blocks and sections


@dataclass
class _Heading:
    text: str
    level: int = 3


@dataclass
class _Text:
    text: str


@dataclass
class _Table:
    df: pd.DataFrame
    caption: str | None = None


@dataclass
class _Figure:
    name: str
    png: bytes
    caption: str
    alt: str


@dataclass
class _Warning:
    title: str
    text: str
    items: list[str] = field(default_factory=list)


@dataclass
class Finding:
    """One headline answer of a report: a sentence in plain words that carries its number,
    its 95% interval and its n, plus the same numbers for ``summary.json``."""

    text: str
    numbers: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, **self.numbers}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def name_item_sections(sections, name: str, *, lower: bool = True, lead: str = "") -> None:
    """The sections of one experiment item, named by it: each title ``"NAME: LEAD title"``
    (lower-cased with ``lower``), its anchor, and its figure files prefixed by ``name`` (two
    items' figures never share a file)."""
    for section in sections:
        title = section.title.lower() if lower else section.title
        section.title = f"{name}: {lead}{title}"
        section.anchor = _slug(section.title)
        for fig in section.figures:
            fig.name = _slug(f"{name}-{fig.name}")


def name_item_findings(findings, name: str) -> list[Finding]:
    """An item's key findings, each led by the item's ``name``."""
    return [Finding(f"{name}: {f.text}", f.numbers) for f in findings]


_INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
]


def _inline_html(text: str) -> str:
    """Escape ``text`` and turn `code` and **bold** into HTML."""
    out = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


_NUMERIC = re.compile(r"^[+\-−]?[\d.,]+(%| pp)?( \[.*\])?$|^n/a$")


def _numeric_columns(df: pd.DataFrame) -> list[bool]:
    return [bool(len(df)) and all(_NUMERIC.match(str(v)) for v in df[c]) for c in df.columns]


class Section:
    """A titled part of a report: blocks rendered to Markdown and HTML, plus ``summary``.

    ``summary`` holds the section's machine-readable numbers; :class:`ReportBuilder` merges
    the summaries of its sections into ``summary.json``.
    """

    def __init__(self, title: str, anchor: str | None = None):
        self.title = title
        self.anchor = anchor or _slug(title)
        self.blocks: list = []
        self.summary: dict[str, Any] = {}

    def heading(self, text: str, level: int = 3) -> Section:
        self.blocks.append(_Heading(text, level))
        return self

    def text(self, text: str) -> Section:
        """A paragraph; `code` and **bold** are the only markup."""
        self.blocks.append(_Text(text))
        return self

    def table(self, df: pd.DataFrame, caption: str | None = None) -> Section:
        """A table of display strings (format numbers first, e.g. with tables.fmt_rate)."""
        self.blocks.append(_Table(df.reset_index(drop=True), caption))
        return self

    def figure(self, name: str, fig, caption: str, alt: str | None = None) -> Section:
        """Render a matplotlib figure to PNG now (it is embedded in the HTML, a file for md)."""
        self.blocks.append(_Figure(_slug(name), plots.to_png(fig), caption, alt or caption))
        plots.release(fig)
        del fig  # the only reference left: the collector can free the figure now
        gc.collect()
        return self

    def image(self, name: str, png: bytes, caption: str, alt: str | None = None) -> Section:
        """A figure rendered already (its PNG bytes), as :meth:`figure` keeps it."""
        self.blocks.append(_Figure(_slug(name), png, caption, alt or caption))
        return self

    def warning(self, title: str, text: str, items: Sequence[str] = (), code: str | None = None):
        """A visible warning box (HTML) / a bold blockquote (Markdown).

        With ``code`` the caveat is also listed in ``summary.json`` under ``warnings`` as
        ``{"code": code, "message": title + text}`` (machine-readable; one entry per code).
        """
        self.blocks.append(_Warning(title, text, list(items)))
        if code is not None:
            self.summary.setdefault("warnings", []).append(
                {"code": code, "message": f"{title} {text}".strip()}
            )
        return self

    @property
    def figures(self) -> list[_Figure]:
        return [b for b in self.blocks if isinstance(b, _Figure)]

    def to_markdown(self, image_names: Mapping[int, str] | None = None) -> str:
        lines = [f"## {self.title}", ""]
        for block in self.blocks:
            if isinstance(block, _Heading):
                lines += [f"{'#' * block.level} {block.text}", ""]
            elif isinstance(block, _Text):
                lines += [block.text, ""]
            elif isinstance(block, _Warning):
                lines.append(f"> **⚠ {block.title}** {block.text}")
                lines += [f"> - {item}" for item in block.items]
                lines.append("")
            elif isinstance(block, _Table):
                if block.caption:
                    lines += [f"*{block.caption}*", ""]
                df = block.df
                right = _numeric_columns(df)
                lines.append("| " + " | ".join(_md_cell(c) for c in df.columns) + " |")
                lines.append("|" + "|".join("---:" if r else "---" for r in right) + "|")
                for row in df.itertuples(index=False):
                    lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
                lines.append("")
            elif isinstance(block, _Figure):
                file = (image_names or {}).get(id(block), f"{block.name}.png")
                lines += [f"![{block.alt}]({file})", "", f"*{block.caption}*", ""]
        return "\n".join(lines)

    def to_html(self) -> str:
        parts = [f'<section id="{self.anchor}">', f"<h2>{html.escape(self.title)}</h2>"]
        for block in self.blocks:
            if isinstance(block, _Heading):
                level = min(max(block.level, 3), 6)
                parts.append(f"<h{level}>{html.escape(block.text)}</h{level}>")
            elif isinstance(block, _Text):
                parts.append(f"<p>{_inline_html(block.text)}</p>")
            elif isinstance(block, _Warning):
                items = "".join(f"<li>{_inline_html(i)}</li>" for i in block.items)
                parts.append(
                    '<div class="warning" role="alert">'
                    f'<strong class="title">⚠ {html.escape(block.title)}</strong>'
                    f"{_inline_html(block.text)}{f'<ul>{items}</ul>' if items else ''}</div>"
                )
            elif isinstance(block, _Table):
                parts.append(_html_table(block.df, block.caption))
            elif isinstance(block, _Figure):
                data = base64.b64encode(block.png).decode("ascii")
                parts.append(
                    f'<figure><img src="data:image/png;base64,{data}" '
                    f'alt="{html.escape(block.alt)}">'
                    f"<figcaption>{_inline_html(block.caption)}</figcaption></figure>"
                )
        parts.append("</section>")
        return "\n".join(parts)


def _html_table(df: pd.DataFrame, caption: str | None) -> str:
    right = _numeric_columns(df)
    # a header wraps only between words or after an underscore (<wbr>), never mid-word
    head = "".join(f"<th>{html.escape(str(c)).replace('_', '_<wbr>')}</th>" for c in df.columns)
    rows = []
    for row in df.itertuples(index=False):
        cells = "".join(
            f'<td class="num">{html.escape(str(v))}</td>'
            if r
            else f"<td>{_inline_html(str(v))}</td>"
            for v, r in zip(row, right, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    cap = f'<p class="caption">{_inline_html(caption)}</p>' if caption else ""
    return f"{cap}<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


# --------------------------------------------------------------------------------------
# the builder


def _jsonable(value: Any) -> Any:
    """Plain JSON: numpy scalars to Python, NaN/inf to null, Rates to dicts."""
    if isinstance(value, Rate):
        return _jsonable(value.to_dict())
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return _jsonable(value.to_dict(orient="records"))
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _caveat_text(warning: _Warning) -> str:
    """A warning's text for the key-findings box; its item list stays in the full box."""
    text = warning.text.rstrip()
    if warning.items and text.endswith(":"):
        text = text[:-1] + " (listed further down)."
    return text


BOT_STRENGTH_NOTE = (
    "Balance numbers (seat, board and component effects) are measured with these bots: a "
    "stronger or weaker player can shift them, so compare policies before concluding about "
    "the game."
)


#: The version of the layout of ``summary.json`` (docs/run-format.md, "Report summaries"): it
#: goes up when a key is renamed, removed or changes its meaning, not when one is added.
SUMMARY_SCHEMA_VERSION = 1


class ReportBuilder:
    """Collects sections; writes ``report.md``, ``report.html``, PNGs and ``summary.json``."""

    def __init__(self, title: str, subtitle: str | None = None):
        self.title = title
        self.subtitle = subtitle
        self.sections: list[Section] = []
        self.summary: dict[str, Any] = {"title": title}
        self.findings: list[Finding] = []
        #: Standing caveats shown with the warnings next to the key findings (plain text).
        self.notes: list[str] = []

    def add(self, section: Section) -> Section:
        self.sections.append(section)
        return section

    def finding(self, text: str, **numbers: Any) -> Finding:
        """Add a key finding: shown first in the report, listed in ``summary.json``."""
        self.findings.append(Finding(text, numbers))
        return self.findings[-1]

    def caveats(self) -> list[_Warning]:
        """Every warning box of the report (one per title), in report order: the caveats
        that change how the key findings read, repeated at the top next to them."""
        seen: set[str] = set()
        out = [
            _Warning("Note.", str(w.get("message", "")))
            for w in self.summary.get("warnings", [])
            if isinstance(w, Mapping) and w.get("message")
        ]
        for section in self.sections:
            for block in section.blocks:
                if isinstance(block, _Warning) and block.title not in seen:
                    seen.add(block.title)
                    out.append(block)
        return out

    def _findings_markdown(self) -> list[str]:
        if not self.findings and not self.caveats() and not self.notes:
            return []
        lines = ["## Key findings", ""]
        lines += [f"- {f.text}" for f in self.findings]
        caveats = self.caveats()
        if caveats or self.notes:
            lines += ["", "**Read these with care:**", ""]
            lines += [f"- **⚠ {w.title}** {_caveat_text(w)}" for w in caveats]
            lines += [f"- {note}" for note in self.notes]
        return [*lines, ""]

    def _findings_html(self) -> str:
        if not self.findings and not self.caveats() and not self.notes:
            return ""
        items = "".join(f"<li>{_inline_html(f.text)}</li>" for f in self.findings)
        parts = ['<section id="key-findings" class="findings">', "<h2>Key findings</h2>"]
        if items:
            parts.append(f'<ul class="findings">{items}</ul>')
        caveats = self.caveats()
        if caveats or self.notes:
            rows = "".join(
                f"<li><strong>⚠ {html.escape(w.title)}</strong> "
                f"{_inline_html(_caveat_text(w))}</li>"
                for w in caveats
            ) + "".join(f"<li>{_inline_html(note)}</li>" for note in self.notes)
            parts.append(
                '<div class="caveats" role="note"><strong class="title">Read these with '
                f"care</strong><ul>{rows}</ul></div>"
            )
        parts.append("</section>")
        return "\n".join(parts)

    def collect_summary(self) -> dict[str, Any]:
        """``schema_version``, the builder's own ``summary`` items, then every section's
        (later ones win).

        ``warnings`` is the exception: the lists of all sections are joined (first entry per
        code kept), so ``summary.json`` always has a ``warnings`` list, empty if none.
        """
        merged = {"schema_version": SUMMARY_SCHEMA_VERSION, **self.summary}
        warnings = list(self.summary.get("warnings", []))
        for section in self.sections:
            merged.update(section.summary)
            warnings += section.summary.get("warnings", [])
        seen: set[str] = set()
        merged["warnings"] = [w for w in warnings if not (w["code"] in seen or seen.add(w["code"]))]
        merged["key_findings"] = [f.to_dict() for f in self.findings]
        return merged

    def _image_names(self) -> dict[int, str]:
        names: dict[int, str] = {}
        used: set[str] = set()
        for section in self.sections:
            for fig in section.figures:
                name, i = f"{fig.name}.png", 2
                while name in used:
                    name, i = f"{fig.name}-{i}.png", i + 1
                used.add(name)
                names[id(fig)] = name
        return names

    def markdown(self) -> str:
        names = self._image_names()
        head = [f"# {self.title}", ""]
        if self.subtitle:
            head += [self.subtitle, ""]
        head += self._findings_markdown()
        head += ["Contents: " + " · ".join(f"[{s.title}](#{s.anchor})" for s in self.sections), ""]
        return "\n".join(head + [s.to_markdown(names) for s in self.sections])

    def html(self) -> str:
        from bnb_sim import __version__

        toc = "".join(
            f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in self.sections
        )
        body = [f"<h1>{html.escape(self.title)}</h1>"]
        if self.subtitle:
            body.append(f'<p class="subtitle">{_inline_html(self.subtitle)}</p>')
        body.append(self._findings_html())
        body.append(f'<nav class="toc"><strong>Contents</strong><ol>{toc}</ol></nav>')
        body += [s.to_html() for s in self.sections]
        template = resources.files("bnb_sim.analysis").joinpath("templates/report.html")
        return string.Template(template.read_text(encoding="utf-8")).substitute(
            title=html.escape(self.title), body="\n".join(body), version=__version__
        )

    def write(self, out_dir: str | os.PathLike) -> dict[str, Any]:
        """Write every file into ``out_dir``; returns their paths.

        Everything is rendered in memory, written into a temporary folder next to
        ``out_dir`` and then moved into place (:func:`bnb_sim.analysis.publish.publish`), so
        a failure (a full disk, a read-only folder) leaves no half-written report behind and
        an earlier report in ``out_dir`` is replaced only by a complete new one. An
        unwritable folder raises :class:`BnbError` with one line.
        """
        from bnb_sim.analysis.publish import publish

        out = Path(out_dir)
        names = self._image_names()
        files: dict[str, bytes] = {}
        written: dict[str, Any] = {"dir": out, "figures": []}
        for section in self.sections:
            for fig in section.figures:
                files[names[id(fig)]] = fig.png
                written["figures"].append(out / names[id(fig)])
        summary = json.dumps(_jsonable(self.collect_summary()), indent=2) + "\n"
        for key, name, text in (
            ("markdown", "report.md", self.markdown()),
            ("html", "report.html", self.html()),
            ("summary", "summary.json", summary),
        ):
            files[name] = text.encode("utf-8")
            written[key] = out / name
        publish(out, files)
        return written
