"""The ``[experiment]`` table of an experiment file: the defaults every item starts from.

``game = NAME`` (optional) names the game of every item without a ``game`` key of its own;
without it that is the registry's default game. The head's ``components`` and ``readings``
are that game's, so they go to that game's items only: an item of another game (``game =
"OTHER"``) starts from that game's defaults. ``variant`` and ``expansion`` are words of a
game with a ``studies`` hook (its rules variant and expansion): the head takes them when its
game has one.

The items of a game with a ``studies`` hook are read by
:mod:`bnb_sim.analysis.experiment_items` (they take the head's values as arguments); the
items of a game without one by the protocol's readers, which see the head's components and
readings merged into the item's own table (:meth:`ExperimentHead.table_of`), exactly as if
each item had listed them. The choice is the game's capability, never its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bnb_sim.analysis.experiment_reader import _Reader
from bnb_sim.errors import BnbError

# the keys of the head of any game (a game with a studies hook also takes variant and expansion)
HEAD_KEYS = ("title", "description", "seed", "threads", "bootstrap", "game", "readings",
             "components")  # fmt: skip


@dataclass
class ExperimentHead:
    """The ``[experiment]`` table, checked."""

    source: str
    title: str
    description: str
    seed: int
    threads: int | None
    bootstrap: int
    game: Any  # the registry entry (bnb_sim.games.GameSpec) of the items without a game key
    #: whether that game's items are read by experiment_items (it has a ``studies`` hook)
    studied: bool
    files: list[str] = field(default_factory=list)  # its component files, as written
    readings: dict[str, str] = field(default_factory=dict)  # as written (checked per item)
    variant: str | None = None  # a studied game's only
    expansion: str | None = None  # a studied game's only

    def table_of(self, table: Any) -> Any:
        """An item table of a game without a ``studies`` hook, as its reader sees it: its
        ``game`` (the head's when it names none) and, for an item of the head's game, the
        head's components before its own and the head's readings under its own."""
        if self.studied or not isinstance(table, Mapping):
            return table
        if "game" in table and not self._is_head_game(table["game"]):
            return table  # another game's item: the head's values are not its own
        out = dict(table)
        out["game"] = self.game.name
        own_files = out.get("components", [])
        if self.files and isinstance(own_files, list):  # a bad value: the item's reader says so
            out["components"] = [*self.files, *own_files]
        own_readings = out.get("readings", {})
        if self.readings and isinstance(own_readings, Mapping):
            out["readings"] = {**self.readings, **own_readings}
        return out

    def _is_head_game(self, name: Any) -> bool:
        from bnb_sim.games import get_game

        try:
            return isinstance(name, str) and get_game(name).name == self.game.name
        except BnbError:  # an unknown game: the item's reader names it
            return False


def read_head(data: Mapping, source: str, allowed_studied: tuple[str, ...]) -> ExperimentHead:
    """The ``[experiment]`` table of a parsed file (one line naming the file and the key on
    anything wrong). ``allowed_studied``: the keys the head of a game with a ``studies``
    hook takes."""
    from bnb_sim.games import get_game

    raw = data.get("experiment", {})
    name = raw.get("game") if isinstance(raw, Mapping) else None
    if name is not None and not isinstance(name, str):
        raise BnbError(f"{source}: experiment.game: must be a game name, got {name!r}")
    try:
        game = get_game(name)
    except BnbError as exc:
        raise BnbError(f"{source}: experiment.game: {exc}") from None
    studied = has_studies(game)
    keys = (*allowed_studied, "game") if studied else HEAD_KEYS
    head = _Reader(source, "experiment", raw, keys)
    out = ExperimentHead(
        source=source,
        title=head.str("title", Path(source).stem),
        description=head.str("description", "") if head.has("description") else "",
        seed=head.int("seed", 0, low=0, high=2**63 - 1),
        threads=head.int("threads", None, low=1, high=1024),
        bootstrap=head.int("bootstrap", 200, low=0, high=100_000),
        game=game,
        studied=studied,
        files=head.str_list("components", []),
    )
    if studied:
        _studied_game_values(head, out)
    else:
        out.readings = _reading_texts(head)
        if out.readings:
            _check_readings(head, game, out.readings)
    return out


def _check_readings(head: _Reader, game: Any, readings: dict[str, str]) -> None:
    """The head's readings of another game set on its default components, as ``--reading``
    sets them (so a name or value the game refuses names the head, not each item)."""
    from bnb_sim.core.registry import get_game

    rules = get_game(game.name)
    with_readings = getattr(rules, "with_readings", None)
    if not callable(with_readings):
        head.fail("readings", f"{game.title} has no rule readings to set")
    try:
        with_readings(rules.load_components([]), [f"{k}={v}" for k, v in readings.items()])
    except BnbError as exc:
        text = str(exc)
        head.fail("readings", text.split(": ", 1)[-1] if text.startswith("--") else text)


def has_studies(game: Any) -> bool:
    """Whether the game of registry entry ``game`` declares a ``studies`` hook (its
    readings, component files, policy specs and designed studies): then its items are read
    by :mod:`bnb_sim.analysis.experiment_items`."""
    return game.hook("studies") is not None


def _studied_game_values(head: _Reader, out: ExperimentHead) -> None:
    """The head values of a game with a ``studies`` hook: its variant, readings and
    expansion, checked by those hooks (a reading it does not know, a variant or expansion
    it does not have)."""
    from bnb_sim.analysis.experiment_items import _reading_table
    from bnb_sim.analysis.study_hooks import study_hooks

    game = out.game.name
    out.variant = head.str("variant", None)
    out.readings = _reading_table(head, game)
    if out.variant is not None:
        try:
            study_hooks(game).resolve_readings(out.readings, aliases={"variant": out.variant})
        except BnbError as exc:
            head.fail("variant", str(exc))
    out.expansion = head.str("expansion", None)
    if out.expansion is not None:
        check_expansion(head, out.expansion, game)


def check_expansion(reader: _Reader, name: str, game: str) -> None:
    """An ``expansion`` that ``game`` has (its ``studies`` hooks' ``expansions()``)."""
    from bnb_sim.analysis.study_hooks import study_hooks

    known = getattr(study_hooks(game), "expansions", lambda: ())()
    if name not in known:
        listed = ", ".join(known) if known else "none"
        reader.fail("expansion", f"unknown expansion '{name}' (known: {listed})")


def _reading_texts(head: _Reader) -> dict[str, str]:
    """The head's ``readings`` of another game: a table of texts (each item's game checks
    the names and values, as ``--reading NAME=VALUE``)."""
    value = head.table.get("readings", {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        head.fail("readings", 'must be a table of texts, e.g. readings = { NAME = "VALUE" }')
    return {str(k): v for k, v in value.items()}
