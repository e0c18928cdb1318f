"""The typed plugin path for third-party policies (docs/design.md, "Policies").

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."bnb_sim.policies"]
    cautious = "my_package.bots:CAUTIOUS"

where ``CAUTIOUS = Plugin(decide, params={"risk": 0.5})`` and ``decide`` is a plain Python
function (written in numba's nopython subset)::

    def decide(obs, legal, static, rng, params, mem) -> int

* ``obs``: int64[::1], the seat's observation (layout:
  ``bnb_sim.games.builders_biomes.engine.observation.flat_layout``)
* ``legal``: bool[::1] of length 65 (action 64 = PASS); the meaning of an action depends on
  the phase ``obs[0]`` (see ``bnb_sim.games.builders_biomes.engine.state``)
* ``static``: int64[::1], the run's component numbers and table geometry (hearts, XP, costs,
  tokens, cards, boards, adjacency; layout:
  ``bnb_sim.games.builders_biomes.engine.observation.static_layout``),
  so a plugin plays by the same numbers as the engine under ``--components``
* ``rng``: uint64[::1] of length 4, the seat's own policy stream; draw with
  ``bnb_sim.rng.bounded(rng, n)`` / ``uniform(rng)`` so games stay reproducible
* ``params``: float64[::1], the plugin's parameters (defaults from ``Plugin.params``, settable
  with ``--policy NAME:k=v,...`` or ``NAME:file.toml``)
* ``mem``: float64[::1] (``bnb_sim.games.builders_biomes.engine.play.MEM_SIZE`` values), kept for
  the seat during one
  game (zeroed at the start)

``decide`` is compiled with numba (cached on disk) and wrapped in a small ``cfunc`` with
:data:`PLUGIN_SIGNATURE`. The engine's driver sees one first-class function *type* for every
plugin, so it compiles once and any plugin plugs in without recompiling the engine. Every
decision a plugin returns is checked against the legal actions; an illegal one stops the game
with an error naming the policy, the game index and the decision.

An exception inside ``decide`` cannot cross a ``cfunc`` boundary (numba would print it as
"ignored" and return 0, silently playing action 0). The wrapper catches it in nopython code
and returns :data:`PLUGIN_RAISED` instead; the Python layer then replays that one game with
the plugin called from Python, where numba re-raises the exception with its message, and
stops the run with one line naming the plugin and the error.

Plugins are trusted native code: an out-of-bounds index inside ``decide`` reads or writes
arbitrary memory. With ``BNB_PLUGIN_DEBUG=1`` (``bnb --plugin-debug``) ``decide`` is compiled
with bounds checking, so such an index becomes an ``IndexError`` reported like any other
plugin exception (slower; not cached).
"""

from __future__ import annotations

import os
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
    game: str = "builders_biomes"  # the game it plays (a name or alias of bnb_sim.games)


@numba.cfunc(PLUGIN_SIGNATURE, cache=True)
def no_plugin(obs, legal, static, rng, params, mem):
    """Placeholder for seats that are not played by a plugin (never called)."""
    return -1


#: What the wrapper returns when ``decide`` raised (never a legal action).
PLUGIN_RAISED = -(2**40)
#: Environment variable that turns on the bounds-checked plugin build (``bnb --plugin-debug``).
DEBUG_ENV = "BNB_PLUGIN_DEBUG"

_COMPILED: dict[tuple[str, int, bool], tuple[object, object]] = {}


def plugin_debug() -> bool:
    """Whether plugins are compiled with bounds checking (``BNB_PLUGIN_DEBUG=1``)."""
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def _guarded(jitted):
    """A cfunc that calls ``jitted`` and turns any exception into :data:`PLUGIN_RAISED`.

    Made per plugin, so it is not cached on disk (numba has replayed the wrong captured
    function from cached closures; docs/design.md, "Kernels and the cache");
    ``decide`` itself is, and the wrapper compiles in a fraction of a second.
    """

    def guarded(obs, legal, static, rng, params, mem):
        try:
            return jitted(obs, legal, static, rng, params, mem)
        except Exception:  # numba catches exceptions of nopython callees here
            return PLUGIN_RAISED

    return numba.cfunc(PLUGIN_SIGNATURE)(guarded)


def _compiled(name: str, plugin: Plugin) -> tuple[object, object]:
    decide = plugin.decide
    py_func = getattr(decide, "py_func", decide)
    debug = plugin_debug()
    key = (name, id(py_func), debug)
    if key in _COMPILED:
        return _COMPILED[key]
    try:
        # the bounds-checked build is not cached: numba's cache key ignores boundscheck
        options = {"boundscheck": True} if debug else {"cache": True}
        jitted = numba.njit(**options)(py_func)
        jitted.compile(PLUGIN_SIGNATURE.args)
        result = jitted.nopython_signatures[-1].return_type
        if not isinstance(result, numba.types.Integer):
            raise PolicyError(f"policy plugin '{name}' returns {result}, not an integer action")
        compiled = _guarded(jitted)
    except PolicyError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PolicyError(f"policy plugin '{name}' does not compile: {first}") from None
    _COMPILED[key] = (compiled, jitted)
    return compiled, jitted


def compile_plugin(name: str, plugin: Plugin):
    """Compile a plugin's ``decide`` and wrap it as a cfunc with :data:`PLUGIN_SIGNATURE`
    (once per process).

    Raises PolicyError when it does not compile for the signature or does not return an
    integer (numba would otherwise coerce a float return silently, docs/design.md, "Policies").
    """
    return _compiled(name, plugin)[0]


def plugin_dispatcher(name: str, plugin: Plugin):
    """The jitted ``decide`` behind :func:`compile_plugin`, callable from Python (where numba
    re-raises a plugin's exception with its message)."""
    return _compiled(name, plugin)[1]


def first_line(exc: BaseException) -> str:
    """``Type: message`` of an exception, cut to its first line (for one-line errors)."""
    text = str(exc).strip()
    head = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {head}" if head else type(exc).__name__
