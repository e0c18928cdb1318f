"""The :class:`Components` object: validated component data, its arrays and its provenance."""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
from collections.abc import Mapping
from functools import cached_property

from bnb_sim.errors import ComponentError, SpecError
from bnb_sim.estimates import Estimate, resolve
from bnb_sim.games.builders_biomes.components.checker import Row
from bnb_sim.games.builders_biomes.components.origins import Origins
from bnb_sim.games.builders_biomes.components.sections import CHARACTERISTICS
from bnb_sim.games.builders_biomes.components.validate import validate
from bnb_sim.safe_io import digits
from bnb_sim.toml_files import clean

SWEEP_REASON = "set by sweep"


def canonical_json(data: object) -> str:
    """The JSON text hashed for ``content_hash`` (normalised data keeps a fixed key order)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _norm_token(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


class Components:
    """Validated component data (see docs/components.md); build with ``load_components``.

    Treat it as immutable: ``data`` returns a deep copy, the list attributes return new
    lists, and ``with_values`` returns a new object. ``arrays`` are built once per object and
    shared by every caller, so kernels must only read them.
    """

    def __init__(
        self,
        data: dict,
        rows: list[Row],
        *,
        source: str,
        origins: Origins,
        sets: dict | None = None,
    ):
        self._data = data
        self._rows = rows
        self.source = source
        self._origins = origins
        self._sets = dict(sets or {})
        self.content_hash = hashlib.sha256(canonical_json(data).encode()).hexdigest()
        values = data["characteristics"]
        self._values = {c: list(values[c]) for c in CHARACTERISTICS}
        self._weapons = list(data["weapons"])
        aliases = {}
        for name, w in data["weapons"].items():
            aliases[name] = name
            for alias in w["aliases"]:
                aliases[alias] = name
        self._aliases = aliases
        self._mobs = list(data["mobs"])
        self._buildings = list(data["buildings"])
        self._blocks = list(data["blocks"])
        self._boards = list(data["boards"])
        tiles = []  # (building id, None) or (species, tile variant index), one per physical tile
        for bid, b in data["buildings"].items():
            tiles += [(bid, None)] * b["copies"]
        for species, m in data["mobs"].items():
            for i, t in enumerate(m["tiles"]):
                tiles += [(species, i)] * t["copies"]
        self._tiles = tiles

    # -- plain data ------------------------------------------------------------------------
    @property
    def expansion(self) -> str | None:
        """``"farmers-market"`` when the data holds the expansion's section (R-FM-*)."""
        return "farmers-market" if "farmers_market" in self._data else None

    @property
    def item_names(self) -> list[str]:
        """The expansion's item tiles in file order (empty without the expansion)."""
        return list(self._data.get("farmers_market", {}).get("items", {}))

    @property
    def data(self) -> dict:
        """The merged, validated data (a deep copy: changing it changes nothing here)."""
        return copy.deepcopy(self._data)

    @property
    def files(self) -> list[str]:
        """The files the data came from: the base file, then each override in order."""
        return list(self._origins.files)

    @property
    def sets(self) -> dict:
        """Values set with :meth:`with_values` (dotted path -> value), in order."""
        return copy.deepcopy(self._sets)

    @property
    def characteristics(self) -> list[str]:
        return list(CHARACTERISTICS)

    @property
    def values(self) -> dict[str, list[str]]:
        return {c: list(v) for c, v in self._values.items()}

    @property
    def weapon_names(self) -> list[str]:
        return list(self._weapons)

    @property
    def weapon_aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    @property
    def mob_names(self) -> list[str]:
        return list(self._mobs)

    @property
    def mob_hearts(self) -> dict[str, int]:
        return {name: m["hearts"] for name, m in self._data["mobs"].items()}

    @property
    def building_ids(self) -> list[str]:
        return list(self._buildings)

    @property
    def block_names(self) -> list[str]:
        return list(self._blocks)

    @property
    def board_names(self) -> list[str]:
        return list(self._boards)

    @property
    def n_tiles(self) -> int:
        return len(self._tiles)

    def rule(self, name: str) -> int:
        """A number of the rule text by name, e.g. ``rule("fight_reveal")``."""
        return self._data["rules"][name]

    def resolve_weapon(self, name: str) -> int:
        """Weapon token type index of a canonical name or alias (case and -/_ insensitive)."""
        if isinstance(name, str):
            canonical = self._aliases.get(_norm_token(name))
            if canonical is not None:
                return self._weapons.index(canonical)
        valid = ", ".join(
            n + (f" ({', '.join(w['aliases'])})" if w["aliases"] else "")
            for n, w in self._data["weapons"].items()
        )
        raise SpecError(f"unknown weapon token {clean(repr(name), 60)}; valid: {valid}")

    def tile_label(self, tile_id: int) -> str:
        """Readable description of one physical tile, e.g. ``"b07 forest/wood/dwelling cost
        3 wood"`` or ``"enderman (bonus: 2 XP per type.decoration)"``."""
        if not 0 <= tile_id < len(self._tiles):
            raise IndexError(f"tile id {tile_id} out of range 0..{len(self._tiles) - 1}")
        name, variant = self._tiles[tile_id]
        if variant is None:
            b = self._data["buildings"][name]
            cost = " + ".join(f"{n} {m}" for m, n in b["cost"].items())
            xp = f", {b['xp']} XP" if b["xp"] else ""
            return f"{name} {b['biome']}/{b['material']}/{b['type']} cost {cost}{xp}"
        t = self._data["mobs"][name]["tiles"][variant]
        if t["kind"] == "bonus":
            return f"{name} (bonus: {t['bonus_xp']} XP per {t['bonus']})"
        return f"{name} (hunger)"

    # -- provenance ------------------------------------------------------------------------
    def provenance_rows(self) -> list[dict]:
        """One row per value: key, value, provenance ("known"/"estimate"), note (source/reason)."""
        return [copy.deepcopy(r.public()) for r in self._rows]

    def estimates(self) -> list[dict]:
        return [copy.deepcopy(r.public()) for r in self._rows if r.provenance == "estimate"]

    @property
    def n_estimates(self) -> int:
        return sum(r.provenance == "estimate" for r in self._rows)

    # -- plausible ranges of the estimates (bnb_sim.estimates) -----------------------------
    @cached_property
    def _estimate_ranges(self) -> tuple[Estimate, ...]:
        values = {r.key: (r.value, r.provenance) for r in self._rows}
        domains = {r.key: r.domain for r in self._rows}
        found = resolve(
            values, self._origins.ranges, origins=self._origins.changed, domain_of=domains.get
        )
        return tuple(found)

    def estimate_ranges(self) -> list[Estimate]:
        """Every estimated value with its plausible range and reason (docs/components.md,
        "Ranges"), in provenance-row order; one a file gave no range has ``has_range`` False."""
        return list(self._estimate_ranges)

    def estimate(self, key: str) -> Estimate:
        """The :class:`~bnb_sim.estimates.Estimate` at ``key`` (ComponentError if none)."""
        for est in self._estimate_ranges:
            if est.key == key:
                return est
        raise ComponentError("estimate", clean(key), self._path_problem(key, "an estimate"))

    def with_estimate(self, key: str, value: object) -> Components:
        """A copy with the estimate at ``key`` moved to ``value`` (inside its range), and the
        value that balances it moved the other way: one point of a sensitivity analysis."""
        return self.with_values(self.estimate(key).changes(value), origin=f"estimate {key}")

    def to_json_dict(self) -> dict:
        """Everything about this data, for ``components show --json`` and the ``components``
        entry of a run's ``run.json`` (docs/run-format.md: source, content_hash,
        estimated_values, estimated_keys, data), plus files, sets and the provenance rows
        (an estimate's row with its plausible range: low/high or choices, range_reason)."""
        estimated = [r.key for r in self._rows if r.provenance == "estimate"]
        ranges = {e.key: e.row_fields() for e in self._estimate_ranges}
        rows = [row | ranges.get(row["key"], {}) for row in self.provenance_rows()]
        return {
            "source": self.source,
            "files": self.files,
            "content_hash": self.content_hash,
            "sets": self.sets,
            "n_values": len(self._rows),
            "estimated_values": len(estimated),
            "estimated_keys": estimated,
            "data": self.data,
            "provenance": rows,
        }

    # -- arrays ----------------------------------------------------------------------------
    @cached_property
    def arrays(self):
        """The :class:`~.arrays.ComponentArrays` (built once, read-only use)."""
        from bnb_sim.games.builders_biomes.components.build import build_arrays

        return build_arrays(self._data, self._tiles)

    # -- sweeps ----------------------------------------------------------------------------
    def with_values(self, changes: Mapping[str, object], *, origin: str = "--set") -> Components:
        """A copy with values set by dotted path (``{"mobs.enderman.hearts": 5}``).

        Each path must name an existing value that carries provenance (a number, a bonus
        target, a board's spaces). A changed value is re-labelled ``estimate`` with reason
        "set by sweep"; the result is validated again, and problems name ``origin``.
        """
        if not isinstance(changes, Mapping):
            raise ComponentError(origin, "", "expected a mapping of dotted paths to values")
        data = copy.deepcopy(self._data)
        origins = Origins(
            files=list(self._origins.files),
            paths=dict(self._origins.paths),
            ranges=list(self._origins.ranges),
            changed=dict(self._origins.changed),
        )
        if origin in origins.files[1:]:
            idx = origins.files.index(origin, 1)
        else:
            origins.files.append(origin)
            idx = len(origins.files) - 1
        rows = {r.key: r for r in self._rows}
        sets = dict(self._sets)
        for path, value in changes.items():
            if not isinstance(path, str):
                raise ComponentError(origin, clean(repr(path)), "a path must be a string")
            row = rows.get(path)
            if row is None:
                raise ComponentError(origin, clean(path), self._path_problem(path))
            container, last = _locate(data, path)
            old = container[last]
            sets[path] = copy.deepcopy(value)
            origins.paths[path] = idx
            if old == value and type(old) is type(value):
                continue
            origins.changed[path] = idx  # the ranges of earlier files no longer apply here
            container[last] = copy.deepcopy(value)
            table = _get(data, row.table)
            labels = list(dict.fromkeys(r.label for r in self._rows if r.table == row.table))
            _mark_estimate(table, row.label, labels)
        normalised, new_rows = validate(data, origins)
        return Components(normalised, new_rows, source=self.source, origins=origins, sets=sets)

    def _path_problem(self, path: str, what: str = "") -> str:
        try:
            _locate(self._data, path)
        except KeyError:
            keys = [r.key for r in self._rows if not what or r.provenance == "estimate"]
            close = difflib.get_close_matches(path, keys, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            return f"no such key{hint}"
        if what:
            return f"not {what} (a known value, or not a value)"
        return "not a value that can be set (only numbers, bonus targets and board spaces)"

    def __repr__(self) -> str:
        return (
            f"<Components source={self.source!r} {self.content_hash[:12]} "
            f"tiles={self.n_tiles} estimates={self.n_estimates}>"
        )


def _locate(data: dict, path: str) -> tuple[object, object]:
    """The container holding the last segment of ``path`` and that segment (KeyError if none)."""
    parts = path.split(".")
    node: object = data
    for part in parts[:-1]:
        node = _step(node, part)
    last: object = parts[-1]
    if isinstance(node, list):
        last = _index(node, last)
    elif not isinstance(node, dict) or last not in node:
        raise KeyError(path)
    return node, last


def _get(data: dict, path: str) -> object:
    node: object = data
    for part in path.split("."):
        node = _step(node, part)
    return node


def _index(node: list, part: str) -> int:
    index = digits(part)
    if index is None or index >= len(node):
        raise KeyError(part)
    return index


def _step(node: object, part: str) -> object:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list):
        return node[_index(node, part)]
    raise KeyError(part)


def _mark_estimate(table: dict, label: str, labels: list[str]) -> None:
    """Re-label one value of a table as an estimate "set by sweep", keeping the others."""
    prov = table["provenance"]
    per = {lb: prov for lb in labels} if isinstance(prov, str) else dict(prov)
    old_reason = table.get("reason")
    reasons = {}
    for lb in labels:
        if per[lb] == "estimate" and lb != label:
            reasons[lb] = old_reason if isinstance(old_reason, str) else old_reason[lb]
    reasons[label] = SWEEP_REASON
    per[label] = "estimate"
    known = [lb for lb in labels if per[lb] == "known"]
    source = table.get("source")
    if not known:
        table.pop("source", None)
    elif isinstance(source, dict):
        table["source"] = {lb: source[lb] for lb in known}
    kinds = set(per.values())
    table["provenance"] = kinds.pop() if len(kinds) == 1 else per
    texts = set(reasons.values())
    table["reason"] = (
        texts.pop() if len(texts) == 1 else {lb: reasons[lb] for lb in labels if lb in reasons}
    )
