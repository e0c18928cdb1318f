"""The items of an experiment file, kind by kind: which keys each takes and its spec.

These are the items of a game with a ``studies`` hook (:func:`item_game` finds an item's
game; :func:`bnb_sim.analysis.experiment_head.has_studies` says whether it has one): every
reader here takes the item's game and asks that game's hooks (``study_hooks(game)``), never
the registry's default game. :data:`ALLOWED` lists the keys of every kind; :func:`_item`
reads one item's table into its spec (simulation, tournament, sweep, compare here; tune,
robustness, sensitivity, value, ladder and luck through their own modules), with the shared
pieces: components and ``set`` (:func:`_components`), policies, readings, players and the
run folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bnb_sim.analysis.experiment_reader import _REQUIRED, _Reader
from bnb_sim.analysis.experiment_specs import (
    MAX_GAMES,
    SEATINGS,
    CompareSpec,
    SimulationSpec,
    SweepSpec,
    TournamentSpec,
)
from bnb_sim.analysis.ladder_item import LADDER_KEYS
from bnb_sim.analysis.luck_item import LUCK_KEYS
from bnb_sim.analysis.value_item import VALUE_KEYS
from bnb_sim.errors import BnbError
from bnb_sim.runner.robustness_item import ROBUSTNESS_KEYS
from bnb_sim.tune.experiment_item import TUNE_KEYS

_COMMON_KEYS = ("name", "seed", "variant", "readings", "components", "expansion", "set")
ALLOWED = {
    "experiment": (
        "title",
        "description",
        "seed",
        "threads",
        "bootstrap",
        "variant",
        "readings",
        "components",
        "expansion",
    ),
    "simulation": (*_COMMON_KEYS, "games", "players", "policies", "seating", "run_dir"),
    "tournament": (*_COMMON_KEYS, "games", "players", "policies", "anchor", "bootstrap"),
    "sweep": (
        "name",
        "seed",
        "variant",
        "readings",
        "components",
        "expansion",
        "set",
        "mode",
        "games",
        "players",
        "policies",
    ),
    "compare": (
        *_COMMON_KEYS,
        "a",
        "b",
        "opponents",
        "players",
        "sprt",
        "precision",
        "alpha",
        "beta",
        "max_games",
    ),
    "tune": TUNE_KEYS,
    "robustness": ROBUSTNESS_KEYS,
    "value": VALUE_KEYS,
    "ladder": (*_COMMON_KEYS, *LADDER_KEYS),
    "luck": (*_COMMON_KEYS, *LUCK_KEYS),
}


def _components(
    source: str,
    where: str,
    base_dir: Path,
    files: list[str],
    overrides: dict,
    expansion: str | None = None,
    game: str | None = None,
):
    from bnb_sim.analysis.study_hooks import study_hooks
    from bnb_sim.errors import ComponentError

    resolved = []
    for f in files:
        path = Path(f)
        if not path.is_absolute():
            path = base_dir / path
        resolved.append(str(path))
    try:
        comps = study_hooks(game).load_component_files(resolved, expansion=expansion)
    except ComponentError as exc:  # it names the component file and key; add ours
        raise BnbError(f"{source}: {where}.components: {exc}") from None
    if overrides:
        comps = comps.with_values(overrides, origin=f"{source}: {where}.set")
    return comps, resolved


def _policies(
    source: str, where: str, specs: list[str], players: int | None, game: str | None = None
) -> list[str]:
    """Policy labels of ``game`` (parsed, so a bad spec fails now); at most ``players``."""
    from bnb_sim.analysis.study_hooks import policy_labels
    from bnb_sim.analysis.tournament import split_policy_list

    out = []
    for spec in split_policy_list(specs):
        try:
            out += policy_labels([spec], game=game)
        except BnbError as exc:
            raise BnbError(f"{source}: {where}.policies: {exc}") from None
    if not out:
        raise BnbError(f"{source}: {where}.policies: at least one policy is needed")
    if players is not None and len(out) > players:
        raise BnbError(f"{source}: {where}.policies: {len(out)} policies for {players} players")
    return out


def _reading_table(reader: _Reader, game: str | None = None) -> dict[str, str]:
    """``readings = { hunger = "one-by-one", ... }`` of a table, validated by ``game``."""
    from bnb_sim.analysis.study_hooks import study_hooks

    table = reader.table.get("readings", {})
    if not isinstance(table, Mapping):
        reader.fail("readings", 'must be a table, e.g. readings = { hunger = "one-by-one" }')
    out = {}
    for name, value in table.items():
        try:
            out[str(name)] = study_hooks(game).check_reading(str(name), value)
        except BnbError as exc:
            reader.fail("readings", str(exc))
    return out


def _item_readings(r: _Reader, kind: str, head: dict, head_variant: str | None, players,
                   game: str | None = None):  # fmt: skip
    """``(explicit readings, resolved readings)`` of an item of ``game``: the [experiment]
    readings, the item's own, and the ``variant``/``seating`` keys (aliases; a contradiction
    is an error)."""
    from bnb_sim.analysis.study_hooks import study_hooks
    from bnb_sim.runner.experiments import design_readings

    own = _reading_table(r, game)
    given = {**head, **own}
    variant = r.str("variant", None)
    if variant is None and "variant" not in own:
        variant = head_variant
    seating = r.str("seating", None, SEATINGS) if kind == "simulation" else None
    try:
        resolved = study_hooks(game).resolve_readings(
            given, aliases={"variant": variant, "seating": seating}, players=players
        )
        if kind not in ("simulation", "luck"):  # luck: the seating is a reading like any other
            design = "fixed" if kind in ("tournament", "ladder") else "rotate"
            if kind == "compare" and not r.table.get("opponents"):
                design = "fixed"
            if kind == "tune":
                from bnb_sim.tune.experiment_item import design_seating

                design = design_seating(r.table.get("what", "policy"))
            design_readings(given, variant, seating=design, what=kind, game=game)
    except BnbError as exc:
        r.fail("readings", str(exc))
    explicit = dict(given)
    if variant is not None:
        explicit["variant"] = resolved["variant"]
    if seating is not None:
        explicit["seating"] = resolved["seating"]
    return explicit, resolved


def _players(reader: _Reader, default: int) -> int:
    return reader.int("players", default, low=2, high=4)


def item_game(source: str, where: str, table: Any, head_game: Any) -> Any:
    """The registry entry of an item's game: its ``game`` key, else ``head_game`` (the
    entry of the ``[experiment]`` table's game); one line naming the key on a bad name."""
    if not isinstance(table, Mapping) or "game" not in table:
        return head_game
    from bnb_sim.games import get_game

    name = table["game"]
    if not isinstance(name, str):
        raise BnbError(f"{source}: {where}.game: must be a game name, got {name!r}")
    try:
        return get_game(name)
    except BnbError as exc:
        raise BnbError(f"{source}: {where}.game: {exc}") from None


def _run_dir(r: _Reader, base_dir: Path) -> str | None:
    """``run_dir``, resolved against the experiment file's folder and checked now (before
    anything plays): it may be new, an empty folder, or a run folder (then it is resumed)."""
    from bnb_sim.runner.storage import META_NAME

    path = r.folder("run_dir", base_dir)
    if path is None:
        return None
    if path.exists() and not path.is_dir():
        r.fail("run_dir", f"{path} exists and is not a folder")
    if path.is_dir() and not (path / META_NAME).is_file() and any(path.iterdir()):
        r.fail(
            "run_dir",
            f"{path} is a non-empty folder that is not a run; give a new or empty folder "
            "(an existing run folder is resumed)",
        )
    return str(path)


def _item(kind: str, r: _Reader, common: dict, comps, bootstrap: int, base_dir: Path,
          expansion: str | None, game: str):  # fmt: skip
    """The spec of one item of ``game`` (its registry name)."""
    where, source = r.where, r.source
    if kind == "ladder":
        from bnb_sim.analysis.ladder_item import parse_ladder_item

        return parse_ladder_item(r, common, bootstrap, expansion, game)
    if kind == "tune":
        from bnb_sim.tune.experiment_item import parse_tune_item

        return parse_tune_item(r, common, base_dir, game=game)
    if kind == "robustness":
        from bnb_sim.runner.robustness_item import parse_robustness_item

        return parse_robustness_item(r, common, game)
    if kind == "luck":  # bnb luck: the item plays and reports itself (analysis/luck_item.py)
        from bnb_sim.analysis.luck_item import parse_luck_item

        return parse_luck_item(r, common, bootstrap, game)
    if kind == "value":  # bnb value: the item plays and reports itself (analysis/value_item.py)
        from bnb_sim.analysis.value_item import parse_value_item

        return parse_value_item(r, common, game)
    if kind == "simulation":
        players = _players(r, 2)
        return SimulationSpec(
            **common,
            game=game,
            games=r.int("games", _REQUIRED, low=1, high=MAX_GAMES),
            players=players,
            policies=_policies(source, where, r.str_list("policies", _REQUIRED), players, game),
            seating=common["readings"].get("seating", "rotate"),
            run_dir=_run_dir(r, base_dir),
        )
    if kind == "tournament":
        players = _players(r, 2)
        policies = _policies(source, where, r.str_list("policies", _REQUIRED), None, game)
        from bnb_sim.analysis.study_hooks import policy_labels
        from bnb_sim.analysis.tournament import schedule

        try:
            schedule(policies, players)
            policy_labels(policies, distinct="tournament", game=game)
        except BnbError as exc:
            raise BnbError(f"{source}: {where}: {exc}") from None
        anchor = r.str("anchor", "auto")
        if anchor not in ("auto", "none") and anchor not in policies:
            r.fail("anchor", f"'{anchor}' is not one of the policies")
        return TournamentSpec(
            **common,
            game=game,
            games=r.int("games", _REQUIRED, low=2, high=MAX_GAMES),
            players=players,
            policies=policies,
            anchor=None if anchor == "none" else anchor,
            bootstrap=r.int("bootstrap", bootstrap, low=0, high=100_000),
        )
    if kind == "sweep":
        from bnb_sim.analysis.sweep import build_variants

        players = _players(r, 2)
        raw = r.mapping("set")
        if not raw:
            r.fail("set", 'is required, e.g. set = { "mobs.enderman.hearts" = [5, 6, 7] }')
        sets = [(p, list(v) if isinstance(v, list) else [v]) for p, v in raw.items()]
        mode = r.str("mode", "grid", ("grid", "zip"))
        try:
            variants = build_variants(comps, sets, mode, origin=f"{source}: {where}.set")
        except BnbError as exc:
            msg = str(exc)
            raise BnbError(msg if source in msg else f"{source}: {where}: {msg}") from None
        return SweepSpec(
            **common,
            game=game,
            games=r.int("games", _REQUIRED, low=2, high=MAX_GAMES),
            players=players,
            policies=_policies(source, where, r.str_list("policies", _REQUIRED), players, game),
            sets=sets,
            mode=mode,
            variants=variants,
        )
    # compare
    from bnb_sim.analysis.compare import make_rule

    a = _policies(source, where, [r.str("a", _REQUIRED)], 2, game)
    b = _policies(source, where, [r.str("b", _REQUIRED)], 2, game)
    if len(a) != 1 or len(b) != 1:
        r.fail("a", "a and b must be one policy each")
    opponents = r.str_list("opponents", [])
    opponents = _policies(source, where, opponents, 3, game) if opponents else []
    players = _players(r, 1 + len(opponents) if opponents else 2)
    if not opponents and players != 2:
        r.fail("players", "a head-to-head comparison (no opponents) has 2 players")
    if opponents and len(opponents) > players - 1:
        r.fail("opponents", f"{len(opponents)} opponents do not fit {players} players")
    sprt = None
    if r.has("sprt"):
        value = r.table["sprt"]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        ):
            r.fail("sprt", f"must be [ELO0, ELO1], got {value!r}")
        sprt = (float(value[0]), float(value[1]))
    precision = r.float("precision", None)
    alpha = r.float("alpha", 0.05)
    beta = r.float("beta", 0.05)
    try:
        make_rule(sprt, precision, alpha, beta)
    except BnbError as exc:
        raise BnbError(f"{source}: {where}: {exc}") from None
    return CompareSpec(
        **common,
        game=game,
        a=a[0],
        b=b[0],
        opponents=opponents,
        players=players,
        sprt=sprt,
        precision=precision,
        alpha=alpha,
        beta=beta,
        max_games=r.int("max_games", 200_000, low=4, high=MAX_GAMES),
    )
