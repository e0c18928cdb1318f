"""The typed plugin path for third-party policies (docs/design.md, "Policies").

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."bnb_sim.policies"]
    cautious = "my_package.bots:CAUTIOUS"

where ``CAUTIOUS = Plugin(decide, params={"risk": 0.5})`` and ``decide`` is a plain Python
function (written in numba's nopython subset)::

    def decide(obs, legal, static, rng, params, mem) -> int

* ``obs``: int64[::1], the seat's observation (layout: ``bnb_sim.engine.observation.flat_layout``)
* ``legal``: bool[::1] of length 65 (action 64 = PASS); the meaning of an action depends on
  the phase ``obs[0]`` (see ``bnb_sim.engine.state``)
* ``static``: int64[::1], the run's component numbers and table geometry (hearts, XP, costs,
  tokens, cards, boards, adjacency; layout: ``bnb_sim.engine.observation.static_layout``),
  so a plugin plays by the same numbers as the engine under ``--components``
* ``rng``: uint64[::1] of length 4, the seat's own policy stream; draw with
  ``bnb_sim.engine.rng.bounded(rng, n)`` / ``uniform(rng)`` so games stay reproducible
* ``params``: float64[::1], the plugin's parameters (defaults from ``Plugin.params``, settable
  with ``--policy NAME:k=v,...`` or ``NAME:file.toml``)
* ``mem``: float64[::1] (``bnb_sim.engine.play.MEM_SIZE`` values), kept for the seat during one
  game (zeroed at the start)

The function is compiled as a numba ``cfunc`` with :data:`PLUGIN_SIGNATURE` (cached on disk).
The engine's driver sees one first-class function *type* for every plugin, so it compiles
once and any plugin plugs in without recompiling the engine. Every decision a plugin returns
is checked against the legal actions; an illegal one stops the game with an error naming the
policy, the game index and the decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bnb_sim._jit import numba
from bnb_sim.errors import PolicyError

PLUGIN_SIGNATURE = numba.types.int64(
    numba.types.int64[::1],
    numba.types.boolean[::1],
    numba.types.int64[::1],
    numba.types.uint64[::1],
    numba.types.float64[::1],
    numba.types.float64[::1],
)


@dataclass(frozen=True)
class Plugin:
    """A third-party policy: a decision function and its named default parameters."""

    decide: Callable
    params: Mapping[str, float] = field(default_factory=dict)
    description: str = ""


@numba.cfunc(PLUGIN_SIGNATURE, cache=True)
def no_plugin(obs, legal, static, rng, params, mem):
    """Placeholder for seats that are not played by a plugin (never called)."""
    return -1


_COMPILED: dict[tuple[str, int], object] = {}


def compile_plugin(name: str, plugin: Plugin):
    """Compile a plugin's ``decide`` as a cfunc with :data:`PLUGIN_SIGNATURE` (once per process).

    Raises PolicyError when it does not compile for the signature or does not return an
    integer (numba would otherwise coerce a float return silently, docs/design.md, "Policies").
    """
    decide = plugin.decide
    py_func = getattr(decide, "py_func", decide)
    key = (name, id(py_func))
    if key in _COMPILED:
        return _COMPILED[key]
    try:
        jitted = numba.njit(cache=True)(py_func)
        jitted.compile(PLUGIN_SIGNATURE.args)
        result = jitted.nopython_signatures[-1].return_type
        if not isinstance(result, numba.types.Integer):
            raise PolicyError(f"policy plugin '{name}' returns {result}, not an integer action")
        compiled = numba.cfunc(PLUGIN_SIGNATURE, cache=True)(py_func)
    except PolicyError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PolicyError(f"policy plugin '{name}' does not compile: {first}") from None
    _COMPILED[key] = compiled
    return compiled
