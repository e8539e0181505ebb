"""Monster Arena's arena (AR-20..AR-43): who may attack, target, pinch and react, and what
turns, rounds, attacks and abilities do to the table.

Legality first: one reason function per decision of an arena turn, each with a ``*_of`` helper
that decides from scalars (see ``rules.py`` for why masks need them), and ``turn_facts``, the
facts a whole turn shares. Then the turn flow of the arena (rounds, turns, the end of a turn),
then the effects: cards to the graveyard, cut limbs, fallen monsters, the roll of an attack and
the active abilities. Rule ids (AR-n) refer to ``seeds/monster_arena/rules.md``.
"""

import numpy as np
from numba import types

from ..core.contract import H_CURRENT, H_NUM_PLAYERS
from ..core.kernels import helper, inlined, standalone
from ..core.rng import rng_below
from .components import (
    AB_AIM,
    AB_GRAVE,
    AB_PINCH,
    AB_ROAR,
    AB_SAW,
    AB_VENOM,
    AB_WEB,
    AB_WING,
    ABILITY,
    ABILITY_COST,
    COST,
    KIND,
    KIND_PART,
    MAX_SLOTS,
    NUM_CARDS,
    NUM_TORSOS,
    SLOTS,
)
from .queries import (
    OK,
    R_CANNOT_ATTACK,
    R_COVERED,
    R_FROZEN,
    R_GRAVE_EMPTY,
    R_NO_ABILITY,
    R_NO_ATTACKER,
    R_NO_ATTACKER_YET,
    R_NO_ENERGY,
    R_NO_PINCH_TARGET,
    R_NOT_PINCHABLE,
    R_NOT_TARGETABLE,
    R_NOT_YOURS,
    R_SAW_ONLY,
    R_USED,
    R_WRONG_PHASE,
    attack_profile,
    count_parts,
    defense,
    filled_slots,
    finish_game,
    give,
    grave_top,
    is_covered,
    next_seat,
    on_monster,
    refill_level,
)
from .state_layout import (
    AIM,
    ALIVE,
    CHILD,
    DONE,
    ENERGY,
    FROZEN,
    GRAVE_ORDER,
    GRAVE_TOP,
    IN_ATTACK,
    KNOWN,
    L_GRAVE,
    L_TABLE,
    LAST,
    LOC,
    OWNER,
    PARENT,
    PH_ATTACK,
    PH_MAIN,
    PH_PINCH,
    PHASE,
    PSLOT,
    QUIET,
    QUIET_ENDING,
    ROUND,
    SELECTED,
    TARGET,
    TURN_SEAT,
    USED,
    WEB,
    WING,
)

I64 = types.int64


# --- legality -----------------------------------------------------------------------
@inlined
def attacker_reason(state, p, c, covered_target):
    """Whether card ``c`` can join seat ``p``'s attack now (AR-25, AR-41).

    Reads the state without branching and decides in ``attacker_reason_of``, which takes
    scalars only: mask loops call this per card, and branches inside a helper that holds the
    state array would make numba pay reference counting on every call.
    """
    mine = (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)
    return attacker_reason_of(mine, c, state[USED + c], state[FROZEN + c], state[ENERGY + p], covered_target)


@inlined
def attacker_reason_of(mine, c, used, frozen, energy, covered_target):
    """``attacker_reason`` from scalars: card ``c`` is on the player's monster (``mine``), has
    acted (``used``) or is pinched (``frozen``); the player has ``energy``.

    Like every ``*_of`` reason, a chain of selects from the last check to the first (the first
    failing check wins), so mask loops run it without branches."""
    r = R_NO_ENERGY if energy < COST[c] else OK
    r = R_SAW_ONLY if covered_target and ABILITY[c] != AB_SAW else r
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    r = R_CANNOT_ATTACK if COST[c] < 0 else r  # AR-43: a card without a cost never attacks
    return r if mine else R_NOT_YOURS


@inlined
def join_reason(state, p, c, covered_target):
    """Whether card ``c`` can be added to the pending attack (not already in it, AR-25)."""
    r = attacker_reason(state, p, c, covered_target)
    return R_USED if state[IN_ATTACK + c] != 0 else r


@helper
def target_reason(state, p, c):
    """Whether ``p`` may open an attack on card ``c`` (AR-24, AR-11, AR-41)."""
    plain, saw, _, _, _ = turn_facts(state, p)
    return target_reason_with(state, p, c, plain, saw)


@inlined
def target_reason_with(state, p, c, plain, saw):
    """``target_reason`` given whether ``p`` has an attacker for an outer (``plain``) and for a
    covered card (``saw``), so a mask computes those once rather than per target."""
    theirs = (state[LOC + c] == L_TABLE) & (state[OWNER + c] != p)
    return target_reason_of(theirs, is_covered(state, c), plain, saw)


@helper(I64(types.boolean, types.boolean, types.boolean, types.boolean))
def target_reason_of(theirs, covered, plain, saw):
    """``target_reason`` from scalars (see ``attacker_reason_of``)."""
    r = R_NO_ATTACKER if not plain else OK
    r = (OK if saw else R_COVERED) if covered else r
    return r if theirs else R_NOT_TARGETABLE


@inlined
def pinch_reason(state, p, c):
    """Whether a Pincer of ``p`` may pinch card ``c``: an opponent's outer part (AR-34)."""
    theirs = (state[LOC + c] == L_TABLE) & (state[OWNER + c] != p)  # branch-free, as the loops want it
    return pinch_reason_of(theirs, c, is_covered(state, c))


@helper(I64(types.boolean, I64, types.boolean))
def pinch_reason_of(theirs, c, covered):
    """``pinch_reason`` from scalars (see ``attacker_reason_of``)."""
    return OK if theirs & (KIND[c] == KIND_PART) & (not covered) else R_NOT_PINCHABLE


@helper
def active_reason(state, p, c):
    """Whether ``p`` may use card ``c``'s active ability on their turn (AR-34, AR-39, AR-40, AR-42)."""
    if not on_monster(state, c, p):
        return R_NOT_YOURS
    _, _, _, pinchable, grave = turn_facts(state, p)
    return active_reason_with(state, p, c, pinchable, grave)


@inlined
def active_reason_with(state, p, c, pinchable, grave):
    """``active_reason`` given whether an opponent has a part to pinch and the graveyard a part."""
    return active_reason_of(
        on_monster(state, c, p), c, state[USED + c], state[FROZEN + c], state[ENERGY + p], pinchable, grave
    )


@helper(I64(types.boolean, I64, I64, I64, I64, types.boolean, types.boolean))
def active_reason_of(mine, c, used, frozen, energy, pinchable, grave):
    """``active_reason`` from scalars (see ``attacker_reason_of``)."""
    ab = ABILITY[c]
    r = R_GRAVE_EMPTY if (ab == AB_GRAVE) & (not grave) else OK
    r = R_NO_PINCH_TARGET if (ab == AB_PINCH) & (not pinchable) else r
    r = R_NO_ENERGY if energy < ABILITY_COST[c] else r
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    # Only these four abilities are active; a card with none (the Armor Plate) never acts (AR-43).
    r = r if (ab == AB_PINCH) | (ab == AB_ROAR) | (ab == AB_AIM) | (ab == AB_GRAVE) else R_NO_ABILITY
    return r if mine else R_NOT_YOURS


@inlined
def reactive_reason(state, p, c):
    """Whether defender ``p`` may use card ``c``'s reactive ability on this attack (AR-27);
    branch-free reads, then scalars, as in ``attacker_reason``."""
    mine = (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)
    return reactive_reason_of(mine, c, state[USED + c], state[FROZEN + c], state[ENERGY + p])


@helper(I64(types.boolean, I64, I64, I64, I64))
def reactive_reason_of(mine, c, used, frozen, energy):
    """``reactive_reason`` from scalars (see ``attacker_reason_of``)."""
    r = R_NO_ENERGY if energy < ABILITY_COST[c] else OK
    r = R_FROZEN if frozen != 0 else r
    r = R_USED if used != 0 else r
    # The two reactive abilities: the Spider Abdomen's web (AR-31) and the Bat Wing (AR-38).
    r = r if (ABILITY[c] == AB_WEB) | (ABILITY[c] == AB_WING) else R_NO_ABILITY
    return r if mine else R_NOT_YOURS


@inlined
def any_reaction(state, p):
    """Whether defender ``p`` has a reactive ability to offer."""
    found = False
    for c in range(
        NUM_CARDS
    ):  # no early exit: most defenders have none, and a full branch-free pass is faster
        found |= reactive_reason(state, p, c) == OK
    return found


@inlined
def roll_reason(state):
    """Whether the pending attack can be rolled: it has at least one attacking card (AR-24)."""
    attacking = False
    for c in range(NUM_CARDS):
        attacking |= state[IN_ATTACK + c] != 0
    return roll_reason_of(state[PHASE], attacking)


@helper(I64(I64, types.boolean))
def roll_reason_of(phase, attacking):
    """``roll_reason`` from the phase and whether some card is in the pending attack."""
    if phase != PH_ATTACK:
        return R_WRONG_PHASE
    return OK if attacking else R_NO_ATTACKER_YET


@helper
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


# --- turn flow: rounds and turns ----------------------------------------------------
@helper
def start_turn(state, p):
    """AR-24: the turn of ``p`` refills energy to 5 (or 6, AR-32)."""
    state[TURN_SEAT] = p
    state[H_CURRENT] = p
    state[ENERGY + p] = max(state[ENERGY + p], refill_level(state, p))
    state[AIM] = 0
    state[PHASE] = PH_MAIN


@standalone
def start_arena_round(state, rng):
    """AR-23: the monster with the fewest parts starts (ties at random), then clockwise.

    AR-45: only with the opt-in option ``quiet_ending_rounds`` = k > 0 do k rounds in a row
    without a destroyed card end the game with the survivors sharing the win; by default
    (ruling AR9) the arena goes on until a monster falls or the step limit truncates (AR-9, AR-44).
    The tie for the first turn is broken by the game's generator (AR-4).
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


@standalone
def end_turn(state, rng):
    """Pinches on the player's cards wear off (AR-34); the next seat clockwise that has not
    played this round goes next, else a new round starts."""
    n = state[H_NUM_PLAYERS]
    p = state[TURN_SEAT]
    for c in range(NUM_CARDS):
        if state[OWNER + c] == p:
            state[FROZEN + c] = 0
    state[DONE + p] = 1
    state[AIM] = 0  # aim left unused is lost with the turn (AR-40)
    q = next_seat(state, p)
    for _ in range(n):
        if state[ALIVE + q] != 0 and state[DONE + q] == 0:
            start_turn(state, q)
            return
        q = next_seat(state, q)
    start_arena_round(state, rng)


# --- attacks and abilities ----------------------------------------------------------
@helper
def to_grave(state, c):
    """Card ``c`` goes on top of the graveyard, cut loose from its monster: the pile is public and
    keeps the order the cards arrived in (AR-22)."""
    state[LOC + c] = L_GRAVE
    state[OWNER + c] = -1
    state[KNOWN + c] = 1
    state[FROZEN + c] = 0
    state[GRAVE_TOP] += 1
    state[GRAVE_ORDER + c] = state[GRAVE_TOP]


@helper
def unlink(state, c):
    """Detach card ``c`` from its parent and its children (links only)."""
    par = state[PARENT + c]
    if par >= 0:
        state[CHILD + par * MAX_SLOTS + state[PSLOT + c]] = -1
    state[PARENT + c] = -1
    state[PSLOT + c] = -1
    for s in range(MAX_SLOTS):
        state[CHILD + c * MAX_SLOTS + s] = -1


@inlined
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


@inlined
def destroy(state, c):
    """AR-20, AR-21: a destroyed part goes to the graveyard and the parts below it to the owner's
    inventory; a destroyed torso half takes the whole monster to the graveyard and its player is out.
    The fallen monster's cards go on in card order, the destroyed half last, on top (AR-22)."""
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


@standalone
def resolve_attack(state, rng):
    """AR-26: roll every attacking card's dice, add mods and ability modifiers, compare with the
    target's Defense; a hit destroys it. Then the attacker's turn goes on.

    The dice are rolled here and nowhere else, by the game's seeded generator, once the attacker
    has rolled and the defender's reactions are done (AR-4, AR-28)."""
    target = np.int64(state[TARGET])  # cards as int64, as the loops pass them: one destroy, unlink...
    victim = state[OWNER + target]
    dice, bonus, _ = attack_profile(state)
    rolled = 0
    for _ in range(dice):
        rolled += rng_below(rng, np.int64(6)) + 1  # not the literal 6: no version of its own
    total = rolled + bonus - state[WING]  # Bat Wings: -2 each (AR-38)
    needed = defense(state, target) + state[WEB]  # the Spider Abdomen's web: +2 Defense (AR-31)
    hit = total >= needed
    venom = False
    for c in range(NUM_CARDS):  # branch-free, as attack_profile
        venom |= (state[IN_ATTACK + c] != 0) & (ABILITY[c] == AB_VENOM)  # a Scorpion Tail joins (AR-37)
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
        if venom:  # AR-37: the victim's owner loses 1 energy, not below 0
            state[ENERGY + victim] = max(state[ENERGY + victim] - 1, 0)
        alive = 0
        for p in range(state[H_NUM_PLAYERS]):
            alive += state[ALIVE + p]
        if alive <= 1:  # the last monster standing wins (AR-44)
            finish_game(state, True)


@inlined
def use_active(state, p, c):
    """Pay for and apply an active ability (a Pincer first asks for its target, AR-34): the Spare
    Head drains every opponent still in (AR-39), the Eye Stalk aims (AR-40), the Grave Gland digs
    up the graveyard's top part (AR-42)."""
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
