"""Reading an experiment item of a game served through the protocol (``game = NAME``).

The keys of an item are the shared ones of its kind, ``components`` (files over the game's
defaults), ``set`` (component values by dotted path, through the game's ``sweep_variants``
hook, the one ``bnb sweep --set`` uses), and the game's own options that apply to ``run``
(its :class:`~bnb_sim.core.protocol.OptionSpec` data, read by their kind), and ``readings``
(``NAME = "VALUE"`` rule readings, as ``--reading NAME=VALUE``, for a game that takes them
on its components: its ``with_readings``). A key the game
does not offer is refused in one line naming the file, the item and the key; so is anything
the play would refuse (a policy, an option value, a component path): the item builds its
configs now, with the game's ``make_config`` (a simulation: ``make_run_config`` where the
game offers it, the config of ``bnb simulate``, e.g. every pet team).

    [[simulation]]
    game = "NAME"
    games = 20000
    policies = ["..."]
    components = ["my_box.toml"]      # and/or set = { "some.path" = 8 }
    readings = { some_rule = "reading" }  # optional: as --reading some_rule=reading
    run_dir = "runs/x"                # optional: keep the run folder (resumed when it exists)

    [[compare]]
    game = "NAME"
    a = "..."
    b = "..."
    precision = 0.01         # or sprt = [ELO0, ELO1] (alpha, beta); max_games caps either
    opponents = ["..."]      # a competitive game only: A and B each against this field

    [[sweep]]
    game = "NAME"
    games = 2000
    set = { "some.path" = [1, 2, 3] }  # several paths: every combination; mode = "zip"
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bnb_sim.analysis.experiment_reader import _REQUIRED, _Reader, _slug_ok
from bnb_sim.analysis.item_options import read_options, run_options
from bnb_sim.analysis.protocol_item import COOPERATIVE, ProtocolItem
from bnb_sim.errors import BnbError

# the keys of every item, then the game's options
COMMON = ("game", "name", "seed", "components", "readings", "set", "players")
ALLOWED = {  # the keys of each kind, after the common ones and the game's options
    "simulation": ("games", "policies", "run_dir"),
    "compare": ("a", "b", "sprt", "alpha", "beta", "precision", "max_games"),
    "tournament": ("games", "policies"),
    "sweep": ("games", "policies", "mode"),
}
MAX_GAMES = 10_000_000


def reader(kind: str, table: Any, source: str, where: str, allowed) -> _Reader:
    """The table's reader (a key that is neither shared nor one of the game's options is one
    line naming the file, the item and the key), and the item's name checked."""
    r = _Reader(source, where, table, allowed)
    name = r.str("name", where.replace("[", " ").rstrip("]"))  # "simulation 1", as the others
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    r.where = f"{kind} '{name}'" if r.has("name") else where
    r.name = name
    return r


def variants_of(game: Any, components: Any, sets: list, mode: str = "grid") -> list:
    """``[(label, components)]`` of ``bnb sweep --set``: the game's own hook, else dotted
    paths into mapping components (:func:`bnb_sim.analysis.protocol_studies.sweep_variants`)."""
    from bnb_sim.analysis import protocol_studies as S

    own = getattr(game, "sweep_variants", None)
    return own(components, sets, mode) if callable(own) else S.sweep_variants(game, components,
                                                                            sets, mode)  # fmt: skip


def _set_error(r: _Reader, exc: Exception):
    msg = str(exc).replace("--set ", "", 1)
    raise BnbError(msg if r.source in msg else f"{r.source}: {r.where}.set: {msg}") from None


def reading_items(r: _Reader) -> tuple[str, ...]:
    """The item's ``readings`` table as ``--reading`` items (``("cat=first-draw",)``)."""
    value = r.table.get("readings", {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        r.fail("readings", 'must be a table of texts, e.g. readings = { NAME = "VALUE" }')
    return tuple(f"{k}={v}" for k, v in value.items())


def with_item_readings(game: Any, r: _Reader, comps: Any) -> Any:
    """The components with the item's ``readings`` set, as ``--reading`` sets them (the
    game's ``with_readings``); a game without it, or a reading it refuses, is one line."""
    given = reading_items(r)
    if not given:
        return comps
    with_readings = getattr(game, "with_readings", None)
    if not callable(with_readings):
        r.fail("readings", f"{game.title} has no rule readings to set")
    try:
        return with_readings(comps, list(given))
    except BnbError as exc:
        r.fail("readings", str(exc).split(": ", 1)[-1] if str(exc).startswith("--") else str(exc))


def item_components(game: Any, r: _Reader, base_dir, overrides: dict) -> tuple[Any, list[str]]:
    """``(components, files)``: the item's ``components`` files (relative to the experiment
    file) over the game's defaults, with its ``readings`` and its ``set`` values (one variant
    of ``bnb sweep``), in the order the commands apply them."""
    files = []
    for text in r.str_list("components", []):
        path = Path(text).expanduser()
        files.append(str(path if path.is_absolute() else Path(base_dir or ".") / path))
    try:
        comps = game.load_components(files)
    except BnbError as exc:
        r.fail("components", str(exc))
    comps = with_item_readings(game, r, comps)
    if overrides:
        try:
            comps = variants_of(game, comps, [(p, [v]) for p, v in overrides.items()])[-1][1]
        except BnbError as exc:
            _set_error(r, exc)
    return comps, files


def option_key(game: Any, text: str, key: str) -> str:
    """The item's key a ``make_config`` error is about: an option its text names by flag,
    else the policy key ``key``, else ``players``."""
    for o in game.options:
        if any(flag in text for flag in o.flags):
            return o.name
    if "polic" in text.lower():
        return key
    return "players" if "players" in text else key


def make(game: Any, r: _Reader, key: str, comps, policies, *, players, seed, options, run=False):
    """The item's config (``make_run_config`` for a run where the game offers it), or one
    line naming the key the game refused."""
    build = (getattr(game, "make_run_config", None) if run else None) or game.make_config
    try:
        return build(comps, players=players, policies=list(policies), seed=seed, options=options)
    except BnbError as exc:
        r.fail(option_key(game, str(exc), key), str(exc))


def parse_item(game: Any, kind: str, table: dict, *, source: str, where: str, seed: int,
               base_dir=None) -> ProtocolItem:  # fmt: skip
    """An item table of ``game``, checked now (one line naming the file, item and key)."""
    if kind not in ALLOWED:
        raise BnbError(f"{source}: {where}: {game.title} has no [[{kind}]] items")
    options = run_options(game)
    own = (*COMMON, *(o.name for o in options), *ALLOWED[kind])
    if kind == "compare" and game.outcome != COOPERATIVE:  # bnb compare's --opponent
        own += ("opponents",)
    r = reader(kind, table, source, where, own)
    players = r.int("players", None, low=1, high=64)
    values = read_options(r, options)
    overrides = r.mapping("set") if kind != "sweep" else {}  # a sweep's set is its values
    comps, files = item_components(game, r, base_dir, overrides)
    item = ProtocolItem(game, kind, r.name, r.int("seed", seed, low=0, high=2**63 - 1), comps,
                        players, values, component_files=files, overrides=overrides)  # fmt: skip
    item.reading_items = reading_items(r)
    common = dict(players=players, seed=item.seed, options=values)
    if kind == "compare":
        _compare(r, item)
        for key in ("a", "b"):
            make(game, r, key, comps, [getattr(item, key)], **common)
        if not item.team:
            _competitive_compare(game, r, item, comps, common)
        return item
    item.games = r.int("games", _REQUIRED, low=1 if kind == "simulation" else 2, high=MAX_GAMES)
    item.policies = r.str_list("policies", [game.default_policy])
    if kind == "tournament":
        _tournament(game, r, item, comps, common)
    elif kind == "sweep":
        item.variants = _sweep_variants(game, r, comps, item.team)
        first = item.variants[0]
        make(game, r, "policies", first[1] if item.team else first.components, item.policies,
             **common)  # fmt: skip
    else:
        from bnb_sim.analysis.experiment_items import _run_dir

        for policy in item.policies:
            make(game, r, "policies", comps, [policy], **common, run=True)
        item.config = make(game, r, "policies", comps, item.policies, **common, run=True)
        item.run_dir = _run_dir(r, Path(base_dir or "."))
    return item


def _tournament(game, r: _Reader, item: ProtocolItem, comps, common) -> None:
    from bnb_sim.analysis.protocol_studies import tables

    if len(item.policies) < 2:
        r.fail("policies", "a tournament needs at least two")
    if len(set(item.policies)) != len(item.policies):
        r.fail("policies", "a policy is listed twice")
    for policy in item.policies:
        make(game, r, "policies", comps, [policy], **common)
    try:
        tables(game, item.policies, item.players)
    except BnbError as exc:
        r.fail("players", str(exc))


def _sweep_variants(game, r: _Reader, comps, team: bool) -> list:
    """A sweep's ``set``: each path with its values (a value or a list), ``mode`` grid or zip;
    a cooperative game's ``[(label, components)]``, a competitive game's ``Variant`` list
    with the baseline (:func:`bnb_sim.analysis.sweep_variants.game_variants`, as ``bnb
    sweep`` plays it)."""
    raw = r.mapping("set")
    if not raw:
        r.fail("set", 'is required, e.g. set = { "path.name" = [6, 8, 10] }')
    sets = [(p, list(v) if isinstance(v, list) else [v]) for p, v in raw.items()]
    for path, values in sets:
        if not values:
            r.fail("set", f"{path}: give at least one value")
        if len({repr(v) for v in values}) != len(values):
            r.fail("set", f"{path}: a value is listed twice")
    mode = r.str("mode", "grid", ("grid", "zip"))
    if mode == "zip" and len({len(v) for _, v in sets}) > 1:
        r.fail("set", "mode = 'zip' needs the same number of values for every path")
    try:
        if team:
            return variants_of(game, comps, sets, mode)
        from bnb_sim.analysis.sweep_variants import game_variants

        return game_variants(game, comps, sets, mode)
    except BnbError as exc:
        _set_error(r, exc)


def _compare(r: _Reader, item: ProtocolItem) -> None:
    """A compare's policies and stopping rule, checked as ``bnb compare`` checks them:
    ``sprt = [ELO0, ELO1]`` (with ``alpha`` and ``beta``) or ``precision``, not both."""
    from bnb_sim.analysis.compare import make_rule

    item.a, item.b = r.str("a", _REQUIRED), r.str("b", _REQUIRED)
    item.precision = r.float("precision", None)
    item.max_games = r.int("max_games", 200_000, low=2, high=MAX_GAMES)
    if item.precision is not None and not 0 < item.precision < 1:
        r.fail("precision", f"must be between 0 and 1, got {item.precision:g}")
    if item.a == item.b and not item.team:
        r.fail("b", f"A and B are the same policy ({item.a})")
    item.alpha, item.beta = r.float("alpha", 0.05), r.float("beta", 0.05)
    sprt = r.table.get("sprt")
    if sprt is None:
        for key in ("alpha", "beta"):
            if r.has(key):
                r.fail(key, f"{key} applies to sprt only")
        return
    numbers = isinstance(sprt, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in sprt
    )
    if not numbers or len(sprt) != 2:
        r.fail("sprt", f"must be [ELO0, ELO1], got {sprt!r}")
    if item.precision is not None:
        r.fail("sprt", "give sprt or precision, not both")
    item.sprt = (float(sprt[0]), float(sprt[1]))
    try:
        make_rule(item.sprt, None, item.alpha, item.beta)
    except BnbError as exc:
        r.fail("sprt", str(exc).split(": ", 1)[-1].replace("--", ""))


def _competitive_compare(game, r: _Reader, item: ProtocolItem, comps, common) -> None:
    """A competitive game's comparison is ``bnb compare``'s, under the first game's rule for
    its ``[[compare]]`` items (:mod:`bnb_sim.analysis.experiment_items`): it stops by
    ``sprt`` or ``precision`` (exactly one; ``max_games`` only caps it), head to head with 2
    players or against ``opponents`` with 2 to 4; each refused here in one line."""
    if item.sprt is None and item.precision is None:
        r.fail("precision", "give precision = H or sprt = [ELO0, ELO1]: a competitive "
                            "comparison stops by one of them (max_games only caps it)")  # fmt: skip
    item.opponents = r.str_list("opponents", [])
    if not item.opponents and item.players not in (None, 2):
        r.fail("players", "a head-to-head comparison (no opponents) has 2 players")
    players = item.players or 1 + len(item.opponents)
    if item.opponents and not 2 <= players <= 4:
        r.fail("players", f"must be between 2 and 4, got {players}")
    if len(item.opponents) > players - 1:
        r.fail("opponents", f"{len(item.opponents)} opponents do not fit {players} players")
    for policy in item.opponents:
        make(game, r, "opponents", comps, [policy], **{**common, "players": players})
