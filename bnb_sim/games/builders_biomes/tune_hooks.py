"""Builders & Biomes for ``bnb tune``: what the shared tuning layer (:mod:`bnb_sim.tune`)
needs to know about this game, reached through the game registry (the ``tune`` entry of
:mod:`bnb_sim.games`), so the tuning layer imports no game.

A tuning layer's *hooks* module of a game declares:

* ``load_components(given)``, ``components_from_dict(data, name)``, ``tune_readings(...)``:
  its component data and rule readings (a tuning run records every reading);
* for ``bnb tune policy``: ``check_policy``, ``parse_policy``, ``policy_family`` (the
  tunable parameters of a spec), ``bot_thresholds``, ``budget_params``, ``default_params``,
  ``spec_text``, ``policy_scores`` (per-seed scores of a candidate), ``warm_config`` and
  ``write_weights`` (the answer file);
* for ``bnb tune game``: ``game_policies``, ``value_at``, ``with_values``, ``play_games``,
  ``override_entries`` and ``retag`` (what the override file restates) and
  ``load_override``.

Nothing here imports numba at module level.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bnb_sim.errors import BnbError
from bnb_sim.safe_io import write_atomic

PLAYERS = (2, 4)
DEFAULT_POLICY = "heuristic"  # the start spec and the default --policy of tune game
SEARCH_FAMILIES = ("mc", "ismcts")
SPEC_FILE = "tuned-spec.txt"
SEARCH_BUDGETS = ("rollouts", "iterations")  # whole numbers: always integer parameters
SPEC_ANSWERS = ("mc", "ismcts", "bot")  # families whose answer is a spec text, not weights

# --------------------------------------------------------------------------------------
# components and readings


def load_components(given):
    """``given`` when it is loaded component data, else the files it names (or the defaults)."""
    from bnb_sim.games.builders_biomes.components import Components
    from bnb_sim.games.builders_biomes.components import load_components as load

    if isinstance(given, Components):
        return given
    return load(list(given) if given else None)


def components_from_dict(data: dict, name: str):
    from bnb_sim.games.builders_biomes.components import components_from_dict as build

    return build(data, name=name)


def tune_readings(components, readings, variant, seating: str, what: str):
    """``(components, every rule reading)`` of a tuning run (defaults filled in), validated:
    ``readings`` a mapping (``--reading``), ``variant`` its alias, ``seating`` the design's."""
    from bnb_sim.games.builders_biomes.study_hooks import design_readings

    return components, design_readings(readings, variant, seating=seating, what=what)


# --------------------------------------------------------------------------------------
# bnb tune policy


def check_policy(spec: str) -> None:
    """Raise PolicyError for a spec that does not parse (a member of the field)."""
    parse_policy(spec)


def parse_policy(spec: str):
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy as parse

    return parse(spec)


def policy_family(policy: str):
    """``(family, names, values, fixed)`` of a tunable policy spec: its numeric parameters
    and the settings that stay as they are (raises for random/greedy/a bot without params)."""
    from bnb_sim.games.builders_biomes.policies.kinds import BOT, HEURISTIC, ISMCTS, MC, PLUGIN
    from bnb_sim.games.builders_biomes.policies.registry import load_plugin, parse_policy
    from bnb_sim.games.builders_biomes.strong_model import SHIPPED

    spec = parse_policy(policy)
    family = policy.strip().partition(":")[0]
    if spec.kind == HEURISTIC:
        weights = spec.weights()
        return family, list(weights), weights, {}
    if spec.kind == PLUGIN:
        names = list(load_plugin(spec.plugin).params)
        return family, names, dict(zip(names, spec.params, strict=True)), {}
    if spec.kind in (MC, ISMCTS):  # the budget, c and margin; the rollout policy stays
        from bnb_sim.games.builders_biomes.policies.search_spec import search_settings

        settings = search_settings(spec.kind, spec.params)
        fixed = {"rollout": settings.pop("rollout")}
        if spec.model is not None and spec.model != SHIPPED:  # the rollout's model file stays
            fixed["model"] = spec.model
        return family, list(settings), settings, fixed
    if spec.kind == BOT:  # the thresholds of its [params] table; the file stays
        path, thresholds = bot_thresholds(policy)
        if thresholds:
            values = {name: p.value for name, p in thresholds.items()}
            return family, list(values), values, {"file": path}
        raise BnbError(
            f"tune: policy '{policy}' has no parameters to tune (name its thresholds in a "
            "[params] table of the bot file; see docs/bots.md)"
        )
    raise BnbError(
        f"tune: policy '{policy}' has no parameters to tune (tune heuristic, mc, ismcts, "
        "a bot file with [params] or a plugin; a strong model is made with bnb train)"
    )


def bot_thresholds(policy: str) -> tuple[str, dict]:
    """A ``bot:`` spec's file and its thresholds (name -> BotParam, overrides applied);
    ``("", {})`` for any other family."""
    if policy.strip().partition(":")[0] != "bot":
        return "", {}
    from bnb_sim.games.builders_biomes.policies.registry import parse_bot

    path, bot = parse_bot(policy.strip().partition(":")[2])
    return path, {p.name: p for p in bot.thresholds}


def budget_params(family: str) -> tuple[str, ...]:
    """The parameters of ``family`` that are search budgets (integers of at least 1)."""
    return SEARCH_BUDGETS if family in SEARCH_FAMILIES else ()


def default_params(family: str, names: list[str]) -> list[str]:
    """The parameters tuned when no --param is given: every weight but the heuristic's xp
    (the unit the others are measured in)."""
    return [n for n in names if not (family == "heuristic" and n == "xp")] or names


def _num(v: float) -> str:
    return repr(float(v)) if not float(v).is_integer() else f"{float(v):.1f}"


def spec_text(family: str, values: dict, fixed: dict, integers: Sequence[str]) -> str:
    """The policy spec of a point, e.g. ``mc:rollouts=12,margin=0.05,rollout=heuristic``."""
    if family == "bot":  # bot:FILE:min_blocks=3,p=0.6
        from bnb_sim.games.builders_biomes.policies.priority_compile import bot_spec

        return bot_spec(fixed["file"], values, tuple(integers))
    parts = [f"{k}={int(v) if k in SEARCH_BUDGETS else _num(v)}" for k, v in values.items()]
    parts += [f"{k}={v}" for k, v in fixed.items()]
    return f"{family}:{','.join(parts)}"


def warm_config(plan):
    """A config of the run's kernels (start spec against the first lineup): what a Dask
    worker plays once to load or compile them."""
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    seats = [plan.spec_for(plan.start, plan.policy), *plan.lineups[0]]
    return GameConfig.create(plan.players, seats, seed=plan.seed,
                             components=plan.components, readings=plan.readings)  # fmt: skip


def _config_like(template, policies):
    """``template`` with other policies, reusing its static arrays.

    A search builds thousands of configs that differ only in the policies' parameters; the
    static arrays (geometry, component tables) depend only on the components and the
    options, so they are taken from ``template`` instead of being rebuilt (several ms each).
    """
    from dataclasses import replace as dc_replace

    from bnb_sim.games.builders_biomes.engine.layout import MAX_SEATS
    from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS
    from bnb_sim.plugins import no_plugin

    config = dc_replace(template, policies=tuple(policies))
    k, ft, _, _, _ = template.kernel_inputs
    width = max([N_PARAMS] + [len(p.params) for p in config.policies])
    params = np.zeros((config.n_players, width), np.float64)
    for i, spec in enumerate(config.policies):
        params[i, : len(spec.params)] = spec.params
    kinds = np.array([p.kind for p in config.policies], np.int64)
    plugins = tuple(p.plugin_function() for p in config.policies)
    plugins = plugins + (no_plugin,) * (MAX_SEATS - len(plugins))
    config.__dict__["kernel_inputs"] = (k, ft, kinds, params, plugins)  # the cached_property
    return config


def policy_scores(plan, spec, seed: int, start: int, n: int, threads: int) -> dict:
    """Per-seed scores of ``spec`` against the field on seeds ``start .. start+n-1``: every
    lineup in every seating, a win 1, a win shared by k players 1/k, a loss 0.

    Reads the kernel's raw output (:func:`bnb_sim.games.builders_biomes.batch.play_arrays`):
    the per-seat ``won`` flag and the per-game number of winners are all a score needs, and
    skipping the DataFrames matters for the small blocks of a search.
    """
    import warnings

    from bnb_sim.games.builders_biomes.batch import play_arrays
    from bnb_sim.games.builders_biomes.engine import play as P
    from bnb_sim.games.builders_biomes.policies.registry import parse_policy
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    total = np.zeros(n)
    wins = 0
    games = 0
    for lineup in plan.lineups:
        table = [spec, *(parse_policy(p) for p in lineup)]
        template = None  # per lineup: the seatings of a lineup hold the same policies
        for r in range(plan.players):
            seats = [table[(s - r) % plan.players] for s in range(plan.players)]
            if template is None:
                template = config = GameConfig.create(
                    plan.players,
                    seats,
                    seed=seed,
                    components=plan.components,
                    readings=plan.readings,
                )
            else:
                config = _config_like(template, seats)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="First-class function type feature")
                seat_out, game_out = play_arrays(config, start, n, threads)
            rows = seat_out.reshape(n, plan.players, -1)
            mine = rows[:, :, P.SEAT_SEAT] == r  # fixed seating: the candidate is in seat r
            won = (rows[:, :, P.SEAT_WON] * mine).sum(axis=1) > 0
            winners = game_out[:, P.GAME_WINNERS].astype(float)
            total += np.where(won, 1.0 / np.maximum(winners, 1.0), 0.0)
            wins += int(won.sum())
            games += n
    per_seed = total / plan.games_per_seed
    return {"per_seed": per_seed, "wins": wins, "games": games}


def write_weights(
    path: Path, family: str, weights: dict, header: Sequence[str] = (), spec: str | None = None
) -> Path:
    """The tuned parameters as a TOML file usable as ``FAMILY:path`` (checked by parsing it).

    A search bot's or a bot file's answer is ``spec`` (the tuned spec text), written
    as the last line of ``tuned-spec.txt`` beside ``path`` (that path is returned)."""
    if family in SPEC_ANSWERS:  # bot:FILE:NAME=VALUE,... as for mc
        return write_spec(path.with_name(SPEC_FILE), spec, header)
    lines = [f"# {h}" for h in header]
    lines += [f"# use as --policy {family}:{path}", "[weights]"]
    lines += [f"{k} = {_num(v)}" for k, v in weights.items()]
    try:
        write_atomic(path, "\n".join(lines) + "\n")  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    loaded = parse_policy(f"{family}:{path}")
    expected = [float(weights[k]) for k in weights]
    if family == "heuristic" and list(loaded.params) != expected:
        raise BnbError(f"tune: {path} does not read back as the tuned weights")
    return path


def write_spec(path: Path, spec: str | None, header: Sequence[str]) -> Path:
    """``spec`` as the last line of ``path`` (checked: it must play as it is written)."""
    if not spec:
        raise BnbError("tune: no tuned spec to write")
    parse_policy(spec)  # it must play as it is written
    lines = [f"# {h}" for h in header]
    lines += ["# the tuned policy spec (the last line): use it as --policy SPEC", spec]
    try:
        write_atomic(path, "\n".join(lines) + "\n")  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    return path


# --------------------------------------------------------------------------------------
# bnb tune game


def game_policies(policies: Sequence[str], players: int) -> list[str]:
    """The labels of ``--policy`` (cycled over the players; PolicyError if one is bad)."""
    from bnb_sim.games.builders_biomes.policies.registry import parse_policies

    return [s.label for s in parse_policies(list(policies), players)]


def value_at(components, path: str):
    from bnb_sim.analysis.sweep import _lookup

    return _lookup(components.data, path)


def with_values(components, point: dict, origin: str):
    return components.with_values(point, origin=origin)


def play_games(plan, components, seed: int, start: int, n: int, threads: int, keep):
    """Games ``start .. start+n-1`` under ``components`` as ``(seats, games)`` frames (the
    seating rotates with the game index)."""
    from bnb_sim.games.builders_biomes.run_config import GameConfig
    from bnb_sim.runner.experiments import play_games as play

    config = GameConfig.create(
        plan.players, plan.policies, seed=seed, components=components, readings=plan.readings
    )
    return play(config, n, start=start, threads=threads, keep=keep)


def game_warm_config(plan):
    """A config of a game tuning's kernels: what a Dask worker plays once to load them."""
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    return GameConfig.create(plan.players, plan.policies, seed=plan.seed,
                             components=plan.components, readings=plan.readings)  # fmt: skip


def _provenance_table(data: dict, path: str) -> list[str]:
    """The parts of the nearest table above ``path`` that carries ``provenance``."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        node = data
        for part in parts[:cut]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, dict) and "provenance" in node:
            return parts[:cut]
    raise BnbError(f"tune: no provenance table above '{path}'")


def override_entries(tuned: dict, paths: Sequence[str]) -> dict[tuple, dict]:
    """``{table parts: {key: value}}``: what an override must restate for ``paths``."""
    out: dict[tuple, dict] = {}
    for path in paths:
        table = _provenance_table(tuned, path)
        numeric = next((i for i, p in enumerate(table) if p.isdigit()), None)
        if numeric is not None:
            # inside an array of tables: arrays replace whole, so restate the whole array
            head, key = table[: numeric - 1], table[numeric - 1]
            node = tuned
            for part in head:
                node = node[part]
            out.setdefault(tuple(head), {})[key] = node[key]
            continue
        node = tuned
        for part in table:
            node = node[part]
        entry = out.setdefault(tuple(table), {})
        entry[path.split(".")[len(table)]] = node[path.split(".")[len(table)]]
        for key in ("provenance", "source", "reason"):
            if key in node:
                entry[key] = node[key]
    return out


def retag(value, reason: str):
    """``value`` with the reason a changed value gets (``set by sweep``) replaced."""
    from bnb_sim.games.builders_biomes.components.model import SWEEP_REASON

    if value == SWEEP_REASON:
        return reason
    if isinstance(value, dict):
        return {k: retag(v, reason) for k, v in value.items()}
    if isinstance(value, list):
        return [retag(v, reason) for v in value]
    return value


def load_override(files: Sequence[str]):
    from bnb_sim.games.builders_biomes.components import load_components as load

    return load(list(files))


def parse_readings(reading: Sequence[str], variant: str | None) -> dict:
    """``--reading NAME=VALUE`` items and the ``--variant`` alias (a contradiction between
    them is a one-line error), as ``bnb simulate`` reads them."""
    from bnb_sim.games.builders_biomes import readings as R

    aliases = {"--variant": variant}
    given = R.parse_assignments(reading)
    R.resolve(given, aliases=aliases)  # raises on a contradiction
    out = dict(given)
    for label, value in aliases.items():
        if value is not None:
            name = R.ALIASES[label]
            out[name] = R.check_value(name, value)
    return out
