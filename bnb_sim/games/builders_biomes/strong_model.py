"""Model files of the ``strong`` bot: versioned TOML data, validated before any game is played.

A model is the weight vector of ``policies/strong.py`` (``kinds.STRONG_*``: one table of named
weights per game stage) plus what it was made for and how: the game, the player count and the
expansion it was trained for, the feature set and file version it expects, and a
``[training]`` table (seed, games, opponents, the measured score). Pure Python: reading a
model never imports numba.

A file from another format version, another feature set or another game is refused with one
line naming the file and the problem (a :class:`~bnb_sim.errors.PolicyError`: exit code 2 in
the CLI). So is a file for another player count or expansion than the run's, when a run
resolves its policies (:func:`resolve_model`).

The shipped models live in ``bnb_sim/data/strong/`` (``builders_biomes_{2,3,4}p.toml``);
``strong`` without a file takes the one for the run's player count.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from bnb_sim.errors import ComponentError, PolicyError
from bnb_sim.games.builders_biomes.policies.kinds import (
    HEURISTIC_DEFAULTS,
    HEURISTIC_WEIGHTS,
    N_STRONG_PARAMS,
    STRONG_BIASES,
    STRONG_FEATURE_SET,
    STRONG_FEATURES,
    STRONG_PACING,
    STRONG_STAGE_SIZE,
    STRONG_STAGES,
)
from bnb_sim.model_weights import other_game, read_weight

FORMAT = "bnb-sim-strong"
VERSION = 1
GAME = "builders-biomes"
EXPANSIONS = ("none", "farmers-market")
STAGE_KEYS = ("before_round_a", "after_round_a", "after_round_b")
SHIPPED = "shipped"  # the model path of a spec that takes the shipped model for its run


@dataclass(frozen=True)
class StrongModel:
    """A validated model: ``weights`` in the kernel's order (``N_STRONG_PARAMS`` floats)."""

    weights: tuple[float, ...]
    players: int
    expansion: str = "none"
    training: dict = field(default_factory=dict, compare=False)
    source: str = ""  # the file it was read from ("" when built in memory)

    def stage(self, index: int) -> dict[str, float]:
        """The named weights of one stage (``STAGE_KEYS[index]``)."""
        start = index * STRONG_STAGE_SIZE
        return dict(
            zip(STRONG_FEATURES, self.weights[start : start + STRONG_STAGE_SIZE], strict=True)
        )

    def describe_source(self) -> str:
        return self.source or "(in memory)"


def heuristic_start(players: int, expansion: str = "none") -> StrongModel:
    """The model that plays exactly like ``heuristic``: its weights in every stage, no biases,
    no pacing (the start of a training run without another start model)."""
    stage = [*HEURISTIC_DEFAULTS, *([0.0] * (STRONG_STAGE_SIZE - len(HEURISTIC_DEFAULTS)))]
    return StrongModel(tuple(stage * len(STRONG_STAGES)), players, expansion)


def expansion_name(expansion: str | None) -> str:
    return "none" if expansion in (None, "", "none") else str(expansion)


# ---- reading -------------------------------------------------------------------------------
def _fail(label: str, problem: str) -> PolicyError:
    return PolicyError(f"strong model {label}: {problem}")


def _read(path: str | os.PathLike) -> dict:
    from bnb_sim.toml_files import read_toml

    try:
        return read_toml(path)
    except ComponentError as exc:
        raise _fail(os.fspath(path), exc.problem) from None


def _check_header(data: dict, label: str) -> dict:
    head = data.get("model")
    if not isinstance(head, dict):
        raise _fail(label, "no [model] table (is this a strong model file?)")
    problem = other_game(head, GAME)
    if problem:
        raise _fail(label, problem)
    if head.get("format") != FORMAT:
        raise _fail(label, f"format is {head.get('format')!r}, not {FORMAT!r}")
    if head.get("game") != GAME:
        raise _fail(label, f"is a model for the game {head.get('game')!r}, not {GAME!r}")
    version = head.get("version")
    if version != VERSION:
        raise _fail(
            label,
            f"file version {version!r}; this bnb-sim reads version {VERSION} "
            "(train a new model with this version)",
        )
    if head.get("feature_set") != STRONG_FEATURE_SET:
        raise _fail(
            label,
            f"feature set {head.get('feature_set')!r}; this bnb-sim's strong bot uses "
            f"{STRONG_FEATURE_SET!r} (train a new model with this version)",
        )
    if list(head.get("features", [])) != list(STRONG_FEATURES):
        raise _fail(label, "its feature list is not the one of feature set " + STRONG_FEATURE_SET)
    players = head.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise _fail(label, f"players must be 2, 3 or 4, got {players!r}")
    if head.get("expansion") not in EXPANSIONS:
        raise _fail(label, f"expansion must be one of {', '.join(EXPANSIONS)}")
    return head


def model_from_dict(data: dict, label: str = "(data)") -> StrongModel:
    """Validate the parsed TOML of a model file (every problem names the key)."""
    head = _check_header(data, label)

    def bad(problem: str) -> PolicyError:
        return _fail(label, problem)

    stages = data.get("stages")
    if not isinstance(stages, dict):
        raise _fail(label, "no [stages] tables")
    unknown = sorted(set(stages) - set(STAGE_KEYS))
    if unknown:
        raise _fail(label, f"unknown stage '{unknown[0]}' (known: {', '.join(STAGE_KEYS)})")
    weights: list[float] = []
    for key in STAGE_KEYS:
        table = stages.get(key)
        if not isinstance(table, dict):
            raise _fail(label, f"missing table [stages.{key}]")
        extra = sorted(set(table) - set(STRONG_FEATURES))
        if extra:
            raise _fail(label, f"key 'stages.{key}.{extra[0]}': not a feature of this version")
        for name in STRONG_FEATURES:
            if name not in table:
                raise _fail(label, f"key 'stages.{key}.{name}' is missing")
            weights.append(read_weight(table[name], f"stages.{key}.{name}", bad))
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise _fail(label, "[training] must be a table")
    return StrongModel(tuple(weights), head["players"], head["expansion"], training, label)


def load_model(path: str | os.PathLike) -> StrongModel:
    """Read and validate a model file (:class:`PolicyError` naming the file and key)."""
    return model_from_dict(_read(path), os.fspath(path))


def shipped_path(players: int, expansion: str = "none") -> Path | None:
    """The shipped model file for a setting, or None where none is shipped."""
    suffix = "" if expansion_name(expansion) == "none" else "_fm"
    name = f"builders_biomes_{players}p{suffix}.toml"
    path = Path(str(resources.files("bnb_sim") / "data" / "strong" / name))
    return path if path.is_file() else None


def shipped_model(players: int, expansion: str | None = None) -> StrongModel:
    """The shipped model for ``players`` (and the expansion); a clear error where none is."""
    name = expansion_name(expansion)
    path = shipped_path(players, name)
    if path is None:
        with_fm = "" if name == "none" else f" with {name}"
        raise PolicyError(
            f"policy 'strong': no shipped model for {players} players{with_fm} yet; "
            f"train one (bnb train --players {players}"
            + ("" if name == "none" else f" --expansion {name}")
            + " --minutes 60 --out FILE) and play it as strong:FILE"
        )
    model = load_model(path)
    return StrongModel(model.weights, model.players, model.expansion, model.training,
                       f"shipped:{path.name}")  # fmt: skip


def check_setting(model: StrongModel, players: int, expansion: str | None, where: str) -> None:
    """Refuse a model made for another player count or expansion than the run's."""
    name = expansion_name(expansion)
    if model.players != players:
        raise PolicyError(
            f"{where}: the model {model.describe_source()} was trained for {model.players} "
            f"players, this run has {players}"
        )
    if model.expansion != name:
        raise PolicyError(
            f"{where}: the model {model.describe_source()} was trained with expansion "
            f"'{model.expansion}', this run plays with '{name}'"
        )


def resolve_model(source: str, players: int, expansion: str | None, where: str) -> StrongModel:
    """The model of a spec in a run: the shipped one (``source == SHIPPED``) or a file."""
    model = shipped_model(players, expansion) if source == SHIPPED else load_model(source)
    check_setting(model, players, expansion, where)
    return model


# ---- writing -------------------------------------------------------------------------------
def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(float(value)) if math.isfinite(value) else '"nan"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{text}"'


def _describe(name: str) -> str:
    for table in (HEURISTIC_WEIGHTS, STRONG_BIASES, STRONG_PACING):
        if name in table:
            entry = table[name]
            return entry[1] if isinstance(entry, tuple) else entry
    return ""


def model_text(model: StrongModel) -> str:
    """The TOML text of a model file (deterministic: the same model, the same bytes)."""
    lines = [
        '# A model of the strong bot of bnb-sim (docs/policies.md, "strong").',
        "# Play it with --policy strong:THIS_FILE; `bnb train show THIS_FILE` describes it.",
        "[model]",
        f'format = "{FORMAT}"',
        f"version = {VERSION}",
        f'game = "{GAME}"',
        f'feature_set = "{STRONG_FEATURE_SET}"',
        f"features = {_toml_value(list(STRONG_FEATURES))}",
        f"players = {model.players}",
        f'expansion = "{model.expansion}"',
        "",
        "[training]",
    ]
    for key, value in model.training.items():
        if not isinstance(value, dict):
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in model.training.items():
        if isinstance(value, dict):
            lines += ["", f"[training.{key}]"]
            lines += [f"{k} = {_toml_value(v)}" for k, v in value.items()]
    for index, key in enumerate(STAGE_KEYS):
        lines += ["", f"[stages.{key}]  # {STRONG_STAGES[index]}"]
        for name, value in model.stage(index).items():
            lines.append(f"{name} = {_toml_value(round(float(value), 6))}  # {_describe(name)}")
    return "\n".join(lines) + "\n"


def write_model(model: StrongModel, path: str | os.PathLike) -> Path:
    """Write the model atomically (a temporary file renamed over ``path``); it is read back
    and validated, so a file this writes is a file ``strong:FILE`` accepts."""
    path = Path(path)
    text = model_text(model)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise PolicyError(f"strong model {path}: cannot write ({exc.strerror or exc})") from None
    load_model(path)
    return path


def check_vector(weights) -> tuple[float, ...]:
    values = tuple(float(v) for v in weights)
    if len(values) != N_STRONG_PARAMS:
        raise ValueError(f"a strong model has {N_STRONG_PARAMS} weights, got {len(values)}")
    return values
