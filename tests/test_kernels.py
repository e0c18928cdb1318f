"""The compiled code follows the two-layer rule of ``bnb_sim._jit``.

Everything the game loop reaches must be a ``kernel`` (compiled without numba's reference
counting): numba keeps one compiled version per signature, so a plain ``njit`` helper first
compiled with the runtime would bring its reference counting back into the loop, silently
costing ~40% of the speed. Only code that allocates may be ``njit``; it is listed here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import bnb_sim

PACKAGE = Path(bnb_sim.__file__).parent
GAME = PACKAGE / "games" / "builders_biomes"
# where the game loop's code lives: the first game's engine and bots, and the shared modules
# its loop calls (module names below are relative to these folders)
KERNEL_FILES = (
    (GAME, "engine/*.py"),
    (GAME, "policies/*.py"),
    (PACKAGE, "rng.py"),
    (PACKAGE, "plugins.py"),
)

# (module, function): allocate arrays, so they keep the runtime; none runs inside the loop
ALLOCATING = {
    ("engine/market.py", "setup_market"),  # Farmer's Market set-up (a shuffle buffer)
    ("engine/odds.py", "*"),
    ("engine/setup.py", "*"),
    ("engine/state.py", "new_game_arrays"),
    ("engine/combat.py", "simulate_combats"),
    ("engine/cube.py", "collectable_array"),
    ("engine/legal.py", "legal_action_mask"),
    ("engine/play.py", "new_game"),
    ("engine/play.py", "play_game"),
    ("engine/play.py", "write_rows"),
    ("engine/play.py", "play_batch"),
    ("engine/play.py", "play_batch_builtin"),
    ("engine/play.py", "_one_game"),  # inlined into the drivers above
    ("engine/play.py", "_play_games"),
    ("policies/search.py", "new_search_scratch"),
}


def _decorated_functions():
    for base, pattern in KERNEL_FILES:
        for path in sorted(base.glob(pattern)):
            module = path.relative_to(base).as_posix()
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.FunctionDef):
                    continue
                for deco in node.decorator_list:
                    target = deco.func if isinstance(deco, ast.Call) else deco
                    name = getattr(target, "id", getattr(target, "attr", None))
                    if name in ("njit", "kernel", "jit"):
                        yield module, node.name, name


def test_every_jitted_function_outside_the_allocating_list_is_a_kernel():
    found = list(_decorated_functions())
    assert len(found) > 100  # the scan sees the engine and the bots
    wrong = [
        f"{module}:{name} is @{deco}"
        for module, name, deco in found
        if deco != "kernel" and (module, name) not in ALLOCATING and (module, "*") not in ALLOCATING
    ]
    assert wrong == []


def test_the_allocating_list_names_only_functions_that_exist():
    found = {(module, name) for module, name, _ in _decorated_functions()}
    modules = {module for module, _ in found}
    for module, name in ALLOCATING:
        assert (module, name) in found or (name == "*" and module in modules), (module, name)


def test_kernels_are_compiled_without_the_refcount_runtime():
    from bnb_sim._jit import kernel

    @kernel
    def total(a):
        return a.sum()

    assert total(np.arange(4)) == 6
    assert total.targetoptions.get("_nrt") is False


def test_a_kernel_that_allocates_does_not_compile():
    from numba.core.errors import TypingError

    from bnb_sim._jit import kernel

    @kernel
    def allocate(n):
        return np.zeros(n).sum()

    with pytest.raises(TypingError):
        allocate(3)


def test_kth_set_bit_matches_clearing_the_lower_bits_one_by_one():
    """The halving search of ``kth_set_bit`` gives what its definition says: the index of the
    bit left lowest after clearing ``k`` set bits, -1 once none is left (random choices of
    the random bot and of the search bots go through it)."""
    from bnb_sim.games.builders_biomes.engine.bits import kth_set_bit

    def by_definition(x: int, k: int) -> int:
        for _ in range(max(k, 0)):
            x &= x - 1
        return (x & -x).bit_length() - 1 if x else -1

    rng = np.random.default_rng(7)
    masks = [0, 1, 1 << 63, (1 << 64) - 1, 0x8000000000000001, 0x1FF, 0xF0F0F0F0F0F0F0F0]
    masks += [int(m) for m in rng.integers(0, 2**63, 40, dtype=np.int64)]
    masks += [int(m) << 1 | 1 << 63 for m in rng.integers(0, 2**62, 10, dtype=np.int64)]
    for x in masks:
        for k in range(-1, bin(x).count("1") + 2):
            assert kth_set_bit(np.uint64(x), k) == by_definition(x, k), (hex(x), k)
