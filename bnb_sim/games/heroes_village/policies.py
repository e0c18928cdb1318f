"""Bots for Heroes of the Village as data: a kind id, a weight vector and a label.

Grammar of ``--policy`` for this game::

    random                  a uniformly random legal decision
    team                    the cooperative team bot with its default weights
    team:complete=6,mob=1   the team bot with some weights changed (the rest keep defaults)
    team:weights.toml       weights from a TOML file (top level or a [weights] table)
    strong                  the team bot with the shipped tuned weights (``strong_model``)
    strong:model.toml       the team bot with the weights of a model file (``strong_model``)

Pure Python: parsing never imports numba.
"""

from __future__ import annotations

# numba-constants: kernels read this module's constants (bnb_sim._jit fingerprints it)
import math
import os
from dataclasses import dataclass
from pathlib import Path

from bnb_sim.errors import PolicyError
from bnb_sim.games.heroes_village.team_weights import TEAM_WEIGHTS

RANDOM = 0
TEAM = 1
PLUGIN = 2  # a third-party policy (``bnb_sim.policies`` entry point with game="heroes_village")
KIND_NAMES = {RANDOM: "random", TEAM: "team", PLUGIN: "plugin"}
BUILTIN_NAMES = ("random", "team", "strong")

# Named weights of the team bot, in parameter-vector order (their own module: the strong
# bot's model files read them too, without the policies).
TEAM_DEFAULTS = [default for default, _ in TEAM_WEIGHTS.values()]
N_PARAMS = len(TEAM_WEIGHTS)
W = {name: i for i, name in enumerate(TEAM_WEIGHTS)}
# The positions as plain integers, for the kernels (numba cannot read a dict global).
(
    W_BLOCK,
    W_REDSTONE,
    W_HAND_IN,
    W_COMPLETE,
    W_DARK_KEEP,
    W_EXPLORE,
    W_EXPLORE_BASE,
    W_MOB,
    W_FIGHT,
    W_ILLAGER,
    W_DISCARD,
    W_URGENCY,
    W_LOSE,
) = range(N_PARAMS)
MAX_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class HotvPolicy:
    label: str
    kind: int
    params: tuple[float, ...]
    plugin: str | None = None  # the entry-point name of a PLUGIN
    names: tuple[str, ...] = ()  # a PLUGIN's parameter names
    model: str | None = None  # the model file of ``strong`` ("shipped:NAME" for the shipped one)

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def weights(self) -> dict[str, float]:
        if self.kind == TEAM:
            return dict(zip(TEAM_WEIGHTS, self.params, strict=True))
        if self.kind == PLUGIN:
            return dict(zip(self.names, self.params, strict=True))
        return {}

    def to_dict(self) -> dict:
        out = {"label": self.label, "kind": self.kind_name, "weights": self.weights()}
        if self.plugin:
            out["plugin"] = self.plugin
        if self.model:
            out["model"] = self.model
        return out

    def plugin_function(self):
        """The plugin's compiled cfunc (``no_plugin`` for built-in bots); imports numba."""
        from bnb_sim.plugins import compile_plugin, no_plugin

        if self.kind != PLUGIN:
            return no_plugin
        return compile_plugin(self.plugin, load_plugin(self.plugin))


def _weights_from_pairs(text: str, spec: str) -> dict[str, float]:
    out = {}
    for item in text.split(","):
        if "=" not in item:
            raise PolicyError(f"policy {spec!r}: {item!r} is not name=value")
        name, value = (x.strip() for x in item.split("=", 1))
        try:
            out[name] = float(value)
        except ValueError:
            raise PolicyError(f"policy {spec!r}: {name}={value!r} is not a number") from None
    return out


def _weights_from_file(path: Path, spec: str) -> dict[str, float]:
    from bnb_sim.errors import ComponentError
    from bnb_sim.toml_files import read_toml

    if path.stat().st_size > MAX_FILE_BYTES:
        raise PolicyError(f"policy {spec!r}: {path} is larger than 64 KiB")
    try:
        data = read_toml(path)
    except ComponentError as exc:
        raise PolicyError(f"policy {spec!r}: {exc}") from None
    data = data.get("weights", data)
    out = {}
    for name, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PolicyError(f"policy {spec!r}: {path}: {name} is not a number")
        out[name] = float(value)
    return out


def parse_policy(spec: str) -> HotvPolicy:
    """A ``--policy`` spec of this game as a :class:`HotvPolicy` (PolicyError if bad)."""
    text = spec.strip()
    name, _, arg = text.partition(":")
    if name == "random":
        if arg:
            raise PolicyError(f"policy {spec!r}: random takes no weights")
        return HotvPolicy("random", RANDOM, tuple([0.0] * N_PARAMS))
    if name == "strong":
        return _strong_policy(text, arg)
    if name != "team":
        return _plugin_policy(text, name, arg)
    weights = dict(zip(TEAM_WEIGHTS, TEAM_DEFAULTS, strict=True))
    if arg:
        path = Path(arg)
        given = _weights_from_file(path, spec) if path.is_file() else _weights_from_pairs(arg, spec)
        for key, value in given.items():
            if key not in weights:
                raise PolicyError(
                    f"policy {spec!r}: unknown weight {key!r} (known: {', '.join(TEAM_WEIGHTS)})"
                )
            if not math.isfinite(value):
                raise PolicyError(f"policy {spec!r}: {key} must be finite")
            weights[key] = value
    return HotvPolicy(text, TEAM, tuple(weights.values()))


def plugin_names() -> list[str]:
    """Entry-point names of the ``bnb_sim.policies`` group (not imported yet); which of them
    play this game shows when one is loaded."""
    from bnb_sim.entry_points import entry_point_names

    return entry_point_names(reserved=BUILTIN_NAMES)


def load_plugin(name: str):
    """The :class:`~bnb_sim.plugins.Plugin` a plugin entry point names."""
    from bnb_sim.entry_points import load_entry_point

    return load_entry_point(name, lambda: [*BUILTIN_NAMES, *plugin_names()])


def _plugin_policy(text: str, name: str, arg: str) -> HotvPolicy:
    """A third-party policy for this game: a ``Plugin(decide, params, game="heroes_village")``
    under the ``bnb_sim.policies`` entry-point group (docs/heroes-of-the-village.md)."""
    from bnb_sim.games import get_game

    if name not in plugin_names():
        raise PolicyError(
            f"unknown policy {name!r} for heroes-of-the-village (choose random, team or strong, "
            "e.g. team:complete=5, or a plugin of this game)"
        )
    from bnb_sim.entry_points import parse_assignments

    plugin = load_plugin(name)
    if get_game(plugin.game).name != "heroes_village":
        raise PolicyError(
            f"policy {text!r}: plugin {name!r} plays {get_game(plugin.game).title}, not "
            'Heroes of the Village (its Plugin needs game="heroes_village")'
        )
    params = {k: float(v) for k, v in plugin.params.items()}
    if arg:
        params.update(parse_assignments(arg, list(params), f"policy {text!r}"))
    return HotvPolicy(text, PLUGIN, tuple(params.values()), plugin=name, names=tuple(params))


def _strong_policy(text: str, arg: str) -> HotvPolicy:
    """``strong`` (the shipped model) or ``strong:FILE`` as a HotvPolicy of the team kernel."""
    from bnb_sim.games.heroes_village.strong_model import SHIPPED, load_model, shipped_path

    if not arg:
        model = load_model(shipped_path())
        return HotvPolicy(text, TEAM, model.weights, model=f"shipped:{SHIPPED}")
    if not Path(arg).is_file():
        raise PolicyError(f"policy {text!r}: no model file {arg!r} (strong takes a model file, "
                          "strong:FILE, or none for the shipped model)")  # fmt: skip
    model = load_model(arg)
    return HotvPolicy(text, TEAM, model.weights, model=os.fspath(arg))
