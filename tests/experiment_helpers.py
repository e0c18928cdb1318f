"""Shared checks of the experiment-file tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from bnb_sim.analysis.experiment import load_experiment
from bnb_sim.errors import BnbError


def refused(folder: Path, text: str, name: str = "exp.toml") -> str:
    """Write ``text`` as an experiment file in ``folder`` and load it: it must be refused
    with one BnbError line, which is returned for the caller's own assertion."""
    path = folder / name
    path.write_text(text)
    with pytest.raises(BnbError) as info:
        load_experiment(path)
    message = str(info.value)
    assert "\n" not in message, message
    return message
