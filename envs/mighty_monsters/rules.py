"""Mighty Monsters rules as numba kernels: the single source of truth.

Everything the game does happens here: the setup choice, placing and replacing
monsters with their fees, the fights from the main gate, loot splits, healing,
the card rotation, guard deals (with the line-up variant), king tiles and the
final ranking. The AEC env, the batched engine and the greedy agent only call
these kernels. Rule ids (MM-n) refer to ``seeds/mighty_monsters/rules.md``.

Hidden information lives in the state and is kept out of observations: the
cards each player laid face down at setup, the guard cards behind face-down
backs, the guard deck's order and the king tiles' order. What a player knows
(``seen_by``, ``guard_seen``, ``unseen_guards``) is asked here; what a seat sees
and the redeal of what it cannot see (``observe_into``, ``determinize``) are in
``observation.py``.

What a new user compiles: a helper with one caller is inlined into it (a helper compiled on
its own costs about 0.05 s of the cold start besides its body), and a helper with several
callers has a signature, so that numba builds it once rather than once per mix of integer
types its callers pass.
"""

import numpy as np
from numba import types

from ..core.contract import (
    APPLY_ACTION_SIG,
    CONFIG_COMMON,
    H_CURRENT,
    H_NUM_PLAYERS,
    H_STEPS,
    H_TERMINAL,
    INIT_STATE_SIG,
    LEGAL_MASK_SIG,
    RETURNS_SIG,
    STATE,
)
from ..core.header import start_game
from ..core.kernels import helper, inlined, kernel, scratch
from ..core.rewards import c3_returns
from ..core.rng import rng_below, shuffle_range
from .actions import NUM_ACTIONS, PLAY0, SETUP0
from .components import (
    FEE_OWN_CARD,
    FEE_OWNER,
    FEE_TREASURY,
    GUARD_LEVEL,
    GUARD_LOOT,
    GUARD_STRENGTH,
    HEALING,
    KING_EQUAL_LOOT,
    KING_GUARD,
    KING_HAND,
    KING_HEAL,
    KING_NO_STRENGTH,
    KING_SORTS_HANDS,
    KING_WEAKEST_LOOT,
    LEVEL_STRENGTH,
    MAX_PLAYERS,
    MAX_STRENGTH,
    NUM_CARDS,
    NUM_GUARDS,
    NUM_KING_TILES,
    NUM_SETUP_PAIRS,
    NUM_SPACES,
    PER_ROUND,
    ROUNDS,
    SETUP_PAIRS,
    SIDES,
    STARTING_GOLD,
    STRENGTH,
    UNREPLACEABLE,
)
from .state_layout import (
    BANK,
    CARD_LOC,
    CASTLE,
    DECK,
    DECK_COUNT,
    G_CASTLE,
    G_DECK,
    G_DISCARD_HIDDEN,
    G_DISCARD_SEEN,
    GOLD,
    GUARD_STATUS,
    KING,
    KING_ORDER,
    KINGS,
    KINGS_FLIPPED,
    KNOWN,
    LAST_GUARD,
    LAST_RESULT,
    LINEUP,
    LOC_CASTLE,
    LOC_DOWN,
    LOC_HAND,
    NUM_ROUNDS,
    PH_OVER,
    PH_PLACE,
    PH_SETUP,
    PHASE,
    RES_LOST,
    RES_NONE,
    RES_WON,
    RESULT,
    REVEALED,
    ROUND,
    SETUP_DONE,
    SETUP_RANDOM,
    SPACE,
    START_PLAYER,
    WINNER,
)

# Helpers called with mixed integer types get one explicit int64 signature, so each is
# compiled once.
I64 = types.int64

# --- config entries after the common ones -----------------------------------------------
C_SETUP_RANDOM = CONFIG_COMMON
C_LINEUP = CONFIG_COMMON + 1
C_KINGS = CONFIG_COMMON + 2

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_OUT_OF_RANGE = 1
R_GAME_OVER = 2
R_NOT_SETUP = 3
R_IN_SETUP = 4
R_NOT_IN_HAND = 5
R_BANNED = 6
R_NO_SPACE = 7
R_UNREPLACEABLE = 8
R_NOT_STRONGER = 9
R_PAIR_AT_MAX = 10
R_NO_GOLD = 11

REASONS = {
    R_OUT_OF_RANGE: "the action index is out of range",
    R_GAME_OVER: "the game is over",
    R_NOT_SETUP: "the setup choice is over: play a monster card",
    R_IN_SETUP: "first choose the two cards to lay face down",
    R_NOT_IN_HAND: "that card is not in the player's hand",
    R_BANNED: "the king's tile of this round forbids playing that strength",
    R_NO_SPACE: "the castle has no such space in this game (one guard per player)",
    R_UNREPLACEABLE: f"a monster of strength {UNREPLACEABLE} cannot be replaced",
    R_NOT_STRONGER: "a replacing monster must be strictly stronger than the one it replaces",
    R_PAIR_AT_MAX: "the monsters at that guard already reach its printed maximum strength",
    R_NO_GOLD: "the player has too little gold to pay for the replacement",
}


# --- small queries ------------------------------------------------------------------
@helper
def card_loc(state, p, k):
    """Where seat ``p``'s card ``k`` lies (LOC_HAND, LOC_DOWN or LOC_CASTLE)."""
    return state[CARD_LOC + p * NUM_CARDS + k]


@helper(I64(STATE, I64, I64))
def count_at(state, p, loc):
    """How many of seat ``p``'s cards lie at ``loc``."""
    total = 0
    for k in range(NUM_CARDS):
        total += state[CARD_LOC + p * NUM_CARDS + k] == loc
    return total


@inlined
def placed(state, p):
    """Monsters seat ``p`` has in the castle this round."""
    return count_at(state, p, LOC_CASTLE)


@helper(I64(STATE, I64))
def guard_level(state, g):
    """Level of the guard at castle position ``g`` (its back is public)."""
    return GUARD_LEVEL[state[CASTLE + g]]


@helper
def space_strength(state, space):
    """Strength of the monster on ``space``, 0 when empty."""
    occupant = state[SPACE + space]
    return STRENGTH[occupant % NUM_CARDS] if occupant >= 0 else 0


@helper(I64(STATE, I64))
def pair_strength(state, g):
    """Combined strength of the monsters beside the guard at position ``g``."""
    return space_strength(state, SIDES * g) + space_strength(state, SIDES * g + 1)


@helper
def castle_full(state):
    """Whether every monster space of the castle holds a monster (MM-10)."""
    for space in range(SIDES * state[H_NUM_PLAYERS]):
        if state[SPACE + space] < 0:
            return False
    return True


@helper
def replace_fees(state, p, space):
    """``(to the treasury, to the owner)`` that seat ``p`` pays to replace the monster on ``space`` (MM-8)."""
    owner = state[SPACE + space] // NUM_CARDS
    if owner == p:
        return FEE_OWN_CARD, 0
    level = guard_level(state, space // SIDES)
    return FEE_TREASURY[level], FEE_OWNER[level]


@helper
def banned(state, k):
    """Whether this round's king tile forbids playing card ``k`` (MM-20)."""
    t = state[KING]
    return t >= 0 and KING_NO_STRENGTH[t] == STRENGTH[k]


@helper
def space_floor(state, p, space):
    """The strength a card of seat ``p`` must exceed to be played on ``space`` (MM-7, MM-8): 0 when
    it is empty, the occupant's strength when seat ``p`` may replace it, and MAX_STRENGTH when it
    may not (a 5, a pair at the guard's printed maximum, or too little gold)."""
    occupant = state[SPACE + space]
    if occupant < 0:
        return 0
    old = STRENGTH[occupant % NUM_CARDS]
    g = space // SIDES
    # Printed values only: king tiles never change who may replace (MM-20).
    if old >= UNREPLACEABLE or pair_strength(state, g) >= LEVEL_STRENGTH[guard_level(state, g), 1]:
        return MAX_STRENGTH
    treasury, owner = replace_fees(state, p, space)
    return old if state[GOLD + p] >= treasury + owner else MAX_STRENGTH


@inlined
def playable(state, p, k):
    """Whether seat ``p`` may play card ``k`` at all: it is in hand and this round allows its strength."""
    return card_loc(state, p, k) == LOC_HAND and not banned(state, k)


# King tiles (MM-20).
@helper(I64(STATE, I64, I64))
def king_change(state, g, field):
    """This round's king tile change to the guard at position ``g``: field 0 strength, 1 loot."""
    t = state[KING]
    if t < 0:
        return 0
    return KING_GUARD[t, 0, g, field] + KING_GUARD[t, 1, state[H_NUM_PLAYERS] - 1 - g, field]


@helper
def fight_strength(state, g, printed):
    """Strength the monsters at position ``g`` must reach against a guard of ``printed`` strength."""
    return printed + king_change(state, g, 0)


@helper
def fight_loot(state, g, printed):
    """Loot of a guard of ``printed`` loot at position ``g`` this round, never below 0 (MM-20)."""
    loot = printed + king_change(state, g, 1)
    t = state[KING]
    if t >= 0:
        a, b = state[SPACE + SIDES * g], state[SPACE + SIDES * g + 1]
        if a >= 0 and b >= 0 and STRENGTH[a % NUM_CARDS] == STRENGTH[b % NUM_CARDS]:
            loot += KING_EQUAL_LOOT[t]
        if KING_WEAKEST_LOOT[t] != 0:
            weakest = pair_strength(state, 0)
            for h in range(1, state[H_NUM_PLAYERS]):
                weakest = min(weakest, pair_strength(state, h))
            if pair_strength(state, g) == weakest:
                loot += KING_WEAKEST_LOOT[t]
    return max(loot, 0)


@helper
def heal_cost(state, k):
    """Healing cost of card ``k`` this round (MM-12, MM-20)."""
    t = state[KING]
    return KING_HEAL[t, k] if t >= 0 else HEALING[k]


# What a player knows (MM-21): asked by the observation and its redeal (observation.py), the
# greedy baseline and the picture.
@helper
def seen_by(state, player, q, k):
    """Where ``player`` knows seat ``q``'s card ``k`` to lie, -1 if it may be in hand or face down.

    Known: one's own cards, cards in the castle, cards moved in public (MM-21), and
    the rest of a seat's cards when the counts leave one place for them.
    """
    loc = card_loc(state, q, k)
    if q == player or state[KNOWN + q * NUM_CARDS + k]:
        return loc
    unknown_hand = count_at(state, q, LOC_HAND)
    unknown_down = count_at(state, q, LOC_DOWN)
    for j in range(NUM_CARDS):
        if state[KNOWN + q * NUM_CARDS + j]:
            unknown_hand -= card_loc(state, q, j) == LOC_HAND
            unknown_down -= card_loc(state, q, j) == LOC_DOWN
    if unknown_hand == 0:
        return LOC_DOWN
    if unknown_down == 0:
        return LOC_HAND
    return -1


@helper
def guard_seen(state, card):
    """Whether guard ``card`` has been shown face up this game (MM-21)."""
    status = state[GUARD_STATUS + card]
    if status == G_DISCARD_SEEN:
        return True
    if status == G_CASTLE:
        for g in range(state[H_NUM_PLAYERS]):
            if state[CASTLE + g] == card:
                return state[REVEALED + g] != 0
    return False


@inlined  # returns its scratch array: on a GPU that lives in the caller's frame
def unseen_guards(state, level):
    """Mask over the 36 guard cards: those of ``level`` nobody has seen face up, the public pool
    a face-down guard of that level is drawn from (MM-21)."""
    out = scratch(NUM_GUARDS, np.int8)
    for card in range(NUM_GUARDS):
        out[card] = GUARD_LEVEL[card] == level and not guard_seen(state, card)
    return out


# --- legality ---------------------------------------------------------------------------
@helper
def play_reason(state, p, k, space):
    """Why seat ``p`` may not play card ``k`` on ``space`` now (OK if it may): MM-7, MM-8."""
    if card_loc(state, p, k) != LOC_HAND:
        return R_NOT_IN_HAND
    if banned(state, k):
        return R_BANNED
    if space >= SIDES * state[H_NUM_PLAYERS]:
        return R_NO_SPACE
    if STRENGTH[k] > space_floor(state, p, space):
        return OK
    old = STRENGTH[state[SPACE + space] % NUM_CARDS]
    g = space // SIDES
    if old >= UNREPLACEABLE:
        return R_UNREPLACEABLE
    if STRENGTH[k] <= old:
        return R_NOT_STRONGER
    if pair_strength(state, g) >= LEVEL_STRENGTH[guard_level(state, g), 1]:
        return R_PAIR_AT_MAX
    return R_NO_GOLD


@helper  # compiled when first needed: only an illegal action asks why
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    if action < PLAY0:
        return OK if state[PHASE] == PH_SETUP else R_NOT_SETUP
    if state[PHASE] == PH_SETUP:
        return R_IN_SETUP
    k = (action - PLAY0) // NUM_SPACES
    return play_reason(state, state[H_CURRENT], k, (action - PLAY0) % NUM_SPACES)


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    if state[PHASE] == PH_SETUP:
        for pair in range(NUM_SETUP_PAIRS):
            out[SETUP0 + pair] = 1
        return NUM_SETUP_PAIRS
    p = state[H_CURRENT]
    count = 0
    for space in range(SIDES * state[H_NUM_PLAYERS]):
        floor = space_floor(state, p, space)
        for k in range(NUM_CARDS):
            ok = playable(state, p, k) and STRENGTH[k] > floor
            out[PLAY0 + k * NUM_SPACES + space] = ok
            count += ok
    return count


# --- changing the state -----------------------------------------------------------------
@helper(types.void(STATE, I64, I64, I64))
def set_card(state, p, k, loc):
    """Put seat ``p``'s card ``k`` at ``loc``; where it goes in public it becomes known (MM-21)."""
    state[CARD_LOC + p * NUM_CARDS + k] = loc
    state[KNOWN + p * NUM_CARDS + k] = 1


# Phase 1: playing monsters.
@inlined
def place_card(state, p, k, space):
    """Seat ``p`` plays card ``k`` on ``space``, paying for a replacement (MM-7, MM-8).

    A replaced monster goes back to its owner's hand. No fight happens here.
    """
    occupant = state[SPACE + space]
    if occupant >= 0:
        owner = occupant // NUM_CARDS
        treasury, fee = replace_fees(state, p, space)
        state[GOLD + p] -= treasury + fee
        state[GOLD + owner] += fee
        state[BANK] += treasury
        set_card(state, owner, occupant % NUM_CARDS, LOC_HAND)
    state[SPACE + space] = p * NUM_CARDS + k
    set_card(state, p, k, LOC_CASTLE)


# Phases 2 and 3, and the round's end.
@helper
def loot_shares(state, g, loot, out):
    """Add each owner's share of ``loot`` won at position ``g`` to ``out`` (MM-11).

    Two owners take half each; an odd gold goes to the stronger monster's owner,
    to nobody on equal strength; a sole owner takes everything.
    """
    a, b = state[SPACE + SIDES * g], state[SPACE + SIDES * g + 1]
    oa, ob = a // NUM_CARDS, b // NUM_CARDS
    if oa == ob:
        out[oa] += loot
        return
    half = loot // 2
    out[oa] += half
    out[ob] += half
    if loot % 2 == 1:
        sa, sb = STRENGTH[a % NUM_CARDS], STRENGTH[b % NUM_CARDS]
        if sa > sb:
            out[oa] += 1
        elif sb > sa:
            out[ob] += 1


@inlined
def fight_guards(state):
    """Phase 2: reveal and fight the guards from the main gate until the first loss (MM-11).

    Returns the position of the lost fight, or -1 when every guard was defeated.
    """
    n = state[H_NUM_PLAYERS]
    gains = scratch(MAX_PLAYERS, np.int64)
    for g in range(n):
        card = state[CASTLE + g]
        state[REVEALED + g] = 1
        if pair_strength(state, g) < fight_strength(state, g, GUARD_STRENGTH[card]):
            state[RESULT + g] = RES_LOST
            return g
        state[RESULT + g] = RES_WON
        gains[:] = 0
        loot = fight_loot(state, g, GUARD_LOOT[card])
        loot_shares(state, g, loot, gains)
        for q in range(n):
            state[GOLD + q] += gains[q]
            state[BANK] -= gains[q]  # an odd coin nobody takes stays in the treasury
    return -1


@inlined
def heal_monsters(state, lost):
    """Phase 3: owners of the monsters at the lost guard and at every unrevealed guard pay their
    healing costs; who cannot pay everything pays all they have (MM-12)."""
    if lost < 0:
        return
    n = state[H_NUM_PLAYERS]
    dues = scratch(MAX_PLAYERS, np.int64)
    for g in range(lost, n):
        for side in range(SIDES):
            occupant = state[SPACE + SIDES * g + side]
            dues[occupant // NUM_CARDS] += heal_cost(state, occupant % NUM_CARDS)
    for q in range(n):
        pay = min(dues[q], state[GOLD + q])
        state[GOLD + q] -= pay
        state[BANK] += pay


@inlined
def rotate_cards(state):
    """Face-down cards go to hand, the monsters played lie face down, the castle empties (MM-13)."""
    n = state[H_NUM_PLAYERS]
    for p in range(n):
        for k in range(NUM_CARDS):
            loc = card_loc(state, p, k)
            set_card(state, p, k, LOC_HAND if loc == LOC_DOWN else (LOC_DOWN if loc == LOC_CASTLE else loc))
    for space in range(NUM_SPACES):
        state[SPACE + space] = -1


@inlined
def discard_castle(state):
    """Discard the castle's guards; unrevealed ones stay secret (MM-13)."""
    for g in range(MAX_PLAYERS):
        card = state[CASTLE + g]
        state[LAST_GUARD + g] = 0
        state[LAST_RESULT + g] = state[RESULT + g]
        if card >= 0:
            state[GUARD_STATUS + card] = G_DISCARD_SEEN if state[REVEALED + g] else G_DISCARD_HIDDEN
            state[LAST_GUARD + g] = card + 1 if state[REVEALED + g] else -GUARD_LEVEL[card]
        state[CASTLE + g] = -1
        state[REVEALED + g] = 0
        state[RESULT + g] = RES_NONE


@helper
def deal_guards(state, rng):
    """Deal one guard per player face down from the main gate, reshuffling the discards into an
    empty deck (MM-5); with the line-up variant sort them by level (MM-19)."""
    n = state[H_NUM_PLAYERS]
    for g in range(n):
        if state[DECK_COUNT] == 0:
            count = 0
            for card in range(NUM_GUARDS):
                if state[GUARD_STATUS + card] >= G_DISCARD_SEEN:
                    state[GUARD_STATUS + card] = G_DECK
                    state[DECK + count] = card
                    count += 1
            state[DECK_COUNT] = count
            shuffle_range(state, DECK, count, rng)
        state[DECK_COUNT] -= 1
        card = state[DECK + state[DECK_COUNT]]
        state[DECK + state[DECK_COUNT]] = -1
        state[CASTLE + g] = card
        state[GUARD_STATUS + card] = G_CASTLE
    if state[LINEUP]:
        for g in range(1, n):  # insertion sort keeps the dealt order within a level
            card = state[CASTLE + g]
            h = g
            while h > 0 and GUARD_LEVEL[state[CASTLE + h - 1]] > GUARD_LEVEL[card]:
                state[CASTLE + h] = state[CASTLE + h - 1]
                h -= 1
            state[CASTLE + h] = card


# The setup choice.
@helper(types.void(STATE, I64, I64))
def lay_down(state, p, pair):
    """Seat ``p`` lays the two cards of setup choice ``pair`` face down; the rest is the hand (MM-4).

    Nobody else learns which cards these are.
    """
    for k in range(NUM_CARDS):
        state[CARD_LOC + p * NUM_CARDS + k] = LOC_HAND
    for i in range(SETUP_PAIRS.shape[1]):
        state[CARD_LOC + p * NUM_CARDS + SETUP_PAIRS[pair, i]] = LOC_DOWN
    state[SETUP_DONE + p] = 1


# --- turn flow --------------------------------------------------------------------------
@inlined
def next_placer(state, p):
    """The next seat clockwise after ``p`` (``p`` itself last) with fewer than 2 monsters placed,
    -1 when all have placed (MM-9)."""
    n = state[H_NUM_PLAYERS]
    for i in range(1, n + 1):
        q = (p + i) % n
        if placed(state, q) < PER_ROUND:
            return q
    return -1


@helper
def start_round(state):
    """Phase 1 begins: flip the king tile in the variant (MM-20), the start player is on move."""
    if state[KINGS]:
        t = state[KING_ORDER + state[KINGS_FLIPPED]]
        state[KINGS_FLIPPED] += 1
        state[KING] = t
        if KING_SORTS_HANDS[t]:
            for p in range(state[H_NUM_PLAYERS]):
                for k in range(NUM_CARDS):
                    set_card(state, p, k, LOC_HAND if KING_HAND[t, k] else LOC_DOWN)
    state[PHASE] = PH_PLACE
    state[H_CURRENT] = state[START_PLAYER]


@inlined
def finish_game(state):
    """The game ends: the most gold wins, ties share the win (MM-14)."""
    n = state[H_NUM_PLAYERS]
    best = state[GOLD]
    for q in range(1, n):
        best = max(best, state[GOLD + q])
    for q in range(n):
        state[WINNER + q] = state[GOLD + q] == best
    state[PHASE] = PH_OVER
    state[H_TERMINAL] = 1
    state[H_CURRENT] = -1


@inlined
def end_round(state, rng):
    """Phases 2 and 3 once the castle is full; then the next round or the end (MM-11 to MM-14)."""
    lost = fight_guards(state)
    heal_monsters(state, lost)
    state[ROUND] += 1
    if state[ROUND] >= state[NUM_ROUNDS]:
        finish_game(state)  # the castle stays as fought, for the final view
        return
    rotate_cards(state)
    discard_castle(state)
    deal_guards(state, rng)
    state[KING] = -1
    state[START_PLAYER] = (state[START_PLAYER] + 1) % state[H_NUM_PLAYERS]
    start_round(state)


# --- the kernel contract ----------------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode, setup_random,
    guard_lineup, kings_rules) (MM-2 to MM-6)."""
    n = start_game(state, config)
    state[SETUP_RANDOM] = config[C_SETUP_RANDOM]
    state[LINEUP] = config[C_LINEUP]
    state[KINGS] = config[C_KINGS]
    state[NUM_ROUNDS] = ROUNDS[n]
    state[KING] = -1
    for t in range(NUM_KING_TILES):
        state[KING_ORDER + t] = t
    shuffle_range(state, KING_ORDER, NUM_KING_TILES, rng)
    for q in range(n):
        state[GOLD + q] = STARTING_GOLD
    for space in range(NUM_SPACES):
        state[SPACE + space] = -1
    for g in range(MAX_PLAYERS):
        state[CASTLE + g] = -1
    for card in range(NUM_GUARDS):
        state[DECK + card] = card
    state[DECK_COUNT] = NUM_GUARDS
    shuffle_range(state, DECK, NUM_GUARDS, rng)
    first = rng_below(rng, n)  # the seeded generator picks the first start player (MM-3)
    state[START_PLAYER] = first
    deal_guards(state, rng)
    if state[SETUP_RANDOM]:
        for q in range(n):
            lay_down(state, q, rng_below(rng, np.int64(NUM_SETUP_PAIRS)))  # not a literal: one rng_below
        start_round(state)
    else:
        state[PHASE] = PH_SETUP
        state[H_CURRENT] = first


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    if state[PHASE] == PH_SETUP:
        lay_down(state, p, action - SETUP0)
        q = (p + 1) % state[H_NUM_PLAYERS]
        if state[SETUP_DONE + q]:
            start_round(state)
        else:
            state[H_CURRENT] = q
        return
    place_card(state, p, (action - PLAY0) // NUM_SPACES, (action - PLAY0) % NUM_SPACES)
    q = next_placer(state, p)
    if q < 0:
        end_round(state, rng)
    else:
        state[H_CURRENT] = q


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (ruling C3, MM-15); zeros while the game runs."""
    c3_returns(state, WINNER, GOLD, out)
