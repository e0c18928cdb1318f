"""What a seat may see: the observation handed to policies.

The observation of the deciding seat is the ``pub`` array with the seat's own pile copied
into ``P_OWN_PILE`` (contents only: a pile has no order anywhere in the state). Hidden
information lives in ``hid`` and ``rng``, which policies never receive, so a policy cannot
peek by accident. Built-in policies read ``pub`` in place; plugins get a copy
(:func:`flat_observation`), so a buggy plugin cannot change the game.

:func:`flat_layout` names the fields of the vector for plugin authors (``docs/policies.md``).
"""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine import layout as L
from bnb_sim.games.builders_biomes.engine.state import N_CTL


@kernel(inline="always")
def prepare_observation(pub, hid, seat):
    """Copy the deciding seat's own pile into the public array before it decides."""
    for t in range(L.MAX_TOKEN_TYPES):
        pub[L.P_OWN_PILE + t] = hid[L.pile_at(seat, t)]


@kernel
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
        # Farmer's Market (R-FM-*): all 0 in base games
        ("fm_market", L.P_FM_MARKET, (L.MAX_MARKET,)),
        ("fm_market_face_up", L.P_FM_MARKET_UP, (1,)),
        ("fm_vegetable_supply", L.P_FM_SUPPLY, (1,)),
        ("fm_items_owned", L.P_FM_OWNED, (seats,)),
        ("fm_abilities", L.P_FM_ABIL, (seats, L.N_ABILITIES)),
        ("fm_capacity", L.P_FM_CAP, (seats, 9)),
        ("fm_vegetables", L.P_FM_VEG, (seats, 9)),
        ("fm_farmland", L.P_FM_FARMLAND, (seats,)),
        ("fm_items_bought", L.P_FM_BOUGHT, (seats,)),
        ("fm_vegetables_spent", L.P_FM_SPENT, (seats,)),
        ("fm_buy_round", L.P_FM_BUY_ROUND, (L.MAX_ITEMS,)),
        ("fm_xp_end_items", L.P_FM_XP_END, (seats,)),
        ("fm_xp_farming", L.P_FM_XP_FARMING, (seats,)),
        ("fm_may", L.P_FM_MAY, (seats, 3, 2)),
        ("fm_vegetables_buried", L.P_FM_BURIED, (1,)),
    ]
    layout = {name: (offset, shape) for name, offset, shape in fields}
    layout["_size"] = (L.P_SIZE, ())
    return layout


def static_layout() -> dict[str, tuple[int, tuple[int, ...]]]:
    """Offsets and shapes of the fields of the static array plugins receive (``static``).

    Tile attributes are stored attribute-major: ``static[offset + tile]``; token attributes
    likewise ``static[offset + token_type]``. Rule numbers follow ``RULE_KEYS`` of
    ``bnb_sim.games.builders_biomes.components.arrays``; run options follow ``OPT_*`` of
    ``bnb_sim.games.builders_biomes.engine.state``.
    """
    tiles, tokens = L.MAX_TILES, L.MAX_TOKEN_TYPES
    fields = [
        ("rules", L.K_RULES, (16,)),
        ("options", L.K_OPTS, (16,)),
        ("n_token_types", L.K_N_TOKEN_TYPES, (1,)),
        ("n_tiles", L.K_N_TILES, (1,)),
        ("n_species", L.K_N_SPECIES, (1,)),
        ("n_boards", L.K_N_BOARDS, (1,)),
        ("stack_height", L.K_STACK_H, (1,)),
        ("block_count", L.K_BLOCK_COUNT, (L.N_BLOCK_TYPES,)),
        ("token_hearts", L.K_TOK + L.TOK_HEARTS * tokens, (tokens,)),
        ("token_extra_reveals", L.K_TOK + L.TOK_EXTRA * tokens, (tokens,)),
        ("token_xp", L.K_TOK + L.TOK_XP * tokens, (tokens,)),
        ("token_blocks", L.K_TOK + L.TOK_BLOCKS * tokens, (tokens,)),
        ("token_detonate", L.K_TOK + L.TOK_DETONATE * tokens, (tokens,)),
        ("token_start", L.K_TOK + L.TOK_START * tokens, (tokens,)),
        ("token_table", L.K_TOK + L.TOK_TABLE * tokens, (tokens,)),
        ("tile_kind", L.K_TILE + L.TILE_KIND * tiles, (tiles,)),
        ("tile_biome", L.K_TILE + L.TILE_BIOME * tiles, (tiles,)),
        ("tile_material", L.K_TILE + L.TILE_MATERIAL * tiles, (tiles,)),
        ("tile_type", L.K_TILE + L.TILE_TYPE * tiles, (tiles,)),
        ("tile_xp", L.K_TILE + L.TILE_XP * tiles, (tiles,)),
        ("tile_hearts", L.K_TILE + L.TILE_HEARTS * tiles, (tiles,)),
        ("tile_species", L.K_TILE + L.TILE_SPECIES * tiles, (tiles,)),
        ("tile_bonus_char", L.K_TILE + L.TILE_BONUS_CHAR * tiles, (tiles,)),
        ("tile_bonus_value", L.K_TILE + L.TILE_BONUS_VALUE * tiles, (tiles,)),
        ("tile_bonus_xp", L.K_TILE + L.TILE_BONUS_XP * tiles, (tiles,)),
        ("tile_cost", L.K_TILE + L.TILE_COST * tiles, (L.N_BLOCK_TYPES, tiles)),
        ("score_card", L.K_SCORE_CARD, (3, 4)),
        ("boards", L.K_BOARDS, (L.MAX_BOARDS, 9)),
        ("group_table", L.K_GROUP, (512,)),
        ("adjacent_stacks", L.K_ADJ_STACKS, (L.N_POINTS,)),
        ("adjacent_token_spots", L.K_ADJ_SLOTS, (L.N_POINTS,)),
        ("reachable_points", L.K_REACH, (L.N_POINTS,)),
        # Farmer's Market (R-FM-*): all 0 in base games
        ("fm_on", L.K_FM_ON, (1,)),
        ("fm_n_items", L.K_FM_N_ITEMS, (1,)),
        ("fm_vegetable_tokens", L.K_FM_VEG_TOKENS, (1,)),
        ("fm_xp_per_farming_space", L.K_FM_XP_FARM, (1,)),
        ("fm_market_spaces", L.K_FM_MARKET, (3,)),
        ("fm_farmland", L.K_FM_FARMLAND, (4,)),
        ("fm_readings", L.K_FM_EMPTY_BUY, (4,)),
        ("fm_reach_item", L.K_FM_REACH_ITEM, (L.N_POINTS,)),
        ("fm_item", L.K_FM_ITEM, (4, L.MAX_ITEMS)),
        ("fm_tile_vegetables", L.K_FM_TILE_VEG, (tiles,)),
    ]
    layout = {name: (offset, shape) for name, offset, shape in fields}
    layout["_size"] = (L.K_SIZE, ())
    return layout
