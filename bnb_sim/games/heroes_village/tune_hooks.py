"""Heroes of the Village for ``bnb tune`` (the ``tune`` entry of :mod:`bnb_sim.games`): the
parts of a tuning run that belong to this game, in the shape
:mod:`bnb_sim.games.builders_biomes.tune_hooks` describes.

The game is cooperative, so a policy tuning has no field: the candidate plays every seat
(the team) and its score on a game is 1 when the team wins, 0 when it loses; every
candidate plays the same game indices (common random numbers: the same tiles, mobs,
pouch draws and dice), and the final comparison is the paired difference of the team win
rates of the tuned and the start parameters on fresh games. The tunable bots are the team
bot (``team``, ``team:...``, ``strong``: its named weights, :mod:`.policies`) and a plugin
of this game (its parameters).

A game tuning sets component values by the dotted paths ``bnb sweep --game hotv --set``
takes (``path.start_normal``, ``mobs.zombie.count``, ...) and measures the team win rate
(``--target win_rate=0.5``) or the game length. Pure Python at import.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bnb_sim.errors import BnbError
from bnb_sim.games.heroes_village import layout as L

PLAYERS = (2, 4)
DEFAULT_POLICY = "team"
SPEC_ANSWERS = ()  # the answer is a weights file (team:FILE), or a spec for a plugin
SPEC_FILE = "tuned-spec.txt"  # a plugin's answer

# --------------------------------------------------------------------------------------
# components and readings


def load_components(given):
    from bnb_sim.games.heroes_village.components import HotvComponents
    from bnb_sim.games.heroes_village.components import load_components as load

    if isinstance(given, HotvComponents):
        return given
    return load(list(given) if given else None)


def components_from_dict(data: dict, name: str):
    """Components rebuilt from their ``data`` (a Dask worker's copy): the derived ``_`` keys
    are the validator's to make again."""
    from bnb_sim.games.heroes_village.components import components_from_dict as build

    return build({k: v for k, v in data.items() if not k.startswith("_")}, name)


def parse_readings(reading: Sequence[str], variant: str | None) -> dict:
    """``--reading NAME=VALUE`` items of this game (``bnb readings --game hotv``)."""
    if variant is not None:
        raise BnbError(
            "tune: --variant is a Builders & Biomes rule; Heroes of the Village readings are "
            "given with --reading NAME=VALUE (bnb readings --game hotv)"
        )
    from bnb_sim.games.heroes_village.readings import parse_assignments

    return parse_assignments(reading)


def tune_readings(components, readings, variant, seating: str, what: str):
    """``(components with the readings set, every reading)``: this game's readings live in
    its component data (a team game has no seating to fix)."""
    if variant is not None:
        parse_readings((), variant)
    given = dict(readings or {})
    if given:
        from bnb_sim.games.heroes_village.readings import parse_assignments

        given = parse_assignments(f"{k}={v}" for k, v in given.items())
    components = components.with_readings(given)
    return components, dict(components.readings)


# --------------------------------------------------------------------------------------
# bnb tune policy


def parse_policy(spec: str):
    from bnb_sim.games.heroes_village.policies import parse_policy as parse

    return parse(spec)


def check_policy(spec: str) -> None:
    parse_policy(spec)


def policy_family(policy: str):
    """``(family, names, values, fixed)``: the team bot's named weights (``team``,
    ``team:...``, ``strong``: the start values are the spec's) or a plugin's parameters."""
    from bnb_sim.games.heroes_village.policies import PLUGIN, TEAM

    spec = parse_policy(policy)
    if spec.kind == TEAM:
        weights = spec.weights()
        return "team", list(weights), weights, {}
    if spec.kind == PLUGIN:
        weights = spec.weights()
        return spec.plugin, list(weights), weights, {}
    raise BnbError(
        f"tune: policy '{policy}' has no parameters to tune (tune team, team:..., strong or "
        "a plugin of Heroes of the Village)"
    )


def bot_thresholds(policy: str) -> tuple[str, dict]:
    return "", {}


def budget_params(family: str) -> tuple[str, ...]:
    return ()


def default_params(family: str, names: list[str]) -> list[str]:
    return list(names)


def _num(v: float) -> str:
    return repr(float(v)) if not float(v).is_integer() else f"{float(v):.1f}"


def spec_text(family: str, values: dict, fixed: dict, integers: Sequence[str]) -> str:
    """``team:block=1.0,redstone=1.5,...`` (every weight: the spec plays as it reads)."""
    return f"{family}:{','.join(f'{k}={_num(v)}' for k, v in values.items())}"


def _config(plan, policies, seed: int, components=None):
    from bnb_sim.games.heroes_village.runner import HotvConfig, parse_pets

    return HotvConfig(components or plan.components, plan.players, list(policies),
                      parse_pets(None, plan.players), seed=int(seed))  # fmt: skip


def warm_config(plan):
    return _config(plan, [plan.spec_for(plan.start, plan.policy)], plan.seed)


_STATIC: dict = {}  # (id of the components, start, buildings) -> (components, k, kf)


def _with_static(config):
    """``config`` with its kernel arrays set, the static ones (tiles, mobs, buildings: a
    few hundred ms to build) reused from the last config of the same components: a search
    builds a config per candidate that differs only in the bot's weights."""
    from bnb_sim.plugins import no_plugin

    key = (id(config.components), config.start_space, tuple(config.chosen))
    cached = _STATIC.get(key)
    if cached is None or cached[0] is not config.components:
        _STATIC.clear()  # one plan at a time: keep no stale components alive
        k, kf = config.components.static_arrays(config.start_space, config.chosen, False)
        cached = _STATIC[key] = (config.components, k, kf)
    _, k, kf = cached
    seats = config.seats
    kinds = np.array([p.kind for p in seats], np.int64)
    params = np.zeros((len(seats), max(len(p.params) for p in seats)), np.float64)
    for i, p in enumerate(seats):
        params[i, : len(p.params)] = p.params
    plugins = tuple(p.plugin_function() for p in seats)
    plugins += (no_plugin,) * (L.MAX_PLAYERS - len(plugins))  # the kernel's tuple type
    config._arrays = (k, kf, kinds, params, plugins)  # what HotvConfig.arrays() caches
    return config


def policy_scores(plan, spec, seed: int, start: int, n: int, threads: int) -> dict:
    """The team of ``spec`` in every seat on games ``start .. start+n-1``: a game's score is
    1 when the team wins, 0 when it loses (a *seed* is one game index)."""
    from bnb_sim.games.heroes_village.runner import play_arrays

    config = _with_static(_config(plan, [spec], seed))
    _, game_out = play_arrays(config, config.teams[0], start, n, threads)
    won = game_out[:, L.GAME_OUTPUT.index("won")].astype(float)
    return {"per_seed": won, "wins": int(won.sum()), "games": int(n)}


def write_weights(
    path: Path, family: str, weights: dict, header: Sequence[str] = (), spec: str | None = None
) -> Path:
    """The tuned team weights as a TOML file usable as ``team:path`` (checked by reading it
    back); a plugin's answer is its spec text (``tuned-spec.txt`` beside ``path``)."""
    if family != "team":
        return _write_spec(path.with_name(SPEC_FILE), spec, header)
    lines = [f"# {h}" for h in header]
    lines += [f"# use as --policy team:{path}", "[weights]"]
    lines += [f"{k} = {_num(v)}" for k, v in weights.items()]
    _write(path, "\n".join(lines) + "\n")
    loaded = parse_policy(f"team:{path}").weights()
    if any(loaded[k] != float(v) for k, v in weights.items()):
        raise BnbError(f"tune: {path} does not read back as the tuned weights")
    return path


def _write_spec(path: Path, spec: str | None, header: Sequence[str]) -> Path:
    """A plugin's tuned spec as the last line of ``path`` (it must play as it is written)."""
    if not spec:
        raise BnbError("tune: no tuned spec to write")
    parse_policy(spec)
    lines = [f"# {h}" for h in header]
    lines += ["# the tuned policy spec (the last line): use it as --policy SPEC", spec]
    _write(path, "\n".join(lines) + "\n")
    return path


def _write(path: Path, text: str) -> None:
    from bnb_sim.safe_io import write_atomic

    try:
        write_atomic(path, text)  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None


# --------------------------------------------------------------------------------------
# bnb tune game


def game_policies(policies: Sequence[str], players: int) -> list[str]:
    """The labels of ``--policy`` (cycled over the players of the team)."""
    return [parse_policy(p).label for p in policies]


def value_at(components, path: str):
    from bnb_sim.games.heroes_village.ranges import locate

    try:
        container, last = locate(components.data, path)
    except (KeyError, IndexError, TypeError):
        return None
    return container[last]  # type: ignore[index]


def with_values(components, point: dict, origin: str):
    """A copy with the values at the dotted paths of ``point`` set and validated again
    (a path this game does not have, or a value it refuses: one line naming both)."""
    from bnb_sim.games.heroes_village.components import _validate
    from bnb_sim.games.heroes_village.ranges import set_value

    data = {k: copy.deepcopy(v) for k, v in components.data.items() if not k.startswith("_")}
    for path, value in point.items():
        try:
            set_value(data, path, copy.deepcopy(value))
        except (KeyError, IndexError, TypeError):
            raise BnbError(
                f"{origin} {path}: Heroes of the Village has no such component value (the "
                "keys of bnb components show --game hotv, e.g. path.start_normal)"
            ) from None
    label = ", ".join(f"{k}={v}" for k, v in point.items())
    out = _validate(data, f"{origin} {label}")
    out.source = f"{components.source} + {origin} {label}"
    out.ranges, out.origins = list(components.ranges), dict(components.origins)
    return out


def play_games(plan, components, seed: int, start: int, n: int, threads: int, keep):
    """Games ``start .. start+n-1`` of the team under ``components``: ``(seats, games)``."""
    from bnb_sim.games.heroes_village.runner import play_block

    specs = [parse_policy(p) for p in plan.policies]
    return play_block(_config(plan, specs, seed, components), start, n, threads)


def game_warm_config(plan):
    return _config(plan, [parse_policy(p) for p in plan.policies], plan.seed)


TUNED = "chosen by bnb tune"
_META = ("provenance", "source", "reason")


def override_entries(tuned: dict, paths: Sequence[str]) -> dict[tuple, dict]:
    """``{table parts: {key: value}}``: the whole top-level table of every path, its
    provenance included, with each tuned value marked an estimate "chosen by bnb tune" (it
    is no longer the box's known value); an array of tables at the top (``[[mobs]]``) is
    restated whole (arrays replace whole), under the file's root (``()``)."""
    tuned = copy.deepcopy(tuned)
    for path in paths:
        _mark_tuned(tuned, path)
    out: dict[tuple, dict] = {}
    for path in paths:
        top = path.split(".")[0]
        if isinstance(tuned[top], dict):
            out[(top,)] = tuned[top]
        else:
            out.setdefault((), {})[top] = tuned[top]
    return out


def _mark_tuned(data: dict, path: str) -> None:
    """Mark the value at ``path`` an estimate in the nearest table above it that carries
    ``provenance`` (a table-wide provenance becomes one per key), with the reason."""
    from bnb_sim.games.heroes_village.ranges import locate

    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            container, last = locate(data, ".".join(parts[:cut]))
        except (KeyError, IndexError, TypeError):
            continue
        table = container[last]  # type: ignore[index]
        if not isinstance(table, dict) or "provenance" not in table:
            continue
        key, prov = parts[cut], table["provenance"]
        if isinstance(prov, str):
            prov = {k: prov for k in table if k not in _META}
        table["provenance"] = {**prov, key: "estimate"}
        note = f"{key}: {TUNED}"
        table["reason"] = f"{table['reason']}; {note}" if table.get("reason") else note
        return


def retag(value, reason: str):
    return value


def load_override(files: Sequence[str]):
    from bnb_sim.games.heroes_village.components import load_components as load

    return load(list(files))
