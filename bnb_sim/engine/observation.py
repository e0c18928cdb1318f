"""What a seat may see: the observation handed to policies.

The observation of the deciding seat is the ``pub`` array with the seat's own pile copied
into ``P_OWN_PILE`` (contents only: a pile has no order anywhere in the state). Hidden
information lives in ``hid`` and ``rng``, which policies never receive, so a policy cannot
peek by accident. Built-in policies read ``pub`` in place; plugins get a copy
(:func:`flat_observation`), so a buggy plugin cannot change the game.

:func:`flat_layout` names the fields of the vector for plugin authors (``docs/policies.md``).
"""

from __future__ import annotations

from bnb_sim._jit import njit
from bnb_sim.engine import layout as L
from bnb_sim.engine.state import N_CTL


@njit(cache=True, inline="always")
def prepare_observation(pub, hid, seat):
    """Copy the deciding seat's own pile into the public array before it decides."""
    for t in range(L.MAX_TOKEN_TYPES):
        pub[L.P_OWN_PILE + t] = hid[L.pile_at(seat, t)]


@njit(cache=True)
def flat_observation(pub, out):
    """Copy the observation (``pub`` after :func:`prepare_observation`) into ``out``."""
    for i in range(L.P_SIZE):
        out[i] = pub[i]


def flat_layout() -> dict[str, tuple[int, tuple[int, ...]]]:
    """Offsets and shapes of the fields of the observation vector (seats padded to 4)."""
    seats = L.MAX_SEATS
    fields = [
        ("ctl", L.P_CTL, (N_CTL,)),
        ("occupancy", L.P_OCC, (1,)),
        ("visible_blocks", L.P_VIS_BLOCK, (64,)),
        ("stack_height", L.P_STACK_H, (16,)),
        ("face_up_tile", L.P_TOP_UP, (16,)),
        ("position", L.P_POS, (seats,)),
        ("board_id", L.P_BOARD_ID, (seats,)),
        ("supply", L.P_SUPPLY, (seats, L.N_BLOCK_TYPES)),
        ("board_top", L.P_BOARD_TOP, (seats, 9)),
        ("board_mask", L.P_BOARD_MASK, (seats, 3, 4)),
        ("n_held", L.P_N_HELD, (seats,)),
        ("n_hunger", L.P_N_HUNGER, (seats,)),
        ("held", L.P_HELD, (seats, L.MAX_HELD)),
        ("xp", L.P_XP, (seats, L.N_XP_SLOTS)),
        ("stats", L.P_STATS, (seats, L.N_STAT_SLOTS)),
        ("species_fights", L.P_SPECIES_FIGHTS, (seats, L.MAX_SPECIES)),
        ("species_wins", L.P_SPECIES_WINS, (seats, L.MAX_SPECIES)),
        ("fight_revealed", L.P_FIGHT_REVEALED, (L.MAX_TOKEN_TYPES,)),
        ("own_pile", L.P_OWN_PILE, (L.MAX_TOKEN_TYPES,)),
    ]
    layout = {name: (offset, shape) for name, offset, shape in fields}
    layout["_size"] = (L.P_SIZE, ())
    return layout
