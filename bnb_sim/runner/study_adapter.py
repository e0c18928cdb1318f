"""The designed studies' view of a game that brings no ``studies`` module of its own: the
protocol's methods (:class:`bnb_sim.core.protocol.GameProtocol`) behind the names that
:mod:`bnb_sim.runner.design_play` and the studies built on it ask for (listed in
:mod:`bnb_sim.games.builders_biomes.study_hooks`). So ``bnb compare``, ``tournament`` and
``sweep`` of a competitive game are one implementation for every game: a game with its own
``studies`` module adds what only it can say (rule readings, component files by
expansion); any other game is served by this adapter, without a line of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bnb_sim.errors import BnbError


@dataclass(frozen=True)
class PolicySpec:
    """A policy spec as the designed studies hold it: the text the game's ``make_config``
    reads, and its label (the game's ``policy_labels`` hook, else the text itself)."""

    spec: str
    label: str


class ProtocolStudies:
    """The ``studies`` hooks of a protocol game (see the module docstring)."""

    def __init__(self, game: Any):
        self.game = game

    # components, configs and blocks of games ---------------------------------------------

    def load_components(self, given: Any = None) -> Any:
        """``given`` when it is loaded component data; else the files it names (a path or a
        list of paths) over the game's defaults; anything else is one line."""
        from bnb_sim.runner.game_run_config import load_game_components

        return load_game_components(self.game, given)

    def make_config(self, players: int | None, policies: Sequence[Any], **kw: Any) -> Any:
        """The game's config of ``players`` seats with ``policies`` cycled over them (``kw``:
        ``seed``, ``components``, ``readings``, ``options``: the game's own options)."""
        readings = dict(kw.pop("readings", None) or {})
        options = dict(kw.pop("options", None) or {})
        if readings:
            options["readings"] = readings
        components = kw.pop("components", None)
        seed = int(kw.pop("seed", 0))
        for key, value in kw.items():  # another game's keyword (e.g. an expansion)
            if value is not None:
                raise BnbError(f"{self.game.title} takes no {key.replace('_', ' ')}")
        return self.game.make_config(
            self.load_components(components),
            players=None if players is None else int(players),  # None: the game's count
            policies=[_spec_text(p) for p in policies],
            seed=seed,
            options=options,
        )

    def play_block(self, config: Any, start: int, n: int, threads: int | None) -> Any:
        """The ``(seats, games)`` frames of games ``start .. start+n-1`` of ``config``."""
        return self.game.play_block(config, start, n, threads)

    # policies ----------------------------------------------------------------------------

    def parse_policy(self, spec: Any) -> PolicySpec:
        """``spec`` with its label (BnbError on a spec the game does not know)."""
        text = _spec_text(spec)
        return PolicySpec(text, self._labels([text])[0])

    def check_distinct(self, specs: Sequence[Any], what: str) -> None:
        """``what``: refuse one policy listed twice (by its label)."""
        labels = self._labels([_spec_text(s) for s in specs])
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise BnbError(f"{what}: {twice[0]} is listed twice")

    def _labels(self, specs: list[str]) -> list[str]:
        labels = getattr(self.game, "policy_labels", None)
        return list(labels(specs)) if callable(labels) else list(specs)

    # rule readings: a game without a studies module of its own fixes none -----------------

    def design_readings(
        self, readings: Any, variant: Any, *, seating: str | None = None, what: str = ""
    ) -> dict:
        """No readings (a design of this game fixes none); BnbError if some were given."""
        given = dict(readings or {})
        if given or variant:
            named = ", ".join(sorted(given)) or "variant"
            raise BnbError(f"{what or 'this study'}: {self.game.title} has no rule readings "
                           f"to set here ({named})")  # fmt: skip
        return {}

    def resolved_readings(self, readings: Mapping[str, Any] | None) -> dict:
        return self.design_readings(readings, None)

    def resolve_readings(self, readings: Any, aliases: Any = None, players: Any = None) -> dict:
        return self.design_readings(readings, (aliases or {}).get("variant"))

    def search_budget(self, spec: Any) -> None:
        """No search-bot budgets (the strength-against-budget series of a tournament)."""
        return None


def _spec_text(spec: Any) -> str:
    """The text of a policy spec: a :class:`PolicySpec`'s ``spec``, or the text itself."""
    return spec.spec if isinstance(spec, PolicySpec) else str(spec)
