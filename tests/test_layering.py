"""What may import what (issue 24): the layering of the package, measured on every run.

The target (docs/design.md, "Games side by side"): the shared layers (runner, analysis,
tune, studies, cli, core) import no game package; games import no CLI, study or tune code;
no import cycles, counting imports inside functions (``scripts/import_graph.py``); no module
over 600 lines. Cycles, long modules and game-to-application imports are at zero; shared
modules that import a game package are what remains. These tests pin where it stands as
*ratchets*: anything new that breaks a rule fails at once, and anything fixed fails too until
its entry is deleted from the lists below, so the lists only ever shrink.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = (
    "bnb_sim.runner",
    "bnb_sim.analysis",
    "bnb_sim.tune",
    "bnb_sim.cli",
    "bnb_sim.core",
    "bnb_sim.studies",
    "bnb_sim.feedback",
)
GAMES = "bnb_sim.games."
MAX_LINES = 600

#: Import cycles that remain (none now: keep it so). A new cycle fails the test.
KNOWN_CYCLES: set[frozenset[str]] = set()

#: Modules over MAX_LINES lines that remain (with their length when listed).
KNOWN_LONG: dict[str, int] = {}

#: Game modules that still import the CLI, tune or the studies (none now: keep it so).
KNOWN_GAME_TO_APP: set[str] = set()

#: Shared modules that still import a game package directly (none now: keep it so).
KNOWN_SHARED_TO_GAME: set[str] = set()


@pytest.fixture(scope="module")
def graph():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts/import_graph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    try:
        known, edges = module.graph(ROOT, "bnb_sim")
        yield known, edges, module.cycles(known, edges)
    finally:
        sys.modules.pop("import_graph", None)


def _ratchet(found: set, known: set, what: str) -> None:
    new, gone = sorted(map(str, found - known)), sorted(map(str, known - found))
    assert not new, f"new {what} (not allowed): {new}"
    assert not gone, f"fixed {what}: delete them from the list in this file: {gone}"


def test_no_new_import_cycle(graph):
    _, _, cycles = graph
    _ratchet({frozenset(c) for c in cycles}, KNOWN_CYCLES, "import cycles")


def test_the_core_layer_imports_nothing_but_itself_and_the_basics(graph):
    _, edges, _ = graph
    allowed = ("bnb_sim.core", "bnb_sim.errors", "bnb_sim.jsonsafe", "bnb_sim.safe_io")
    wrong = sorted(
        f"{e.source} -> {e.target}"
        for e in edges
        if e.source.startswith("bnb_sim.core") and not e.target.startswith(allowed)
    )
    assert not wrong, wrong


def test_games_import_no_cli_tune_or_studies_beyond_the_known(graph):
    _, edges, _ = graph
    app = ("bnb_sim.cli", "bnb_sim.tune", "bnb_sim.studies")
    found = {e.source for e in edges if e.source.startswith(GAMES) and e.target.startswith(app)}
    _ratchet(found, KNOWN_GAME_TO_APP, "game modules importing the CLI, tune or studies")


def test_no_new_shared_module_imports_a_game(graph):
    _, edges, _ = graph
    found = {e.source for e in edges if e.source.startswith(SHARED) and e.target.startswith(GAMES)}
    _ratchet(found, KNOWN_SHARED_TO_GAME, "shared modules importing a game")


def test_no_new_module_over_600_lines():
    found = {}
    for path in sorted((ROOT / "bnb_sim").rglob("*.py")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            found[".".join(path.relative_to(ROOT).with_suffix("").parts)] = lines
    _ratchet(set(found), set(KNOWN_LONG), f"modules over {MAX_LINES} lines")
    grown = {m: (KNOWN_LONG[m], n) for m, n in found.items() if n > KNOWN_LONG[m]}
    assert not grown, f"long modules that grew (listed, now): {grown}"


def test_the_ratchets_fail_on_a_new_entry_and_on_a_fixed_one():
    with pytest.raises(AssertionError, match="new"):
        _ratchet({"a", "b"}, {"a"}, "things")
    with pytest.raises(AssertionError, match="fixed"):
        _ratchet({"a"}, {"a", "b"}, "things")
    _ratchet({"a"}, {"a"}, "things")
