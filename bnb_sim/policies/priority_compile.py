"""Compile a priority-list bot file (``bot:FILE.toml``) into the parameter vector that the
interpreter kernel reads (layout in :mod:`bnb_sim.policies.priority_layout`).

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
from bnb_sim.policies.kinds import GREEDY, HEURISTIC, N_PARAMS, RANDOM
from bnb_sim.policies.priority_layout import (
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

TOP_KEYS = {"name", "description", "fallback"}
RULE_KEYS = {"choose", "when", "note"} | set(CAPS)
MAX_CAP = 1000
_COMPARISON = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|<|>|!=|=)\s*(\S+)\s*$")


@dataclass(frozen=True)
class CompiledBot:
    """A bot file as the engine needs it, plus what reports show about it."""

    name: str
    params: tuple[float, ...]
    rules: tuple[str, ...]  # one label per rule, in program order: "turn[1]: build when ..."
    fallback: str


def _did_you_mean(word: str, known) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"


class _Problem(Exception):
    """A problem inside one rule; turned into a PolicyError naming file and rule."""


def _parse_comparison(text: str) -> tuple[str, str, float]:
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
    try:
        value = float(number)
    except ValueError:
        raise _Problem(f"condition '{text}': '{number}' is not a number") from None
    if not math.isfinite(value):
        raise _Problem(f"condition '{text}': '{number}' is not a finite number")
    return name, op, value


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


def _conditions(when) -> list[tuple[int, float, float]]:
    """``when`` (a string with ``and``, or a list of strings) -> [(condition id, lo, hi)]."""
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
        name, op, value = _parse_comparison(part)
        lo, hi = _interval(name, op, value)
        old_lo, old_hi = bounds.get(name, (-math.inf, math.inf))
        bounds[name] = (max(lo, old_lo), min(hi, old_hi))
    out = []
    for name, (lo, hi) in bounds.items():
        cid, _integer, smallest, largest, _ = CONDITIONS[name]
        if max(lo, smallest) > min(hi, largest):
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


def _compile_rule(kind: str, rule, phase: int) -> tuple[np.ndarray, str]:
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
    conds = _conditions(rule["when"]) if "when" in rule else []
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
    from bnb_sim.policies.registry import parse_policy

    if not isinstance(value, str):
        raise PolicyError(f"{where}: 'fallback' must be a policy name such as \"heuristic\"")
    name = value.partition(":")[0]
    allowed = ("random", "greedy", "heuristic")
    if name not in allowed:
        raise PolicyError(
            f"{where}: fallback '{value}' must be one of {', '.join(allowed)}"
            f"{_did_you_mean(name, allowed) if name not in allowed else ''}"
        )
    try:
        spec = parse_policy(value)
    except PolicyError as exc:
        raise PolicyError(f"{where}: fallback: {exc}") from None
    assert spec.kind in (RANDOM, GREEDY, HEURISTIC)
    return spec.kind, spec.params, spec.label


def compile_bot(data: dict, where: str) -> CompiledBot:
    """Compile parsed TOML ``data``; ``where`` names the file in messages."""
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
                record, label = _compile_rule(name, rule, phase)
            except _Problem as exc:
                raise PolicyError(f"{where}: rule {name}[{i}]: {exc}") from None
            records.append(record)
            labels.append(f"{name}[{i}]: {label}")
    if len(records) > MAX_RULES:
        raise PolicyError(f"{where}: {len(records)} rules, at most {MAX_RULES} are supported")
    params[B_N_RULES] = len(records)
    program = np.concatenate([params] + records) if records else params
    assert N_PARAMS <= B_FALLBACK
    return CompiledBot(
        name=data.get("name", ""),
        params=tuple(float(x) for x in program),
        rules=tuple(labels),
        fallback=fallback,
    )


def load_bot(path: str) -> CompiledBot:
    """Read and compile a bot file (raises PolicyError with one line)."""
    from bnb_sim.policies.registry import _read_toml

    where = f"bot file {path}"
    file = Path(path)
    if not file.is_file():
        raise PolicyError(f"{where}: no such file")
    data = _read_toml(file, where, weights_table=False)
    return compile_bot(data, where)
