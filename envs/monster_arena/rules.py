"""Monster Arena rules as numba kernels: the single source of truth.

Everything the game does happens here: the snake torso draft, drafting rounds
with the dealer's pick and the English auction, simultaneous building, and the
arena with attacks, abilities, reactions, cut limbs and eliminations. The AEC
env, the batched engine and the agents only call these kernels. Rule ids (AR-n)
refer to ``seeds/monster_arena/rules.md``.

The draft deck is a set of cards without an order: a draw picks one of the deck's
cards uniformly at random, the same distribution as the top of a shuffled deck,
so no future draw is stored anywhere in the state.

Masks ask the same reason functions as ``illegal_reason``, with the facts shared by a
whole phase (an attacker available, an empty slot) computed once. The reason functions
that mask loops call per card are inlined and read the state without branching, then
decide in a ``*_of`` helper that takes scalars only: numba cannot drop the reference
counting of the state array around branches, and in a loop over 60 cards that costs
far more than the checks themselves.
"""
import numpy as np
from numba import njit, types

from ..core.contract import (APPLY_ACTION_SIG, CONFIG_COMMON, H_CURRENT, H_NUM_PLAYERS, H_STEPS,
                             H_TERMINAL, INIT_STATE_SIG, LEGAL_MASK_SIG,
                             OBSERVE_SIG, RETURNS_SIG)
from ..core.header import start_game
from ..core.kernels import INTERNAL
from ..core.rewards import c3_returns_scored
from ..core.rng import rng_below
from .actions import ABILITY0, ATTACKER0, BID0, NUM_ACTIONS, PASS, ROLL, SLOT0, TAKE0, TARGET0
from .components import (AB_AIM, AB_CLAW, AB_GRAVE, AB_INSECT, AB_PINCH, AB_REFILL6, AB_ROAR,
                         AB_SAW, AB_SPIKES, AB_TEAM, AB_VENOM, AB_WEB, AB_WING, ABILITY, ABILITY_COST,
                         ATTACH_COST, COST, DEALER_PRICE, DEFENSE, DICE, DRAFT_TOKENS, KIND, KIND_PART,
                         LIMB, MAX_PLAYERS, MAX_SLOTS, MOD, NUM_CARDS, NUM_TORSOS, REFILL, ROW_SIZE,
                         SLOTS, SPIKE_CAP)
from .state_layout import (AIM, ALIVE, BID, CHILD, DEALER, DONE, DRY_ROUNDS, ENERGY, FIRST_PLAYER, FROZEN,
                     GRAVE_ORDER, GRAVE_TOP, HIGH, IN_ATTACK, KNOWN, L_BOX, L_DECK, L_DISCARD, L_GRAVE,
                     L_INV, L_ROW, L_TABLE, L_TORSO, LAST, LOC, OWNER, PARENT, PASSES, PH_ATTACK,
                     PH_AUCTION, PH_BUILD, PH_DEAL, PH_MAIN, PH_OVER, PH_PINCH, PH_PLACE, PH_PRIZE,
                     PH_REACT, PH_TORSO, PHASE, PICKS, PSLOT, QUIET, QUIET_ENDING, ROUND, SELECTED, SPENT,
                     TARGET, TOKENS, TURN_SEAT, USED, WEB, WING, WINNER)

I64 = types.int64
C_QUIET_ENDING = CONFIG_COMMON  # option quiet_ending_rounds: 0 (default) or the rounds that end it

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_OUT_OF_RANGE = 1
R_GAME_OVER = 2
R_WRONG_PHASE = 3
R_NOT_IN_POOL = 4
R_NOT_IN_ROW = 5
R_NO_TOKENS = 6
R_BID_LOW = 7
R_NOT_IN_INVENTORY = 8
R_NO_OPEN_SLOT = 9
R_NOT_OPEN_SLOT = 10
R_NO_ENERGY = 11
R_NOT_TARGETABLE = 12
R_COVERED = 13
R_NO_ATTACKER = 14
R_NOT_YOURS = 15
R_CANNOT_ATTACK = 16
R_USED = 17
R_FROZEN = 18
R_SAW_ONLY = 19
R_NO_ABILITY = 20
R_NO_PINCH_TARGET = 21
R_GRAVE_EMPTY = 22
R_NO_ATTACKER_YET = 23
R_NOT_PINCHABLE = 24

REASONS = {
    R_OUT_OF_RANGE: "the action index is out of range",
    R_GAME_OVER: "the game is over",
    R_WRONG_PHASE: ("it does not fit the decision at hand (torso pick, dealer pick, auction, prize pick, "
                    "building, slot choice, arena turn, attack, reaction or pinch target)"),
    R_NOT_IN_POOL: "that torso half is not among the halves still to draft",
    R_NOT_IN_ROW: "that card is not among the dealer's face-up cards",
    R_NO_TOKENS: "the player has no energy token to pay",
    R_BID_LOW: "a bid must beat the current bid and fit the player's tokens",
    R_NOT_IN_INVENTORY: "the card is not a part in the player's inventory",
    R_NO_OPEN_SLOT: "the player's monster has no empty slot to attach into",
    R_NOT_OPEN_SLOT: "that is not an empty slot of a card of the player's monster",
    R_NO_ENERGY: "the player has too little energy",
    R_NOT_TARGETABLE: "only cards on an opponent's monster can be targeted",
    R_COVERED: "the card is covered (all its slots hold cards) and no Saw Arm can attack it",
    R_NO_ATTACKER: "none of the player's cards can attack now (used, pinched, or too little energy)",
    R_NOT_YOURS: "the card is not on the player's monster",
    R_CANNOT_ATTACK: "the card has no attack",
    R_USED: "the card has already acted this round",
    R_FROZEN: "the card is pinched and cannot act until its owner's turn ends",
    R_SAW_ONLY: "only a Saw Arm may attack a covered card, and alone",
    R_NO_ABILITY: "the card has no ability that can be used now",
    R_NO_PINCH_TARGET: "no opponent has an outer part to pinch",
    R_GRAVE_EMPTY: "the graveyard holds no part",
    R_NO_ATTACKER_YET: "an attack needs at least one attacking card before the roll",
    R_NOT_PINCHABLE: "a Pincer pinches an outer part of an opponent's monster",
}


# --- small queries ------------------------------------------------------------------
@njit(cache=True, inline="always")
def next_seat(state, p):
    """The seat to the left (clockwise) of ``p``."""
    return (p + 1) % state[H_NUM_PLAYERS]


@njit(cache=True, inline="always")
def child(state, c, s):
    """The card in slot ``s`` of card ``c`` (-1 when empty)."""
    return state[CHILD + c * MAX_SLOTS + s]


@njit(cache=True, inline="always")
def is_covered(state, c):
    """AR-11: a card is covered when it has slots and every one holds a card.

    Branch-free over the MAX_SLOTS slot entries (those beyond the card's slots are always
    empty), which keeps the loops that call it cheap.
    """
    filled = filled_slots(state, c)
    return (SLOTS[c] > 0) & (filled == SLOTS[c])


@njit(cache=True, inline="always")
def filled_slots(state, c):
    """How many of card ``c``'s slots hold a card (branch-free: entries beyond its slots are empty)."""
    base = CHILD + c * MAX_SLOTS
    return (state[base] >= 0) + (state[base + 1] >= 0) + (state[base + 2] >= 0)


@njit(cache=True, inline="always")
def defense(state, c):
    """Card ``c``'s Defense with the passive bonuses of Insect Thorax (AR-30) and Spiked Legs (AR-36)."""
    d = DEFENSE[c]
    par = state[PARENT + c]
    if KIND[c] == KIND_PART:
        if par >= 0 and ABILITY[par] == AB_INSECT:
            d += 1
    else:
        spikes = 0
        for s in range(SLOTS[c]):
            ch = child(state, c, s)
            if ch >= 0 and ABILITY[ch] == AB_SPIKES:
                spikes += 1
        d += min(spikes, SPIKE_CAP)
    return d


@njit(cache=True, inline="always")
def attack_mod(state, c):
    """Card ``c``'s Attack Mod with the Bone Claw's bonus on an arm or leg (AR-33).

    Branch-free (the parent's row is read even without a parent, and ignored), which keeps
    the attack's pass over every card cheap."""
    par = state[PARENT + c]
    return MOD[c] + ((ABILITY[c] == AB_CLAW) & (par >= 0) & (LIMB[max(par, 0)] != 0))


@njit(cache=True, inline="always")
def attack_profile(state):
    """(dice, fixed bonus, cards) of the pending attack before reactions: dice to roll, the sum of
    mods, the Tentacles' combined bonus (AR-35) and Eye Stalk aim (AR-40), and how many cards.
    One branch-free pass: every card counts, times whether it attacks."""
    dice = 0
    bonus = 0
    cards = 0
    tentacles = 0
    for c in range(NUM_CARDS):
        attacking = state[IN_ATTACK + c] != 0
        dice += attacking * DICE[c]
        bonus += attacking * attack_mod(state, c)
        cards += attacking
        tentacles += attacking & (ABILITY[c] == AB_TEAM)
    if cards >= 2:
        bonus += 2 * tentacles
    return dice, bonus + state[AIM], cards


@njit(cache=True, inline="always")
def on_monster(state, c, p):
    """Whether card ``c`` is part of seat ``p``'s monster."""
    return (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)  # branch-free: cheap in loops


@njit(cache=True, inline="always")
def has_open_slot(state, p):
    """Whether seat ``p``'s monster has an empty slot (AR-10)."""
    found = False
    for c in range(NUM_CARDS):  # slots beyond a card's own are always empty, so count filled ones
        found |= on_monster(state, c, p) & (filled_slots(state, c) < SLOTS[c])
    return found


@njit(cache=True, inline="always")
def count_parts(state, p):
    """Monster parts attached to seat ``p``'s monster (torso halves not counted, AR-23)."""
    k = 0
    for c in range(NUM_TORSOS, NUM_CARDS):
        k += on_monster(state, c, p)
    return k


@njit(cache=True, inline="always")
def refill_level(state, p):
    """Energy a turn of ``p`` refills to: 6 with Fish Tail Hips or a Heart Pump, else 5 (AR-32)."""
    for c in range(NUM_CARDS):
        if ABILITY[c] == AB_REFILL6 and on_monster(state, c, p):
            return REFILL + 1
    return REFILL


@njit(cache=True, inline="always")
def grave_top(state):
    """The part on top of the graveyard (AR-42; torso halves are skipped), -1 if none."""
    best = -1
    for c in range(NUM_TORSOS, NUM_CARDS):
        if state[LOC + c] == L_GRAVE and (best < 0 or state[GRAVE_ORDER + c] > state[GRAVE_ORDER + best]):
            best = c
    return best


@njit(cache=True, inline="always")  # callers pass constants: inlined, not compiled once per constant
def count_loc(state, loc):
    """Cards in location ``loc``."""
    k = 0
    for c in range(NUM_CARDS):
        k += state[LOC + c] == loc
    return k


# --- legality -----------------------------------------------------------------------
@njit(cache=True, inline="always")
def attacker_reason(state, p, c, covered_target):
    """Whether card ``c`` can join seat ``p``'s attack now (AR-25, AR-41).

    Reads the state without branching and decides in ``attacker_reason_of``, which takes
    scalars only: mask loops call this per card, and branches inside a helper that holds the
    state array would make numba pay reference counting on every call.
    """
    mine = (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)
    return attacker_reason_of(mine, c, state[USED + c], state[FROZEN + c], state[ENERGY + p], covered_target)


@njit(cache=True, inline="always")
def attacker_reason_of(mine, c, used, frozen, energy, covered_target):
    """``attacker_reason`` from scalars: card ``c`` is on the player's monster (``mine``), has
    acted (``used``) or is pinched (``frozen``); the player has ``energy``.

    Like every ``*_of`` reason, a chain of selects from the last check to the first (the first
    failing check wins), so mask loops run it without branches."""
    r = R_NO_ENERGY if energy < COST[c] else OK
    r = R_SAW_ONLY if covered_target and ABILITY[c] != AB_SAW else r
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    r = R_CANNOT_ATTACK if COST[c] < 0 else r
    return r if mine else R_NOT_YOURS


@njit(cache=True, inline="always")
def join_reason(state, p, c, covered_target):
    """Whether card ``c`` can be added to the pending attack (not already in it, AR-25)."""
    r = attacker_reason(state, p, c, covered_target)
    return R_USED if state[IN_ATTACK + c] != 0 else r


@njit(**INTERNAL)
def target_reason(state, p, c):
    """Whether ``p`` may open an attack on card ``c`` (AR-24, AR-11, AR-41)."""
    plain, saw, _, _, _ = turn_facts(state, p)
    return target_reason_with(state, p, c, plain, saw)


@njit(cache=True, inline="always")
def target_reason_with(state, p, c, plain, saw):
    """``target_reason`` given whether ``p`` has an attacker for an outer (``plain``) and for a
    covered card (``saw``), so a mask computes those once rather than per target."""
    theirs = (state[LOC + c] == L_TABLE) & (state[OWNER + c] != p)
    return target_reason_of(theirs, is_covered(state, c), plain, saw)


@njit(I64(types.boolean, types.boolean, types.boolean, types.boolean), **INTERNAL)
def target_reason_of(theirs, covered, plain, saw):
    """``target_reason`` from scalars (see ``attacker_reason_of``)."""
    r = R_NO_ATTACKER if not plain else OK
    r = (OK if saw else R_COVERED) if covered else r
    return r if theirs else R_NOT_TARGETABLE


@njit(cache=True, inline="always")
def pinch_reason(state, p, c):
    """Whether a Pincer of ``p`` may pinch card ``c``: an opponent's outer part (AR-34)."""
    theirs = (state[LOC + c] == L_TABLE) & (state[OWNER + c] != p)  # branch-free, as the loops want it
    return pinch_reason_of(theirs, c, is_covered(state, c))


@njit(I64(types.boolean, I64, types.boolean), **INTERNAL)
def pinch_reason_of(theirs, c, covered):
    """``pinch_reason`` from scalars (see ``attacker_reason_of``)."""
    return OK if theirs & (KIND[c] == KIND_PART) & (not covered) else R_NOT_PINCHABLE


@njit(**INTERNAL)
def active_reason(state, p, c):
    """Whether ``p`` may use card ``c``'s active ability on their turn (AR-34, AR-39, AR-40, AR-42)."""
    if not on_monster(state, c, p):
        return R_NOT_YOURS
    _, _, _, pinchable, grave = turn_facts(state, p)
    return active_reason_with(state, p, c, pinchable, grave)


@njit(cache=True, inline="always")
def active_reason_with(state, p, c, pinchable, grave):
    """``active_reason`` given whether an opponent has a part to pinch and the graveyard a part."""
    return active_reason_of(on_monster(state, c, p), c, state[USED + c], state[FROZEN + c], state[ENERGY + p],
                            pinchable, grave)


@njit(I64(types.boolean, I64, I64, I64, I64, types.boolean, types.boolean), **INTERNAL)
def active_reason_of(mine, c, used, frozen, energy, pinchable, grave):
    """``active_reason`` from scalars (see ``attacker_reason_of``)."""
    ab = ABILITY[c]
    r = R_GRAVE_EMPTY if (ab == AB_GRAVE) & (not grave) else OK
    r = R_NO_PINCH_TARGET if (ab == AB_PINCH) & (not pinchable) else r
    r = R_NO_ENERGY if energy < ABILITY_COST[c] else r
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    r = r if (ab == AB_PINCH) | (ab == AB_ROAR) | (ab == AB_AIM) | (ab == AB_GRAVE) else R_NO_ABILITY
    return r if mine else R_NOT_YOURS


@njit(cache=True, inline="always")
def reactive_reason(state, p, c):
    """Whether defender ``p`` may use card ``c``'s reactive ability on this attack (AR-27);
    branch-free reads, then scalars, as in ``attacker_reason``."""
    mine = (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)
    return reactive_reason_of(mine, c, state[USED + c], state[FROZEN + c], state[ENERGY + p])


@njit(I64(types.boolean, I64, I64, I64, I64), **INTERNAL)
def reactive_reason_of(mine, c, used, frozen, energy):
    """``reactive_reason`` from scalars (see ``attacker_reason_of``)."""
    r = R_NO_ENERGY if energy < ABILITY_COST[c] else OK
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    r = r if (ABILITY[c] == AB_WEB) | (ABILITY[c] == AB_WING) else R_NO_ABILITY
    return r if mine else R_NOT_YOURS


@njit(cache=True, inline="always")
def any_reaction(state, p):
    """Whether defender ``p`` has a reactive ability to offer."""
    found = False
    for c in range(NUM_CARDS):  # no early exit: most defenders have none, and a full branch-free pass is faster
        found |= reactive_reason(state, p, c) == OK
    return found


@njit(**INTERNAL)
def attach_reason(state, p, c, arena):
    """Whether ``p`` may choose inventory part ``c`` to attach (AR-18, AR-29)."""
    if state[LOC + c] != L_INV or state[OWNER + c] != p or KIND[c] != KIND_PART:
        return R_NOT_IN_INVENTORY  # checked first: most cards are elsewhere and need no slot scan
    return attach_reason_of(state[LOC + c], state[OWNER + c], KIND[c], p, state[ENERGY + p], arena,
                            has_open_slot(state, p))


@njit(I64(I64, I64, I64, I64, I64, types.boolean, types.boolean), **INTERNAL)
def attach_reason_of(loc, owner, kind, p, energy, arena, open_slot):
    """``attach_reason`` from the card's place, owner and kind, the energy and whether ``p``'s
    monster has an empty slot. Scalars only: mask loops call it per card, and a helper taking
    the state array would pay reference counting on every call. Selects, as ``attacker_reason_of``."""
    r = R_NO_OPEN_SLOT if not open_slot else OK
    r = R_NO_ENERGY if arena & (energy < ATTACH_COST) else r
    return r if (loc == L_INV) & (owner == p) & (kind == KIND_PART) else R_NOT_IN_INVENTORY


@njit(I64(I64, I64, I64), **INTERNAL)
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


@njit(**INTERNAL)
def take_reason(state, p, c):
    """Reason for a take action in the current phase."""
    phase = state[PHASE]
    if phase == PH_TORSO or phase == PH_DEAL or phase == PH_PRIZE:
        return pick_reason(phase, state[LOC + c], state[TOKENS + p])
    if phase == PH_BUILD or phase == PH_MAIN:
        # The arena flag as a runtime value: the literals True and False would compile twice.
        return attach_reason(state, p, c, phase == PH_MAIN)
    return R_WRONG_PHASE


@njit(**INTERNAL)
def slot_reason(state, p, c, s):
    """Whether the chosen part may go into slot ``s`` of card ``c`` (AR-10)."""
    if state[PHASE] != PH_PLACE:
        return R_WRONG_PHASE
    return slot_reason_of(on_monster(state, c, p), c, s, child(state, c, s))


@njit(I64(types.boolean, I64, I64, I64), **INTERNAL)
def slot_reason_of(mine, c, s, held):
    """``slot_reason`` from scalars: card ``c`` is on the player's monster (``mine``) and its slot
    ``s`` holds card ``held`` (-1: empty)."""
    return OK if mine & (s < SLOTS[c]) & (held < 0) else R_NOT_OPEN_SLOT


@njit(**INTERNAL)
def turn_facts(state, p):
    """The facts a whole arena turn of ``p`` shares, in one pass over the cards: whether ``p`` has
    an attacker for an outer card (``plain``) and one for a covered card (``saw``, AR-41), an empty
    slot (AR-10), whether an opponent has an outer part to pinch (AR-34) and the graveyard a part
    (AR-42). Branch-free through the same ``*_of`` reasons the single checks use."""
    energy = state[ENERGY + p]
    plain = False
    saw = False
    open_slot = False
    pinchable = False
    grave = False
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        table = loc == L_TABLE
        mine = table & (state[OWNER + c] == p)
        covered = is_covered(state, c)
        used = state[USED + c]
        frozen = state[FROZEN + c]
        plain |= attacker_reason_of(mine, c, used, frozen, energy, False) == OK
        saw |= attacker_reason_of(mine, c, used, frozen, energy, True) == OK
        open_slot |= mine & (filled_slots(state, c) < SLOTS[c])
        pinchable |= pinch_reason_of(table & (state[OWNER + c] != p), c, covered) == OK
        grave |= (loc == L_GRAVE) & (c >= NUM_TORSOS)
    return plain, saw, open_slot, pinchable, grave


@njit(cache=True, inline="always")
def main_options(state, p, out):
    """Write the legal take (attach), target and ability actions of an arena turn (AR-24..AR-29)
    into the mask ``out``; return their count.

    The per-turn facts (``turn_facts``) are computed once and handed to the same reason
    functions ``illegal_reason`` uses.
    """
    plain, saw, open_slot, pinchable, grave = turn_facts(state, p)
    energy = state[ENERGY + p]
    count = 0
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        owner = state[OWNER + c]
        table = loc == L_TABLE
        ok_take = attach_reason_of(loc, owner, KIND[c], p, energy, True, open_slot) == OK
        ok_target = target_reason_of(table & (owner != p), is_covered(state, c), plain, saw) == OK
        ok_ability = active_reason_of(table & (owner == p), c, state[USED + c], state[FROZEN + c], energy,
                                      pinchable, grave) == OK
        count += ok_take + ok_target + ok_ability
        out[TAKE0 + c] = ok_take
        out[TARGET0 + c] = ok_target
        out[ABILITY0 + c] = ok_ability
    return count


@njit(cache=True, inline="always")
def has_main_option(state, p):
    """Whether an arena turn offers ``p`` anything besides ending it (what ``main_options`` would
    find, stopping at the first)."""
    # Most turns have an attacker, and every monster is a tree whose leaves are outer, so an
    # attack is possible: found by the first able card, without the full facts pass.
    energy = state[ENERGY + p]
    for c in range(NUM_CARDS):
        if attacker_reason(state, p, c, False) == OK:
            return True
    # Without an attacker no card can be targeted (a Saw Arm that may attack is one), so only an
    # attachment or an active ability is left. Each is first asked as if the facts it needs held,
    # and only a card that passes that pays for the pass over the cards that settles them.
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        owner = state[OWNER + c]
        if attach_reason_of(loc, owner, KIND[c], p, energy, True, True) == OK and has_open_slot(state, p):
            return True
        mine = (loc == L_TABLE) & (owner == p)
        if active_reason_of(mine, c, state[USED + c], state[FROZEN + c], energy, True, True) == OK:
            _, _, _, pinchable, grave = turn_facts(state, p)
            if active_reason_of(mine, c, state[USED + c], state[FROZEN + c], energy, pinchable, grave) == OK:
                return True
    return False


@njit(I64(I64, I64, I64), **INTERNAL)
def bid_reason(k, bid, tokens):
    """A bid of ``k`` tokens must beat the current ``bid`` and fit the bidder's ``tokens`` (AR-14)."""
    return OK if bid < k <= tokens else R_BID_LOW


@njit(cache=True, inline="always")
def roll_reason(state):
    """Whether the pending attack can be rolled: it has at least one attacking card (AR-24)."""
    attacking = False
    for c in range(NUM_CARDS):
        attacking |= state[IN_ATTACK + c] != 0
    return roll_reason_of(state[PHASE], attacking)


@njit(I64(I64, types.boolean), **INTERNAL)
def roll_reason_of(phase, attacking):
    """``roll_reason`` from the phase and whether some card is in the pending attack."""
    if phase != PH_ATTACK:
        return R_WRONG_PHASE
    return OK if attacking else R_NO_ATTACKER_YET


@njit(cache=True, inline="always")
def pass_reason(state):
    """'pass' declines the dealer's pick, passes in the auction, ends building or the turn, or
    declines to react (AR-6); the other decisions must be answered."""
    phase = state[PHASE]
    if phase == PH_DEAL or phase == PH_AUCTION or phase == PH_BUILD or phase == PH_MAIN or phase == PH_REACT:
        return OK
    return R_WRONG_PHASE


@njit(**INTERNAL)
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``.

    Called from Python only (to explain a refused action), with ``ILLEGAL_REASON_SIG``'s
    argument types; compiled on its first call, so games that refuse nothing never pay for it."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < SLOT0:
        return take_reason(state, p, action - TAKE0)
    if action < BID0:
        return slot_reason(state, p, (action - SLOT0) // MAX_SLOTS, (action - SLOT0) % MAX_SLOTS)
    if action < TARGET0:
        if phase != PH_AUCTION:
            return R_WRONG_PHASE
        return bid_reason(action - BID0 + 1, state[BID], state[TOKENS + p])
    if action < ATTACKER0:
        c = action - TARGET0
        if phase == PH_MAIN:
            return target_reason(state, p, c)
        if phase == PH_PINCH:
            return pinch_reason(state, p, c)
        return R_WRONG_PHASE
    if action < ABILITY0:
        if phase != PH_ATTACK:
            return R_WRONG_PHASE
        return join_reason(state, p, action - ATTACKER0, is_covered(state, state[TARGET]))
    if action < ROLL:
        c = action - ABILITY0
        if phase == PH_MAIN:
            return active_reason(state, p, c)
        if phase == PH_REACT:
            return reactive_reason(state, p, c)
        return R_WRONG_PHASE
    if action == ROLL:
        return roll_reason(state)
    return pass_reason(state)


@njit(LEGAL_MASK_SIG, cache=True)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count.

    Only the action ranges of the current phase are asked, through the same reason functions
    ``illegal_reason`` calls, so the mask and the reasons can never disagree.
    """
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    phase = state[PHASE]
    p = state[H_CURRENT]
    count = 0
    if phase == PH_MAIN:
        count = main_options(state, p, out)
    elif phase == PH_BUILD:
        open_slot = has_open_slot(state, p)
        for c in range(NUM_CARDS):
            ok = attach_reason_of(state[LOC + c], state[OWNER + c], KIND[c], p, 0, False, open_slot) == OK
            out[TAKE0 + c] = ok
            count += ok
    elif phase == PH_TORSO or phase == PH_DEAL or phase == PH_PRIZE:
        for c in range(NUM_CARDS):
            ok = pick_reason(phase, state[LOC + c], state[TOKENS + p]) == OK
            out[TAKE0 + c] = ok
            count += ok
    elif phase == PH_PLACE:
        for c in range(NUM_CARDS):
            mine = on_monster(state, c, p)
            for s in range(MAX_SLOTS):
                ok = slot_reason_of(mine, c, s, child(state, c, s)) == OK
                out[SLOT0 + c * MAX_SLOTS + s] = ok
                count += ok
    elif phase == PH_AUCTION:
        for k in range(1, TARGET0 - BID0 + 1):
            ok = bid_reason(k, state[BID], state[TOKENS + p]) == OK
            out[BID0 + k - 1] = ok
            count += ok
    elif phase == PH_PINCH:
        for c in range(NUM_CARDS):
            ok = pinch_reason(state, p, c) == OK
            out[TARGET0 + c] = ok
            count += ok
    elif phase == PH_ATTACK:
        covered = is_covered(state, state[TARGET])
        attacking = False
        for c in range(NUM_CARDS):
            ok = join_reason(state, p, c, covered) == OK
            out[ATTACKER0 + c] = ok
            count += ok
            attacking |= state[IN_ATTACK + c] != 0
        roll = roll_reason_of(phase, attacking) == OK  # the only phase with a roll
        out[ROLL] = roll
        return count + roll
    elif phase == PH_REACT:
        for c in range(NUM_CARDS):
            ok = reactive_reason(state, p, c) == OK
            out[ABILITY0 + c] = ok
            count += ok
    done = pass_reason(state) == OK
    out[PASS] = done
    return count + done


# --- drafting -----------------------------------------------------------------------
@njit(**INTERNAL)
def draw_part(state, rng):
    """Take a random card of the deck (reshuffling the discard into it when empty, AR-15); -1 if none."""
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


@njit(cache=True, inline="always")  # three writes, called with many argument types
def give(state, c, p, known):
    """Put card ``c`` into seat ``p``'s inventory."""
    state[LOC + c] = L_INV
    state[OWNER + c] = p
    state[KNOWN + c] = known


@njit(**INTERNAL)
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


@njit(**INTERNAL)
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


@njit(**INTERNAL)
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


@njit(**INTERNAL)
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


@njit(cache=True, inline="always")
def start_drafting(state, rng):
    """Torso halves nobody took go to the box; a random dealer starts drafting (AR-12, AR-13)."""
    for c in range(NUM_TORSOS):
        if state[LOC + c] == L_TORSO:
            state[LOC + c] = L_BOX
    n = np.int64(state[H_NUM_PLAYERS])  # int64 like every other caller: one compiled rng_below
    for p in range(n):
        state[TOKENS + p] = DRAFT_TOKENS
    state[DEALER] = rng_below(rng, n)
    start_draft_round(state, rng)


@njit(cache=True, inline="always")
def torso_picker(state, i):
    """Seat making torso pick ``i``: clockwise from the first player, then back (AR-8)."""
    n = state[H_NUM_PLAYERS]
    k = i if i < n else 2 * n - 1 - i
    return (state[FIRST_PLAYER] + k) % n


# --- building -----------------------------------------------------------------------
@njit(cache=True, inline="always")
def start_building(state):
    """Leftover tokens go back to the box, energy starts at 0; building starts (AR-17, AR-18)."""
    n = state[H_NUM_PLAYERS]
    for p in range(n):
        state[TOKENS + p] = 0
        state[ENERGY + p] = 0
        state[DONE + p] = 0
    state[PHASE] = PH_BUILD
    state[H_CURRENT] = state[FIRST_PLAYER]


@njit(cache=True, inline="always")
def attach(state, c, host, s):
    """Hang part ``c`` into slot ``s`` of ``host`` on ``host``'s monster (AR-10)."""
    state[LOC + c] = L_TABLE
    state[OWNER + c] = state[OWNER + host]
    state[PARENT + c] = host
    state[PSLOT + c] = s
    state[CHILD + host * MAX_SLOTS + s] = c


@njit(**INTERNAL)
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


# --- arena ----------------------------------------------------------------------------
@njit(**INTERNAL)
def finish_game(state, winners_alive):
    """End the game; the winners are the seats still alive (AR-44, AR-45)."""
    n = state[H_NUM_PLAYERS]
    for p in range(n):
        state[WINNER + p] = state[ALIVE + p] if winners_alive else 0
    state[H_TERMINAL] = 1
    state[H_CURRENT] = -1
    state[PHASE] = PH_OVER


@njit(**INTERNAL)
def start_turn(state, p):
    """AR-24: the turn of ``p`` refills energy to 5 (or 6, AR-32)."""
    state[TURN_SEAT] = p
    state[H_CURRENT] = p
    state[ENERGY + p] = max(state[ENERGY + p], refill_level(state, p))
    state[AIM] = 0
    state[PHASE] = PH_MAIN


@njit(**INTERNAL)
def start_arena_round(state, rng):
    """AR-23: the monster with the fewest parts starts (ties at random), then clockwise.

    AR-45: only with the opt-in option ``quiet_ending_rounds`` = k > 0 do k rounds in a row
    without a destroyed card end the game with the survivors sharing the win; by default
    (ruling AR9) the arena goes on until a monster falls or the step limit truncates.
    """
    n = np.int64(state[H_NUM_PLAYERS])  # seats as int64, as end_turn passes them: one start_turn
    if state[ROUND] > 0:
        state[QUIET] += 1
        if state[QUIET_ENDING] > 0 and state[QUIET] >= state[QUIET_ENDING]:
            finish_game(state, True)
            return
    state[ROUND] += 1
    for c in range(NUM_CARDS):
        state[USED + c] = 0
    fewest = NUM_CARDS
    ties = 0
    for p in range(n):
        state[DONE + p] = 0
        if state[ALIVE + p] != 0:
            k = count_parts(state, p)
            if k < fewest:
                fewest = k
                ties = 0
            ties += k == fewest
    pick = rng_below(rng, ties) if ties > 1 else 0
    for p in range(n):
        if state[ALIVE + p] != 0 and count_parts(state, p) == fewest:
            if pick == 0:
                start_turn(state, p)
                return
            pick -= 1


@njit(**INTERNAL)
def end_turn(state, rng):
    """Pinches on the player's cards wear off (AR-34); the next seat clockwise that has not
    played this round goes next, else a new round starts."""
    n = state[H_NUM_PLAYERS]
    p = state[TURN_SEAT]
    for c in range(NUM_CARDS):
        if state[OWNER + c] == p:
            state[FROZEN + c] = 0
    state[DONE + p] = 1
    state[AIM] = 0
    q = next_seat(state, p)
    for _ in range(n):
        if state[ALIVE + q] != 0 and state[DONE + q] == 0:
            start_turn(state, q)
            return
        q = next_seat(state, q)
    start_arena_round(state, rng)


@njit(**INTERNAL)
def to_grave(state, c):
    """Card ``c`` goes on top of the graveyard, cut loose from its monster."""
    state[LOC + c] = L_GRAVE
    state[OWNER + c] = -1
    state[KNOWN + c] = 1
    state[FROZEN + c] = 0
    state[GRAVE_TOP] += 1
    state[GRAVE_ORDER + c] = state[GRAVE_TOP]


@njit(**INTERNAL)
def unlink(state, c):
    """Detach card ``c`` from its parent and its children (links only)."""
    par = state[PARENT + c]
    if par >= 0:
        state[CHILD + par * MAX_SLOTS + state[PSLOT + c]] = -1
    state[PARENT + c] = -1
    state[PSLOT + c] = -1
    for s in range(MAX_SLOTS):
        state[CHILD + c * MAX_SLOTS + s] = -1


@njit(cache=True, inline="always")
def cut_below(state, c, p):
    """Every part hanging below ``c`` goes to ``p``'s inventory, intact as cards (AR-20).

    The parts below are all found before any is cut loose (a part is below ``c`` when ``c`` is on
    its chain of parents), kept as bits of one integer: no allocation, no stack.
    """
    below = 0
    for d in range(NUM_CARDS):
        a = state[PARENT + d]
        while a >= 0 and a != c:
            a = state[PARENT + a]
        if a == c:
            below |= 1 << d  # NUM_CARDS <= 63 fits an int64
    for d in range(NUM_CARDS):
        if (below >> d) & 1:
            unlink(state, d)
            give(state, d, p, 1)
            state[FROZEN + d] = 0


@njit(cache=True, inline="always")
def destroy(state, c):
    """AR-20, AR-21: a destroyed part goes to the graveyard and the parts below it to the owner's
    inventory; a destroyed torso half takes the whole monster to the graveyard and its player is out."""
    p = state[OWNER + c]
    if KIND[c] == KIND_PART:
        cut_below(state, c, p)
        unlink(state, c)
        to_grave(state, c)
        return
    for c2 in range(NUM_CARDS):
        if c2 != c and on_monster(state, c2, p):
            unlink(state, c2)
            to_grave(state, c2)
    unlink(state, c)
    to_grave(state, c)
    state[ALIVE + p] = 0


@njit(**INTERNAL)
def resolve_attack(state, rng):
    """AR-26: roll every attacking card's dice, add mods and ability modifiers, compare with the
    target's Defense; a hit destroys it. Then the attacker's turn goes on."""
    target = np.int64(state[TARGET])  # cards as int64, as the loops pass them: one destroy, unlink...
    victim = state[OWNER + target]
    dice, bonus, _ = attack_profile(state)
    rolled = 0
    for _ in range(dice):
        rolled += rng_below(rng, np.int64(6)) + 1  # not the literal 6: no version of its own
    total = rolled + bonus - state[WING]
    needed = defense(state, target) + state[WEB]
    hit = total >= needed
    venom = False
    for c in range(NUM_CARDS):  # branch-free, as attack_profile
        venom |= (state[IN_ATTACK + c] != 0) & (ABILITY[c] == AB_VENOM)
        state[IN_ATTACK + c] = 0
    state[LAST] = target
    state[LAST + 1] = total
    state[LAST + 2] = needed
    state[LAST + 3] = hit
    state[LAST + 4] = rolled
    state[AIM] = 0
    state[WEB] = 0
    state[WING] = 0
    state[TARGET] = -1
    state[PHASE] = PH_MAIN
    state[H_CURRENT] = state[TURN_SEAT]
    if hit:
        state[QUIET] = -1  # the round under way counts as eventful
        destroy(state, target)
        if venom:
            state[ENERGY + victim] = max(state[ENERGY + victim] - 1, 0)
        alive = 0
        for p in range(state[H_NUM_PLAYERS]):
            alive += state[ALIVE + p]
        if alive <= 1:
            finish_game(state, True)


@njit(cache=True, inline="always")
def use_active(state, p, c):
    """Pay for and apply an active ability (a Pincer first asks for its target)."""
    ab = ABILITY[c]
    if ab == AB_PINCH:
        state[SELECTED] = c
        state[PHASE] = PH_PINCH
        return
    state[ENERGY + p] -= ABILITY_COST[c]
    state[USED + c] = 1
    if ab == AB_ROAR:
        for q in range(state[H_NUM_PLAYERS]):
            if q != p and state[ALIVE + q] != 0:
                state[ENERGY + q] = max(state[ENERGY + q] - 1, 0)
    elif ab == AB_AIM:
        state[AIM] += 2
    elif ab == AB_GRAVE:
        g = grave_top(state)
        state[GRAVE_ORDER + g] = 0
        give(state, g, p, 1)


@njit(**INTERNAL)
def advance(state, rng):
    """Take the automatic steps (ruling C6): passes of bidders who cannot raise, a prize with one
    card left, builders with nothing to attach, turns with nothing but ending, defenders with no
    reaction to offer."""
    while state[H_TERMINAL] == 0:
        p = state[H_CURRENT]
        phase = state[PHASE]
        if phase == PH_AUCTION and state[TOKENS + p] <= state[BID]:
            auction_pass(state, rng)
        elif phase == PH_PRIZE and count_loc(state, L_ROW) == 1:
            for c in range(NUM_CARDS):
                if state[LOC + c] == L_ROW:
                    take_prize(state, p, c, rng)
                    break
        elif phase == PH_BUILD and not has_build_option(state, p):
            finish_building(state, p, rng)
        elif phase == PH_MAIN and not has_main_option(state, p):
            end_turn(state, rng)
        elif phase == PH_REACT and not any_reaction(state, p):
            resolve_attack(state, rng)
        else:
            return


@njit(cache=True, inline="always")
def has_build_option(state, p):
    """Whether a builder has a part and an open slot."""
    if not has_open_slot(state, p):
        return False
    for c in range(NUM_TORSOS, NUM_CARDS):
        if attach_reason_of(state[LOC + c], state[OWNER + c], KIND[c], p, 0, False, True) == OK:
            return True
    return False


@njit(**INTERNAL)
def take_prize(state, p, c, rng):
    """The auction winner pays the bid and takes card ``c`` (AR-14)."""
    give(state, c, p, 1)
    state[TOKENS + p] -= state[BID]
    state[SPENT] = 1
    end_draft_round(state, rng)


@njit(INIT_STATE_SIG, cache=True)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode,
    quiet_ending_rounds) (AR-1, AR-8, AR-45); a config without the last entry has no quiet ending."""
    n = start_game(state, config)
    state[QUIET_ENDING] = config[C_QUIET_ENDING] if config.shape[0] > C_QUIET_ENDING else 0
    for c in range(NUM_CARDS):
        state[LOC + c] = L_TORSO if KIND[c] != KIND_PART else L_DECK
        state[OWNER + c] = -1
        state[PARENT + c] = -1
        state[PSLOT + c] = -1
        state[KNOWN + c] = 1 if KIND[c] != KIND_PART else 0
    state[CHILD:CHILD + NUM_CARDS * MAX_SLOTS] = -1
    state[HIGH] = -1
    state[SELECTED] = -1
    state[TARGET] = -1
    state[TURN_SEAT] = -1
    state[LAST] = -1
    state[FIRST_PLAYER] = rng_below(rng, n)
    state[PHASE] = PH_TORSO
    state[H_CURRENT] = state[FIRST_PLAYER]


@njit(APPLY_ACTION_SIG, cache=True)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < SLOT0:
        c = action - TAKE0
        if phase == PH_TORSO:
            state[LOC + c] = L_TABLE
            state[OWNER + c] = p
            state[PICKS] += 1
            if state[PICKS] == 2 * state[H_NUM_PLAYERS]:
                start_drafting(state, rng)
            else:
                state[H_CURRENT] = torso_picker(state, state[PICKS])
        elif phase == PH_DEAL:
            give(state, c, p, 1)
            state[TOKENS + p] -= DEALER_PRICE
            state[SPENT] = 1
            start_auction(state, rng)
        elif phase == PH_PRIZE:
            take_prize(state, p, c, rng)
        else:
            state[SELECTED] = c
            state[PHASE] = PH_PLACE
            if state[ROUND] > 0:
                state[KNOWN + c] = 1  # in the arena the part is shown as it is attached
    elif action < BID0:
        host = (action - SLOT0) // MAX_SLOTS
        attach(state, state[SELECTED], host, (action - SLOT0) % MAX_SLOTS)
        state[SELECTED] = -1
        if state[ROUND] > 0:
            state[ENERGY + p] -= ATTACH_COST
            state[PHASE] = PH_MAIN
        else:
            state[PHASE] = PH_BUILD
    elif action < TARGET0:
        state[BID] = action - BID0 + 1
        state[HIGH] = p
        state[PASSES] = 0
        state[H_CURRENT] = next_seat(state, p)
    elif action < ATTACKER0:
        c = action - TARGET0
        if phase == PH_MAIN:
            state[TARGET] = c
            state[PHASE] = PH_ATTACK
        else:
            pincer = state[SELECTED]
            state[ENERGY + p] -= ABILITY_COST[pincer]
            state[USED + pincer] = 1
            state[FROZEN + c] = 1
            state[SELECTED] = -1
            state[PHASE] = PH_MAIN
    elif action < ABILITY0:
        c = action - ATTACKER0
        state[IN_ATTACK + c] = 1
        state[USED + c] = 1
        state[ENERGY + p] -= COST[c]
    elif action < ROLL:
        c = action - ABILITY0
        if phase == PH_MAIN:
            use_active(state, p, c)
        else:
            state[ENERGY + p] -= ABILITY_COST[c]
            state[USED + c] = 1
            if ABILITY[c] == AB_WEB:
                state[WEB] += 2
            else:
                state[WING] += 2
    elif action == ROLL:
        state[WEB] = 0
        state[WING] = 0
        state[PHASE] = PH_REACT
        state[H_CURRENT] = state[OWNER + state[TARGET]]
    else:
        if phase == PH_DEAL:
            start_auction(state, rng)
        elif phase == PH_AUCTION:
            auction_pass(state, rng)
        elif phase == PH_BUILD:
            finish_building(state, p, rng)
        elif phase == PH_MAIN:
            end_turn(state, rng)
        else:
            resolve_attack(state, rng)
    advance(state, rng)


@njit(cache=True, inline="always")
def final_score(state, p):
    """AR-46: cards still on ``p``'s monster at the end (0 once it is destroyed)."""
    k = 0
    for c in range(NUM_CARDS):
        k += on_monster(state, c, p)
    return k


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    """Final rewards per seat (ruling C3; with ``reward="score"`` the cards left on each monster);
    zeros while the game runs."""
    scores = np.zeros(MAX_PLAYERS, np.int64)
    for p in range(state[H_NUM_PLAYERS]):
        scores[p] = final_score(state, p)
    c3_returns_scored(state, WINNER, scores, out)


# --- observation -------------------------------------------------------------------
# Per card, CARD_FEATURES floats (card ids 0-59 in the order of CARD_LABEL):
F_TABLE = 0          # on the monster of relative seat r (6, one-hot)
F_INV = 6            # in the inventory of relative seat r, where the observer may know it (6)
F_ROW = 12           # turned up by the dealer
F_DISCARD = 13
F_GRAVE = 14
F_BOX = 15
F_TORSO = 16         # torso half still to draft
F_COVERED = 17
F_USED = 18
F_FROZEN = 19
F_IN_ATTACK = 20
F_TARGET = 21
F_SELECTED = 22
F_PARENT = 23        # (parent id + 1) / 61
F_PSLOT = 24         # (slot + 1) / 3
F_GRAVE_ORDER = 25   # arrival order in the graveyard / 60
CARD_FEATURES = 26
OBS_CARDS = 0
OBS_TOKENS = OBS_CARDS + NUM_CARDS * CARD_FEATURES  # per relative seat: tokens / 15
OBS_ENERGY = OBS_TOKENS + MAX_PLAYERS               # energy / 6
OBS_INV_SIZE = OBS_ENERGY + MAX_PLAYERS             # inventory size / 48
OBS_ALIVE = OBS_INV_SIZE + MAX_PLAYERS
OBS_DONE = OBS_ALIVE + MAX_PLAYERS                  # built / had its turn this round
OBS_WINNER = OBS_DONE + MAX_PLAYERS
OBS_SEATED = OBS_WINNER + MAX_PLAYERS
OBS_PHASE = OBS_SEATED + MAX_PLAYERS                # one-hot of 11 phases
OBS_ON_MOVE = OBS_PHASE + PH_OVER + 1
OBS_TURN_SEAT = OBS_ON_MOVE + MAX_PLAYERS
OBS_DEALER = OBS_TURN_SEAT + MAX_PLAYERS
OBS_HIGH = OBS_DEALER + MAX_PLAYERS
OBS_FIRST = OBS_HIGH + MAX_PLAYERS
OBS_MISC = OBS_FIRST + MAX_PLAYERS                  # scalars, see observe_into
# Derived from the observer's view (observation v3), what the greedy baseline weighs when it plays.
# While monsters are built, another seat shows only its torso halves' printed Defense (AR-19).
OBS_DEFENSE = OBS_MISC + 13                        # per card on a monster: Defense with passives / 16
OBS_POWER = OBS_DEFENSE + NUM_CARDS                # per relative seat: expected attack of its cards
                                                   # that may still act this round / POWER_SCALE
OBS_PARTS = OBS_POWER + MAX_PLAYERS                # parts attached / 48
OBS_EXPOSED = OBS_PARTS + MAX_PLAYERS              # outer torso halves / 2 (a hit there ends it)
OBS_WEAKEST = OBS_EXPOSED + MAX_PLAYERS            # lowest Defense among its outer cards / 16
OBS_MARGIN = OBS_WEAKEST + MAX_PLAYERS             # pending attack: 0.5 + (expected total - needed) / 40
OBS_SIZE = OBS_MARGIN + 1
DEFENSE_SCALE = 16.0   # Defense 13 plus two Spiked Legs stays below it
POWER_SCALE = 40.0
MARGIN_SCALE = 40.0
MEAN_DIE = 3.5
# Quiet rounds are observed against the opt-in limit (AR-45), else against this many rounds.
QUIET_SCALE = 10.0
NUM_PARTS = NUM_CARDS - NUM_TORSOS


@njit(cache=True, inline="always")
def is_building(state):
    """Whether monsters are being built (AR-19): the building phase or a builder's slot choice."""
    return state[PHASE] == PH_BUILD or (state[PHASE] == PH_PLACE and state[ROUND] == 0)


@njit(**INTERNAL)
def observe_derived(state, player, out):
    """The derived slices of seat ``player``'s view (``OBS_DEFENSE`` onwards): Defense with its
    passive bonuses (AR-30, AR-36), attack strength, exposure, and the pending attack's margin."""
    n = state[H_NUM_PLAYERS]
    building = is_building(state)
    weakest = np.zeros(MAX_PLAYERS, np.int64)
    for c in range(NUM_CARDS):
        q = state[OWNER + c]
        if state[LOC + c] != L_TABLE:
            continue
        rel = (q - player) % n
        if building and q != player:
            if KIND[c] != KIND_PART:
                out[OBS_DEFENSE + c] = DEFENSE[c] / DEFENSE_SCALE
            continue
        d = defense(state, c)
        out[OBS_DEFENSE + c] = d / DEFENSE_SCALE
        out[OBS_PARTS + rel] += (KIND[c] == KIND_PART) / float(NUM_PARTS)
        if COST[c] >= 0 and state[USED + c] == 0 and state[FROZEN + c] == 0:
            out[OBS_POWER + rel] += (MEAN_DIE * DICE[c] + attack_mod(state, c)) / POWER_SCALE
        if not is_covered(state, c):
            out[OBS_EXPOSED + rel] += (KIND[c] != KIND_PART) / 2.0
            if weakest[rel] == 0 or d < weakest[rel]:
                weakest[rel] = d
    for rel in range(n):
        out[OBS_POWER + rel] = min(out[OBS_POWER + rel], 1.0)
        out[OBS_WEAKEST + rel] = weakest[rel] / DEFENSE_SCALE
    target = state[TARGET]
    if target >= 0:
        dice, bonus, _ = attack_profile(state)
        margin = MEAN_DIE * dice + bonus - state[WING] - defense(state, target) - state[WEB]
        out[OBS_MARGIN] = min(max(0.5 + margin / MARGIN_SCALE, 0.0), 1.0)


@njit(OBSERVE_SIG, cache=True)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Holds the public table plus the observer's own inventory, the cards of others'
    inventories that everybody saw go there, and nothing else (AR-5).
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    building = is_building(state)
    deck = 0
    for c in range(NUM_CARDS):
        base = OBS_CARDS + c * CARD_FEATURES
        loc = state[LOC + c]
        owner = state[OWNER + c]
        rel = (owner - player) % n if owner >= 0 else 0
        deck += loc == L_DECK
        out[OBS_INV_SIZE + rel] += loc == L_INV  # counted here, scaled below
        if loc == L_TABLE and building and owner != player and KIND[c] == KIND_PART:
            # AR-19: while building, another seat's attached part still looks like inventory
            out[OBS_INV_SIZE + rel] += 1.0
            if state[KNOWN + c] != 0:
                out[base + F_INV + rel] = 1.0
            continue
        if loc == L_TABLE:
            out[base + F_TABLE + rel] = 1.0
            covered = is_covered(state, c)
            if building and owner != player:
                covered = False  # its slots look empty to the others while building
            out[base + F_COVERED] = covered
            out[base + F_PARENT] = (state[PARENT + c] + 1) / (NUM_CARDS + 1.0)
            out[base + F_PSLOT] = (state[PSLOT + c] + 1) / float(MAX_SLOTS)
        elif loc == L_INV:
            if owner == player or state[KNOWN + c] != 0:
                out[base + F_INV + rel] = 1.0
        elif loc == L_ROW:
            out[base + F_ROW] = 1.0
        elif loc == L_DISCARD:
            out[base + F_DISCARD] = 1.0
        elif loc == L_GRAVE:
            out[base + F_GRAVE] = 1.0
            out[base + F_GRAVE_ORDER] = min(state[GRAVE_ORDER + c] / float(NUM_CARDS), 1.0)
        elif loc == L_BOX:
            out[base + F_BOX] = 1.0
        elif loc == L_TORSO:
            out[base + F_TORSO] = 1.0
        out[base + F_USED] = state[USED + c]
        out[base + F_FROZEN] = state[FROZEN + c]
        out[base + F_IN_ATTACK] = state[IN_ATTACK + c]
        out[base + F_TARGET] = state[TARGET] == c
        out[base + F_SELECTED] = state[SELECTED] == c and not (building and state[H_CURRENT] != player)
    for q in range(n):
        rel = (q - player) % n
        out[OBS_TOKENS + rel] = state[TOKENS + q] / float(DRAFT_TOKENS)
        out[OBS_ENERGY + rel] = state[ENERGY + q] / float(REFILL + 1)
        out[OBS_INV_SIZE + rel] /= float(NUM_PARTS)
        out[OBS_ALIVE + rel] = state[ALIVE + q]
        out[OBS_DONE + rel] = state[DONE + q]
        out[OBS_WINNER + rel] = state[WINNER + q]
        out[OBS_SEATED + rel] = 1.0
    phase = state[PHASE]
    if building and phase == PH_PLACE and state[H_CURRENT] != player:
        phase = PH_BUILD  # whether another builder is mid-attachment is not seen
    out[OBS_PHASE + phase] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + (state[H_CURRENT] - player) % n] = 1.0
    if state[TURN_SEAT] >= 0:
        out[OBS_TURN_SEAT + (state[TURN_SEAT] - player) % n] = 1.0
    out[OBS_DEALER + (state[DEALER] - player) % n] = 1.0
    if state[HIGH] >= 0:
        out[OBS_HIGH + (state[HIGH] - player) % n] = 1.0
    out[OBS_FIRST + (state[FIRST_PLAYER] - player) % n] = 1.0
    out[OBS_MISC + 0] = state[BID] / float(DRAFT_TOKENS)
    out[OBS_MISC + 1] = min(state[PASSES] / float(MAX_PLAYERS), 1.0)
    out[OBS_MISC + 2] = min(state[DRY_ROUNDS] / float(MAX_PLAYERS), 1.0)
    out[OBS_MISC + 3] = state[WEB] / 2.0
    out[OBS_MISC + 4] = min(state[WING] / 6.0, 1.0)
    out[OBS_MISC + 5] = min(state[AIM] / 4.0, 1.0)
    out[OBS_MISC + 6] = min(state[ROUND] / 100.0, 1.0)
    out[OBS_MISC + 7] = deck / float(NUM_PARTS)
    out[OBS_MISC + 8] = (state[LAST] + 1) / (NUM_CARDS + 1.0)
    out[OBS_MISC + 9] = min(max(state[LAST + 1], 0) / 60.0, 1.0)
    out[OBS_MISC + 10] = min(state[LAST + 2] / 20.0, 1.0)
    out[OBS_MISC + 11] = state[LAST + 3]
    scale = float(state[QUIET_ENDING]) if state[QUIET_ENDING] > 0 else QUIET_SCALE
    out[OBS_MISC + 12] = min(max(state[QUIET], 0) / scale, 1.0)
    observe_derived(state, player, out)


@njit(cache=True)  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Resample what ``player`` cannot see (AR-5): which unseen parts lie in the deck and which in
    other seats' inventories (sizes kept), and, while building, other seats' attachments (taken
    back into their inventories, a valid way to have built nothing yet)."""
    if is_building(state):
        for c in range(NUM_TORSOS, NUM_CARDS):
            q = state[OWNER + c]
            if state[LOC + c] == L_TABLE and q != player:
                unlink(state, c)
                give(state, c, q, state[KNOWN + c])
    # pool: the unseen cards in card order, and the places they fill (location, owner; a deck
    # card has no owner) with a flag on the selected card's place.
    pool = np.empty((4, NUM_CARDS), np.int64)
    selected = state[SELECTED]
    k = 0
    for c in range(NUM_CARDS):
        loc = state[LOC + c]
        if loc == L_DECK or (loc == L_INV and state[OWNER + c] != player and state[KNOWN + c] == 0):
            pool[0, k] = c
            pool[1, k] = loc
            pool[2, k] = state[OWNER + c] if loc == L_INV else -1
            pool[3, k] = c == selected
            k += 1
    # The places in a fixed order (by location, owner, the selected card's place first among
    # equals): in card order they would follow where the unseen cards really lie, and the
    # redeal would depend on it.
    for i in range(1, k):
        loc, owner, flag = pool[1, i], pool[2, i], pool[3, i]
        j = i - 1
        while j >= 0 and (pool[1, j], pool[2, j], -pool[3, j]) > (loc, owner, -flag):
            pool[1, j + 1], pool[2, j + 1], pool[3, j + 1] = pool[1, j], pool[2, j], pool[3, j]
            j -= 1
        pool[1, j + 1], pool[2, j + 1], pool[3, j + 1] = loc, owner, flag
    for i in range(k - 1, 0, -1):  # Fisher-Yates over the unseen cards
        j = rng_below(rng, i + 1)
        pool[0, i], pool[0, j] = pool[0, j], pool[0, i]
    # Hand the shuffled cards to the places: the places keep their counts.
    for i in range(k):
        c = pool[0, i]
        if pool[3, i]:
            state[SELECTED] = c
        state[LOC + c] = pool[1, i]
        state[OWNER + c] = pool[2, i]
        state[KNOWN + c] = 0
