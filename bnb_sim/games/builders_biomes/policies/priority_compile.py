"""Compile a priority-list bot file (``bot:FILE.toml``) into the parameter vector that the
interpreter kernel reads (layout in :mod:`bnb_sim.games.builders_biomes.policies.priority_layout`).

The format follows the buy rules of the Dominion simulators (Dominiate's ``gainPriority``,
Geronimoo's ``<buy>`` lists): per decision kind an ordered list of rules, each a choice with
optional conditions and caps; the first rule whose conditions hold and whose choice is legal
decides, and a built-in fallback policy decides everything else::

    name = "builder"
    fallback = "heuristic"

    [[turn]]
    choose = "build"
    when = "affordable_buildings >= 1"

    [[blocks]]
    choose = "needed"
    when = ["missing_blocks <= 3", "rounds_scored < 3"]
    max_per_turn = 2

Named thresholds (*bot parameters*) live in a ``[params]`` table and stand in for the number
of a condition; ``bot:FILE.toml:NAME=VALUE,...`` overrides them and ``bnb tune policy`` tunes
them. They are substituted into the condition bounds of the program (data, not code), so a new
value costs no numba compilation::

    [params]
    max_missing = { value = 4, min = 0, max = 10 }   # or simply: max_missing = 4

    [[turn]]
    choose = "collect"
    when = "missing_blocks >= 1 and missing_blocks <= max_missing"

Every problem is one line naming the file, the rule (``turn[2]``, counted from 1) and what is
wrong, with a did-you-mean where a name is close to a known one. Pure Python (no numba).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bnb_sim.errors import PolicyError
from bnb_sim.games.builders_biomes.policies.builtin_specs import simple_params, split_name
from bnb_sim.games.builders_biomes.policies.kinds import N_PARAMS
from bnb_sim.games.builders_biomes.policies.priority_layout import (
    B_FALLBACK,
    B_N_RULES,
    B_PHASES,
    B_RULES,
    CAPS,
    CHOICES,
    COND_SIZE,
    CONDITIONS,
    MAX_CONDS,
    MAX_RULES,
    PHASES,
    R_CHOICE,
    R_CONDS,
    R_N_CONDS,
    R_PHASE,
    RULE_SIZE,
)

TOP_KEYS = {"name", "description", "fallback", "params", "never", "always"}
PARAM_KEYS = ("value", "min", "max")
RULE_KEYS = {"choose", "when", "note"} | set(CAPS)
MAX_CAP = 1000
_COMPARISON = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|<|>|!=|=)\s*(\S+)\s*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class BotParam:
    """A named threshold of a bot file's ``[params]`` table: its value and allowed range."""

    name: str
    value: float
    lo: float  # -inf where the file gives no min
    hi: float  # inf where the file gives no max
    integer: bool  # written as a whole number: values stay whole numbers

    def to_dict(self) -> dict:
        out = {"value": int(self.value) if self.integer else self.value}
        out.update({k: v for k, v in (("min", self.lo), ("max", self.hi)) if math.isfinite(v)})
        return out


@dataclass(frozen=True)
class CompiledBot:
    """A bot file as the engine needs it, plus what reports show about it."""

    name: str
    params: tuple[float, ...]
    rules: tuple[str, ...]  # one label per rule, in program order: "turn[1]: build when ..."
    fallback: str
    thresholds: tuple[BotParam, ...] = ()  # the [params] table, overrides applied
    never: tuple[str, ...] = ()  # actions never taken (policies/restrictions.py)
    always: tuple[str, ...] = ()  # actions taken whenever legal


def _did_you_mean(word: str, known) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"


class _Problem(Exception):
    """A problem inside one rule; turned into a PolicyError naming file and rule."""


def _parse_comparison(text: str, thresholds: dict) -> tuple[str, str, float, bool]:
    """``NAME OP NUMBER`` or ``NAME OP PARAM`` -> (name, op, value, whether a PARAM)."""
    match = _COMPARISON.match(text)
    if not match:
        raise _Problem(f"condition '{text}' is not NAME OP NUMBER (OP: < <= > >= ==)")
    name, op, number = match.groups()
    if name not in CONDITIONS:
        raise _Problem(f"unknown condition '{name}'{_did_you_mean(name, CONDITIONS)}")
    if op == "!=":
        raise _Problem(f"condition '{text}': '!=' is not supported (use two rules, or < and >)")
    if op == "=":
        raise _Problem(f"condition '{text}': use '==' to compare")
    if number in thresholds:
        return name, op, thresholds[number].value, True
    if _IDENTIFIER.match(number) and number.lower() not in ("inf", "infinity", "nan"):
        hint = _did_you_mean(number, thresholds) if thresholds else " (declare it in [params])"
        raise _Problem(f"condition '{text}': '{number}' is not a number or a parameter{hint}")
    try:
        value = float(number)
    except ValueError:
        raise _Problem(f"condition '{text}': '{number}' is not a number") from None
    if not math.isfinite(value):
        raise _Problem(f"condition '{text}': '{number}' is not a finite number")
    return name, op, value, False


def _interval(name: str, op: str, value: float) -> tuple[float, float]:
    """The closed interval of values for which ``name OP value`` holds."""
    integer = CONDITIONS[name][1]
    inf = math.inf
    if op == ">=":
        return (math.ceil(value) if integer else value), inf
    if op == "<=":
        return -inf, (math.floor(value) if integer else value)
    if op == ">":
        return (math.floor(value) + 1 if integer else math.nextafter(value, inf)), inf
    if op == "<":
        return -inf, (math.ceil(value) - 1 if integer else math.nextafter(value, -inf))
    if integer and value != math.floor(value):
        return 1.0, 0.0  # an integer never equals a fraction
    return value, value


def _conditions(when, thresholds: dict, lenient: bool) -> list[tuple[int, float, float]]:
    """``when`` (a string with ``and``, or a list of strings) -> [(condition id, lo, hi)].

    ``lenient`` (overridden parameters): conditions that a parameter's value makes impossible
    give a rule that never fires (a legitimate outcome of a threshold) instead of an error;
    the file's own values are always checked strictly."""
    if isinstance(when, str):
        parts = [p for p in re.split(r"\band\b", when)]
    elif isinstance(when, list) and all(isinstance(p, str) for p in when):
        parts = [q for p in when for q in re.split(r"\band\b", p)]
    else:
        raise _Problem("'when' must be a string or a list of strings")
    if any(not p.strip() for p in parts):
        raise _Problem(f"'when' has an empty condition: '{when}'")
    bounds: dict[str, tuple[float, float]] = {}
    for part in parts:
        name, op, value, _ = _parse_comparison(part, thresholds)
        lo, hi = _interval(name, op, value)
        old_lo, old_hi = bounds.get(name, (-math.inf, math.inf))
        bounds[name] = (max(lo, old_lo), min(hi, old_hi))
    out = []
    for name, (lo, hi) in bounds.items():
        cid, _integer, smallest, largest, _ = CONDITIONS[name]
        if max(lo, smallest) > min(hi, largest):
            if lenient:
                out.append((cid, 1.0, 0.0))  # never holds: the kernel tests lo <= v <= hi
                continue
            raise _Problem(
                f"the conditions on '{name}' can never hold together "
                f"(it lies in [{_fmt(smallest)}, {_fmt(largest)}])"
            )
        out.append((cid, max(lo, -1e18), min(hi, 1e18)))
    if len(out) > MAX_CONDS:
        raise _Problem(f"at most {MAX_CONDS} different conditions per rule")
    return out


def _fmt(x: float) -> str:
    if abs(x) >= 1e9:
        return "-inf" if x < 0 else "inf"
    return f"{x:g}"


def _cap(rule: dict, key: str) -> float:
    if key not in rule:
        return -1.0
    value = rule[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Problem(f"'{key}' must be a whole number, got {value!r}")
    if not 1 <= value <= MAX_CAP:
        raise _Problem(f"'{key}' must be between 1 and {MAX_CAP}, got {value}")
    return float(value)


def _compile_rule(
    kind: str, rule, phase: int, thresholds: dict, lenient: bool
) -> tuple[np.ndarray, str]:
    if not isinstance(rule, dict):
        raise _Problem("a rule must be a table with 'choose' (write [[kind]] sections)")
    unknown = [key for key in rule if key not in RULE_KEYS]
    if unknown:
        raise _Problem(f"unknown key '{unknown[0]}'{_did_you_mean(unknown[0], sorted(RULE_KEYS))}")
    if "choose" not in rule:
        raise _Problem("missing 'choose'")
    choice = rule["choose"]
    if not isinstance(choice, str):
        raise _Problem(f"'choose' must be a string, got {choice!r}")
    valid = [n for n, (_, kinds, _) in CHOICES.items() if kinds is None or kind in kinds]
    if choice not in CHOICES:
        raise _Problem(f"unknown choice '{choice}'{_did_you_mean(choice, valid)}")
    if choice not in valid:
        raise _Problem(f"choice '{choice}' does not apply to '{kind}' (valid: {', '.join(valid)})")
    if "note" in rule and not isinstance(rule["note"], str):
        raise _Problem("'note' must be a string")
    conds = _conditions(rule["when"], thresholds, lenient) if "when" in rule else []
    record = np.zeros(RULE_SIZE)
    record[R_CHOICE] = CHOICES[choice][0]
    record[R_PHASE] = phase
    record[R_N_CONDS] = len(conds)
    for key, (slot, _) in CAPS.items():
        record[slot] = _cap(rule, key)
    for j, (cid, lo, hi) in enumerate(conds):
        base = R_CONDS + COND_SIZE * j
        record[base : base + 3] = (cid, lo, hi)
    label = choice
    if "when" in rule:
        when = rule["when"] if isinstance(rule["when"], str) else " and ".join(rule["when"])
        label += f" when {' '.join(when.split())}"
    for key in CAPS:
        if key in rule:
            label += f", {key}={rule[key]}"
    return record, label


def _fallback(value, where: str) -> tuple[int, tuple[float, ...], str]:
    if not isinstance(value, str):
        raise PolicyError(f"{where}: 'fallback' must be a policy name such as \"heuristic\"")
    name = value.partition(":")[0]
    allowed = ("random", "greedy", "heuristic")
    if name not in allowed:
        raise PolicyError(
            f"{where}: fallback '{value}' must be one of {', '.join(allowed)}"
            f"{_did_you_mean(name, allowed) if name not in allowed else ''}"
        )
    spec = value.strip()
    if "+never" in spec or "+always" in spec:  # a restriction here would be dropped
        raise PolicyError(
            f"{where}: fallback '{value}' takes no +never/+always "
            "(the file's own 'never' and 'always' keys restrict the bot)"
        )
    try:
        kind, params = simple_params(*split_name(spec))
    except PolicyError as exc:
        raise PolicyError(f"{where}: fallback: {exc}") from None
    return kind, params, spec


def _number_of(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PolicyError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise PolicyError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def _declared_params(data: dict, where: str) -> dict[str, BotParam]:
    """The ``[params]`` table: ``NAME = NUMBER`` or ``NAME = { value, min, max }``."""
    table = data.get("params", {})
    if not isinstance(table, dict):
        raise PolicyError(f"{where}: 'params' must be a table ([params] with NAME = NUMBER)")
    out = {}
    for name, raw in table.items():
        what = f"{where}: parameter '{name}'"
        if not _IDENTIFIER.match(name):
            raise PolicyError(f"{what}: a name is letters, digits and '_' (not first a digit)")
        if name in CONDITIONS:
            raise PolicyError(f"{what}: a condition has this name; choose another")
        if isinstance(raw, dict):
            unknown = [k for k in raw if k not in PARAM_KEYS]
            if unknown:
                known = _did_you_mean(unknown[0], PARAM_KEYS)
                raise PolicyError(f"{what}: unknown key '{unknown[0]}'{known}")
            if "value" not in raw:
                raise PolicyError(f"{what}: missing 'value'")
        else:
            raw = {"value": raw}
        value = _number_of(raw["value"], what)
        integer = isinstance(raw["value"], int)
        lo = _number_of(raw["min"], f"{what}: 'min'") if "min" in raw else -math.inf
        hi = _number_of(raw["max"], f"{what}: 'max'") if "max" in raw else math.inf
        if integer and any(math.isfinite(b) and not b.is_integer() for b in (lo, hi)):
            raise PolicyError(f"{what}: a whole-number parameter needs whole-number min and max")
        if lo > hi:
            raise PolicyError(f"{what}: min {lo:g} is larger than max {hi:g}")
        param = BotParam(name, value, lo, hi, integer)
        out[name] = _checked(param, value, what)
    return out


def _checked(param: BotParam, value: float, what: str) -> BotParam:
    """``param`` with ``value``, refused outside its range or as a fraction of a whole number."""
    if param.integer and not float(value).is_integer():
        raise PolicyError(f"{what} must be a whole number, got {value:g}")
    if not param.lo <= value <= param.hi:
        raise PolicyError(
            f"{what} = {value:g} is outside its range [{_fmt(param.lo)}, {_fmt(param.hi)}]"
        )
    return BotParam(param.name, float(value), param.lo, param.hi, param.integer)


def _overridden(declared: dict, overrides: dict, where: str) -> dict[str, BotParam]:
    out = dict(declared)
    for name, value in overrides.items():
        if name not in declared:
            known = _did_you_mean(name, declared) if declared else " (the file has no [params])"
            raise PolicyError(f"{where}: unknown parameter '{name}'{known}")
        out[name] = _checked(declared[name], value, f"{where}: parameter '{name}'")
    return out


def _referenced(data: dict) -> set[str]:
    """Every word that stands where a condition's number goes, in any rule."""
    words = set()
    for kind in PHASES:
        rules = data.get(kind, [])
        for rule in rules if isinstance(rules, list) else []:
            when = rule.get("when", []) if isinstance(rule, dict) else []
            when = [when] if isinstance(when, str) else when
            for text in when if isinstance(when, list) else []:
                for part in re.split(r"\band\b", str(text)):
                    match = _COMPARISON.match(part)
                    if match:
                        words.add(match.group(3))
    return words


def compile_bot(data: dict, where: str, overrides: dict | None = None) -> CompiledBot:
    """Compile parsed TOML ``data``; ``where`` names the file in messages; ``overrides``
    (name -> number) replace values of its ``[params]`` table (checked against it)."""
    declared = _declared_params(data, where)
    bot = _compile(data, where, declared, lenient=False)
    unused = [name for name in declared if name not in _referenced(data)]
    if unused:  # most likely a misspelt reference, or a rule deleted and its threshold kept
        raise PolicyError(f"{where}: parameter '{unused[0]}' is not used by any condition")
    if not overrides:
        return bot
    return _compile(data, where, _overridden(declared, overrides, where), lenient=True)


def _compile(data: dict, where: str, thresholds: dict, lenient: bool) -> CompiledBot:
    unknown = [key for key in data if key not in TOP_KEYS and key not in PHASES]
    if unknown:
        known = sorted(TOP_KEYS | set(PHASES))
        raise PolicyError(
            f"{where}: unknown decision kind or key "
            f"'{unknown[0]}'{_did_you_mean(unknown[0], known)}"
        )
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise PolicyError(f"{where}: '{key}' must be a string")
    kind, weights, fallback = _fallback(data.get("fallback", "heuristic"), where)
    params = np.zeros(B_RULES)
    params[: len(weights)] = weights
    params[B_FALLBACK] = kind
    records = []
    labels = []
    for name, (phase, _) in PHASES.items():
        rules = data.get(name, [])
        if not isinstance(rules, list):
            raise PolicyError(f"{where}: '{name}' must be a list of rules (write [[{name}]])")
        params[B_PHASES + 2 * phase] = len(records)
        params[B_PHASES + 2 * phase + 1] = len(rules)
        for i, rule in enumerate(rules, start=1):
            try:
                record, label = _compile_rule(name, rule, phase, thresholds, lenient)
            except _Problem as exc:
                raise PolicyError(f"{where}: rule {name}[{i}]: {exc}") from None
            records.append(record)
            labels.append(f"{name}[{i}]: {label}")
    if len(records) > MAX_RULES:
        raise PolicyError(f"{where}: {len(records)} rules, at most {MAX_RULES} are supported")
    params[B_N_RULES] = len(records)
    program = np.concatenate([params] + records) if records else params
    assert N_PARAMS <= B_FALLBACK
    never, always = _restrictions(data, where)
    return CompiledBot(
        name=data.get("name", ""),
        params=tuple(float(x) for x in program),
        rules=tuple(labels),
        fallback=fallback,
        thresholds=tuple(thresholds.values()),
        never=never,
        always=always,
    )


def _restrictions(data: dict, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The file's ``never`` and ``always`` lists (syntax checked; names of items, mobs and
    building types are checked once the run's components are known)."""
    from bnb_sim.games.builders_biomes.policies.restrictions import check_pair, check_words

    never = check_words(data["never"], "never", where) if "never" in data else ()
    always = check_words(data["always"], "always", where) if "always" in data else ()
    check_pair(never, always, where)
    return never, always


def split_bot_arg(arg: str) -> tuple[str, str]:
    """``FILE`` or ``FILE:NAME=VALUE,...`` (what follows ``bot:``) -> ``(FILE, assignments)``.

    Only a last ``:``-separated part that holds an ``=`` is read as assignments, so a path with
    a colon (``C:\\bots\\b.toml``, ``dir:x/b.toml``) stays a path."""
    path, colon, tail = arg.rpartition(":")
    if colon and path.strip() and "=" in tail:
        return path.strip(), tail
    return arg.strip(), ""


def bot_spec(path: str, values: dict, integers=()) -> str:
    """The policy spec ``bot:PATH:NAME=VALUE,...`` (whole-number parameters as integers)."""
    parts = [f"{k}={int(v) if k in integers else repr(float(v))}" for k, v in values.items()]
    return f"bot:{path}:{','.join(parts)}" if parts else f"bot:{path}"


def load_bot(path: str, overrides: dict | None = None) -> CompiledBot:
    """Read and compile a bot file, ``overrides`` (name -> number) replacing values of its
    ``[params]`` (raises PolicyError with one line)."""
    from bnb_sim.entry_points import read_small_toml as _read_toml

    where = f"bot file {path}"
    file = Path(path)
    if not file.is_file():
        raise PolicyError(f"{where}: no such file")
    data = _read_toml(file, where, weights_table=False)
    return compile_bot(data, where, overrides)
