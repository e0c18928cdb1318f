"""Every playthrough file equals the game as it plays now (row hashes say *that* a game
changed; the diff says *how*). After a deliberate change: ``python
scripts/regen_playthroughs.py`` and review the diff of tests/playthroughs/."""

from __future__ import annotations

import difflib

import pytest
from playthrough_helpers import SETTINGS, path_of, text_of

from bnb_sim.games import GAMES


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_playthrough_is_unchanged(name):
    path = path_of(name)
    assert path.is_file(), f"{path} is missing: python scripts/regen_playthroughs.py {name}"
    want, got = path.read_text(), text_of(name)
    if got != want:
        diff = difflib.unified_diff(
            want.splitlines(), got.splitlines(), str(path), "as played now", lineterm="", n=2
        )
        lines = list(diff)
        shown = "\n".join(lines[:80]) + (f"\n... {len(lines) - 80} more" if len(lines) > 80 else "")
        pytest.fail(
            f"the playthrough {name} changed (python scripts/regen_playthroughs.py {name} "
            f"writes it again after a deliberate change):\n{shown}"
        )


def test_every_game_with_a_step_api_has_two_playthroughs():
    games = [game for game, _, _ in SETTINGS.values()]
    for name, spec in GAMES.items():
        if spec.hook("new_game") is not None:
            assert games.count(name) >= 2, name
    assert sorted(p.stem for p in path_of("x").parent.glob("*.txt")) == sorted(SETTINGS)


def test_a_changed_game_fails_with_a_readable_diff(tmp_path, monkeypatch):
    """The test can fail: one decision told differently shows up as a unified diff."""
    import playthrough_helpers

    name = "heroes_village_2p"
    edited = path_of(name).read_text().replace("explores:", "EXPLORES:", 1)
    monkeypatch.setattr(playthrough_helpers, "FOLDER", tmp_path)
    (tmp_path / f"{name}.txt").write_text(edited)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)changed.*-.*EXPLORES:.*\+.*explores:"):
        test_playthrough_is_unchanged(name)
