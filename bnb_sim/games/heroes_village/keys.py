"""Refuse unknown keys in a Heroes of the Village component file, everywhere in the file.

A misspelt key (``[dice.fights]``, ``[rules] fight_rollz``, ``[pets.wolf] fight_bonuz``) must
not be dropped silently: the user's box data would not be used. Each file is checked on its own
before it is merged over the defaults, so the error names the file that holds the key. Pure
Python.
"""

from __future__ import annotations

from bnb_sim.errors import ComponentError

WHAT = "__what__"  # a schema may name what its keys are ("block"), for the message


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check_provenance(value, path: str, label: str, allowed: dict) -> None:
    """A provenance table names only the table's own value keys (or its list items')."""
    if not isinstance(value, dict):
        return  # a string (or a wrong type, which the validator reports)
    own = [k for k in allowed if k not in ("provenance", "source", "reason", WHAT)]
    for sub in allowed.values():  # [buildings] gives provenance per value of its list items
        if isinstance(sub, tuple):
            own += [k for k in sub[1] if k not in own and k not in ("provenance", "source")]
    for key in value:
        if key not in own:
            raise ComponentError(
                label,
                _join(path, f"provenance.{key}"),
                f"unknown key (a provenance table names this table's values: {', '.join(own)})",
            )


def check_keys(data, label: str, schema: dict, path: str = "", derived_ok: bool = False) -> None:
    """Raise :class:`ComponentError` (the file, the key, the problem) at the first key of
    ``data`` that ``schema`` does not allow. ``schema`` maps each allowed key to None (a plain
    value), to a dict (a table with its own schema) or to ``("list", schema)`` (an array of
    tables). ``derived_ok`` ignores keys starting with ``_`` (values the validator derives,
    present in data that went through it once)."""
    if not isinstance(data, dict):
        return  # a wrong type: the validator names it
    for key, value in data.items():
        if derived_ok and isinstance(key, str) and key.startswith("_"):
            continue
        if key not in schema or key == WHAT:
            allowed = ", ".join(k for k in schema if k != WHAT)
            what = schema.get(WHAT) or "key"
            problem = f"unknown {what} (allowed here: {allowed})"
            raise ComponentError(label, _join(path, key), problem)
        sub = schema[key]
        where = _join(path, key)
        if key == "provenance":
            _check_provenance(value, path, label, schema)
        elif isinstance(sub, dict):
            check_keys(value, label, sub, where, derived_ok)
        elif isinstance(sub, tuple) and isinstance(value, list):
            for i, item in enumerate(value):
                check_keys(item, label, sub[1], f"{where}[{i}]", derived_ok)
