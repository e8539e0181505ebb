"""Monster Arena's building (AR-10, AR-18, AR-19), and attaching in the arena (AR-29).

Which inventory part a player may pick up and which slot it may go into, whether a builder has
anything left to attach, and the building phase itself: its start after drafting, each
attachment, and the reveal that opens the arena once the last builder is done (which is why
this module imports ``fighting``). Rule ids (AR-n) refer to ``seeds/monster_arena/rules.md``.
"""

from numba import types

from ..core.contract import H_CURRENT, H_NUM_PLAYERS
from ..core.kernels import helper, inlined, standalone
from .components import ATTACH_COST, KIND, KIND_PART, MAX_SLOTS, NUM_CARDS, NUM_TORSOS, SLOTS
from .fighting import start_arena_round
from .queries import (
    OK,
    R_NO_ENERGY,
    R_NO_OPEN_SLOT,
    R_NOT_IN_INVENTORY,
    R_NOT_OPEN_SLOT,
    R_WRONG_PHASE,
    child,
    has_open_slot,
    next_seat,
    on_monster,
)
from .state_layout import (
    ALIVE,
    CHILD,
    DONE,
    ENERGY,
    FIRST_PLAYER,
    KNOWN,
    L_INV,
    L_TABLE,
    LOC,
    OWNER,
    PARENT,
    PH_BUILD,
    PH_PLACE,
    PHASE,
    PSLOT,
    TOKENS,
)

I64 = types.int64


# --- legality -----------------------------------------------------------------------
@helper
def attach_reason(state, p, c, arena):
    """Whether ``p`` may choose inventory part ``c`` to attach (AR-18, AR-29)."""
    if state[LOC + c] != L_INV or state[OWNER + c] != p or KIND[c] != KIND_PART:
        return R_NOT_IN_INVENTORY  # checked first: most cards are elsewhere and need no slot scan
    return attach_reason_of(
        state[LOC + c], state[OWNER + c], KIND[c], p, state[ENERGY + p], arena, has_open_slot(state, p)
    )


@helper(I64(I64, I64, I64, I64, I64, types.boolean, types.boolean))
def attach_reason_of(loc, owner, kind, p, energy, arena, open_slot):
    """``attach_reason`` from the card's place, owner and kind, the energy and whether ``p``'s
    monster has an empty slot. Scalars only: mask loops call it per card, and a helper taking
    the state array would pay reference counting on every call. Selects, as ``attacker_reason_of``."""
    r = R_NO_OPEN_SLOT if not open_slot else OK
    r = R_NO_ENERGY if arena & (energy < ATTACH_COST) else r
    return r if (loc == L_INV) & (owner == p) & (kind == KIND_PART) else R_NOT_IN_INVENTORY


@helper
def slot_reason(state, p, c, s):
    """Whether the chosen part may go into slot ``s`` of card ``c`` (AR-10)."""
    if state[PHASE] != PH_PLACE:
        return R_WRONG_PHASE
    return slot_reason_of(on_monster(state, c, p), c, s, child(state, c, s))


@helper(I64(types.boolean, I64, I64, I64))
def slot_reason_of(mine, c, s, held):
    """``slot_reason`` from scalars: card ``c`` is on the player's monster (``mine``) and its slot
    ``s`` holds card ``held`` (-1: empty)."""
    return OK if mine & (s < SLOTS[c]) & (held < 0) else R_NOT_OPEN_SLOT


@inlined
def has_build_option(state, p):
    """Whether a builder has a part and an open slot; one without is done automatically (AR-6)."""
    if not has_open_slot(state, p):
        return False
    for c in range(NUM_TORSOS, NUM_CARDS):
        if attach_reason_of(state[LOC + c], state[OWNER + c], KIND[c], p, 0, False, True) == OK:
            return True
    return False


# --- building monsters --------------------------------------------------------------
@inlined
def start_building(state):
    """Leftover tokens go back to the box, energy starts at 0; building starts (AR-17, AR-18)."""
    n = state[H_NUM_PLAYERS]
    for p in range(n):
        state[TOKENS + p] = 0
        state[ENERGY + p] = 0
        state[DONE + p] = 0
    state[PHASE] = PH_BUILD
    state[H_CURRENT] = state[FIRST_PLAYER]


@inlined
def attach(state, c, host, s):
    """Hang part ``c`` into slot ``s`` of ``host`` on ``host``'s monster (AR-10)."""
    state[LOC + c] = L_TABLE
    state[OWNER + c] = state[OWNER + host]
    state[PARENT + c] = host
    state[PSLOT + c] = s
    state[CHILD + host * MAX_SLOTS + s] = c


@standalone
def finish_building(state, p, rng):
    """Seat ``p`` is done; after the last one every monster is revealed and the arena opens (AR-19)."""
    n = state[H_NUM_PLAYERS]
    state[DONE + p] = 1
    q = next_seat(state, p)
    for _ in range(n):
        if state[DONE + q] == 0:
            state[H_CURRENT] = q
            return
        q = next_seat(state, q)
    for c in range(NUM_CARDS):
        if state[LOC + c] == L_TABLE:
            state[KNOWN + c] = 1
    for p2 in range(n):
        state[ALIVE + p2] = 1
    start_arena_round(state, rng)
