"""Reports: ``report.md``, a self-contained ``report.html``, PNG figures and ``summary.json``.

Building blocks, meant to be reused by the tournament / sweep / compare reports:

* :class:`Section` collects blocks (text, tables, figures, warning boxes) and a ``summary``
  dict of machine-readable numbers; it renders itself as Markdown and as HTML.
* :class:`ReportBuilder` collects sections and writes everything (:meth:`ReportBuilder.write`).
* ``*_section(...)`` functions build the sections of a simulate-run report from the ``seats``
  and ``games`` frames; :func:`build_simulate_report` puts them together and
  :func:`write_report` is the one-call entry point (``bnb report``).

Nothing here imports numba: a report needs only pandas, pyarrow and matplotlib.
"""

from __future__ import annotations

import base64
import datetime as _dt
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

from bnb_sim.analysis import leaders, plots, tables
from bnb_sim.analysis.stats import Rate, balance_metric, first_player_advantage, num_digits
from bnb_sim.errors import ArgumentTypeError, BnbError
from bnb_sim.feedback import status

ESTIMATED_KEYS_SHOWN = 12

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


# --------------------------------------------------------------------------------------
# sections of a simulate-run report


def _policy_order(seats: pd.DataFrame, meta: Mapping) -> list[str]:
    present = {str(p) for p in pd.unique(seats["policy"])}
    listed = [str(p) for p in meta.get("params", {}).get("policies", []) or []]
    order = [p for p in dict.fromkeys(listed) if p in present]
    return order + [p for p in tables.policies_in(seats) if p not in order]


def _fair_share(games: pd.DataFrame, seats: pd.DataFrame) -> float | None:
    source = games if "n_players" in games.columns else seats
    if "n_players" not in source.columns:
        return None
    values = pd.unique(source["n_players"])
    return 1.0 / float(values[0]) if len(values) == 1 else None


def _rate_dicts(df: pd.DataFrame, keys: Sequence[str]) -> list[dict]:
    return [
        {**{k: row[k] for k in keys}, **{c: row[c] for c in tables.RATE_COLUMNS}}
        for row in df.to_dict(orient="records")
    ]


def overview_section(
    seats: pd.DataFrame, games: pd.DataFrame, meta: Mapping, source: str | None = None
) -> Section:
    """Run at a glance, with the warning boxes (estimated components, partial run)."""
    section = Section("Overview")
    params = meta.get("params", {}) or {}
    n_games = len(games)
    planned = params.get("games", n_games)  # frames without run.json: nothing was planned
    policies = params.get("policies") or tables.policies_in(seats)
    of_planned = f" of {planned:,} planned" if isinstance(planned, int) else ""
    rows = [
        ("games", f"{n_games:,}" + (of_planned if planned != n_games else "")),
        ("seat rows", f"{len(seats):,}"),
        ("players", str(params.get("players", "?"))),
        ("policies (in player order)", ", ".join(map(str, policies))),
        ("seed", str(params.get("seed", "?"))),
        ("rule readings", readings_text(params)),
        ("status", str(meta.get("status", "?"))),
    ]
    if source:
        rows.insert(0, ("run directory", f"`{source}`"))
    section.table(pd.DataFrame(rows, columns=["", "value"]))
    _estimated_warning(section, meta)
    if meta.get("status") == "partial":
        section.warning(
            "Partial run.",
            f"The run was interrupted: this report covers the {n_games:,} games whose parts "
            "were finished. Resume it with the command printed by `bnb simulate` (`--resume`).",
            code="partial_run",
        )
    section.summary.update(
        {
            "kind": meta.get("kind", "simulate"),
            "status": meta.get("status"),
            "n_games": n_games,
            "n_seat_rows": len(seats),
            "policies": list(map(str, policies)),
        }
    )
    return section


def _estimated_warning(section: Section, meta: Mapping, what: str = "This run") -> None:
    components = meta.get("components", {}) or {}
    estimated = int(components.get("estimated_values") or 0)
    if estimated <= 0:
        return
    keys = list(components.get("estimated_keys") or [])
    shown = [f"`{k}`" for k in keys[:ESTIMATED_KEYS_SHOWN]]
    if len(keys) > ESTIMATED_KEYS_SHOWN:
        shown.append(f"… and {len(keys) - ESTIMATED_KEYS_SHOWN} more")
    section.warning(
        "Estimated component values.",
        f"{what} used {estimated} estimated component values (numbers never published for "
        "the game, see `docs/components.md`), so every result below depends on them. Load "
        "your box's values with `--components FILE` to replace them. Estimated keys:",
        shown,
        code="estimated_components",
    )


def seat_policy_confound(seats: pd.DataFrame, meta: Mapping | None = None) -> dict | None:
    """Whether seat and policy are confounded in a run, or ``None`` when they are not.

    First-player advantage and balance compare *seats*; they mean something only when every
    seat was played by the same mix of policies. That holds by design with rotating seats
    (up to the last incomplete rotation) and in expectation with random seats. With fixed
    seats and different policies per seat (``--fixed-seats``, or the data of any run that
    looks like it) a seat's win rate is its policy's strength.

    Returns ``{"code", "message", "tv"}``: ``code`` is ``"seat_policy_confounded"`` when every
    seat had a single policy and they differ, ``"seat_policy_unbalanced"`` when the policy mix
    differs between seats by more than rotation leaves (total-variation distance ``tv`` above
    ``max(0.02, 2·players/games)``).
    """
    seating = ((meta or {}).get("params") or {}).get("seating")
    if seating == "random" or "policy" not in seats.columns or "seat" not in seats.columns:
        return None
    counts = tables.crosstab_counts(seats["policy"], seats["seat"])
    if counts.shape[0] < 2 or counts.shape[1] < 2:
        return None
    mix = (counts / counts.sum(axis=0)).to_numpy(dtype=float)  # policy mix of each seat
    tv = float(0.5 * np.abs(mix[:, :, None] - mix[:, None, :]).sum(axis=0).max())
    n_games = tables.n_distinct(seats["game"].to_numpy()) if "game" in seats.columns else len(seats)
    if tv <= max(0.02, 2.0 * counts.shape[1] / max(n_games, 1)):
        return None
    single = bool(np.all((counts.to_numpy() > 0).sum(axis=0) == 1))
    if single:
        return {
            "code": "seat_policy_confounded",
            "tv": tv,
            "message": "Seat and policy are confounded: every seat was always played by the "
            "same policy (fixed seats) and the policies differ, so the seat win rates measure "
            "policy strength. First-player advantage and balance are not shown, and each "
            "policy's win rate includes the effect of its seat. Rotate the seats (the default) "
            "to measure either.",
        }
    return {
        "code": "seat_policy_unbalanced",
        "tv": tv,
        "message": f"The policy mix differs between seats (total-variation distance {tv:.2f}), "
        "so seat effects and policy strength are mixed: first-player advantage and balance "
        "are not shown. Rotate the seats (the default) to measure them.",
    }


def _fpa_cell(fpa: Mapping) -> str:
    if not math.isfinite(fpa["value"]):
        return "n/a"
    if not (math.isfinite(fpa["lo"]) and math.isfinite(fpa["hi"])):
        note = "too few games" if fpa.get("note") == "n < 2" else fpa.get("note", "")
        return f"n/a ({note}; {fpa['n_games']:,} game{'s' if fpa['n_games'] != 1 else ''})"
    return tables.fmt_signed_pp(fpa["value"], fpa["lo"], fpa["hi"])


def _balance_cell(balance: Mapping) -> str:
    if not math.isfinite(balance["value"]):
        return "n/a"
    if not (math.isfinite(balance["lo"]) and math.isfinite(balance["hi"])):
        note = "too few games" if balance.get("note") == "n < 2" else balance.get("note", "")
        return f"n/a ({note}; {balance['n_games']:,} game{'s' if balance['n_games'] != 1 else ''})"
    return tables.fmt_mean(balance["value"], balance["lo"], balance["hi"], 3)


def _seat_gap_cell(balance: Mapping) -> str:
    if not math.isfinite(balance.get("p_value", math.nan)):
        return "n/a"
    return f"χ²({balance['df']}) = {balance['chi2']:.2f}, p = {balance['p_value']:.3g}"


def win_rate_section(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    policy_order: Sequence[str] | None = None,
    meta: Mapping | None = None,
) -> Section:
    """Win rates per policy, seat, policy x seat and board; first-player advantage; balance;
    shared wins. Seat/policy confounding is detected and reported instead of the seat
    measures (:func:`seat_policy_confound`)."""
    section = Section("Win rates")
    fair = _fair_share(games, seats)
    by_policy = tables.win_rates(seats, "policy", policy_order)
    by_seat = tables.win_rates(seats, "seat")
    by_policy_seat = tables.win_rates(seats, ["policy", "seat"], policy_order)
    ties = tables.tie_rate(games, seats)
    confound = seat_policy_confound(seats, meta)
    fpa = first_player_advantage(seats)
    balance = balance_metric(seats)
    n_games = len(games)

    seat0 = by_seat[by_seat["seat"] == 0]
    section.text(
        "Every rate comes with its 95% Wilson interval and its n. A shared win counts as a win "
        "for every tied winner"
        + (f"; the fair share is {100 * fair:.1f}% per seat." if fair else ".")
    )
    if confound is not None:
        section.warning("Seat and policy confounded.", confound["message"], code=confound["code"])
        withheld = "not shown: seat and policy are confounded (see the warning)"
        fpa_text = balance_text = gap_text = withheld
    else:
        fpa_text, balance_text = _fpa_cell(fpa), _balance_cell(balance)
        gap_text = _seat_gap_cell(balance)
    games_n = f"{n_games:,}"
    headline = pd.DataFrame(
        [
            (
                "first-player advantage",
                fpa_text,
                games_n,
                "seat 0 win rate minus the mean of the other seats' (delta-method CI by game)",
            ),
            (
                "balance",
                balance_text,
                games_n,
                "1 − largest gap between seat win rates; 1 = all seats equal (simultaneous CI "
                "of the seat gaps, valid up to 1)",
            ),
            (
                "seat-gap test",
                gap_text,
                games_n,
                "test that every seat wins equally often (Wald χ², clustered by game)",
            ),
            (
                "shared wins (ties)",
                tables.fmt_rate(ties.rate, ties.lo, ties.hi),
                f"{ties.n:,}",
                "games with more than one winner",
            ),
        ],
        columns=["measure", "value [95% CI]", "n", "meaning"],
    )
    if len(seat0):
        r = seat0.iloc[0]
        headline.loc[len(headline)] = [
            "seat 0 win rate",
            tables.fmt_rate(r.rate, r.lo, r.hi),
            f"{int(r.n):,}",
            "the starting player" + (" (= its policy's strength here)" if confound else ""),
        ]
    section.table(headline)

    multi = _multi_seat_policies(seats)
    section.heading("Per policy")
    section.table(
        tables.display_rates(by_policy, {"policy": "policy"}),
        "A policy playing several seats per game counts once per seat; its interval is "
        "clustered by game (the Wilson interval at the effective sample size of its per-game "
        "results)."
        if multi
        else "One seat per policy and game: exact Wilson intervals.",
    )
    if len(by_policy) > 1:  # a mirror match's one bar is the fair share by construction
        section.figure(
            "win-rate-by-policy",
            plots.rate_bars(
                list(by_policy["policy"]),
                {"win rate": by_policy},
                "Win rate per policy",
                reference=fair,
                reference_label="fair share" if fair else None,
            ),
            "Win rate per policy with 95% intervals (clustered by game); dashed: fair share "
            "1/players.",
        )
    section.heading("Per seat")
    section.table(tables.display_rates(by_seat, {"seat": "seat"}))
    section.figure(
        "win-rate-by-seat",
        plots.rate_bars(
            [f"seat {s}" + (" (starts)" if s == 0 else "") for s in by_seat["seat"]],
            {"win rate": by_seat},
            "Win rate per seat",
            reference=fair,
            reference_label="fair share" if fair else None,
        ),
        "Win rate of each seat (seat 0 starts), 95% Wilson intervals; dashed: fair share. "
        "The gap between seat 0 and the others is the first-player advantage.",
    )
    section.heading("Per policy and seat")
    wide = by_policy_seat.assign(cell=tables.rate_cells(by_policy_seat, with_n=True)).pivot(
        index="policy", columns="seat", values="cell"
    )
    wide = wide.reindex([p for p in (policy_order or wide.index) if p in wide.index]).fillna("–")
    wide.columns = [f"seat {c}" for c in wide.columns]
    section.table(wide.reset_index(), "Win rate [95% CI] n=games of each policy in each seat.")
    seats_list = sorted(by_seat["seat"].tolist())
    series = {}
    for policy in policy_order or by_policy["policy"]:
        part = by_policy_seat[by_policy_seat["policy"] == policy].set_index("seat")
        series[policy] = part.reindex(seats_list)[["rate", "lo", "hi"]]
    section.figure(
        "win-rate-by-policy-and-seat",
        plots.rate_bars(
            [f"seat {s}" for s in seats_list],
            series,
            "Win rate per seat and policy",
            reference=fair,
            reference_label="fair share" if fair else None,
            colors=plots.colors_for(list(policy_order or series)),
        ),
        "Win rate of each policy in each seat (seat 0 starts), 95% Wilson intervals.",
    )
    by_board = None
    if "board" in seats.columns:
        section.heading("Per player board")
        by_board = tables.win_rates(seats, "board")
        split = len(by_policy) > 1
        shown = tables.win_rates(seats, ["policy", "board"], policy_order) if split else by_board
        section.table(
            tables.display_rates(shown, {k: k for k in (["policy"] if split else []) + ["board"]}),
            _board_caption(meta, split, int(by_board["board"].nunique())),
        )
        if split:
            section.summary["by_policy_board"] = _rate_dicts(shown, ["policy", "board"])

    if confound is not None:
        fpa_summary = {"value": None, "lo": None, "hi": None, "withheld": confound["code"]}
        balance_summary = {"value": None, "lo": None, "hi": None, "withheld": confound["code"]}
    else:
        fpa_summary = {k: fpa[k] for k in ("value", "lo", "hi", "se", "n_games", "method", "note")}
        balance_summary = {
            k: balance[k]
            for k in ("value", "lo", "hi", "n_games", "chi2", "df", "p_value", "method", "note")
        }
    if len(by_policy) > 1:  # "wins most often" only when the gap to the others excludes 0
        order = list(by_policy.sort_values("rate", ascending=False, kind="stable")["policy"])
        gaps = leaders.rate_gaps_by_cluster(seats, "policy", "game", order)
        section.summary["win_rate_leader"] = leaders.leader_of(order, gaps).to_dict()
    section.summary.update(
        {
            "win_rate": {
                "by_policy": _rate_dicts(by_policy, ["policy"]),
                "by_seat": _rate_dicts(by_seat, ["seat"]),
                "by_policy_seat": _rate_dicts(by_policy_seat, ["policy", "seat"]),
                **({"by_board": _rate_dicts(by_board, ["board"])} if by_board is not None else {}),
            },
            "tie_rate": ties.to_dict(),
            "first_player_advantage": fpa_summary,
            "balance": balance_summary,
            "fair_share": fair,
        }
    )
    return section


def _board_caption(meta: Mapping | None, split: bool, n_boards: int) -> str:
    """Caption of the per-board table: split by policy, the multiple comparison, and whether
    the board layouts themselves are estimates (they are in the default components)."""
    keys = ((meta or {}).get("components") or {}).get("estimated_keys") or []
    estimated = any(str(k).startswith("boards") for k in keys)
    text = "Split by policy (boards are dealt at random, bots differ). " if split else ""
    text += (
        f"{n_boards} boards compared: one 95% interval in {n_boards} may miss by chance, so a "
        "gap needs non-overlapping intervals to be read as a board effect."
    )
    if estimated:
        text += (
            " **The board layouts are estimates** (placeholder layouts, the printed boards are "
            "unpublished): these rates describe the estimated boards, not the real ones."
        )
    return text


def _multi_seat_policies(seats: pd.DataFrame) -> bool:
    """Whether some policy plays more than one seat of a game."""
    if "game" not in seats.columns:
        return False
    codes, names = tables._narrow_codes(seats["policy"])
    game = seats["game"].to_numpy()
    if len(names) <= 1:  # one policy: several seats per game whenever there are 2+ players
        return bool(len(seats) > tables.n_distinct(game))
    for rows in tables.game_blocks(game):  # rows of one (policy, game) pair, block by block
        part = tables._game_codes(game[rows])
        part *= len(names)
        part += codes[rows]
        if np.bincount(part).max(initial=0) > 1:
            return True
    return False


def xp_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Final XP per policy (mean with CI, distribution) and XP by source."""
    section = Section("Experience points (XP)")
    stats = tables.xp_by_policy(seats, policy_order)
    shown = pd.DataFrame(
        {
            "policy": stats["policy"],
            "mean XP [95% CI]": tables.mean_cells(stats),
            "sd": stats["sd"].map(tables.fmt_sd),
            "median": stats["median"].map("{:g}".format),
            "5th–95th pct": [
                f"{a:g}–{b:g}" for a, b in zip(stats["p5"], stats["p95"], strict=True)
            ],
            "min–max": [f"{a}–{b}" for a, b in zip(stats["min"], stats["max"], strict=True)],
            "n": stats["n"].map("{:,}".format),
        }
    )
    section.table(
        shown,
        "Final XP per player and game (Student t interval for the mean, clustered by game).",
    )
    hist = tables.xp_histogram(seats, policy_order)
    section.figure(
        "xp-distribution",
        plots.xp_distribution(
            hist,
            dict(zip(stats["policy"], stats["mean"], strict=True)),
            f"Final XP per policy (all {len(seats):,} player results)",
        ),
        "Distribution of final XP per policy (share of that policy's results at each XP).",
    )
    sources = tables.xp_sources_by_policy(seats, policy_order)
    label = {c: tables.source_label(c) for c in sources.columns}
    source_ci = tables.means_by_policy(seats, list(sources.columns), policy_order)
    section.heading("XP by source")
    section.table(
        _means_wide(source_ci, label, stats.set_index("policy")["n"]),
        "Mean XP per player and game from each source, 95% interval clustered by game; the "
        "sources add up to the final XP above.",
    )
    section.figure(
        "xp-by-source",
        plots.stacked_bars(sources, "Mean XP by source per policy", "mean XP per game", label),
        "Where each policy's XP comes from (means per player and game).",
    )
    section.summary["xp"] = {
        "by_policy": stats[["policy", "mean", "lo", "hi", "n", "sd", "median"]].to_dict(
            orient="records"
        ),
        "by_source": {p: row.to_dict() for p, row in sources.iterrows()},
        "by_source_ci": source_ci.to_dict(orient="records"),
    }
    return section


def game_length_section(games: pd.DataFrame) -> Section:
    """Turns per game and when the scoring rounds were triggered."""
    section = Section("Game length")
    length = tables.game_length(games)
    section.table(
        pd.DataFrame(
            [
                (
                    "mean turns [95% CI]",
                    tables.fmt_mean(length["mean"], length["lo"], length["hi"], 2, length["note"]),
                ),
                ("sd", tables.fmt_sd(length["sd"])),
                ("median", f"{length['median']:g}"),
                ("5th–95th percentile", f"{length['p5']:g}–{length['p95']:g}"),
                ("min–max", f"{length['min']}–{length['max']}"),
                ("games", f"{length['n']:,}"),
            ],
            columns=["turns per game (all players)", "value"],
        )
    )
    section.figure(
        "game-length",
        plots.integer_histogram(
            tables.value_counts_int(games["turns"].to_numpy()),
            f"Game length ({len(games):,} games)",
            "turns per game (all players)",
            "games",
        ),
        "Number of games by length in turns (turns of all players together).",
    )
    rounds = tables.round_trigger_turns(games)
    if len(rounds):
        section.table(
            pd.DataFrame(
                {
                    "scoring round": rounds["round"],
                    "triggered in turn, mean [95% CI]": tables.mean_cells(rounds),
                    "sd": rounds["sd"].map(tables.fmt_sd),
                    "n": rounds["n"].map("{:,}".format),
                }
            ),
            "When each scoring round was triggered (R-SCORE-1).",
        )
    section.summary["turns"] = length
    return section


def margins_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None):
    """How close games are (the winner's XP lead over the next best) and how often the
    leader after scoring round A, and B, goes on to win (R-SCORE-2, R-END-2). None for runs
    without whole games of two or more players."""
    margin = tables.winning_margin(seats)
    if margin is None:
        return None
    section = Section("Margins and comebacks", anchor="margins")
    n = int(margin["n"])
    section.text(
        "The **winning margin** is the winner's XP minus the next best player's XP, per game "
        "(0: the most XP was shared and the tie-break on blocks decided, or the win was shared, "
        "R-END-2). A **comeback** is a game that the player leading right after a scoring round "
        "does not win."
    )
    bins = margin["bins"]
    section.table(
        pd.DataFrame(
            [
                ("mean XP [95% CI]", tables.fmt_mean(margin["mean"], margin["lo"], margin["hi"],
                                                     2, margin["note"])),
                ("median", f"{margin['median']:g}"),
                ("90th percentile", f"{margin['p90']:g}"),
                *((f"{r['margin']} XP", f"{tables.fmt_rate(r['rate'], r['lo'], r['hi'])}")
                  for r in bins.to_dict("records")),
                ("games", f"{n:,}"),
            ],
            columns=["winning margin", "value (share of games [95% CI])"],
        ),
        "Winning margin: mean with a t interval over games; the share of games in each band "
        "with Wilson intervals.",
    )  # fmt: skip
    section.figure(
        "winning-margin",
        plots.integer_histogram(
            margin["counts"],
            f"Winning margin ({n:,} games)",
            "winner's XP minus the next best player's XP",
            "games",
        ),
        "Number of games by the winner's lead in XP.",
    )
    summary: dict[str, Any] = {
        "winning_margin": {
            k: margin[k] for k in ("mean", "lo", "hi", "n", "sd", "note", "median", "p90")
        },
        "winning_margin_bins": bins.to_dict("records"),
    }
    summary["winning_margin"]["bins"] = summary.pop("winning_margin_bins")
    leads = tables.leader_wins(seats, policy_order)
    if not len(leads):
        section.text(
            "Comebacks: this run has no `total_xp_after_a`/`total_xp_after_b` columns (it was "
            "written by an older bnb-sim), so the leader after each round is not known."
        )
        section.summary.update(summary)
        return section
    players = int(margin["players"])
    overall = leads[leads["leader"] == "all"]
    section.table(
        pd.DataFrame(
            {
                "leader after round": leads["round"],
                "leader": leads["leader"],
                "goes on to win [95% CI]": tables.rate_cells(leads),
                "n (games with a sole leader)": leads["n"].map("{:,}".format),
                "shared lead (left out)": leads["shared_lead"].map(
                    lambda v: "" if pd.isna(v) else f"{int(v):,}"
                ),
            }
        ),
        "How often the player with the most XP right after scoring round A (and B) wins the "
        f"game, alone or sharing the win (Wilson intervals over games; a player wins 1 game in "
        f"{players} on average). Games where several players shared the lead are left out.",
    )
    section.figure(
        "comebacks",
        plots.rate_bars(
            [f"after round {r}" for r in overall["round"]],
            {"leader wins": overall.reset_index(drop=True)},
            "Does the leader after a scoring round win?",
            "share of games the leader wins",
            reference=1 / players if players else None,
            reference_label=f"1 in {players}" if players else None,
        ),
        "Share of games won by the player leading right after scoring round A and B, with 95% "
        "intervals; the dashed line is one game in as many as there are players.",
    )
    summary["leader_wins"] = leads.to_dict("records")
    section.summary.update(summary)
    return section


def choices_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Which value each policy chose in scoring rounds A, B and C."""
    section = Section("Scoring-round choices")
    shares = tables.choice_shares(seats, policy_order)
    rounds = list(dict.fromkeys(shares["round"]))
    if not rounds:
        section.text("This run has no `choice_*` columns.")
        return section
    wides = {r: tables.choice_share_wide(shares, r, policy_order) for r in rounds}
    for rnd in wides:
        part = shares[shares["round"] == rnd].rename(columns={"share": "rate"})
        cells = part.assign(cell=tables.rate_cells(part)).pivot(
            index="policy", columns="value", values="cell"
        )
        cells = cells.reindex(index=list(wides[rnd].index), columns=list(wides[rnd].columns))
        cells = cells.fillna("–")
        cells.columns = [tables.label(c) for c in cells.columns]
        cells.insert(0, "n", [f"{int(n):,}" for n in part.groupby("policy")["n"].first()
                              .reindex(cells.index)])  # fmt: skip
        section.table(
            cells.reset_index(),
            f"Round {rnd}: share of each value chosen, per policy, 95% interval (clustered by "
            "game); n = that policy's player results.",
        )
    section.figure(
        "scoring-choices",
        plots.choice_panels(wides, "Values chosen in the scoring rounds"),
        "Share of the values each policy chose in rounds A (biome), B (material), C (type).",
    )
    section.summary["choices"] = shares.to_dict(orient="records")
    return section


def fights_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Fights per mob species: attempts, win rate with interval; also per policy."""
    section = Section("Fights by mob")
    fights = tables.fights_by_mob(seats)
    if not len(fights):
        section.text("This run has no `fights_<mob>` / `wins_<mob>` columns.")
        return section
    shown = tables.display_rates(
        fights, {"mob": "mob"}, rate_title="fights won [95% CI]", k_title="won", n_title="attempts"
    )
    shown.insert(
        1,
        "attempts per player-game [95% CI]",
        [
            tables.fmt_mean(m, lo, hi, 3)
            for m, lo, hi in zip(
                fights["per_seat_game"],
                fights["per_seat_game_lo"],
                fights["per_seat_game_hi"],
                strict=True,
            )
        ],
    )
    section.table(
        shown,
        "All seats together; fights of one player in one game are not independent, so the "
        "intervals are approximate."
        + (
            " **Pooled over policies**: bots fight different mobs, so compare mobs in the "
            "per-policy table below."
            if seats["policy"].nunique() > 1
            else ""
        ),
    )
    section.figure(
        "fights-by-mob",
        plots.rate_bars(
            [tables.label(m) for m in fights["mob"]],
            {"fights won": fights},
            "Fight win rate per mob",
            xlabel="fights won",
        ),
        "Share of fight attempts won against each mob species, 95% Wilson intervals.",
    )
    per_policy = tables.fights_by_mob_and_policy(seats, policy_order)
    cells = per_policy.assign(cell=tables.rate_cells(per_policy, with_n=True)).pivot(
        index="mob", columns="policy", values="cell"
    )
    cells = cells.reindex(index=list(fights["mob"]))
    cells = cells[[p for p in (policy_order or cells.columns) if p in cells.columns]]
    cells.index = [tables.label(m) for m in cells.index]
    section.table(cells.rename_axis("mob").reset_index(), "Fights won per mob and policy.")
    section.summary["fights"] = fights.to_dict(orient="records")
    return section


def _by_policy(seats: pd.DataFrame, columns: Sequence[str], policy_order=None):
    """``(policy, frame)`` for each policy, the frame holding only ``columns`` (no wide copy
    of the seat rows); one ``("all", ...)`` pair when the run has a single policy."""
    order = [p for p in (policy_order or tables.policies_in(seats))]
    if len(order) <= 1:
        yield (order[0] if order else "all"), seats[list(columns)]
        return
    codes, names = tables._narrow_codes(seats["policy"])  # no 4,000,000 strings
    for policy in order:
        if policy not in names:
            continue
        mask = codes == names.index(policy)
        if mask.any():
            yield policy, seats.loc[mask, list(columns)]


def ownership_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Win rate of players who own at least one tile of each mob species / building type,
    split by policy (pooling strong and weak bots would mostly say which bot collects what:
    Simpson's paradox)."""
    section = Section("Win rate by what players own")
    section.text(
        "Win rate of the player results that own at least one tile of a kind (`defeated_<mob>` "
        "> 0, `built_<type>` > 0) next to those that own none, **per policy**: pooled over "
        "different bots, a kind that weak bots collect would look bad. This is a correlation, "
        "not an effect: stronger players also collect more."
    )
    for prefix, what, key in (
        ("defeated_", "mob", "owning_mob"),
        ("built_", "building type", "owning_building"),
    ):
        names = tables.prefixed(seats.columns, prefix)
        if not names:
            continue
        columns = ["won", *(f"{prefix}{n}" for n in names)]
        parts, owners_series, records = [], {}, []
        for policy, rows in _by_policy(seats, columns, policy_order):
            table = tables.win_rate_when_owning(rows, prefix)
            without = table[[f"{c}_without" for c in tables.RATE_COLUMNS]]
            without.columns = tables.RATE_COLUMNS
            parts.append(
                pd.DataFrame(
                    {
                        "policy": policy,
                        what: table["name"].map(tables.label),
                        "owners": [f"{100 * s:.1f}%" for s in table["owner_share"]],
                        "win rate if owned [95% CI]": tables.rate_cells(table),
                        "n owned": table["n"].map("{:,}".format),
                        "win rate if not [95% CI]": tables.rate_cells(without),
                        "n not": without["n"].map("{:,}".format),
                    }
                )
            )
            owners_series[policy] = table
            records += [{"policy": policy, **r} for r in table.to_dict(orient="records")]
        section.heading(f"Per {what}")
        section.table(
            pd.concat(parts, ignore_index=True),
            "Per policy: owners = share of that policy's player results owning at least one.",
        )
        section.figure(
            f"win-rate-owning-{what}",
            plots.rate_bars(
                [tables.label(n) for n in names],
                owners_series,
                f"Win rate of players owning each {what}, per policy",
                colors=plots.colors_for(list(owners_series)),
            ),
            f"Win rate of the player results owning at least one of each {what}, per policy, "
            "95% Wilson intervals.",
        )
        # pooled numbers stay under the old key (machine readers); the split is new
        section.summary[key] = tables.win_rate_when_owning(seats, prefix).to_dict(orient="records")
        section.summary[f"{key}_by_policy"] = records
    return section


def play_style_section(seats: pd.DataFrame, policy_order: Sequence[str] | None = None) -> Section:
    """Mean counts per game (mobs defeated, buildings built, weapons, TNT, ...) per policy."""
    section = Section("Play style")
    style = tables.play_style(seats, policy_order)
    if not len(style.columns):
        section.text("This run has no count columns.")
        return section
    style_ci = tables.means_by_policy(seats, list(style.columns), policy_order)
    n_rows = tables.group_sizes(seats)
    section.table(
        _means_wide(style_ci, {c: tables.label(c) for c in style.columns}, n_rows),
        "Mean per player and game, 95% interval clustered by game; n = player results.",
    )
    section.summary["play_style"] = {p: row.to_dict() for p, row in style.iterrows()}
    section.summary["play_style_ci"] = style_ci.to_dict(orient="records")
    return section


def rule_hits_section(seats: pd.DataFrame, meta: Mapping) -> Section | None:
    """Per priority-list bot: how often each rule decided (columns ``rule_hits_<i>`` of the
    run, labels from the policy specs in run.json); None when the run has no bot."""
    if "rule_hits_fallback" not in seats.columns:
        return None
    specs = (meta.get("params", {}) or {}).get("policy_specs", []) or []
    bots = {s["label"]: s.get("rules", []) for s in specs if s.get("kind") == "bot"}
    section = Section("Bot rules")
    section.text(
        "Which rule of each priority-list bot made its decisions (docs/bots.md): total "
        "decisions per rule over the run, mean per player and game, and the share of the "
        "bot's decisions. A rule that never fires is listed with 0."
    )
    summary = {}
    for label, rules in bots.items():
        mine = seats[seats["policy"].astype(str) == label]
        if mine.empty:
            continue
        columns = [f"rule_hits_{r}" for r in range(len(rules))] + ["rule_hits_fallback"]
        totals = mine[columns].sum().to_numpy()
        all_decisions = max(int(totals.sum()), 1)
        table = pd.DataFrame(
            {
                "rule": list(rules) + ["fallback"],
                "decisions": totals.astype(int),
                "per game": [f"{t / len(mine):,.2f}" for t in totals],
                "share": [f"{100 * t / all_decisions:.1f}%" for t in totals],
            }
        )
        section.table(table, f"{label}: n = {len(mine):,} player results.")
        summary[label] = dict(zip(table["rule"], table["decisions"].tolist(), strict=True))
    section.summary["rule_hits"] = summary
    return section


def _means_wide(long: pd.DataFrame, label: Mapping[str, str], n: pd.Series) -> pd.DataFrame:
    """Policy x column table of ``mean [lo, hi]`` cells from :func:`tables.means_by_policy`,
    with an ``n`` column (player results per policy)."""
    cells = long.assign(cell="")
    for _, part in long.groupby("column", sort=False):  # one format per column
        digits = num_digits(part["lo"].to_numpy(float), part["hi"].to_numpy(float))
        cells.loc[part.index, "cell"] = tables.mean_cells(part, digits)
    cells = cells.pivot(index="policy", columns="column", values="cell")
    columns = list(dict.fromkeys(long["column"]))
    cells = cells.reindex(index=list(dict.fromkeys(long["policy"])), columns=columns)
    cells.columns = [label.get(c, c) for c in columns]
    cells["n"] = [f"{int(n.get(p, 0)):,}" for p in cells.index]
    return cells.rename_axis("policy").reset_index()


def _value_text(value: Any) -> str:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, separators=(", ", ": "))
    return "–" if value is None else str(value)


def _param_rows(params: Mapping) -> list[tuple[str, str]]:
    """Parameter rows; the rule readings get one row each (``reading hunger``, ...)."""
    rows = []
    for key, value in params.items():
        if key == "readings" and isinstance(value, Mapping):
            rows += [(f"reading {name}", _value_text(v)) for name, v in value.items()]
        else:
            rows.append((key, _value_text(value)))
    return rows


def readings_text(params: Mapping) -> str:
    """``hunger=together, bonus_biomes=visible, ...`` of a run, or a note for older runs."""
    readings = params.get("readings")
    if not isinstance(readings, Mapping):
        return "not recorded (a run made before readings were recorded)"
    return ", ".join(f"{k}={v}" for k, v in readings.items())


def provenance_section(meta: Mapping) -> Section:
    """Parameters, component provenance, versions, machine and timing from ``run.json``."""
    section = Section("Parameters and provenance")
    if meta.get("command"):
        section.text(f"Command: `{meta['command']}`")
    params = meta.get("params", {}) or {}
    if params:
        section.heading("Parameters")
        section.table(pd.DataFrame(_param_rows(params), columns=["parameter", "value"]))
    components = meta.get("components", {}) or {}
    section.heading("Components")
    estimated = int(components.get("estimated_values") or 0)
    section.table(
        pd.DataFrame(
            [
                ("source", _value_text(components.get("source"))),
                ("content hash", _value_text(components.get("content_hash"))),
                ("estimated values", str(estimated)),
            ],
            columns=["component data", "value"],
        )
    )
    _estimated_warning(section, meta)
    if estimated == 0:
        section.text("All component values used by this run are known (none estimated).")
    for key, title in (("versions", "Versions"), ("machine", "Machine"), ("timing", "Timing")):
        values = meta.get(key) or {}
        if values:
            section.heading(title)
            section.table(
                pd.DataFrame(
                    [(k, _value_text(v)) for k, v in values.items()], columns=[key, "value"]
                )
            )
    section.summary["components"] = {
        "source": components.get("source"),
        "content_hash": components.get("content_hash"),
        "estimated_values": estimated,
        "estimated_keys": list(components.get("estimated_keys") or []),
    }
    section.summary["params"] = params
    return section


# --------------------------------------------------------------------------------------
# key findings


def _rate_text(row: Mapping) -> str:
    return f"{tables.fmt_rate(row['rate'], row['lo'], row['hi'])}"


def _n_text(row: Mapping) -> str:
    return f"n = {int(row['n']):,}"


def _digits(ci: Mapping) -> int:
    """Decimals that show an interval's width (1 at least, 3 at most)."""
    return num_digits(ci.get("lo", math.nan), ci.get("hi", math.nan), 1, 3)


def run_findings(summary: Mapping, prefix: str = "") -> list[Finding]:
    """The headline answers of a simulated run, from its sections' summary: who wins and by
    how much, the first-player advantage, how long a game lasts. ``prefix`` names the item
    (``"2 players: "``) in an experiment."""
    found: list[Finding] = []
    rates = (summary.get("win_rate") or {}).get("by_policy") or []
    fair = summary.get("fair_share")
    if len(rates) > 1 and summary.get("win_rate_leader"):
        ranked = sorted(rates, key=lambda r: -r["rate"])
        best, rest = ranked[0], ranked[1:]
        others = "; ".join(f"{r['policy']} {_rate_text(r)} ({_n_text(r)})" for r in rest)
        lead = leaders.Leader.from_dict(summary["win_rate_leader"])
        claim = lead.claim(f"wins most often: {_rate_text(best)} of its player results "
                           f"({_n_text(best)})")  # fmt: skip
        if not lead.separated:
            others = f"{best['policy']} {_rate_text(best)} ({_n_text(best)}); {others}"
        found.append(
            Finding(
                f"{prefix}{claim[0].upper()}{claim[1:]}; win rates of the others: {others} "
                "(gaps: the difference of two policies' win rates, paired by game)."
                if lead.separated
                else f"{prefix}{claim[0].upper()}{claim[1:]}; win rates: {others} (gaps: the "
                "difference of two policies' win rates, paired by game).",
                {"kind": "best_policy", "policy": best["policy"], "rate": best["rate"],
                 "lo": best["lo"], "hi": best["hi"], "n": best["n"],
                 "best": lead.to_dict()["best"], "gap": lead.to_dict()["gap_to_runner_up"]},
            )
        )  # fmt: skip
    elif len(rates) == 1:
        r = rates[0]
        found.append(
            Finding(
                f"{prefix}Every seat plays **{r['policy']}**: it wins {_rate_text(r)} of its "
                f"player results ({_n_text(r)})"
                + (f"; the fair share is {100 * fair:.1f}%." if fair else "."),
                {"kind": "win_rate", "policy": r["policy"], "rate": r["rate"], "lo": r["lo"],
                 "hi": r["hi"], "n": r["n"]},
            )
        )  # fmt: skip
    fpa = summary.get("first_player_advantage") or {}
    if fpa.get("withheld"):
        found.append(
            Finding(
                f"{prefix}First-player advantage not measured: seat and policy are confounded.",
                {"kind": "first_player_advantage", "withheld": fpa["withheld"]},
            )
        )
    elif fpa.get("value") is not None and math.isfinite(fpa["value"]):
        lo, hi = fpa.get("lo"), fpa.get("hi")
        cell = _fpa_cell(fpa)
        n = int(fpa.get("n_games") or 0)
        if lo is not None and hi is not None and math.isfinite(lo) and lo > 0:
            words = f"the starting player gains **{cell}**"
        elif hi is not None and math.isfinite(hi) and hi < 0:
            words = f"the starting player loses **{cell}**"
        else:
            words = f"no first-player advantage detected: {cell}"
        found.append(
            Finding(
                f"{prefix}First-player advantage: {words} over the mean of the other seats "
                f"(n = {n:,} games).",
                {"kind": "first_player_advantage", "value": fpa["value"], "lo": lo, "hi": hi,
                 "n": n},
            )
        )  # fmt: skip
    turns = summary.get("turns") or {}
    if turns.get("n"):
        found.append(
            Finding(
                f"{prefix}A game lasts "
                f"{tables.fmt_mean(turns['mean'], turns['lo'], turns['hi'], _digits(turns))} "
                "turns on "
                f"average (all players together; n = {int(turns['n']):,} games).",
                {"kind": "game_length", "value": turns["mean"], "lo": turns["lo"],
                 "hi": turns["hi"], "n": turns["n"]},
            )
        )  # fmt: skip
    return found


# --------------------------------------------------------------------------------------
# entry points

# run_id and seed are the same on every row of a run (run.json has them)
_SKIP_SEAT_COLUMNS = {"player", "rank", "turns", "n_players", "run_id", "seed"}
_SKIP_GAME_COLUMNS = {"winner_policy", "first_policy", "run_id", "seed"}


def _items_section(seats: pd.DataFrame, order: list[str], source: str | None = None):
    """The Farmer's Market items section, for runs with the expansion only (item_* columns)."""
    if not any(c.startswith("item_") for c in seats.columns):
        return None
    from bnb_sim.analysis.fm_report import items_section

    return items_section(seats, order, source)


def robustness_run_section(source):  # bnb robustness --run DIR recorded results for the run
    from bnb_sim.analysis.robustness_report import run_section

    return run_section(source)


def build_simulate_report(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    meta: Mapping | None = None,
    title: str | None = None,
    source: str | None = None,
) -> ReportBuilder:
    """All sections of a simulate-run report, in a :class:`ReportBuilder` (nothing written)."""
    from bnb_sim.analysis.key_findings import simulate_findings
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.sensitivity_attach import sensitivity_run_findings

    seats, games, meta = shown_run(seats, games, dict(meta or {}))  # bots by their names
    order = _policy_order(seats, meta)
    name = title or (f"bnb-sim run report: {Path(source).name}" if source else "bnb-sim run report")
    params = meta.get("params", {}) or {}
    subtitle = (
        f"{len(games):,} games · {params.get('players', '?')} players · "
        f"policies {', '.join(order)} · generated "
        f"{_dt.datetime.now().isoformat(timespec='seconds')}"
    )
    builder = ReportBuilder(name, subtitle)
    steps = (
        ("overview", lambda: overview_section(seats, games, meta, source)),
        ("win rates", lambda: win_rate_section(seats, games, order, meta)),
        ("XP", lambda: xp_section(seats, order)),
        ("game length", lambda: game_length_section(games)),
        ("margins and comebacks", lambda: margins_section(seats, order)),
        ("scoring choices", lambda: choices_section(seats, order)),
        ("fights", lambda: fights_section(seats, order)),
        ("ownership", lambda: ownership_section(seats, order)),
        ("play style", lambda: play_style_section(seats, order)),
        ("rule hits", lambda: rule_hits_section(seats, meta)),
        ("Farmer's Market items", lambda: _items_section(seats, order, source)),
        ("how far the findings hold", lambda: robustness_run_section(source)),
        ("provenance", lambda: provenance_section(meta)),
    )
    for label, make in steps:
        status(f"tables and figures: {label}")
        section = make()
        if section is not None:  # rule hits and items: only where the run has them
            builder.add(section)
    builder.findings += simulate_findings(builder.collect_summary())  # key_findings.py
    builder.findings += sensitivity_run_findings(source)  # bnb sensitivity --attach RUN
    builder.notes.append(BOT_STRENGTH_NOTE)
    return builder


def write_report(
    run: str | os.PathLike | tuple[pd.DataFrame, pd.DataFrame, Mapping | None],
    out_dir: str | os.PathLike,
    title: str | None = None,
) -> dict[str, Any]:
    """Write the report of a run directory (or of ``(seats, games, meta)`` frames).

    Returns the written paths: ``{"dir", "markdown", "html", "summary", "figures": [...]}``.
    Raises :class:`~bnb_sim.errors.RunError` for a bad run directory and
    :class:`~bnb_sim.errors.BnbError` for an unwritable ``out_dir``.
    """
    from bnb_sim.analysis.publish import check_writable

    source = None
    if not isinstance(out_dir, str | os.PathLike) or not os.fspath(out_dir):
        raise ArgumentTypeError(f"out_dir must be a non-empty path, got {out_dir!r}")
    if isinstance(run, (str, os.PathLike)):
        from bnb_sim.analysis.compact import load_for_report

        source = os.fspath(run)
        check_writable(out_dir)  # fail before the long part; nothing is created until the end
        seats, games, meta = load_for_report(  # says "reading" once the run is verified
            run,
            seat_columns=lambda c: c not in _SKIP_SEAT_COLUMNS,
            game_columns=lambda c: c not in _SKIP_GAME_COLUMNS,
        )
    else:
        seats, games, meta = check_report_input(run)
        check_writable(out_dir)
    builder = build_simulate_report(seats, games, meta, title, source)
    status(f"writing {out_dir}")
    return builder.write(out_dir)


#: Columns every simulate report needs (the others are optional: their sections say so).
REQUIRED_SEAT_COLUMNS = ("game", "seat", "policy", "xp", "won")
REQUIRED_GAME_COLUMNS = ("game", "turns")
_META_OBJECTS = ("params", "components", "versions", "machine", "timing")


def check_report_input(run: Any) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """``(seats, games, meta)`` given to :func:`write_report` as frames, checked: BnbError
    naming the problem (not a pair or triple of frames, no rows, a missing column, missing
    values in a needed column, a meta that is not a mapping). ``meta`` may be None."""
    if not isinstance(run, (tuple, list)) or len(run) not in (2, 3):
        raise ArgumentTypeError(
            "write_report: give a run directory or a (seats, games[, meta]) tuple, "
            f"got {type(run).__name__}"
        )
    seats, games, meta = (*run, None) if len(run) == 2 else run
    for name, frame, required in (
        ("seats", seats, REQUIRED_SEAT_COLUMNS),
        ("games", games, REQUIRED_GAME_COLUMNS),
    ):
        if not isinstance(frame, pd.DataFrame):
            kind = type(frame).__name__
            raise ArgumentTypeError(f"write_report: {name} must be a DataFrame, got {kind}")
        if not len(frame):
            raise BnbError(f"write_report: the {name} frame has no rows")
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise BnbError(f"write_report: the {name} frame lacks the column {missing[0]!r}")
        for column in required:
            if frame[column].isna().any():
                raise BnbError(
                    f"write_report: the {name} column {column!r} has missing values (NaN)"
                )
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        kind = type(meta).__name__
        raise ArgumentTypeError(f"write_report: meta must be a mapping or None, got {kind}")
    meta = {k: v for k, v in meta.items() if not (k in _META_OBJECTS and v is None)}
    for key in _META_OBJECTS:
        if key in meta and not isinstance(meta[key], Mapping):
            raise BnbError(
                f"write_report: meta[{key!r}] must be a mapping, got {type(meta[key]).__name__}"
            )
    policies = (meta.get("params") or {}).get("policies")
    if policies is not None and not (
        isinstance(policies, (list, tuple)) and all(isinstance(p, str) for p in policies)
    ):
        raise BnbError("write_report: meta['params']['policies'] must be a list of labels")
    return seats, games, meta
