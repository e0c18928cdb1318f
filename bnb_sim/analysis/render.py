"""A picture of a game's table: every player's board, the cube's layers and the scores.

:func:`draw_table` turns the plain data of :meth:`bnb_sim.games.builders_biomes.game.Game.table`
into a matplotlib
figure; :func:`save_table` writes it as SVG or PNG (by the file's suffix). ``bnb play --svg
FILE`` uses both. Pure Python and matplotlib: no numba, no engine.

What is drawn (rule IDs of docs/rules-reference.md):

* each player's 3x3 board (R-SETUP-1): a space with a building is filled with the colour of
  the building's biome and names its material and type (R-BUILD-4); an empty space shows its
  printed biome, pale and hatched; a small strip along the top of each space always shows the
  printed biome, so a covered space can still be read;
* the cube's four layers (R-SETUP-3, layer 1 = top), each a 4x4 grid of the blocks left,
  coloured by material, with the count left (scoring rounds A, B, C follow from emptying
  layers 1, 2, 3, R-SCORE-1);
* per player the policy, the XP with its sources, blocks left and rank (R-END-2).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.safe_io import write_atomic

# colours of the default data's names; other names get a palette colour
BIOME_COLOURS = {
    "forest": "#3f8f3a",
    "desert": "#e2bf63",
    "mountains": "#8a8f96",
    "snowy_tundra": "#e9f1f7",
}
BLOCK_COLOURS = {
    "wood": "#9a6a34",
    "sand": "#ead9a2",
    "stone": "#7b7b7b",
    "obsidian": "#34224f",
    "emerald": "#2fbf71",
}
DARK_FILLS = {"forest", "mountains", "wood", "stone", "obsidian"}  # white text on these
PALETTE = ("#c0504d", "#4f81bd", "#9bbb59", "#8064a2", "#4bacc6", "#f79646")
XP_LABELS = {
    "buildings": "build",
    "mobs": "mobs",
    "hoes": "hoes",
    "round_a": "A",
    "round_b": "B",
    "round_c": "C",
    "bonus_mobs": "bonus",
}
FORMATS = {".svg": "svg", ".png": "png"}


def _colour(name: str, known: dict[str, str], order: list[str]) -> str:
    if name in known:
        return known[name]
    return PALETTE[order.index(name) % len(PALETTE)] if name in order else "#cccccc"


def _text_colour(name: str) -> str:
    return "white" if name in DARK_FILLS else "#1a1a1a"


def _nice(name: str) -> str:
    return name.replace("_", " ")


def _draw_board(ax, seat: dict, biomes: list[str]) -> None:
    from matplotlib.patches import Rectangle

    ax.set_xlim(0, 3)
    ax.set_ylim(0, 3.55)
    ax.set_aspect("equal")
    ax.axis("off")
    for r, row in enumerate(seat["spaces"]):
        for c, space in enumerate(row):
            x, y = c, 2 - r
            printed = space["printed"]
            printed_fill = _colour(printed, BIOME_COLOURS, biomes)
            building = space["building"]
            if building is None:
                ax.add_patch(
                    Rectangle(
                        (x, y), 1, 1, facecolor=printed_fill, alpha=0.35, hatch="//",
                        edgecolor="#555555", linewidth=0.8,
                    )
                )  # fmt: skip
                ax.text(
                    x + 0.5, y + 0.45, _nice(printed), ha="center", va="center", fontsize=7,
                    color="#333333", style="italic",
                )  # fmt: skip
            else:
                fill = _colour(building["biome"], BIOME_COLOURS, biomes)
                ink = _text_colour(building["biome"])
                ax.add_patch(
                    Rectangle((x, y), 1, 1, facecolor=fill, edgecolor="#222222", linewidth=1.2)
                )
                ax.text(
                    x + 0.5, y + 0.56, _nice(building["material"]), ha="center", va="center",
                    fontsize=8, fontweight="bold", color=ink,
                )  # fmt: skip
                ax.text(
                    x + 0.5, y + 0.32, _nice(building["type"]), ha="center", va="center",
                    fontsize=7, color=ink,
                )  # fmt: skip
            # the printed biome, always visible along the top of the space
            ax.add_patch(
                Rectangle(
                    (x + 0.04, y + 0.83), 0.92, 0.13, facecolor=printed_fill,
                    edgecolor="#444444", linewidth=0.5,
                )
            )  # fmt: skip
    verdict = "winner" if seat["won"] else (f"rank {seat['rank']}" if seat["rank"] else "")
    ax.text(
        1.5, 3.42, f"seat {seat['seat']}: {seat['policy']}", ha="center", va="center",
        fontsize=10, fontweight="bold",
    )  # fmt: skip
    ax.text(
        1.5, 3.15, f"{seat['board']} board · {seat['xp']} XP · {verdict}", ha="center",
        va="center", fontsize=8.5, color="#b03020" if seat["won"] else "#333333",
    )  # fmt: skip


def _xp_line(seat: dict) -> str:
    parts = [f"{XP_LABELS.get(k, k)} {v}" for k, v in seat["xp_by_source"].items() if v]
    line = " + ".join(parts) if parts else "no XP"
    return f"{line} = {seat['xp']} XP; {seat['blocks_left']} blocks left"


def _draw_cube(fig, spec, cube: list[dict], blocks: list[str]) -> None:
    from matplotlib.patches import Rectangle

    grid = spec.subgridspec(1, len(cube), wspace=0.15)
    for i, layer in enumerate(cube):
        ax = fig.add_subplot(grid[0, i])
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 4)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        round_name = {1: "A", 2: "B", 3: "C"}.get(layer["layer"])
        n = layer["left"]
        left = f"{n} block{'s' if n != 1 else ''} left" if n else "empty"
        if round_name:
            left += f" (round {round_name} scored)" if not n else f" (empty: round {round_name})"
        ax.set_title(f"layer {layer['layer']}: {left}", fontsize=8, pad=3)
        for r, row in enumerate(layer["blocks"]):
            for c, block in enumerate(row):
                if block is None:
                    ax.add_patch(
                        Rectangle((c, 3 - r), 1, 1, facecolor="white", edgecolor="#dddddd")
                    )
                    continue
                ax.add_patch(
                    Rectangle(
                        (c, 3 - r), 1, 1, facecolor=_colour(block, BLOCK_COLOURS, blocks),
                        edgecolor="#333333", linewidth=0.8,
                    )
                )  # fmt: skip
                ax.text(
                    c + 0.5, 3 - r + 0.5, block[:2], ha="center", va="center", fontsize=6.5,
                    color=_text_colour(block),
                )  # fmt: skip


def draw_table(table: dict[str, Any], title: str | None = None):
    """A matplotlib Figure of ``table`` (:meth:`Game.table`): boards, cube, scores."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    seats = table["seats"]
    n = len(seats)
    fig = Figure(figsize=(3.1 * max(n, 3), 6.2), layout="constrained")
    outer = fig.add_gridspec(3, 1, height_ratios=[3.6, 0.5, 1.5])
    boards = outer[0].subgridspec(1, n, wspace=0.08)
    for i, seat in enumerate(seats):
        ax = fig.add_subplot(boards[0, i])
        _draw_board(ax, seat, table["biomes"])
        ax.text(1.5, -0.18, _xp_line(seat), ha="center", va="top", fontsize=7, color="#333333")
    legend_ax = fig.add_subplot(outer[1])
    legend_ax.axis("off")
    handles = [
        Patch(facecolor=_colour(b, BIOME_COLOURS, table["biomes"]), edgecolor="#444444",
              label=_nice(b))
        for b in table["biomes"]
    ]  # fmt: skip
    handles.append(Patch(facecolor="white", edgecolor="#555555", hatch="//", label="no building"))
    handles.append(Patch(facecolor="#dddddd", edgecolor="#444444", label="top strip: printed"))
    handles += [
        Patch(facecolor=_colour(b, BLOCK_COLOURS, table["blocks"]), edgecolor="#333333",
              label=f"{_nice(b)} block")
        for b in table["blocks"]
    ]  # fmt: skip
    legend_ax.legend(
        handles=handles, loc="center", ncol=min(len(handles), 6), fontsize=7.5, frameon=False
    )
    _draw_cube(fig, outer[2], table["cube"], table["blocks"])
    state = "final table" if table.get("over", True) else "table"
    fig.suptitle(title or f"{state}: {table.get('title', '')}", fontsize=11)
    return fig


def save_table(table: dict[str, Any], path: str | os.PathLike, title: str | None = None) -> Path:
    """Draw ``table`` into ``path``: SVG for ``.svg``, PNG for ``.png``. Returns the path.

    Raises :class:`BnbError` (one line) for another suffix or an unwritable path.
    """
    import matplotlib

    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BnbError(f"{path}: the picture must be a .svg or .png file")
    check_picture_target(path)
    fig = draw_table(table, title)
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "bnb-sim"}):
        fig.savefig(buffer, format=fmt, dpi=130, metadata=_metadata(fmt))
    try:  # whole or not at all, into a new file (never into a pipe or through a link)
        write_atomic(path, buffer.getvalue())
    except OSError as exc:
        raise BnbError(f"{path}: cannot write the picture ({exc.strerror or exc})") from None
    return path


def check_picture_target(path: str | os.PathLike) -> None:
    """BnbError unless ``path`` is new or a regular file (a FIFO or a device there would
    block the writer or swallow the picture; a folder cannot become one)."""
    from bnb_sim.safe_io import output_file_problem

    problem = output_file_problem(path)
    if problem is not None:
        raise BnbError(f"{path}: {problem.replace('write', 'write the picture', 1)}")


def _metadata(fmt: str) -> dict:
    # no creation date in the SVG: the same game gives the same file
    return {"Date": None} if fmt == "svg" else {}
