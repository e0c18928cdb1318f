"""The package layout (docs/design.md, "Games side by side"): each game in its own package under
bnb_sim/games/, importing only shared modules, never another game's; the shared building
blocks import no game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "bnb_sim"
GAMES = sorted(p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").exists())
SHARED_BLOCKS = ("rng.py", "plugins.py", "entry_points.py", "toml_files.py", "_jit.py")


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_both_games_are_packages_side_by_side():
    assert {"builders_biomes", "heroes_village"} <= set(GAMES)
    for old in ("engine", "policies", "components"):
        assert not (PACKAGE / old).exists(), f"bnb_sim/{old} belongs under bnb_sim/games/"


@pytest.mark.parametrize("game", GAMES)
def test_a_game_imports_no_other_game(game):
    others = [f"bnb_sim.games.{g}" for g in GAMES if g != game]
    for path in sorted((PACKAGE / "games" / game).rglob("*.py")):
        for module in imported_modules(path):
            assert not any(module == o or module.startswith(o + ".") for o in others), (
                f"{path.relative_to(PACKAGE)} imports {module}"
            )


@pytest.mark.parametrize("name", SHARED_BLOCKS)
def test_shared_building_blocks_import_no_game(name):
    for module in imported_modules(PACKAGE / name):
        assert not module.startswith("bnb_sim.games"), f"bnb_sim/{name} imports {module}"
