"""Plausible ranges of estimated component values, for every game (docs/components.md, "Ranges").

A component file gives the ranges of its estimates in ``[[ranges]]`` entries::

    [[ranges]]
    keys = "weapons.*.hearts"          # dotted keys; `*` stands for any part of one segment
    around = 1                         # the value, one either way (or range = [low, high],
    within = [0, 6]                    #   or choices = [...] for a category)
    reason = "EST-2: tier order, one heart either way"

An entry applies to the *estimated* values its keys name; a later entry replaces an earlier
one for the keys it names. A range belongs to the value it was written for: when a later file
(an override, ``--set``, a sweep) sets a value, the ranges of earlier files no longer apply to
it. ``balance`` names a value moved the other way by the same amount, so a total that the
rules fix stays whole when this one moves.

This module holds what every game shares: :class:`Estimate` (one estimated value with its
range and reason), the parsing of ``[[ranges]]`` (:func:`parse_ranges`) and their resolution
against a game's values (:func:`resolve`). A game supplies its values, the bounds its
validator accepts at each key (:class:`Domain`) and where each value came from. Pure Python.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bnb_sim.errors import ComponentError
from bnb_sim.toml_files import clean

RANGE_FIELDS = ("keys", "range", "around", "within", "choices", "balance", "reason")
ANY = "any"  # choices = "any": every value the file accepts at that key
MAX_ENTRIES = 2000
MAX_CHOICES = 64
MAX_NOTE = 500
_PART = re.compile(r"[A-Za-z0-9_*-]{1,60}\Z")


@dataclass(frozen=True)
class Domain:
    """What a game's validator accepts at one key: integers ``lo..hi``, one of ``options``,
    or whatever ``check`` passes (it returns a problem, or None)."""

    lo: int | None = None
    hi: int | None = None
    options: tuple | None = None
    check: Callable[[object], str | None] | None = None

    def problem(self, value: object) -> str | None:
        if self.check is not None:
            return self.check(value)
        if self.options is not None:
            if any(type(o) is type(value) and o == value for o in self.options):
                return None
            return f"{_show(value)} is not one of {', '.join(map(_show, self.options))}"
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{_show(value)} is not an integer"
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            return f"{value} is outside what the file accepts here ({self.lo}..{self.hi})"
        return None


@dataclass(frozen=True)
class Estimate:
    """One estimated value: its dotted key (the path ``--set`` takes), its value, the range a
    real box could plausibly hold (``low..high`` for a number, ``choices`` for a category) and
    the reason for it. An estimate without a range (one a user's file added) has
    ``low = high = choices = None``. ``balance`` is the key moved the other way with it."""

    key: str
    value: object
    low: int | None = None
    high: int | None = None
    choices: tuple | None = None
    reason: str = ""
    balance: str | None = None
    balance_value: int | None = None  # the balancing value now
    file: str = ""  # the file that gave the range

    @property
    def has_range(self) -> bool:
        return self.low is not None or self.choices is not None

    @property
    def kind(self) -> str:
        """``"number"``, ``"category"``, or ``"none"`` (no range given)."""
        if self.low is not None:
            return "number"
        return "category" if self.choices is not None else "none"

    @property
    def fixed(self) -> bool:
        """True when the range holds only the value itself (nothing to move)."""
        return not self.alternatives()

    def alternatives(self) -> list:
        """The values to try instead of the current one: the range's ends, or the other
        choices (what a sensitivity analysis moves the estimate to, one at a time)."""
        if self.low is not None:
            return [v for v in dict.fromkeys((self.low, self.high)) if v != self.value]
        if self.choices is not None:
            return [c for c in self.choices if not _same(c, self.value)]
        return []

    def contains(self, value: object) -> bool:
        if self.low is not None:
            return _is_int(value) and self.low <= value <= self.high
        if self.choices is not None:
            return any(_same(c, value) for c in self.choices)
        return _same(value, self.value)

    def changes(self, value: object) -> dict[str, object]:
        """``{key: value}`` (and the balancing key's new value): what to set to move this
        estimate to ``value``. Refuses a value outside the range."""
        if not self.contains(value):
            raise ComponentError(
                "estimate", self.key, f"{_show(value)} is outside its range {self.range_text()}"
            )
        out: dict[str, object] = {self.key: value}
        if self.balance is not None and value != self.value:
            out[self.balance] = self.balance_value - (value - self.value)
        return out

    def range_text(self) -> str:
        """``"1..3"``, ``"X, A, B"``, ``"2 layouts"`` or ``"no range"``."""
        if self.low is not None:
            return f"{self.low}..{self.high}"
        if self.choices is None:
            return "no range"
        if any(isinstance(c, list) for c in self.choices):
            return f"{len(self.choices)} choices"
        return ", ".join(map(_show, self.choices))

    def to_dict(self) -> dict:
        out: dict = {"key": self.key, "value": self.value}
        if self.low is not None:
            out.update(low=self.low, high=self.high)
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.balance is not None:
            out["balance"] = self.balance
        out["reason"] = self.reason if self.has_range else "no range given"
        return out

    def row_fields(self) -> dict:
        """The range as extra fields of a provenance row (``components show --json``):
        low/high or choices, balance, and ``range_reason`` (the row's own note or reason
        says why the value was chosen; this says why the range is plausible)."""
        out = {k: v for k, v in self.to_dict().items() if k not in ("key", "value", "reason")}
        out["range_reason"] = self.to_dict()["reason"]
        return out


@dataclass(frozen=True)
class RangeRule:
    """One ``[[ranges]]`` entry of one file, checked for form."""

    patterns: tuple[str, ...]
    reason: str
    file: str
    file_index: int
    entry: int
    low: int | None = None
    high: int | None = None
    around: int | None = None
    within: tuple[int, int] | None = None
    choices: tuple | str | None = None
    balance: str | None = None

    @property
    def where(self) -> str:
        return f"ranges.{self.entry}"


def _show(value: object) -> str:
    return clean(json.dumps(value) if isinstance(value, (list, str)) else repr(value), 60)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _fail(file: str, key: str, problem: str):
    raise ComponentError(clean(file, 300), clean(key), clean(problem, 400))


def _pair(value: object, file: str, key: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(map(_is_int, value))):
        _fail(file, key, f"must be [low, high], two integers; got {_show(value)}")
    low, high = value
    if low > high:
        _fail(file, key, f"low {low} is more than high {high}")
    return low, high


def _patterns(value: object, file: str, key: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        _fail(file, key, 'must be a dotted key or a list of them, e.g. "weapons.*.hearts"')
    for item in items:
        if not isinstance(item, str) or not all(map(_PART.match, item.split("."))):
            _fail(file, key, f"{_show(item)} is not a dotted key (parts of letters, digits, _, *)")
    return tuple(items)


def _choices(value: object, file: str, key: str) -> tuple | str:
    if value == ANY:
        return ANY
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CHOICES:
        _fail(file, key, f'must be a list of 1 to {MAX_CHOICES} values, or "{ANY}"')
    seen = set()
    for item in value:
        if isinstance(item, (bool, float, dict)):
            _fail(file, key, f"{_show(item)}: a choice is a name, an integer or a list")
        text = json.dumps(item, sort_keys=True)
        if text in seen:
            _fail(file, key, f"{_show(item)} is listed twice")
        seen.add(text)
    return tuple(value)


def parse_ranges(raw: object, file: str, file_index: int) -> list[RangeRule]:
    """The ``[[ranges]]`` entries of one file, each checked for form (the first problem
    raises :class:`ComponentError` naming the file, ``ranges.N.field`` and the problem)."""
    if not isinstance(raw, list) or len(raw) > MAX_ENTRIES:
        _fail(file, "ranges", f"must be [[ranges]] tables (at most {MAX_ENTRIES})")
    rules = []
    for i, entry in enumerate(raw):
        where = f"ranges.{i}"
        if not isinstance(entry, dict):
            _fail(file, where, "must be a table ([[ranges]])")
        for k in entry:
            if k not in RANGE_FIELDS:
                _fail(file, f"{where}.{k}", f"unknown key (allowed: {', '.join(RANGE_FIELDS)})")
        for k in ("keys", "reason"):
            if k not in entry:
                _fail(file, f"{where}.{k}", "missing (required)")
        reason = entry["reason"]
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
            _fail(file, f"{where}.reason", "must be one line of text: why this range")
        if len(reason) > MAX_NOTE:
            _fail(file, f"{where}.reason", f"longer than {MAX_NOTE} characters")
        forms = [k for k in ("range", "around", "choices") if k in entry]
        if len(forms) != 1:
            _fail(file, where, "give exactly one of range = [low, high], around = N, choices")
        kw: dict = {}
        if "range" in entry:
            kw["low"], kw["high"] = _pair(entry["range"], file, f"{where}.range")
        if "around" in entry:
            around = entry["around"]
            if not _is_int(around) or around < 0:
                _fail(file, f"{where}.around", f"must be an integer >= 0, got {_show(around)}")
            kw["around"] = around
        if "within" in entry:
            if "around" not in entry:
                _fail(file, f"{where}.within", "goes with around = N only")
            kw["within"] = _pair(entry["within"], file, f"{where}.within")
        if "choices" in entry:
            kw["choices"] = _choices(entry["choices"], file, f"{where}.choices")
        if "balance" in entry:
            balance = entry["balance"]
            if "choices" in entry:
                _fail(file, f"{where}.balance", "goes with a number range only")
            if not isinstance(balance, str) or "*" in balance:
                _fail(file, f"{where}.balance", "must be one dotted key (no *)")
            _patterns(balance, file, f"{where}.balance")
            kw["balance"] = balance
        patterns = _patterns(entry["keys"], file, f"{where}.keys")
        rules.append(RangeRule(patterns, reason, file, file_index, i, **kw))
    return rules


def _matcher(pattern: str) -> re.Pattern:
    parts = [re.escape(p).replace(r"\*", "[^.]*") for p in pattern.split(".")]
    return re.compile(r"\.".join(parts) + r"\Z")


def origin_of(origins: Mapping[str, int], key: str) -> int:
    """The index of the file that set the value at ``key``: the entry of ``origins`` (dotted
    key -> file index) for the key or the nearest table or list above it; 0 if none."""
    parts = key.split(".")
    for n in range(len(parts), 0, -1):
        idx = origins.get(".".join(parts[:n]))
        if idx is not None:
            return idx
    return 0


def _label_origin(origins: Mapping[str, int], key: str) -> int:
    """The file that set the value or last restated the provenance of a table above it."""
    parts = key.split(".")
    restated = (origins.get(".".join(parts[:n]) + ".provenance", 0) for n in range(len(parts)))
    return max(origin_of(origins, key), *restated)


def resolve(
    values: Mapping[str, tuple[object, str]],
    rules: Sequence[RangeRule],
    *,
    origins: Mapping[str, int],
    domain_of: Callable[[str], Domain | None],
) -> list[Estimate]:
    """One :class:`Estimate` per estimated value, in the order of ``values`` (key ->
    (value, provenance)), each with the range of the last rule that names it. ``origins``
    maps dotted keys to the index of the file that set them: a rule from a file earlier than
    the one that set a value does not apply to it. Every applying range is checked: it holds
    the value, its ends or choices are values the game accepts (``domain_of``), and a balance
    keeps its partner valid and in its own range."""
    keys = list(values)
    applies: dict[str, RangeRule] = {}
    for rule in sorted(rules, key=lambda r: (r.file_index, r.entry)):
        for pattern in rule.patterns:
            if "*" in pattern:
                matcher = _matcher(pattern)
                matched = [k for k in keys if matcher.match(k)]
            else:
                matched = [pattern] if pattern in values else []
            if not matched:
                _fail(rule.file, f"{rule.where}.keys", f"'{pattern}' names no value")
            for key in matched:
                if origin_of(origins, key) > rule.file_index:
                    continue  # set by a later file: this range was for the value it replaced
                if values[key][1] != "estimate":
                    if "*" not in pattern and _label_origin(origins, key) <= rule.file_index:
                        _fail(rule.file, key, f"is a known value: only estimates have ranges "
                              f"({rule.where})")  # fmt: skip
                    continue
                applies[key] = rule
    out = {}
    for key, (value, provenance) in values.items():
        if provenance != "estimate":
            continue
        rule = applies.get(key)
        stale = (
            rule is not None
            and rule.balance is not None
            and (rule.balance in values and origin_of(origins, rule.balance) > rule.file_index)
        )
        if rule is None or stale:
            out[key] = Estimate(key, value)
            continue
        if rule.balance is not None and (rule.balance == key or rule.balance not in values):
            _fail(rule.file, key, f"balance {rule.balance}: names no other value ({rule.where})")
        partner = values[rule.balance][0] if rule.balance is not None else None
        out[key] = _estimate(rule, key, value, domain_of(key), partner)
    for est in out.values():
        if est.balance is not None:
            _check_balance(est, applies[est.key], values, out, domain_of)
    return list(out.values())


def _estimate(
    rule: RangeRule, key: str, value: object, domain: Domain | None, partner: object
) -> Estimate:
    def bad(problem: str):
        _fail(rule.file, key, f"{problem} ({rule.where})")

    base = {"reason": rule.reason, "file": rule.file}
    if rule.choices is not None:
        choices = rule.choices
        if choices == ANY:
            if domain is None or domain.options is None:
                bad('choices = "any" needs a value with a fixed set of names')
            choices = domain.options
        for choice in choices:
            problem = domain.problem(choice) if domain is not None else None
            if problem:
                bad(f"choice {_show(choice)}: {problem}")
        if not any(_same(c, value) for c in choices):
            bad(f"the choices do not include the value {_show(value)}")
        return Estimate(key, value, choices=tuple(choices), **base)
    if not _is_int(value):
        bad(f"a number range for the value {_show(value)}: give choices instead")
    if rule.around is not None:
        lo, hi = value - rule.around, value + rule.around
        if rule.within is not None:
            lo, hi = max(lo, rule.within[0]), min(hi, rule.within[1])
        if domain is not None and domain.lo is not None:
            lo, hi = max(lo, domain.lo), min(hi, domain.hi)
    else:
        lo, hi = rule.low, rule.high
    if not lo <= value <= hi:
        bad(f"range {lo}..{hi} does not contain the value {value}")
    for end in (lo, hi):
        problem = domain.problem(end) if domain is not None else None
        if problem:
            bad(f"range {lo}..{hi}: {problem}")
    return Estimate(
        key, value, low=lo, high=hi, balance=rule.balance, balance_value=partner, **base
    )


def _check_balance(est: Estimate, rule: RangeRule, values, out, domain_of) -> None:
    def bad(problem: str):
        _fail(rule.file, est.key, f"balance {rule.balance}: {problem} ({rule.where})")

    partner = est.balance_value
    if not _is_int(partner):
        bad(f"is not a number ({_show(partner)})")
    domain = domain_of(est.balance)
    own = out.get(est.balance)
    for end in (est.low, est.high):
        moved = partner - (end - est.value)
        problem = domain.problem(moved) if domain is not None else None
        if problem is None and own is not None and own.low is not None and not own.contains(moved):
            problem = f"{moved} is outside its own range {own.range_text()}"
        if problem:
            bad(f"moving {est.key} to {end} moves it to {moved}: {problem}")


def _plain(value: object) -> str:
    return value if isinstance(value, str) else _show(value)


def _span(est: Estimate) -> str:
    if est.choices is not None and not any(isinstance(c, list) for c in est.choices):
        text = ", ".join(map(_plain, est.choices))
    else:
        text = est.range_text()
    return text + (f", balanced by {est.balance}" if est.balance else "")


def describe(estimates: Sequence[Estimate], width: int = 100) -> list[str]:
    """The lines of ``bnb components show`` that give each estimate its range, grouped by
    reason: ``  - REASON``, the range when the group shares one, then ``key value (range)``
    entries, wrapped to ``width``."""
    import textwrap

    groups: dict[str, list[Estimate]] = {}
    for est in estimates:
        reason = est.reason if est.has_range else (
            "no range given: an estimate a component file added without one "
            "(give it a [[ranges]] entry, docs/components.md)"
        )  # fmt: skip
        groups.setdefault(reason, []).append(est)
    out = []
    for reason, members in groups.items():
        out += textwrap.wrap(reason, width, initial_indent="  - ", subsequent_indent="    ")
        spans = {_span(e) for e in members if e.has_range}
        shared = len(members) > 1 and len(spans) == 1
        if shared:
            out += textwrap.wrap(f"range: {spans.pop()}", width, initial_indent=" " * 6,
                                 subsequent_indent=" " * 8, break_on_hyphens=False)  # fmt: skip
        entries = []
        for e in members:
            value = "" if isinstance(e.value, list) else f" {_plain(e.value)}"
            span = "" if shared or not e.has_range else f" ({_span(e)})"
            entries.append(f"{e.key}{value}{span}".replace(" ", "\xa0"))  # one line each
        lines = textwrap.wrap("; ".join(entries), width, initial_indent=" " * 6,
                              subsequent_indent=" " * 6, break_on_hyphens=False)  # fmt: skip
        out += [line.replace("\xa0", " ") for line in lines]
    return out or ["  (none)"]


def used_estimates(estimates: Sequence[Estimate], keys: Sequence[str]) -> list[dict]:
    """The estimates among ``keys`` (in that order), as dicts for a command's ``--json``:
    key, value, low/high or choices, reason."""
    by_key = {e.key: e for e in estimates}
    return [by_key[k].to_dict() for k in dict.fromkeys(keys) if k in by_key]


def short_list(used: Sequence[dict]) -> str:
    """``weapons.wooden_sword.hearts = 1 (1..2), ...``: the one line naming them."""
    parts = []
    for e in used:
        if "low" in e:
            span = f" (plausible {e['low']}..{e['high']})"
        elif "choices" in e and not any(isinstance(c, list) for c in e["choices"]):
            span = f" (plausible {', '.join(map(_show, e['choices']))})"
        elif "choices" in e:
            span = f" ({len(e['choices'])} plausible choices)"
        else:
            span = ""
        value = f" = {_show(e['value'])}"
        parts.append(f"{e['key']}{value}{span}")
    return ", ".join(parts)
