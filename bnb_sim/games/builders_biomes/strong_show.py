"""What a ``strong`` model values, in words and numbers (``bnb train show FILE``). Pure Python."""

from __future__ import annotations

from bnb_sim.games.builders_biomes.policies.kinds import (
    HEURISTIC_DEFAULTS,
    HEURISTIC_WEIGHTS,
    STRONG_BIASES,
    STRONG_FEATURES,
    STRONG_PACING,
    STRONG_STAGES,
)
from bnb_sim.games.builders_biomes.strong_model import StrongModel

ACTIONS = {
    "bias_collect": "collecting blocks",
    "bias_explore": "exploring",
    "bias_build": "building",
    "bias_fight": "fighting a mob",
    "bias_weapon": "taking a weapon",
    "bias_buy": "buying at the market",
}
SHORT = {
    "xp": "XP now",
    "board": "board value",
    "bonus_mob": "bonus mob",
    "hunger_mob": "hunger mob",
    "block_need": "needed block",
    "block_wild": "emerald",
    "block_base": "any block",
    "weapon": "stronger pile",
    "reveal": "revealed stack",
    "position": "waiting build/fight",
    "trigger": "trigger lead",
    "tnt": "keeping TNT",
    "extra_threshold": "extra-action bar",
    "fm_item": "market item XP",
    "fm_vegetable": "vegetable kept",
}


def heuristic_value(name: str) -> float:
    """What ``heuristic`` puts on a feature (0 for the terms it does not have)."""
    names = list(HEURISTIC_WEIGHTS)
    return HEURISTIC_DEFAULTS[names.index(name)] if name in names else 0.0


def _meaning(name: str) -> str:
    if name in HEURISTIC_WEIGHTS:
        return HEURISTIC_WEIGHTS[name][1]
    return STRONG_BIASES.get(name) or STRONG_PACING.get(name, "")


def table_lines(model: StrongModel) -> list[str]:
    """One row per feature: its value in each stage and the heuristic's."""
    head = f"  {'feature':<18}" + "".join(f"{s:>16}" for s in STRONG_STAGES)
    lines = [head + f"{'heuristic':>11}  meaning"]
    for j, name in enumerate(STRONG_FEATURES):
        values = [model.weights[s * len(STRONG_FEATURES) + j] for s in range(len(STRONG_STAGES))]
        row = f"  {name:<18}" + "".join(f"{v:>16.3f}" for v in values)
        lines.append(row + f"{heuristic_value(name):>11.3f}  {_meaning(name)}")
    return lines


def _stage_words(indices: list[int]) -> str:
    if len(indices) == len(STRONG_STAGES):
        return "all game"
    return " and ".join(STRONG_STAGES[i] for i in indices)


def sentences(model: StrongModel, limit: int = 8) -> list[str]:
    """The biggest departures from the heuristic, as sentences (largest first)."""
    found: list[tuple[float, str]] = []
    n = len(STRONG_FEATURES)
    for j, name in enumerate(STRONG_FEATURES):
        if name in ("xp", "fm_item", "fm_vegetable", "bias_buy") and model.expansion == "none":
            continue
        base = heuristic_value(name)
        values = [model.weights[s * n + j] for s in range(len(STRONG_STAGES))]
        for sign in (1, -1):
            stages = [s for s, v in enumerate(values) if sign * (v - base) > 0.25]
            if not stages:
                continue
            size = max(abs(values[s] - base) for s in stages)
            shown = ", ".join(f"{values[s]:+.2f}" for s in stages)
            when = _stage_words(stages)
            if name in ACTIONS:
                verb = "favours" if sign > 0 else "holds back from"
                text = f"{verb} {ACTIONS[name]} {when} ({shown} XP at the turn decision)"
            elif name == "pace_near":
                verb = "hurries" if sign > 0 else "delays"
                text = f"{verb} a scoring round it leads, {when} (pace {shown} per XP of lead)"
            elif name == "pace_last_two":
                verb = "likes" if sign > 0 else "avoids"
                text = (
                    f"{verb} leaving 1-2 blocks in a layer it leads, {when} ({shown} per XP "
                    "of lead)"
                )
            else:
                more = "more" if sign > 0 else "less"
                text = (
                    f"values {SHORT.get(name, name)} {more} than the heuristic {when} "
                    f"({shown} against {base:.2f}: {_meaning(name)})"
                )
            if name == "reveal" and any(values[s] < 0 for s in stages):
                text += "; below 0 it avoids turning up tiles the others could use"
            found.append((size, text))
    found.sort(key=lambda item: -item[0])
    return [text for _, text in found[:limit]]


def describe(model: StrongModel) -> list[str]:
    """``bnb train show``: the model's setting, its training, what it values."""
    fm = "no expansion" if model.expansion == "none" else model.expansion
    lines = [
        f"strong model {model.describe_source()}: Builders & Biomes, {model.players} players, {fm}",
    ]
    training = model.training
    if training.get("summary"):
        lines.append(f"  measured: {training['summary']}")
    facts = []
    for key, label in (("seed", "seed"), ("generations", "generations"), ("games", "games")):
        if key in training:
            value = training[key]
            facts.append(f"{label} {value:,}" if isinstance(value, int) else f"{label} {value}")
    if training.get("field"):
        facts.append("field " + ", ".join(training["field"]))
    if facts:
        lines.append("  trained: " + "; ".join(facts))
    lines += ["", "In words (its largest departures from the heuristic):"]
    lines += [f"  - it {text}" for text in sentences(model)] or ["  - it plays like the heuristic"]
    lines += ["", "In numbers (XP per unit of each thing, per stage of the game):"]
    return lines + table_lines(model)
