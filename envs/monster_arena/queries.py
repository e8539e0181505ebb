"""Monster Arena's reason codes, the reads of a table every phase asks, and two small changes of
state that several phases make.

The bottom of the rules' modules: ``fighting``, ``building``, ``drafting``, ``observation`` and
``rules`` import from here, and nothing here imports them. Besides the reason codes an action can
be refused with (``R_*``, ``REASONS``) and read-only queries (a card's slots, Defense and Attack
Mod, a seat's parts and refill, the graveyard's top), it holds ``give`` (a card into an
inventory: drafting, cut limbs, the Grave Gland and the redeal of hidden cards all do it) and
``finish_game`` (the arena and the quiet ending both end the game). Rule ids (AR-n) refer to
``seeds/monster_arena/rules.md``.
"""

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL
from ..core.kernels import inlined, standalone
from .components import (
    AB_CLAW,
    AB_INSECT,
    AB_REFILL6,
    AB_SPIKES,
    AB_TEAM,
    ABILITY,
    DEFENSE,
    DICE,
    KIND,
    KIND_PART,
    LIMB,
    MAX_SLOTS,
    MOD,
    NUM_CARDS,
    NUM_TORSOS,
    REFILL,
    SLOTS,
    SPIKE_CAP,
)
from .state_layout import (
    AIM,
    ALIVE,
    CHILD,
    GRAVE_ORDER,
    IN_ATTACK,
    KNOWN,
    L_GRAVE,
    L_INV,
    L_TABLE,
    LOC,
    OWNER,
    PARENT,
    PH_OVER,
    PHASE,
    WINNER,
)

# --- reasons an action is illegal (codes for illegal_reason) ------------------------
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
    R_WRONG_PHASE: (
        "it does not fit the decision at hand (torso pick, dealer pick, auction, prize pick, "
        "building, slot choice, arena turn, attack, reaction or pinch target)"
    ),
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
@inlined
def next_seat(state, p):
    """The seat to the left (clockwise) of ``p`` (AR-1)."""
    return (p + 1) % state[H_NUM_PLAYERS]


@inlined
def child(state, c, s):
    """The card in slot ``s`` of card ``c`` (-1 when empty)."""
    return state[CHILD + c * MAX_SLOTS + s]


@inlined
def is_covered(state, c):
    """AR-11: a card is covered when it has slots and every one holds a card.

    Branch-free over the MAX_SLOTS slot entries (those beyond the card's slots are always
    empty), which keeps the loops that call it cheap.
    """
    filled = filled_slots(state, c)
    return (SLOTS[c] > 0) & (filled == SLOTS[c])


@inlined
def filled_slots(state, c):
    """How many of card ``c``'s slots hold a card (branch-free: entries beyond its slots are empty).
    The sum starts from the integer 0: numpy adds two booleans as ``or``, numba as integers, and the
    GPU simulator runs this source as Python (``int()`` of each test cost 13% of a CPU step)."""
    base = CHILD + c * MAX_SLOTS
    return 0 + (state[base] >= 0) + (state[base + 1] >= 0) + (state[base + 2] >= 0)


@inlined
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


@inlined
def attack_mod(state, c):
    """Card ``c``'s Attack Mod with the Bone Claw's bonus on an arm or leg (AR-33).

    Branch-free (the parent's row is read even without a parent, and ignored), which keeps
    the attack's pass over every card cheap."""
    par = state[PARENT + c]
    return MOD[c] + ((ABILITY[c] == AB_CLAW) & (par >= 0) & (LIMB[max(par, 0)] != 0))


@inlined
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


@inlined
def on_monster(state, c, p):
    """Whether card ``c`` is part of seat ``p``'s monster."""
    return (state[LOC + c] == L_TABLE) & (state[OWNER + c] == p)  # branch-free: cheap in loops


@inlined
def has_open_slot(state, p):
    """Whether seat ``p``'s monster has an empty slot (AR-10)."""
    found = False
    for c in range(NUM_CARDS):  # slots beyond a card's own are always empty, so count filled ones
        found |= on_monster(state, c, p) & (filled_slots(state, c) < SLOTS[c])
    return found


@inlined
def count_parts(state, p):
    """Monster parts attached to seat ``p``'s monster (torso halves not counted, AR-23)."""
    k = 0
    for c in range(NUM_TORSOS, NUM_CARDS):
        k += on_monster(state, c, p)
    return k


@inlined
def refill_level(state, p):
    """Energy a turn of ``p`` refills to: 6 with Fish Tail Hips or a Heart Pump, else 5 (AR-32)."""
    for c in range(NUM_CARDS):
        if ABILITY[c] == AB_REFILL6 and on_monster(state, c, p):
            return REFILL + 1
    return REFILL


@inlined
def grave_top(state):
    """The part on top of the graveyard, the one that arrived last (AR-22, AR-42; torso halves are
    skipped), -1 if none."""
    best = -1
    for c in range(NUM_TORSOS, NUM_CARDS):
        if state[LOC + c] == L_GRAVE and (best < 0 or state[GRAVE_ORDER + c] > state[GRAVE_ORDER + best]):
            best = c
    return best


@inlined  # callers pass constants: inlined, not compiled once per constant
def count_loc(state, loc):
    """Cards in location ``loc``."""
    k = 0
    for c in range(NUM_CARDS):
        k += state[LOC + c] == loc
    return k


# --- changes of state several phases share ------------------------------------------
@inlined  # three writes, called with many argument types
def give(state, c, p, known):
    """Put card ``c`` into seat ``p``'s inventory; ``known``: whether the other seats saw it go
    there (AR-5)."""
    state[LOC + c] = L_INV
    state[OWNER + c] = p
    state[KNOWN + c] = known


@standalone
def finish_game(state, winners_alive):
    """End the game; the winners are the seats still alive (AR-44, AR-45)."""
    n = state[H_NUM_PLAYERS]
    for p in range(n):
        state[WINNER + p] = state[ALIVE + p] if winners_alive else 0
    state[H_TERMINAL] = 1
    state[H_CURRENT] = -1
    state[PHASE] = PH_OVER
