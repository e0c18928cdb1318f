"""The ``bnb`` command handlers of Heroes of the Village (reached through ``--game hotv``).

Each handler takes the parsed options of its shared command as keyword arguments and
ignores the ones it has no use for. Numba loads only inside the handlers that play games.

The handlers live one command (or one family of small commands) per module, and this module
gathers the names the game registry (``bnb_sim.games``) and the tests reach them by:
``cli_common`` (options and helpers they share) and ``cli_tools`` (warmup, bench). ``bnb
simulate``, ``compare``, ``tournament`` and ``sweep`` serve the game through the protocol
(``bnb_sim.cli.protocol_cmds``), with what the game adds in its ``spec`` (its setting's
words, its component variants, its readings, its run config with every pet team:
``run_hooks``); ``bnb play``, ``odds``, ``components show`` and ``train show`` through the
protocol hooks of its ``spec`` (:mod:`bnb_sim.games.heroes_village.command_text`).
"""

from __future__ import annotations

from bnb_sim.games.heroes_village.cli_tools import bench, compile_jobs, warmup_steps

__all__ = ["bench", "compile_jobs", "warmup_steps"]
