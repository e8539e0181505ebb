"""Mighty Monsters' observation (MM-21): what a seat sees, as ``OBS_SIZE`` floats, and the redeal
of what it cannot see.

``observe_into`` writes the public state and what follows from it (every card as far as the
observer knows where it lies, the castle, the guards shown face up, face-down discards by level,
gold, king tiles) plus the observer's own cards; the slices from ``OBS_WIN`` on are derived from
that view (``castle_outlook``, observation v2). Never seen: which of another seat's unknown
cards are in its hand and which face down, a face-down guard's values, the guard deck's order
and the king tiles' order. ``determinize`` resamples exactly those for a search. What a player
knows of the cards (``seen_by``, ``guard_seen``) is asked in ``rules.py``, where the greedy
baseline and the picture ask it too. Rule ids (MM-n) refer to ``seeds/mighty_monsters/rules.md``.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, OBSERVE_SIG
from ..core.kernels import inlined, kernel, on_demand, scratch
from ..core.rng import shuffle_range
from .components import (
    GUARD_LEVEL,
    GUARD_LOOT,
    GUARD_STRENGTH,
    LEVEL_SIZE,
    LEVEL_STRENGTH,
    MAX_GUARD_LOOT,
    MAX_GUARD_STRENGTH,
    MAX_PLAYERS,
    MAX_STRENGTH,
    NUM_CARDS,
    NUM_GUARDS,
    NUM_KING_TILES,
    NUM_LEVELS,
    NUM_SPACES,
    SIDES,
    STRENGTH,
)
from .rules import (
    card_loc,
    count_at,
    fight_loot,
    fight_strength,
    guard_level,
    guard_seen,
    heal_cost,
    loot_shares,
    pair_strength,
    seen_by,
)
from .state_layout import (
    CARD_LOC,
    CASTLE,
    DECK,
    DECK_COUNT,
    G_CASTLE,
    G_DECK,
    G_DISCARD_HIDDEN,
    GOLD,
    GUARD_STATUS,
    KING,
    KING_ORDER,
    KINGS,
    KINGS_FLIPPED,
    LINEUP,
    LOC_DOWN,
    LOC_HAND,
    NUM_ROUNDS,
    PHASE,
    RES_WON,
    RESULT,
    REVEALED,
    ROUND,
    SETUP_DONE,
    SETUP_RANDOM,
    SPACE,
    START_PLAYER,
)

# --- observation ------------------------------------------------------------------------
OBS_CARDS = 0  # [6 seats x 5 cards x 4] hand/down/castle/unknown
OBS_SPACES = OBS_CARDS + MAX_PLAYERS * NUM_CARDS * 4  # [12 spaces x (6 owner one-hot + strength / 5)]
OBS_GUARDS = OBS_SPACES + NUM_SPACES * (MAX_PLAYERS + 1)  # [6 positions x 8]
OBS_SEEN = OBS_GUARDS + MAX_PLAYERS * 8  # guard cards seen face up
OBS_HIDDEN_DISCARDS = OBS_SEEN + NUM_GUARDS  # face-down discards per level / cards of the level
OBS_DECK = OBS_HIDDEN_DISCARDS + NUM_LEVELS  # deck size / 36
OBS_GOLD = OBS_DECK + 1  # gold / 100 per seat (capped)
OBS_HAND_SIZE = OBS_GOLD + MAX_PLAYERS  # cards in hand / 5 per seat
OBS_START = OBS_HAND_SIZE + MAX_PLAYERS  # start player one-hot
OBS_ON_MOVE = OBS_START + MAX_PLAYERS  # seat on move one-hot
OBS_SEATED = OBS_ON_MOVE + MAX_PLAYERS  # 1 per seat in the game
OBS_SETUP_DONE = OBS_SEATED + MAX_PLAYERS  # seats that made their setup choice
OBS_ROUND = OBS_SETUP_DONE + MAX_PLAYERS  # rounds played / 6, rounds left / 6
OBS_PHASE = OBS_ROUND + 2  # setup, play monsters, game over
OBS_KING = OBS_PHASE + 3  # king tile in effect, one-hot
OBS_KINGS_USED = OBS_KING + NUM_KING_TILES  # king tiles flipped so far
OBS_OPTIONS = OBS_KINGS_USED + NUM_KING_TILES  # setup random, guard line-up, king's rules
# Derived from the public view (observation v2), what the greedy baseline weighs when it plays;
# per guard position, from the main gate, with the monsters now beside it (empty spaces count 0):
OBS_WIN = OBS_OPTIONS + 3  # chance they beat its guard (unseen pool of its level)
OBS_REACH = OBS_WIN + MAX_PLAYERS  # chance every guard before it falls (its fight happens)
OBS_LOOT = OBS_REACH + MAX_PLAYERS  # expected loot of its guard this round / LOOT_SCALE
OBS_LOCKED = OBS_LOOT + MAX_PLAYERS  # its pair reached the printed maximum: no replacing there
OBS_BEHIND = OBS_LOCKED + MAX_PLAYERS  # per relative seat: gold behind the richest / GOLD_SCALE
OBS_OUTLOOK = OBS_BEHIND + MAX_PLAYERS  # per relative seat: expected gold change this round
OBS_SIZE = OBS_OUTLOOK + MAX_PLAYERS
# The entry of each relative seat that reads 1 while that seat is at the table and 0 beyond the
# player count, in every view: the player count a view was written for (Game.seated_slots).
SEATED_SLOTS = tuple(OBS_SEATED + k for k in range(MAX_PLAYERS))
GOLD_SCALE = 100.0
ROUND_SCALE = 6.0
LOOT_SCALE = 30.0  # a guard's loot with every king tile bonus stays below this
OUTLOOK_SCALE = 60.0  # expected gold change, shown as 0.5 + change / OUTLOOK_SCALE (clipped)
# Guard cards are listed level by level (components.json): level L's are LEVEL_FIRST[L] onwards.
LEVEL_FIRST = np.cumsum(LEVEL_SIZE) - LEVEL_SIZE
assert np.array_equal(GUARD_LEVEL, np.repeat(np.arange(NUM_LEVELS + 1), LEVEL_SIZE))
LEVEL_SLOTS = NUM_LEVELS + 1  # per-level counts indexed by level 1..NUM_LEVELS (0 unused)


@inlined
def castle_outlook(state, win, loot, gold):
    """The castle as it stands, judged from public information, per guard position ``g`` from the
    main gate: ``win[g]``, the chance the monsters now beside it beat its guard; ``loot[g]``, the
    guard's expected loot this round; and per seat ``gold[q]``, its expected gold change this round
    if the castle fought as it stands: loot shares of pairs with both spaces filled, weighted by the
    chance their fight happens and is won, minus each monster's healing weighted by the chance its
    guard is not beaten (MM-11, MM-12). A face-down guard is taken uniformly from the guard cards of
    its level nobody has seen (``guard_seen``: its own value is never read), a revealed one exactly.
    """
    win[:] = 0.0
    loot[:] = 0.0
    gold[:] = 0.0
    shares = scratch(MAX_PLAYERS, np.int64)
    reach = 1.0
    for g in range(state[H_NUM_PLAYERS]):
        card = state[CASTLE + g]
        if card < 0:
            continue
        revealed = state[REVEALED + g] != 0
        level = GUARD_LEVEL[card]
        first = card if revealed else LEVEL_FIRST[level]
        last = card + 1 if revealed else LEVEL_FIRST[level] + LEVEL_SIZE[level]
        a, b = state[SPACE + SIDES * g], state[SPACE + SIDES * g + 1]
        full = a >= 0 and b >= 0
        pair = pair_strength(state, g)
        size = 0
        wins = 0
        amounts = 0
        shares[:] = 0
        for c in range(first, last):
            if revealed or not guard_seen(state, c):
                size += 1
                amount = fight_loot(state, g, GUARD_LOOT[c])
                amounts += amount
                if pair >= fight_strength(state, g, GUARD_STRENGTH[c]):
                    wins += 1
                    if full:
                        loot_shares(state, g, amount, shares)
        win[g] = wins / size
        loot[g] = amounts / size
        for q in range(MAX_PLAYERS):
            gold[q] += reach * shares[q] / size
        for occupant in (a, b):
            if occupant >= 0:
                gold[occupant // NUM_CARDS] -= (1.0 - reach * win[g]) * heal_cost(state, occupant % NUM_CARDS)
        reach *= win[g]


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Holds the public state and what follows from it (MM-21) plus the observer's own
    cards; never a face-down guard's values, another seat's secret cards, the deck's
    or the king tiles' order.
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    for q in range(n):
        rel = (q - player) % n
        for k in range(NUM_CARDS):
            loc = seen_by(state, player, q, k)
            out[OBS_CARDS + (rel * NUM_CARDS + k) * 4 + (3 if loc < 0 else loc)] = 1.0
        out[OBS_GOLD + rel] = min(state[GOLD + q] / GOLD_SCALE, 1.0)
        out[OBS_HAND_SIZE + rel] = count_at(state, q, LOC_HAND) / NUM_CARDS
        out[OBS_SEATED + rel] = 1.0
        out[OBS_SETUP_DONE + rel] = state[SETUP_DONE + q]
    for space in range(SIDES * n):
        occupant = state[SPACE + space]
        if occupant >= 0:
            base = OBS_SPACES + space * (MAX_PLAYERS + 1)
            out[base + (occupant // NUM_CARDS - player) % n] = 1.0
            out[base + MAX_PLAYERS] = STRENGTH[occupant % NUM_CARDS] / MAX_STRENGTH
    for g in range(n):
        card = state[CASTLE + g]
        if card < 0:
            continue
        base = OBS_GUARDS + g * 8
        out[base] = 1.0
        out[base + GUARD_LEVEL[card]] = 1.0
        if state[REVEALED + g]:
            out[base + 4] = 1.0
            out[base + 5] = GUARD_STRENGTH[card] / MAX_GUARD_STRENGTH
            out[base + 6] = GUARD_LOOT[card] / MAX_GUARD_LOOT
            out[base + 7] = state[RESULT + g] == RES_WON
    for card in range(NUM_GUARDS):
        out[OBS_SEEN + card] = guard_seen(state, card)
        if state[GUARD_STATUS + card] == G_DISCARD_HIDDEN:
            level = GUARD_LEVEL[card]
            out[OBS_HIDDEN_DISCARDS + level - 1] += 1.0 / LEVEL_SIZE[level]
    out[OBS_DECK] = state[DECK_COUNT] / NUM_GUARDS
    out[OBS_START + (state[START_PLAYER] - player) % n] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + (state[H_CURRENT] - player) % n] = 1.0
    out[OBS_ROUND] = state[ROUND] / ROUND_SCALE
    out[OBS_ROUND + 1] = (state[NUM_ROUNDS] - state[ROUND]) / ROUND_SCALE
    out[OBS_PHASE + state[PHASE]] = 1.0
    if state[KING] >= 0:
        out[OBS_KING + state[KING]] = 1.0
    for i in range(state[KINGS_FLIPPED]):
        out[OBS_KINGS_USED + state[KING_ORDER + i]] = 1.0
    out[OBS_OPTIONS] = state[SETUP_RANDOM]
    out[OBS_OPTIONS + 1] = state[LINEUP]
    out[OBS_OPTIONS + 2] = state[KINGS]
    win = scratch(MAX_PLAYERS, np.float64)
    loot = scratch(MAX_PLAYERS, np.float64)
    outlook = scratch(MAX_PLAYERS, np.float64)
    castle_outlook(state, win, loot, outlook)
    reach = 1.0
    for g in range(n):
        out[OBS_WIN + g] = win[g]
        out[OBS_REACH + g] = reach
        out[OBS_LOOT + g] = min(loot[g] / LOOT_SCALE, 1.0)
        if state[CASTLE + g] >= 0:
            out[OBS_LOCKED + g] = pair_strength(state, g) >= LEVEL_STRENGTH[guard_level(state, g), 1]
        reach *= win[g]
    richest = 0
    for q in range(n):
        richest = max(richest, state[GOLD + q])
    for q in range(n):
        rel = (q - player) % n
        out[OBS_BEHIND + rel] = min((richest - state[GOLD + q]) / GOLD_SCALE, 1.0)
        out[OBS_OUTLOOK + rel] = min(max(0.5 + outlook[q] / OUTLOOK_SCALE, 0.0), 1.0)


# --- hidden information -----------------------------------------------------------------
@inlined
def sort_ascending(state, offset, count):
    """Insertion sort of ``state[offset:offset + count]`` (a few entries)."""
    for i in range(1, count):
        value = state[offset + i]
        j = i - 1
        while j >= 0 and state[offset + j] > value:
            state[offset + j + 1] = state[offset + j]
            j -= 1
        state[offset + j + 1] = value


@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Resample everything seat ``player`` cannot see, consistently with what they can (MM-21).

    Other seats' unknown cards are redealt between hand and face-down pile with the
    counts kept; face-down guards (in the castle and discarded) are redrawn from the
    unseen cards of their level; the deck and the unflipped king tiles are reshuffled.
    """
    n = state[H_NUM_PLAYERS]
    unknown = scratch(NUM_CARDS, np.int64)
    for q in range(n):
        if q == player:
            continue
        count = 0
        in_hand = 0
        for k in range(NUM_CARDS):
            if seen_by(state, player, q, k) < 0:
                unknown[count] = k
                count += 1
                in_hand += card_loc(state, q, k) == LOC_HAND
        shuffle_range(unknown, 0, count, rng)
        for i in range(count):
            state[CARD_LOC + q * NUM_CARDS + unknown[i]] = LOC_HAND if i < in_hand else LOC_DOWN
    # Guards: per level, the unseen cards fill the face-down castle positions and the
    # face-down discards of that level; the rest, of every level, form the deck.
    pool = scratch(NUM_GUARDS, np.int64)
    hidden_discards = scratch(LEVEL_SLOTS, np.int64)
    for card in range(NUM_GUARDS):
        if state[GUARD_STATUS + card] == G_DISCARD_HIDDEN:
            hidden_discards[GUARD_LEVEL[card]] += 1
    deck = 0
    for level in range(1, NUM_LEVELS + 1):
        count = 0
        for card in range(NUM_GUARDS):
            if GUARD_LEVEL[card] == level and not guard_seen(state, card):
                pool[count] = card
                count += 1
        shuffle_range(pool, 0, count, rng)
        used = 0
        for g in range(n):
            card = state[CASTLE + g]
            if card >= 0 and GUARD_LEVEL[card] == level and state[REVEALED + g] == 0:
                state[CASTLE + g] = pool[used]
                state[GUARD_STATUS + pool[used]] = G_CASTLE
                used += 1
        for _ in range(hidden_discards[level]):
            state[GUARD_STATUS + pool[used]] = G_DISCARD_HIDDEN
            used += 1
        for i in range(used, count):
            state[GUARD_STATUS + pool[i]] = G_DECK
            state[DECK + deck] = pool[i]
            deck += 1
    shuffle_range(state, DECK, deck, rng)
    # The unflipped king tiles are put in tile order before the shuffle, so the redeal cannot
    # depend on the order they really lie in.
    flipped = state[KINGS_FLIPPED]
    sort_ascending(state, KING_ORDER + flipped, NUM_KING_TILES - flipped)
    shuffle_range(state, KING_ORDER + flipped, NUM_KING_TILES - flipped, rng)


@on_demand  # compiled when first needed (a belief that keeps what the other seats hold)
def graft_hidden(target, source, player):
    """Give ``target`` what ``source`` holds of the other seats' cards that seat ``player`` cannot
    place (which of them are in hand and which face down), leaving the rest of ``target`` (the
    public state, and the guards and king tiles nobody has seen) as it is. Returns 1 where
    ``source``'s cards fit ``target``'s view (the same cards unknown to ``player``, as many of them
    in each seat's hand), else 0 with ``target`` unchanged.

    A belief keeps its guess at the other seats' hands in ``source`` and takes everything else from
    a redeal of the game as the seat sees it now (``target``): the guards turned up in a fight then
    never contradict a guess at the hands, since no seat's play depends on the guards nobody has
    seen and the guess never held them.
    """
    n = target[H_NUM_PLAYERS]
    if source[H_NUM_PLAYERS] != n:
        return 0
    # which cards are unknown, asked before any is moved (the answer reads the seat's counts)
    unknown = scratch(MAX_PLAYERS * NUM_CARDS, np.int64)
    for q in range(n):
        if q == player:
            continue
        hand_target = 0
        hand_source = 0
        for k in range(NUM_CARDS):
            hidden = seen_by(target, player, q, k) < 0
            if hidden != (seen_by(source, player, q, k) < 0):
                return 0
            if hidden:
                unknown[q * NUM_CARDS + k] = 1
                hand_target += card_loc(target, q, k) == LOC_HAND
                hand_source += card_loc(source, q, k) == LOC_HAND
        if hand_target != hand_source:
            return 0
    for i in range(n * NUM_CARDS):
        if unknown[i]:
            target[CARD_LOC + i] = source[CARD_LOC + i]
    return 1
