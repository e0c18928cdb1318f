"""``strong`` for Heroes of the Village: the team bot with weights tuned by CMA-ES, read from
a versioned model file.

The team bot's default weights were set by hand; tuned against the game's own outcome (the
team's win rate) they save the village about 10 percentage points more often
(docs/heroes-of-the-village.md, "The strong bot"). ``strong`` plays the team bot's kernel with
the weights of the shipped model file ``bnb_sim/data/strong/heroes_village.toml``;
``strong:FILE`` plays those of another model file of the same format::

    [model]
    format = "bnb-sim-hotv-model"
    version = 1
    game = "heroes_village"
    bot = "team"                  # the kernel the weights drive
    features = ["block", ...]     # the team bot's weights, in order

    [training]                    # how the weights were made (a free-form record)

    [weights]
    block = 2.5448
    ...

A file of another format, version, game, bot or weight list, with a weight missing, unknown
or not a finite number, or not valid TOML is refused with one line naming the file and the
problem (a :class:`~bnb_sim.errors.PolicyError`: exit code 2 in the CLI). Pure Python: reading
a model never imports numba.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from bnb_sim.errors import ComponentError, PolicyError
from bnb_sim.model_weights import other_game, read_weight

FORMAT = "bnb-sim-hotv-model"
VERSION = 1
GAME = "heroes_village"
BOT = "team"
MAX_FILE_BYTES = 64 * 1024
SHIPPED = "heroes_village.toml"


def _features() -> tuple[str, ...]:
    from bnb_sim.games.heroes_village.team_weights import TEAM_WEIGHTS

    return tuple(TEAM_WEIGHTS)


@dataclass(frozen=True)
class TeamModel:
    """A validated model: ``weights`` in the order of the team bot's weights."""

    weights: tuple[float, ...]
    training: dict = field(default_factory=dict, compare=False)
    source: str = ""  # the file it was read from

    def named(self) -> dict[str, float]:
        return dict(zip(_features(), self.weights, strict=True))


def _fail(label: str, problem: str) -> PolicyError:
    return PolicyError(f"model {label}: {problem}")


def _check_header(data: dict, label: str) -> None:
    head = data.get("model")
    if not isinstance(head, dict):
        raise _fail(label, "no [model] table (is this a Heroes of the Village model file?)")
    problem = other_game(head, GAME)
    if problem:
        raise _fail(label, problem)
    if head.get("format") != FORMAT:
        raise _fail(label, f"format is {head.get('format')!r}, not {FORMAT!r}")
    if head.get("game") != GAME:
        raise _fail(label, f"is a model for the game {head.get('game')!r}, not {GAME!r}")
    if head.get("version") != VERSION:
        raise _fail(label, f"file version {head.get('version')!r}; this bnb-sim reads version "
                    f"{VERSION}")  # fmt: skip
    if head.get("bot") != BOT:
        raise _fail(label, f"drives the bot {head.get('bot')!r}; this bnb-sim's strong plays "
                    f"{BOT!r}")  # fmt: skip
    if list(head.get("features", [])) != list(_features()):
        raise _fail(label, "its features list is not the team bot's weights of this bnb-sim "
                    f"({', '.join(_features())})")  # fmt: skip


def model_from_dict(data: dict, label: str = "(data)") -> TeamModel:
    """Validate the parsed TOML of a model file (every problem names the key)."""
    _check_header(data, label)

    def bad(problem: str) -> PolicyError:
        return _fail(label, problem)

    table = data.get("weights")
    if not isinstance(table, dict):
        raise _fail(label, "no [weights] table")
    features = _features()
    extra = sorted(set(table) - set(features))
    if extra:
        raise _fail(label, f"key 'weights.{extra[0]}': not a weight of the team bot")
    weights = []
    for name in features:
        if name not in table:
            raise _fail(label, f"key 'weights.{name}' is missing")
        weights.append(read_weight(table[name], f"weights.{name}", bad))
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise _fail(label, "[training] must be a table")
    return TeamModel(tuple(weights), training, label)


def load_model(path: str | os.PathLike) -> TeamModel:
    """Read and validate a model file (:class:`PolicyError` naming the file and the problem)."""
    from bnb_sim.toml_files import read_toml

    label = os.fspath(path)
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise _fail(label, f"larger than {MAX_FILE_BYTES // 1024} KiB")
        data = read_toml(path)
    except ComponentError as exc:
        raise _fail(label, exc.problem) from None
    except OSError as exc:
        raise _fail(label, f"cannot read: {exc.strerror or exc}") from None
    return model_from_dict(data, label)


def shipped_path() -> Path:
    return Path(str(resources.files("bnb_sim") / "data" / "strong" / SHIPPED))


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to a model file")
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to a model file")


def model_text(model: TeamModel) -> str:
    """The model as TOML (the same model gives the same bytes)."""
    from bnb_sim.games.heroes_village.team_weights import TEAM_WEIGHTS

    lines = [
        "# A model of the strong bot of bnb-sim for Heroes of the Village: weights of the team",
        '# bot (docs/heroes-of-the-village.md, "The strong bot"). Play it with',
        "# --game hotv --policy strong:THIS_FILE.",
        "[model]",
        f"format = {_toml_value(FORMAT)}",
        f"version = {VERSION}",
        f"game = {_toml_value(GAME)}",
        f"bot = {_toml_value(BOT)}",
        f"features = {_toml_value(list(TEAM_WEIGHTS))}",
        "",
        "[training]",
    ]
    lines += [f"{key} = {_toml_value(value)}" for key, value in model.training.items()]
    lines += ["", "[weights]"]
    for (name, (default, meaning)), value in zip(TEAM_WEIGHTS.items(), model.weights, strict=True):
        lines.append(f"{name} = {_toml_value(float(value))}  # team {default:g}: {meaning}")
    return "\n".join(lines) + "\n"


def write_model(model: TeamModel, path: str | os.PathLike) -> None:
    """Write ``model`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(model_text(model), encoding="utf-8")
    os.replace(tmp, path)
