"""Exact combat odds in plain Python (bnb_sim.games.builders_biomes.exact_odds) against the
numba kernel they replace in ``bnb odds`` and ``combat_odds``: the same numbers on random piles
and tokens, the same errors, byte-identical CLI output, and no numba in the process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnb_sim.errors import SpecError
from bnb_sim.games.builders_biomes import exact_odds as py_odds
from bnb_sim.games.builders_biomes import odds as odds_api
from bnb_sim.games.builders_biomes.engine.odds import exact_odds as kernel_exact_odds

RESULTS = ("p_win", "p_no", "e_spent", "dist", "e_revealed", "e_xp", "e_blocks")
START_PILE = "stone_sword,wooden_sword,potato*3,bow*2,tnt"


@pytest.fixture(scope="module")
def comps():
    return odds_api.get_components(None)


def _both(counts, tokens, fight_reveal, h_max):
    counts = np.asarray(counts, np.int64)
    tokens = tuple(np.asarray(t, np.int64) for t in tokens)
    want = kernel_exact_odds(counts, *tokens, np.int64(fight_reveal), np.int64(h_max))
    got = py_odds.exact_odds(counts, *tokens, fight_reveal, h_max)
    return got, want


def assert_same(got, want):
    for name, g, w in zip(RESULTS, got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, name
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12, err_msg=name)


def _default_tokens(comps):
    return odds_api._token_arrays(comps)


@settings(max_examples=150, deadline=None)
@given(
    counts=st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda c: sum(c) <= 14),
    fight_reveal=st.integers(0, 5),
    h_max=st.integers(0, 20),
)
def test_r_fight_2_to_5_python_equals_the_kernel_on_default_tokens(
    comps, counts, fight_reveal, h_max
):  # R-FIGHT-2 R-FIGHT-3 R-FIGHT-4 R-FIGHT-5: bows, TNT, hoe, pickaxe, every sword
    assert_same(*_both(counts, _default_tokens(comps), fight_reveal, h_max))


@st.composite
def custom_tokens(draw):
    n = draw(st.integers(1, 6))
    ints = st.lists(st.integers(0, 4), min_size=n, max_size=n)
    hearts = draw(ints)
    extra = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    xp = draw(ints)
    blocks = draw(ints)
    # 0 = not detonatable; gains below the token's hearts are clipped to 0 by both versions
    detonate = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 7]), min_size=n, max_size=n))
    counts = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n).filter(lambda c: sum(c) <= 9))
    return counts, (hearts, extra, xp, blocks, detonate)


@settings(max_examples=150, deadline=None)
@given(case=custom_tokens(), fight_reveal=st.integers(0, 4), h_max=st.integers(0, 25))
def test_r_fight_2_to_5_python_equals_the_kernel_on_custom_tokens(case, fight_reveal, h_max):
    # R-FIGHT-2 (chained extra reveals, merged token classes) R-FIGHT-4 (detonation order)
    counts, tokens = case
    assert_same(*_both(counts, tokens, fight_reveal, h_max))


def test_python_equals_the_kernel_bit_for_bit_on_the_full_pile(comps):
    a = comps.arrays
    full = np.asarray(a.tok_start, np.int64) + np.asarray(a.tok_table, np.int64)
    got, want = _both(full, _default_tokens(comps), 3, 14)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(np.asarray(g), np.asarray(w))  # same tree, same order of sums


def test_an_empty_pile_reveals_nothing(comps):
    got, want = _both(np.zeros(9, np.int64), _default_tokens(comps), 3, 4)
    assert_same(got, want)
    assert got[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0] and got[3].tolist() == [1.0]


def test_python_refuses_a_key_space_beyond_int64_like_the_kernel():
    n = 64
    tokens = (np.arange(n), *(np.zeros(n, np.int64) for _ in range(4)))
    for version in (kernel_exact_odds, py_odds.exact_odds):
        with pytest.raises(ValueError, match="distinct token kinds"):
            version(np.ones(n, np.int64), *(np.asarray(t, np.int64) for t in tokens), 3, 5)


def test_too_many_states_is_the_same_one_line_spec_error(comps, monkeypatch):
    # the kernel stops at 2**21 states (custom tokens with several extra reveals); a lower
    # limit reaches the same refusal on a default pile
    monkeypatch.setattr(py_odds, "MAX_STATES", 20)
    counts = odds_api.parse_pile(START_PILE, comps)
    with pytest.raises(SpecError, match=r"^pile: pile needs too many chance-tree states"):
        odds_api._exact(counts, comps, np.int64(6))


# --------------------------------------------------------------------------- the CLI


def _cli(capsys, *args):
    from bnb_sim.cli import main

    with pytest.raises(SystemExit) as info:
        main(["odds", *args])
        raise SystemExit(0)
    out = capsys.readouterr()
    return info.value.code or 0, out.out, out.err


@pytest.mark.parametrize(
    "args",
    [
        ("--pile", START_PILE, "--hearts", "5"),
        ("--pile", START_PILE, "--hearts", "5", "--json"),
        ("--pile", "bow*4,tnt*3,potato*2,stone_sword,golden_hoe,stone_pickaxe", "--mob", "witch"),
        ("--pile", "bow*3,iron_sword,diamond_sword,tnt*2,potato"),  # the table of heart values
        ("--pile", "bow*3,iron_sword,tnt*2,golden_hoe", "--json"),
    ],
)
def test_cli_output_is_byte_identical_to_the_kernel_path(capsys, monkeypatch, args):
    new = _cli(capsys, *args)
    with monkeypatch.context() as patch:  # the path before: the jitted kernel
        patch.setattr(py_odds, "exact_odds", kernel_exact_odds)
        old = _cli(capsys, *args)
    assert new[0] == 0 and new == old
    if "--json" in args:
        json.loads(new[1])


_NO_NUMBA = (
    "import sys\n"
    "from bnb_sim.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    loaded = sorted(m for m in ('numba', 'scipy', 'bnb_sim._jit') if m in sys.modules)\n"
    "    print('LOADED', loaded, file=sys.stderr)\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ("--pile", START_PILE, "--hearts", "5"),
        ("--pile", START_PILE, "--json"),
        ("--pile", "bow*2", "--hearts", "-1"),  # refused: exit 2, still no numba
    ],
)
def test_bnb_odds_without_simulate_never_imports_numba(args):
    proc = subprocess.run(
        [sys.executable, "-c", _NO_NUMBA, "odds", *args], capture_output=True, text=True
    )
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr
    assert "LOADED []" in proc.stderr


def test_combat_odds_and_the_table_never_import_numba():
    code = (
        "import sys\n"
        "from bnb_sim.games.builders_biomes.odds import combat_odds, combat_odds_table\n"
        f"combat_odds({START_PILE!r}, 5)\n"
        f"combat_odds_table({START_PILE!r})\n"
        "assert 'numba' not in sys.modules and 'bnb_sim._jit' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_python_module_imports_neither_numba_nor_the_jit_layer():
    code = (
        "import sys\n"
        "import bnb_sim.games.builders_biomes.exact_odds\n"
        "assert 'numba' not in sys.modules and 'bnb_sim._jit' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
