"""The typed plugin path for third-party policies (ENGINEERING.md §4).

A plugin is a function ``decide(obs, legal, rng, params, mem) -> int64`` compiled as a numba
``cfunc`` with :data:`PLUGIN_SIGNATURE`. Passing cfuncs makes the engine's driver see one
first-class function *type*, so the driver compiles once, stays cached, and any plugin with
this signature plugs in without recompiling the engine.

* ``obs``: int64[::1], the flat observation of the deciding seat (``flat_layout``)
* ``legal``: bool[::1] of length 65 (action 64 = PASS)
* ``rng``: uint64[::1] of length 4, the seat's policy stream (xoshiro256**; use
  ``bnb_sim.engine.rng.bounded`` / ``uniform`` on it so games stay reproducible)
* ``params``: float64[::1], the plugin's parameter vector
* ``mem``: float64[::1], memory kept for the seat during one game (zeroed at the start)
"""

from __future__ import annotations

from bnb_sim._jit import numba

PLUGIN_SIGNATURE = numba.types.int64(
    numba.types.int64[::1],
    numba.types.boolean[::1],
    numba.types.uint64[::1],
    numba.types.float64[::1],
    numba.types.float64[::1],
)


@numba.cfunc(PLUGIN_SIGNATURE, cache=True)
def no_plugin(obs, legal, rng, params, mem):
    """Placeholder for seats that are not played by a plugin (never called)."""
    return -1
