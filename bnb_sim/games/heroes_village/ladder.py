"""Heroes of the Village's part of ``bnb ladder``: team policies on the same game indices.

The game is cooperative (``outcome = "cooperative"`` in the game registry), so the shared
cooperative ladder (:mod:`bnb_sim.runner.team_ladder`, :mod:`bnb_sim.analysis.team_ladder`)
asks the game only for this: the team win of one team policy on games ``0 .. games-1`` of a
setting (players, pet team, difficulty, buildings, components). :func:`team_play` is the
game's ``team_play`` entry point. Numba loads only when games are played.
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

    def warmup(self) -> None:
        """Compile the game's batch kernel (or load it from the cache)."""
        from bnb_sim.games.heroes_village.item_parts import warm_batch_kernel

        warm_batch_kernel()

    @property
    def setting(self) -> str:
        return (f"{self.players} players, pets {','.join(self.team)}, {self.difficulty}, "
                f"buildings {self.buildings}")  # fmt: skip

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
    from bnb_sim.games.heroes_village.cli_common import _components
    from bnb_sim.games.heroes_village.runner import make_config

    if pets is not None and pets.strip().lower() == "all":
        raise SpecError("ladder --game hotv: give one pet team (simulate --pets all ranks the "
                        "pet teams)")  # fmt: skip
    comps = _components(components)
    try:
        config = make_config(comps, players, ["team"], pets, difficulty or "standard",
                             buildings, seed)  # fmt: skip
    except BnbError as exc:
        raise BnbError(f"ladder --game hotv: {exc}") from None
    return HotvTeamPlay(comps, config.n_players, pets, config.difficulty, config.buildings,
                        int(seed), tuple(config.teams[0]))  # fmt: skip


# ----------------------------------------------------------------------------- [[ladder]]


@dataclass
class HotvLadderItem:
    """A ``[[ladder]]`` item with ``game = "hotv"`` (docs/heroes-of-the-village.md): what
    ``bnb ladder --game hotv`` plays and reports with the same arguments."""

    name: str
    seed: int
    components: Any  # HotvComponents
    component_files: list[str]
    overrides: dict[str, Any]
    plan: Any  # bnb_sim.runner.team_ladder.TeamLadderPlan
    kind: str = "ladder"
    game: str = "heroes_village"

    @property
    def players(self) -> int:
        return self.plan.team.players

    def budget(self) -> int:
        return len(self.plan.rungs) * self.plan.games

    def games_text(self) -> str:
        return f"{self.plan.games:,} games x {len(self.plan.rungs)} rungs"

    def what(self) -> str:
        return f"Heroes of the Village ladder, {self.plan.team.setting}: " + " < ".join(
            self.plan.rungs
        )

    def readings_text(self) -> str:
        t = self.plan.team
        return f"difficulty={t.difficulty}, buildings={t.buildings}, pets={','.join(t.team)}"

    def played(self, result) -> int:
        return int(result.n_games)

    def warmup(self):
        from bnb_sim.games.heroes_village.item_parts import warm_batch_kernel

        return (self.game, "batch kernel"), warm_batch_kernel

    def run(self, *, threads=None, progress=None, yes: bool = False):
        from bnb_sim.runner.budget import confirm_games
        from bnb_sim.runner.team_ladder import run_team_ladder

        confirm_games(self.budget(), f"ladder '{self.name}'", yes=yes)
        return run_team_ladder(self.plan, threads=threads, progress=progress)

    def report(self, result):
        """``(sections, summary, findings)``: the sections of ``bnb ladder --game hotv``,
        titled and with figure files prefixed by the item's name."""
        from bnb_sim.analysis.report_builder import Finding, _slug
        from bnb_sim.analysis.team_ladder import (
            team_ladder_findings,
            team_ladder_sections,
            team_ladder_summary,
        )

        sections = team_ladder_sections(result)
        for section in sections:
            section.title = f"{self.name}: {section.title.lower()}"
            section.anchor = _slug(section.title)
            for fig in section.figures:
                fig.name = _slug(f"{self.name}-{fig.name}")
        findings = [Finding(f"{self.name}: {f.text}", f.numbers)
                    for f in team_ladder_findings(result)]  # fmt: skip
        summary = {**team_ladder_summary(result), "game": self.game}
        return sections, summary, findings


def parse_ladder_item(r, common: dict) -> HotvLadderItem:
    """A ``[[ladder]]`` table of this game (reader ``r`` of the shared experiment code),
    checked now: one line naming the file, the item and the key."""
    from bnb_sim.analysis.experiment_reader import _REQUIRED
    from bnb_sim.games import get_game
    from bnb_sim.runner.team_ladder import plan_team_ladder

    games = r.int("games", _REQUIRED, low=2, high=10_000_000)
    rungs = r.str_list("rungs", None)
    options = {k: common[k] for k in ("pets", "difficulty", "buildings")}
    try:
        team_play(players=common["players"], components=common["components"], **options)
    except BnbError as exc:
        text = str(exc).removeprefix("ladder --game hotv: ")
        key = next((k for k in ("buildings", "pets", "players") if f"--{k}" in text), "pets")
        r.fail(key, text)
    try:
        plan = plan_team_ladder(get_game("hotv"), rungs, players=common["players"], games=games,
                                seed=common["seed"], components=common["components"],
                                yes=True, options=options)  # fmt: skip
    except BnbError as exc:
        r.fail("rungs", str(exc).removeprefix("ladder: "))
    keep = ("name", "seed", "components", "component_files", "overrides")
    return HotvLadderItem(**{k: common[k] for k in keep}, plan=plan)
