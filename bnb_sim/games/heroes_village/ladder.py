"""Heroes of the Village's part of ``bnb ladder``: team policies on the same game indices.

The game is cooperative (``outcome = "cooperative"`` in the game registry), so the shared
cooperative ladder (:mod:`bnb_sim.runner.team_ladder`, :mod:`bnb_sim.analysis.team_ladder`)
asks the game only for this: the team win of one team policy on games ``0 .. games-1`` of a
setting (players, pet team, difficulty, buildings, components). :func:`team_play` is the
game's ``team_play`` entry point; a ``[[ladder]]`` item of an experiment file reaches it the
same way (:mod:`bnb_sim.analysis.team_ladder_item`). Numba loads only when games are played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bnb_sim.errors import BnbError, SpecError

__all__ = ["DEFAULT_GAMES", "DEFAULT_RUNGS", "HotvTeamPlay", "team_play"]

#: the uniformly random team, the hand-written team bot, the team bot with tuned weights
#: (docs/heroes-of-the-village.md): each a clear step above the last on the same games
DEFAULT_RUNGS = ("random", "team", "strong")
#: games per rung: a game is cheap (thousands per second), and a step of a few points needs
#: thousands of paired indices for a 95% interval of about ±0.5 pp
DEFAULT_GAMES = 20_000
BLOCK = 50_000


@dataclass
class HotvTeamPlay:
    """One setting of the game: what every rung of a ladder plays."""

    components: Any  # HotvComponents
    players: int
    pets: str | None
    difficulty: str
    buildings: str | None
    seed: int
    team: tuple[str, ...]
    default_rungs: tuple[str, ...] = DEFAULT_RUNGS
    default_games: int = DEFAULT_GAMES

    def label(self, spec: str) -> str:
        """The rung's label, or one clear error for a bad policy spec."""
        from bnb_sim.games.heroes_village.policies import parse_policy

        return parse_policy(spec).label

    def _config(self, spec: str):
        from bnb_sim.games.heroes_village.runner import make_config

        return make_config(self.components, self.players, [spec], self.pets, self.difficulty,
                           self.buildings, self.seed)  # fmt: skip

    def won(self, spec: str, games: int, threads: int | None = None) -> np.ndarray:
        """Team won (bool) on game indices ``0 .. games-1`` with ``spec`` in every seat."""
        from bnb_sim.games.heroes_village.runner import play_block

        config = self._config(spec)
        parts = []
        for start in range(0, int(games), BLOCK):
            n = min(BLOCK, int(games) - start)
            games_df = play_block(config, start, n, threads)[1]
            parts.append(games_df.sort_values("game")["won"].to_numpy(bool))
        return np.concatenate(parts)

    @property
    def setting(self) -> str:
        from bnb_sim.games.heroes_village.readings import setting_suffix

        readings = setting_suffix(self.components.readings)
        return (f"{self.players} players, pets {','.join(self.team)}, {self.difficulty}, "
                f"buildings {self.buildings}{readings}")  # fmt: skip

    def params(self) -> dict[str, Any]:
        comps = self.components
        return {"game": "heroes_village", "players": self.players, "pets": list(self.team),
                "difficulty": self.difficulty, "buildings": self.buildings,
                "components": {"files": list(getattr(comps, "files", []) or []),
                               "content_hash": getattr(comps, "content_hash", None)}}  # fmt: skip


def team_play(
    *, players=None, seed=0, components=None, pets=None, difficulty=None, buildings=None,
    **_ignored,
) -> HotvTeamPlay:  # fmt: skip
    """The setting of a ladder, checked now (bad players, pets or buildings: one line)."""
    from bnb_sim.games.heroes_village.components_arg import components_arg
    from bnb_sim.games.heroes_village.runner import make_config

    if pets is not None and pets.strip().lower() == "all":
        raise SpecError("ladder --game hotv: give one pet team (simulate --pets all ranks the "
                        "pet teams)")  # fmt: skip
    comps = components_arg(components)
    try:
        config = make_config(comps, players, ["team"], pets, difficulty or "standard",
                             buildings, seed)  # fmt: skip
    except BnbError as exc:
        raise BnbError(f"ladder --game hotv: {exc}") from None
    return HotvTeamPlay(comps, config.n_players, pets, config.difficulty, config.buildings,
                        int(seed), tuple(config.teams[0]))  # fmt: skip
