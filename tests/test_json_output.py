"""JSON that bnb-sim writes is strict JSON: a figure without a value is null, never a bare NaN
(statistics review N6: ``bnb compare --game hotv --json`` wrote ``"lo": NaN``)."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from bnb_sim import jsonsafe

ROOT = Path(__file__).resolve().parents[1]

# json.dumps calls that write no statistics: keys, identity hashes, TOML quoting, run.json
# metadata (validated settings), argv of a subprocess, a TOML value quoted in an error
# message or compared for duplicates (estimates.py)
INTERNAL = {
    "bnb_sim/runner/run_files.py",  # run.json read back through JSON (validated settings)
    "bnb_sim/runner/run_meta.py",  # the same, for run.json's parts
    "bnb_sim/runner/run_writer.py",  # run.json and the Parquet key-value metadata
    "bnb_sim/runner/verify.py",
    "bnb_sim/runner/export.py",
    "bnb_sim/tune/override.py",  # TOML quoting of the tuned component values
    "bnb_sim/cli/warmup_cmd.py",
    "bnb_sim/games/heroes_village/components.py",
    "bnb_sim/estimates.py",
}


def strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_plain_maps_non_finite_numbers_to_null():
    data = {"a": math.nan, "b": [np.float64("inf"), -math.inf, 1.5], "c": np.int64(3),
            "d": (np.array([1.0, np.nan]), Fraction(1, 4)), 4: {"e": np.bool_(True)}}  # fmt: skip
    out = strict(jsonsafe.dumps(data))
    assert out == {"a": None, "b": [None, None, 1.5], "c": 3, "d": [[1.0, None], 0.25],
                   "4": {"e": True}}  # fmt: skip

    class Thing:
        def to_dict(self):
            return {"lo": math.nan}

    assert strict(jsonsafe.dumps(Thing())) == {"lo": None}
    assert jsonsafe.dumps({"x": 1}, indent=2, default=float) == '{\n  "x": 1\n}'


def test_every_json_writer_goes_through_a_strict_path():
    """Every ``json.dumps`` in the package either writes through :mod:`bnb_sim.jsonsafe`, the
    report's ``_jsonable`` or the tuning ledger's ``_clean`` (both map NaN to null), passes
    ``allow_nan=False``, or writes no statistics (the list above, each with its reason)."""
    offenders = []
    for path in sorted((ROOT / "bnb_sim").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "bnb_sim/jsonsafe.py" or rel in INTERNAL:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not re.search(r"(?<![\w.])(_?json)\.dumps\(", line):
                continue
            if any(ok in line for ok in ("_jsonable(", "_clean(", "allow_nan=False")):
                continue
            if rel == "bnb_sim/analysis/report_provenance.py" and "separators" in line:
                continue  # a parameter's value in the provenance table, not a statistic
            offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "write JSON with bnb_sim.jsonsafe.dumps:\n" + "\n".join(offenders)


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_dumps_never_writes_a_non_finite_number(value):
    assert strict(jsonsafe.dumps([value])) == [None]
