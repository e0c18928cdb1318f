"""Parse policy specs (``--policy``) into data: a kind id, a parameter vector, a label.

Grammar::

    random
    greedy
    heuristic                      default weights
    heuristic:weights.toml         weights from a TOML file (top level or a [weights] table)
    heuristic:board=1.5,weapon=2   weights inline (unnamed weights keep their defaults)
    bot:my_bot.toml                a priority-list bot file (docs/bots.md)
    bot:my_bot.toml:min_xp=4,p=0.6 the same with values of its [params] table overridden
    strong                         the strong bot with the shipped model for the run's players
    strong:model.toml              the strong bot with a model file (bnb train)
    mc[:rollouts=8,rollout=heuristic,margin=0.02]            flat Monte Carlo search
    ismcts[:iterations=64,c=0.7,rollout=heuristic,...]     open-loop ISMCTS (search.py)
    NAME[:ARG]                     a third-party plugin registered under the entry-point
                                   group ``bnb_sim.policies`` (ARG: a TOML file or k=v pairs
                                   for its parameters)

Pure Python: parsing a spec never imports numba; plugins are imported (and compiled) only
by :meth:`PolicySpec.plugin_function`, i.e. when a game is actually played.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bnb_sim.entry_points import (
    entry_point_names,
    load_entry_point,
    parse_assignments,
    parse_number,
)
from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.builtin_specs import SIMPLE, simple_params, split_name
from bnb_sim.games.builders_biomes.policies.kinds import (
    BOT,
    GREEDY,
    HEURISTIC,
    HEURISTIC_WEIGHTS,
    ISMCTS,
    KIND_NAMES,
    MC,
    PLUGIN,
    SEARCH_ROLLOUT,
    SEARCH_WEIGHTS,
    STRONG,
)

BUILTIN = (*SIMPLE, "strong", "mc", "ismcts", "bot")
MAX_PLUGIN_PARAMS = 256


@dataclass(frozen=True)
class PolicySpec:
    """A policy as data: what the engine needs to play it, and how reports name it."""

    label: str
    kind: int
    params: tuple[float, ...] = field(default_factory=tuple)
    plugin: str | None = None  # entry-point name for PLUGIN
    rules: tuple[str, ...] = ()  # BOT: one label per rule, in program order
    # STRONG, or a search bot rolling out with it: the model file, or strong_model.SHIPPED
    # (the shipped model for the run's players, filled in by :func:`resolve_policy`)
    model: str | None = None
    model_info: tuple[tuple[str, object], ...] = ()  # what the run's model is (run metadata)
    # restricted play (policies/restrictions.py): actions never taken, taken whenever legal
    never: tuple[str, ...] = ()
    always: tuple[str, ...] = ()
    origin: str = ""  # where the lists were written, for messages ("bot file b.toml")

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def weights(self) -> dict[str, float]:
        """Named weights of a greedy/heuristic policy (empty for others)."""
        if self.kind in (GREEDY, HEURISTIC):
            return dict(zip(HEURISTIC_WEIGHTS, self.params, strict=True))
        return {}

    def plugin_function(self):
        """The plugin's compiled cfunc (imports and compiles on first use)."""
        if self.kind != PLUGIN or self.plugin is None:
            from bnb_sim.plugins import no_plugin

            return no_plugin
        from bnb_sim.plugins import compile_plugin

        return compile_plugin(self.plugin, load_plugin(self.plugin))

    def to_dict(self) -> dict:
        out = {"label": self.label, "kind": self.kind_name, "params": list(self.params)}
        if self.plugin:
            out["plugin"] = self.plugin
        if self.kind in (GREEDY, HEURISTIC):
            out["weights"] = self.weights()
        if self.kind == BOT:
            out["rules"] = list(self.rules)
        elif self.kind in (MC, ISMCTS):
            from bnb_sim.games.builders_biomes.policies.search_spec import search_settings

            out["search"] = search_settings(self.kind, self.params)
        if self.model is not None:
            out["model"] = dict(self.model_info) or {"source": self.model}
        for key in ("never", "always"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        return out


def plugin_names() -> list[str]:
    """Plugin names this game can be asked for: the entry points not shadowed by a built-in."""
    return entry_point_names(reserved=BUILTIN)


def load_plugin(name: str):
    """The :class:`~bnb_sim.plugins.Plugin` a plugin entry point names."""
    return load_entry_point(name, known_policies)


def known_policies() -> list[str]:
    return list(BUILTIN) + plugin_names()


def _bot_overrides(arg: str, where: str) -> dict[str, float]:
    """``NAME=VALUE,...`` after a bot file: numbers by name (names checked by the compiler)."""
    values = {}
    for part in arg.split(","):
        key, eq, text = (s.strip() for s in part.partition("="))
        if not eq or not key:
            raise PolicyError(f"{where}: '{part.strip()}' is not NAME=VALUE")
        if key in values:
            raise PolicyError(f"{where}: parameter '{key}' is given twice")
        values[key] = parse_number(text, f"{where}: parameter '{key}'")
    return values


def parse_bot(arg: str):
    """``FILE`` or ``FILE:NAME=VALUE,...`` -> ``(FILE, CompiledBot)`` with the overrides."""
    from bnb_sim.games.builders_biomes.policies.priority_compile import load_bot, split_bot_arg

    path, assignments = split_bot_arg(arg)
    overrides = _bot_overrides(assignments, f"bot file {path}") if assignments else None
    return path, load_bot(path, overrides)


def parse_policy(spec: str) -> PolicySpec:
    """Turn one ``--policy`` value into a :class:`PolicySpec` (raises PolicyError); a suffix
    ``+never=W,...`` / ``+always=W,...`` restricts it (policies/restrictions.py)."""
    if not isinstance(spec, str) or not spec.strip():
        raise PolicyError("a policy spec must be a non-empty string")
    spec = spec.strip()
    from bnb_sim.games.builders_biomes.policies.restrictions import check_pair, split_spec

    base, never, always = split_spec(spec)
    if not (never or always):
        return _parse_unrestricted(spec)
    if not base.strip():
        raise PolicyError(f"policy '{spec}': no policy before '+{'never' if never else 'always'}'")
    inner = _parse_unrestricted(base.strip())
    never = inner.never + tuple(w for w in never if w not in inner.never)
    always = inner.always + tuple(w for w in always if w not in inner.always)
    check_pair(never, always, f"policy '{spec}'")
    return replace(inner, label=spec, never=never, always=always, origin="")


def _parse_unrestricted(spec: str) -> PolicySpec:
    name, arg, where = split_name(spec)
    if name in SIMPLE:
        return PolicySpec(spec, *simple_params(name, arg, where))
    if name == "strong":
        return _parse_strong(spec, arg, where)
    if name == "bot":
        if not arg:
            raise PolicyError(f"{where}: bot needs a file: bot:my_bot.toml")
        path, bot = parse_bot(arg)
        origin = f"bot file {path}" if bot.never or bot.always else ""
        return PolicySpec(
            spec,
            BOT,
            bot.params,
            rules=bot.rules,
            never=bot.never,
            always=bot.always,
            origin=origin,
        )
    if name in ("mc", "ismcts"):
        from bnb_sim.games.builders_biomes.policies.search_spec import parse_search

        kind, params, model = parse_search(name, arg, where)
        return PolicySpec(spec, kind, params, model=model)
    if name in plugin_names():
        plugin = load_plugin(name)
        from bnb_sim.games import DEFAULT_GAME, get_game

        if get_game(plugin.game).name != DEFAULT_GAME:
            raise PolicyError(
                f"{where}: policy plugin '{name}' plays {get_game(plugin.game).title} "
                f"(use it with --game {plugin.game})"
            )
        params = dict(plugin.params)
        if arg:
            params.update(parse_assignments(arg, list(plugin.params), where))
        return PolicySpec(spec, PLUGIN, tuple(params.values()), plugin=name)
    raise PolicyError(f"unknown policy '{name}' (known: {', '.join(known_policies())})")


def _parse_strong(spec: str, arg: str, where: str) -> PolicySpec:
    """``strong`` (the shipped model, chosen per run) or ``strong:FILE`` (read now)."""
    from bnb_sim.games.builders_biomes.strong_model import SHIPPED, load_model

    if not arg:
        return PolicySpec(spec, STRONG, (), model=SHIPPED)
    if "=" in arg and not arg.endswith(".toml"):
        raise PolicyError(f"{where}: strong takes a model file (strong:model.toml), not weights")
    model = load_model(arg.strip())
    return PolicySpec(spec, STRONG, model.weights, model=arg.strip())


def resolve_policy(spec: PolicySpec, n_players: int, expansion: str | None) -> PolicySpec:
    """The spec as a run plays it: a ``strong`` model (the bot's, or a search bot's rollout
    model) is chosen for, and checked against, the run's player count and expansion."""
    if spec.model is None:
        return spec
    from dataclasses import replace

    from bnb_sim.games.builders_biomes.strong_model import resolve_model

    model = resolve_model(spec.model, n_players, expansion, f"policy '{spec.label}'")
    info = (
        ("source", model.describe_source()),
        ("players", model.players),
        ("expansion", model.expansion),
        ("trained", model.training.get("summary", "")),
    )
    if spec.kind == STRONG:
        params = model.weights
    else:  # a search bot: the rollout model's weights follow its settings
        if int(spec.params[SEARCH_ROLLOUT]) != STRONG:
            return spec
        params = (*spec.params[:SEARCH_WEIGHTS], *model.weights)
    return replace(spec, params=tuple(params), model_info=info)


def parse_policies(specs, n_players: int) -> tuple[PolicySpec, ...]:
    """Specs for ``n_players`` players: given in order, cycling when fewer are given."""
    specs = list(specs)
    if not specs:
        raise PolicyError("at least one --policy is needed")
    if len(specs) > n_players:
        raise PolicyError(f"{len(specs)} policies for {n_players} players")
    parsed = [parse_policy(s) for s in specs]
    return tuple(parsed[i % len(parsed)] for i in range(n_players))


def canonical_spec(spec: str) -> str:
    """A spec written one way: numbers as floats, no spaces, names in order
    (``heuristic: board=1`` and ``heuristic:board=1.0`` are the same entrant)."""
    name, colon, arg = spec.strip().partition(":")
    prefix = name.strip()
    if name.strip() == "bot":  # bot:FILE:k=v,...: the file stays as written
        from bnb_sim.games.builders_biomes.policies.priority_compile import split_bot_arg

        path, arg = split_bot_arg(arg)
        prefix = f"bot:{path}"
    if not colon or arg.endswith(".toml") or "=" not in arg:
        return spec.strip()
    pairs = []
    for part in arg.split(","):
        key, _, text = (x.strip() for x in part.partition("="))
        try:
            text = repr(float(text))
        except ValueError:
            pass
        pairs.append(f"{key}={text}")
    return f"{prefix}:{','.join(sorted(pairs))}"


def check_distinct(specs, what: str) -> None:
    """Refuse one policy spec listed twice, however it is written."""
    seen: dict[str, str] = {}
    for spec in specs:
        label = spec.label if isinstance(spec, PolicySpec) else str(spec)
        key = canonical_spec(label)
        if key in seen:
            raise PolicyError(
                f"{what}: '{seen[key]}' and '{label}' are the same policy spec; list it once"
            )
        seen[key] = label
