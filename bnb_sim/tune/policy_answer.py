"""The answer file of ``bnb tune policy`` (weights usable as ``FAMILY:FILE``, or the tuned
spec text), written by the game's ``tune`` hooks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bnb_sim.tune.hooks import tune_hooks


def write_weights(
    path: Path,
    family: str,
    weights: dict,
    header: Sequence[str] = (),
    spec: str | None = None,
    game: str | None = None,
) -> Path:
    """The tuned parameters as a file usable as ``FAMILY:path`` (checked by parsing it);
    a search bot's or a bot file's answer is ``spec``, written as the last line of
    ``tuned-spec.txt`` beside ``path`` (that path is returned)."""
    return tune_hooks(game).write_weights(path, family, weights, header, spec)


def policy_family(policy: str, game: str | None = None):
    """``(family, names, values, fixed)`` of a tunable policy spec of ``game``."""
    return tune_hooks(game).policy_family(policy)


_policy_family = policy_family  # the name the tests know
