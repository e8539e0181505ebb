"""Monster Arena's torso draft and drafting rounds (AR-8, AR-12..AR-17): the dealer's pick, the
English auction and the end of drafting.

The reasons of the decisions that take a card (a torso half, the dealer's pick, the auction's
prize, or a part to attach, which ``building`` decides), bid or pass, then the phase itself,
which ends by starting the building phase.

The draft deck is a set of cards without an order: a draw picks one of the deck's
cards uniformly at random, the same distribution as the top of a shuffled deck,
so no future draw is stored anywhere in the state (AR-5). Rule ids (AR-n) refer to
``seeds/monster_arena/rules.md``.
"""

import numpy as np
from numba import types

from ..core.contract import H_CURRENT, H_NUM_PLAYERS
from ..core.kernels import helper, inlined, standalone
from ..core.rng import rng_below
from .building import attach_reason, start_building
from .components import DEALER_PRICE, DRAFT_TOKENS, NUM_CARDS, NUM_TORSOS, ROW_SIZE
from .queries import (
    OK,
    R_BID_LOW,
    R_NO_TOKENS,
    R_NOT_IN_POOL,
    R_NOT_IN_ROW,
    R_WRONG_PHASE,
    count_loc,
    give,
    next_seat,
)
from .state_layout import (
    BID,
    DEALER,
    DRY_ROUNDS,
    FIRST_PLAYER,
    HIGH,
    KNOWN,
    L_BOX,
    L_DECK,
    L_DISCARD,
    L_ROW,
    L_TORSO,
    LOC,
    PASSES,
    PH_AUCTION,
    PH_BUILD,
    PH_DEAL,
    PH_MAIN,
    PH_PRIZE,
    PH_REACT,
    PH_TORSO,
    PHASE,
    SPENT,
    TOKENS,
)

I64 = types.int64


# --- legality -----------------------------------------------------------------------
@helper(I64(I64, I64, I64))
def pick_reason(phase, loc, tokens):
    """Reason for taking a card at ``loc`` in the torso draft, the dealer's pick (with ``tokens``)
    or the prize pick (AR-8, AR-13, AR-14). Scalars only, like ``attach_reason_of``."""
    if phase == PH_TORSO:
        return OK if loc == L_TORSO else R_NOT_IN_POOL
    if loc != L_ROW:
        return R_NOT_IN_ROW
    if phase == PH_DEAL and tokens < DEALER_PRICE:
        return R_NO_TOKENS
    return OK


@helper
def take_reason(state, p, c):
    """Reason for a take action in the current phase."""
    phase = state[PHASE]
    if phase == PH_TORSO or phase == PH_DEAL or phase == PH_PRIZE:
        return pick_reason(phase, state[LOC + c], state[TOKENS + p])
    if phase == PH_BUILD or phase == PH_MAIN:
        # The arena flag as a runtime value: the literals True and False would compile twice.
        return attach_reason(state, p, c, phase == PH_MAIN)
    return R_WRONG_PHASE


@helper(I64(I64, I64, I64))
def bid_reason(k, bid, tokens):
    """A bid of ``k`` tokens must beat the current ``bid`` and fit the bidder's ``tokens`` (AR-14)."""
    return OK if bid < k <= tokens else R_BID_LOW


@inlined
def pass_reason(state):
    """'pass' declines the dealer's pick, passes in the auction, ends building or the turn, or
    declines to react (AR-6); the other decisions must be answered."""
    phase = state[PHASE]
    if phase == PH_DEAL or phase == PH_AUCTION or phase == PH_BUILD or phase == PH_MAIN or phase == PH_REACT:
        return OK
    return R_WRONG_PHASE


# --- the torso draft ----------------------------------------------------------------
@inlined
def torso_picker(state, i):
    """Seat making torso pick ``i``: clockwise from the first player, then back (AR-8)."""
    n = state[H_NUM_PLAYERS]
    k = i if i < n else 2 * n - 1 - i
    return (state[FIRST_PLAYER] + k) % n


@inlined
def start_drafting(state, rng):
    """Torso halves nobody took go to the box (AR-8); a dealer chosen by the game's generator (AR-4)
    starts drafting (AR-12, AR-13)."""
    for c in range(NUM_TORSOS):
        if state[LOC + c] == L_TORSO:
            state[LOC + c] = L_BOX
    n = np.int64(state[H_NUM_PLAYERS])  # int64 like every other caller: one compiled rng_below
    for p in range(n):
        state[TOKENS + p] = DRAFT_TOKENS
    state[DEALER] = rng_below(rng, n)
    start_draft_round(state, rng)


# --- drafting rounds: the dealer's pick and the auction -----------------------------
@helper
def draw_part(state, rng):
    """Take a random card of the deck (reshuffling the discard into it when empty, AR-15); -1 if none.

    The deck keeps no order: the game's seeded generator picks one of its cards (AR-4, AR-5)."""
    k = count_loc(state, L_DECK)
    if k == 0:
        for c in range(NUM_CARDS):
            if state[LOC + c] == L_DISCARD:
                state[LOC + c] = L_DECK
                state[KNOWN + c] = 0
        k = count_loc(state, L_DECK)
        if k == 0:
            return -1
    r = rng_below(rng, k)
    for c in range(NUM_CARDS):
        if state[LOC + c] == L_DECK:
            if r == 0:
                return c
            r -= 1
    return -1


@standalone
def start_draft_round(state, rng):
    """The dealer turns up 3 parts (AR-13); drafting ends when nothing is left to turn up."""
    drawn = 0
    for _ in range(ROW_SIZE):
        c = draw_part(state, rng)
        if c < 0:
            break
        state[LOC + c] = L_ROW
        state[KNOWN + c] = 1
        drawn += 1
    if drawn == 0:
        start_building(state)
        return
    state[SPENT] = 0
    state[PHASE] = PH_DEAL
    state[H_CURRENT] = state[DEALER]


@standalone
def start_auction(state, rng):
    """Open the auction on the remaining row cards from the dealer's left (AR-14)."""
    if count_loc(state, L_ROW) == 0:
        end_draft_round(state, rng)
        return
    state[BID] = 0
    state[HIGH] = -1
    state[PASSES] = 0
    state[PHASE] = PH_AUCTION
    state[H_CURRENT] = next_seat(state, state[DEALER])


@standalone
def auction_pass(state, rng):
    """A pass; the auction ends once all others passed in succession after the last bid,
    or everybody passed with no bid (no sale, AR-14)."""
    n = state[H_NUM_PLAYERS]
    state[PASSES] += 1
    if state[HIGH] >= 0 and state[PASSES] >= n - 1:
        state[PHASE] = PH_PRIZE
        state[H_CURRENT] = state[HIGH]
    elif state[HIGH] < 0 and state[PASSES] >= n:
        end_draft_round(state, rng)
    else:
        state[H_CURRENT] = next_seat(state, state[H_CURRENT])


@standalone
def take_prize(state, p, c, rng):
    """The auction winner pays the bid and takes card ``c`` (AR-14)."""
    give(state, c, p, 1)
    state[TOKENS + p] -= state[BID]
    state[SPENT] = 1
    end_draft_round(state, rng)


@standalone
def end_draft_round(state, rng):
    """Discard the rest of the row, then apply the drafting end rules or pass the deck left (AR-16, AR-17)."""
    n = state[H_NUM_PLAYERS]
    for c in range(NUM_CARDS):
        if state[LOC + c] == L_ROW:
            state[LOC + c] = L_DISCARD
    state[DRY_ROUNDS] = 0 if state[SPENT] != 0 else state[DRY_ROUNDS] + 1
    holders = 0
    last = -1
    for p in range(n):
        if state[TOKENS + p] > 0:
            holders += 1
            last = p
    if holders == 1:
        for _ in range((state[TOKENS + last] + 1) // 2):
            c = draw_part(state, rng)
            if c >= 0:
                give(state, c, last, 0)
    if holders <= 1 or state[DRY_ROUNDS] >= holders:
        start_building(state)
        return
    d = next_seat(state, state[DEALER])
    while state[TOKENS + d] == 0:
        d = next_seat(state, d)
    state[DEALER] = d
    start_draft_round(state, rng)
