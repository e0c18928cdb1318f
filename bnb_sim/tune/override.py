"""The answer of ``bnb tune game``: the tuned values as a component override file
(``tuned-components.toml``) that any command takes as ``--components``. What the file must
restate (the table of each value, its provenance) is the game's (its ``tune`` hooks); the
TOML writing and the read-back check are shared."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.safe_io import write_atomic
from bnb_sim.tune.hooks import tune_hooks

TUNE_REASON = "chosen by bnb tune"
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise BnbError(f"tune: cannot write the value {value!r} to TOML")


def write_override(plan, point: dict, path: Path, header: Sequence[str] = ()) -> Path:
    """Write ``point`` as a component override and check it loads back to those values."""
    hooks = tune_hooks(plan.game)
    comps = plan.components_for(point)
    own = getattr(hooks, "component_data", None)  # a protocol game's components as data
    tuned = own(comps) if own is not None else comps.data
    reason = f"{TUNE_REASON} ({', '.join(t.describe() for t in plan.targets)})"
    lines = [f"# {h}" for h in header]
    lines.append(
        "# a component override: pass it as --components "
        f"{' '.join([*plan.component_files, path.name])}"
    )
    tables = hooks.override_entries(tuned, list(point))
    for table in sorted(tables, key=len):  # the root's keys (no header) first
        lines += [""] + ([f"[{'.'.join(_toml_key(p) for p in table)}]"] if table else [])
        for key, value in tables[table].items():
            lines.append(f"{_toml_key(key)} = {_toml_value(hooks.retag(value, reason))}")
    try:
        write_atomic(path, "\n".join(lines) + "\n")  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    loaded = hooks.load_override([*plan.component_files, str(path)])
    for key, value in point.items():
        if hooks.value_at(loaded, key) != value:
            raise BnbError(f"tune: {path} does not read back {key} = {value!r}")
    return path
