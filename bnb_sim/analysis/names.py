"""How reports name policies: a bot by its ``name``, a weights or model file by its stem.

A policy's label is its spec as given (``bot:/home/me/bots/no_fight.toml``,
``heuristic:/abs/path/weights.toml``): exact, but an absolute path stretches every table and
says nothing a reader recognises. Reports show a shorter name instead, for any game:

- ``KIND:FILE.toml`` (and ``KIND:FILE.toml:NAME=VALUE,...``): the file's top-level ``name``
  when it has one (a bot file's), otherwise the file's stem: ``bot:builder``,
  ``heuristic:weights``; the overrides after the file are kept.
- any other spec is shown as given.

Where two different specs would be shown alike, both keep their spec (a report never merges
two policies). The data (Parquet, run.json) keep the specs; ``summary.json`` lists the names
used with their specs under ``policy_names``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from bnb_sim.toml_files import tomllib

#: Policy columns of the seats and games frames that hold labels.
POLICY_COLUMNS = ("policy", "winner_policy", "first_policy")


def _file_name(path: str) -> str:
    """The file's top-level ``name`` (a non-empty string), else its stem."""
    file = Path(path)
    try:  # a bot file is small; anything odd (missing, huge, not TOML) falls back to the stem
        with file.open(encoding="utf-8") as handle:
            name = tomllib.loads(handle.read(1_000_000)).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError):
        name = None
    if isinstance(name, str) and name.strip() and len(name.strip()) <= 40:
        return name.strip()
    return file.stem


def short_name(label: str) -> str:
    """The name a report shows for one policy label (see the module doc)."""
    kind, colon, arg = str(label).partition(":")
    if not colon:
        return str(label)
    path, sep, rest = arg.partition(".toml")
    if not sep or (rest and not rest.startswith(":")):
        return str(label)
    return f"{kind}:{_file_name(path + sep)}{rest}"


def display_names(labels: Iterable[str]) -> dict[str, str]:
    """``{label: shown name}`` for ``labels``; names shared by two labels fall back to the
    labels, and so does a name that is another policy's label."""
    labels = list(dict.fromkeys(str(x) for x in labels))
    shown = {label: short_name(label) for label in labels}
    counts: dict[str, int] = {}
    for name in shown.values():
        counts[name] = counts.get(name, 0) + 1
    taken = set(labels)
    return {
        label: name if name == label or (counts[name] == 1 and name not in taken) else label
        for label, name in shown.items()
    }


def rename_frame(frame: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` with its policy columns shown by ``names`` (a copy; unchanged if none)."""
    changes = {k: v for k, v in names.items() if k != v}
    columns = [c for c in POLICY_COLUMNS if c in frame.columns]
    if not changes or not columns:
        return frame
    frame = frame.copy()
    for column in columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            frame[column] = values.cat.rename_categories(
                lambda c: changes.get(str(c), c)  # type: ignore[arg-type]
            )
        else:
            frame[column] = values.map(lambda v: changes.get(str(v), v))
    return frame


def rename_meta(meta: Mapping, names: Mapping[str, str]) -> dict:
    """``meta`` (run.json) with the policy labels of ``params`` shown by ``names``, and the
    names with their specs under ``params.policy_names``."""
    meta = dict(meta)
    params = dict(meta.get("params") or {})
    changes = {k: v for k, v in names.items() if k != v}
    if not changes:
        return meta
    if isinstance(params.get("policies"), list):
        params["policies"] = [changes.get(str(p), p) for p in params["policies"]]
    if isinstance(params.get("policy_specs"), list):
        params["policy_specs"] = [
            {**s, "label": changes.get(str(s.get("label")), s.get("label"))}
            if isinstance(s, Mapping)
            else s
            for s in params["policy_specs"]
        ]
    params["policy_names"] = {v: k for k, v in changes.items()}
    meta["params"] = params
    return meta


def shown_run(seats, games, meta: Mapping, policies: Iterable[str] = (), with_names=False):
    """``(seats, games, meta)`` of a run with its policies named as reports show them; with
    ``with_names`` also ``policies`` (labels in player order) as shown."""
    params = meta.get("params") or {}
    policies = [str(p) for p in policies]
    labels = [*policies, *(params.get("policies") or []), *pd.unique(seats["policy"].astype(str))]
    names = display_names(labels)
    shown = (rename_frame(seats, names), rename_frame(games, names), rename_meta(meta, names))
    return (*shown, [names[p] for p in policies]) if with_names else shown
