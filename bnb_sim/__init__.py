"""bnb-sim: a Monte Carlo strategy analyzer for the Minecraft board games Builders & Biomes (with
its Farmer's Market expansion) and Heroes of the Village.

The public API is imported lazily (PEP 562) so that ``import bnb_sim`` is cheap and does not
import numba until a kernel is used.
"""

from __future__ import annotations

import importlib

# The one place the version is written: pyproject.toml reads it (setuptools dynamic).
__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "collectable": "bnb_sim.api",
    "largest_group": "bnb_sim.api",
    "count_matching": "bnb_sim.api",
    "combat_odds": "bnb_sim.games.builders_biomes.odds",
    "simulate_combat": "bnb_sim.games.builders_biomes.odds",
    "CombatOdds": "bnb_sim.games.builders_biomes.odds",
    "load_components": "bnb_sim.api",
    "Components": "bnb_sim.games.builders_biomes.components",
    "new_game": "bnb_sim.api",
    "Game": "bnb_sim.games.builders_biomes.game",
    "GameConfig": "bnb_sim.games.builders_biomes.run_config",
    "simulate": "bnb_sim.runner.simulate",
    "load_run": "bnb_sim.runner.storage",
    "write_report": "bnb_sim.analysis.report",
    "tournament": "bnb_sim.studies",
    "compare": "bnb_sim.studies",
    "sweep": "bnb_sim.studies",
    "run_experiment": "bnb_sim.studies",
    "robustness": "bnb_sim.robustness_api",
    "RobustnessResult": "bnb_sim.analysis.robustness",
    "ExperimentResult": "bnb_sim.studies",
    "TournamentResult": "bnb_sim.analysis.tournament",
    "CompareResult": "bnb_sim.analysis.compare",
    "SweepResult": "bnb_sim.analysis.sweep",
    "sensitivity": "bnb_sim.studies_sensitivity",
    "tune_policy": "bnb_sim.studies_tune",
    "tune_game": "bnb_sim.studies_tune",
    "SensitivityResult": "bnb_sim.analysis.sensitivity",
    "luck": "bnb_sim.studies_luck",
    "LuckResult": "bnb_sim.analysis.luck_report",
    "value": "bnb_sim.studies_luck",
    "ValueResult": "bnb_sim.analysis.value",
    "ladder": "bnb_sim.studies_luck",
    "LadderResult": "bnb_sim.analysis.ladder",
    "READINGS": "bnb_sim.games.builders_biomes.readings",
    "Readings": "bnb_sim.games.builders_biomes.readings",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bnb_sim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
