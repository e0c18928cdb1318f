"""The component validator's checker: type and range checks, and provenance rows.

:class:`Checker` walks one merged component dict: its primitive checks (tables, keys,
integers, strings, names, choices) record the domain each value was checked against, and
:meth:`Checker.provenance` checks a table's ``provenance``/``source``/``reason`` keys and
records one :class:`Row` per value. Every failure raises
:class:`~bnb_sim.errors.ComponentError` naming the file the bad key came from, the dotted key
and what is wrong, on one line. The sections that use it: ``sections.py`` (the base game),
``expansion.py`` (Farmer's Market); ``validate.py`` runs them.

No numpy, no numba: imported by ``bnb components validate``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bnb_sim.errors import ComponentError
from bnb_sim.estimates import Domain
from bnb_sim.games.builders_biomes.components.origins import Origins
from bnb_sim.toml_files import clean

MAX_ROWS = 1000  # weapons, mobs, buildings or boards per file
MAX_NOTE = 500
PROVENANCE_KINDS = ("known", "estimate")
NOTE_KEYS = ("provenance", "source", "reason")
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_]{0,39}\Z")
NAME_RULE = "lower-case letters, digits and _, at most 40 characters"


def kind_of(value: object) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({value})" if abs(value) < 10**12 else "an integer"
    if isinstance(value, float):
        return f"a float ({value!r})"
    if isinstance(value, str):
        return f"a string ({clean(repr(value), 40)})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


@dataclass
class Row:
    """One value with its provenance; ``table``/``label`` say where the label lives."""

    key: str
    value: object
    provenance: str
    note: str
    table: str
    label: str
    domain: Domain | None = None  # what the validator accepts here (for ranges)

    def public(self) -> dict:
        return {
            "key": self.key,
            "value": self.value,
            "provenance": self.provenance,
            "note": self.note,
        }


class Checker:
    def __init__(self, origins: Origins):
        self.origins = origins
        self.rows: list[Row] = []
        self.domains: dict[str, Domain] = {}

    # -- failure ---------------------------------------------------------------------------
    def fail(self, key: str, problem: str, blame: Iterable[str] = (), file: str | None = None):
        where = file if file is not None else self.origins.file_for(key, blame)
        raise ComponentError(clean(where, 300), clean(key), clean(problem, 400))

    # -- primitive checks ------------------------------------------------------------------
    def table(self, value: object, key: str) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {kind_of(value)}")
        for k in value:
            if not isinstance(k, str):
                self.fail(key, f"has a key that is not a string ({kind_of(k)})")
        return value

    def keys(self, tbl: dict, key: str, required: Iterable[str], optional: Iterable[str] = ()):
        required = tuple(required)
        allowed = required + tuple(optional)
        for k in tbl:
            if k not in allowed:
                self.fail(join(key, k), f"unknown key (allowed here: {', '.join(allowed)})")
        for k in required:
            if k not in tbl:
                self.fail(join(key, k), "missing (required)")

    def integer(self, value: object, key: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {kind_of(value)}")
        if not lo <= value <= hi:
            shown = value if abs(value) < 10**12 else "a huge number"
            self.fail(key, f"must be between {lo} and {hi}, got {shown}")
        self.domains[key] = Domain(lo, hi)
        return value

    def string(self, value: object, key: str, limit: int = MAX_NOTE) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if "\n" in value or "\r" in value:
            self.fail(key, "must be one line")
        if not value.strip():
            self.fail(key, "must not be empty")
        if len(value) > limit:
            self.fail(key, f"longer than {limit} characters")
        return value

    def name(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if not NAME_RE.match(value):
            self.fail(key, f"invalid name {clean(repr(value), 50)} (use {NAME_RULE})")
        return value

    def row_name(self, name: str, key: str) -> None:
        if not NAME_RE.match(name):
            self.fail(key, f"invalid name (table names use {NAME_RULE})")

    def rows_of(self, value: object, key: str, what: str) -> dict:
        tbl = self.table(value, key)
        if not tbl:
            self.fail(key, f"needs at least one {what}")
        if len(tbl) > MAX_ROWS:
            self.fail(key, f"more than {MAX_ROWS} tables")
        for name in tbl:
            self.row_name(name, join(key, name))
        return tbl

    def choice(self, value: object, key: str, options: list[str], what: str) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind_of(value)}")
        if value not in options:
            self.fail(key, f"unknown {what} {clean(repr(value), 50)} (known: {', '.join(options)})")
        self.domains[key] = Domain(options=tuple(options))
        return value

    # -- provenance ------------------------------------------------------------------------
    def provenance(
        self,
        tbl: dict,
        path: str,
        entries: list[tuple[str, str, object]],
        value_keys: Iterable[str],
    ) -> dict:
        """Check the provenance keys of ``tbl`` and record one row per value.

        ``entries`` lists (label, row key, value); several rows may share a label (a building's
        cost per material). Returns the normalised provenance/source/reason keys.
        """
        labels = list(dict.fromkeys(label for label, _, _ in entries))
        prov_key = join(path, "provenance")
        if "provenance" not in tbl:
            self.fail(
                prov_key,
                'missing: every table of values needs provenance = "known" (with source) '
                'or "estimate" (with reason), or a table labelling each value',
            )
        prov = tbl["provenance"]
        if isinstance(prov, str):
            if prov not in PROVENANCE_KINDS:
                self.fail(prov_key, f'must be "known" or "estimate", got {clean(repr(prov), 40)}')
            per = {label: prov for label in labels}
        elif isinstance(prov, dict):
            for label, kind in prov.items():
                if label not in labels:
                    self.fail(
                        join(prov_key, label),
                        f"labels a value this table does not have (values: {', '.join(labels)})",
                    )
                if kind not in PROVENANCE_KINDS:
                    self.fail(
                        join(prov_key, label), f'must be "known" or "estimate", got {kind_of(kind)}'
                    )
            for label in labels:
                if label not in prov:
                    self.fail(
                        prov_key, f"does not label '{label}' (label every value of the table)"
                    )
            per = {label: prov[label] for label in labels}
        else:
            self.fail(
                prov_key, f'must be "known", "estimate" or a table of those, got {kind_of(prov)}'
            )
        pending = self.origins.unrestated.get(path)
        if pending is not None:
            idx, changed = pending
            changed_values = [k for k in changed if k in set(value_keys)]
            if changed_values:
                self.fail(
                    prov_key,
                    f"the override changes {', '.join(changed_values)} but does not restate "
                    "provenance (give provenance with source or reason for the new values)",
                    file=self.origins.files[idx],
                )
        notes = {}
        for note_key, kind in (("source", "known"), ("reason", "estimate")):
            wanted = [label for label in labels if per[label] == kind]
            key = join(path, note_key)
            note = tbl.get(note_key)
            if not wanted:
                if note is not None:
                    self.fail(key, f'given, but no value of this table is "{kind}"')
                continue
            if note is None:
                self.fail(key, f'missing: required because a value of this table is "{kind}"')
            if isinstance(note, dict):
                for label, text in note.items():
                    if label not in wanted:
                        self.fail(join(key, label), f'is not a "{kind}" value of this table')
                    self.string(text, join(key, label))
                for label in wanted:
                    if label not in note:
                        self.fail(key, f"has no entry for '{label}'")
                notes[note_key] = {label: note[label] for label in wanted}
            else:
                notes[note_key] = self.string(note, key)
        for label, row_key, value in entries:
            kind = per[label]
            note = notes["source" if kind == "known" else "reason"]
            text = note[label] if isinstance(note, dict) else note
            self.rows.append(
                Row(row_key, value, kind, text, path, label, self.domains.get(row_key))
            )
        out = {"provenance": dict(per) if isinstance(prov, dict) else prov}
        out.update(notes)
        return out
