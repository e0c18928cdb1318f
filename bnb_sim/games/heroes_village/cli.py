"""The ``bnb`` command handlers of Heroes of the Village (reached through ``--game hotv``).

Each handler takes the parsed options of its shared command as keyword arguments and
ignores the ones it has no use for. Numba loads only inside the handlers that play games.

The handlers live one command (or one family of small commands) per module, and this module
gathers the names the game registry (``bnb_sim.games``) and the tests reach them by:
``cli_common`` (options and helpers they share), ``cli_simulate``, ``cli_play``,
``cli_compare`` (with ``paired_compare``, the paired play), ``cli_tournament``, ``cli_sweep``
and ``cli_tools`` (odds, components, warmup, bench).
"""

from __future__ import annotations

from bnb_sim.games.heroes_village.cli_common import odds_options, simulate_options
from bnb_sim.games.heroes_village.cli_compare import compare
from bnb_sim.games.heroes_village.cli_play import play
from bnb_sim.games.heroes_village.cli_simulate import simulate
from bnb_sim.games.heroes_village.cli_sweep import sweep, sweep_table, sweep_variants
from bnb_sim.games.heroes_village.cli_tools import (
    bench,
    compile_jobs,
    components_show,
    odds,
    warmup_steps,
)
from bnb_sim.games.heroes_village.cli_tournament import tournament
from bnb_sim.games.heroes_village.paired_compare import compare_policies

__all__ = [
    "bench",
    "compare",
    "compare_policies",
    "compile_jobs",
    "components_show",
    "odds",
    "odds_options",
    "play",
    "simulate",
    "simulate_options",
    "sweep",
    "sweep_table",
    "sweep_variants",
    "tournament",
    "warmup_steps",
]
