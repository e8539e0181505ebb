"""A greedy heuristic for Mighty Monsters (``mighty_monsters-greedy-v1``): the play with the most
expected gold this round, judged from what is public.

For every legal play the agent copies the state and makes the play with the
engine's own ``place_card`` (fees included, no fight), then estimates its own
gold from this round's fights:

* a face-down guard's printed (strength, loot) is taken uniformly from the guard
  cards of its level nobody has seen (``rules.unseen_guards``), never from the
  card itself;
* an empty space is filled, in turn, with each strength that may still be played
  (the cards seats with placements left hold in hand, as the player knows them
  through ``rules.seen_by``), owned by another seat;
* fights go from the main gate: a guard is fought only if all before it were
  won, each guard taken independently; a won fight pays the agent its share by
  ``rules.loot_shares`` of ``rules.fight_loot``, a lost or unreached one costs the
  healing of its monsters there (``rules.heal_cost``).

The value of a play is that expectation plus the gold the play itself costs.
Ties are broken with the agent's seeded generator. At setup it keeps its three
strongest cards in hand (the round's expected gold grows with strength) and lays
the two weakest face down.

No rule is restated here: fees, king tiles, fight strength, loot, the split and
healing all come from the engine's kernels.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, POLICY_SIG
from ..core.kernels import copy_vector, inlined, kernel, on_demand, scratch, scratch_empty
from ..core.rng import rng_pick_set
from .actions import NUM_ACTIONS, PLAY0, SETUP0
from .components import (
    GUARD_LOOT,
    GUARD_STRENGTH,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_GUARDS,
    NUM_SPACES,
    PER_ROUND,
    SETUP_PAIRS,
    SIDES,
    STRENGTH,
)
from .rules import (
    fight_loot,
    fight_strength,
    guard_level,
    heal_cost,
    loot_shares,
    pair_strength,
    place_card,
    placed,
    seen_by,
    unseen_guards,
)
from .state_layout import GOLD, LOC_HAND, PH_SETUP, PHASE, SPACE, STATE_SIZE

TIE = 1e-9


@on_demand
def weakest_pair():
    """The setup choice laying down the two weakest cards."""
    best = 0
    for pair in range(SETUP_PAIRS.shape[0]):
        if (
            STRENGTH[SETUP_PAIRS[pair, 0]] + STRENGTH[SETUP_PAIRS[pair, 1]]
            < STRENGTH[SETUP_PAIRS[best, 0]] + STRENGTH[SETUP_PAIRS[best, 1]]
        ):
            best = pair
    return best


@inlined  # returns its work array: on a GPU that array lives in the caller's frame
def playable_cards(state, p):
    """Weights of the cards that may still fill an empty space, per card index, as seat ``p``
    knows them: cards in the hands of seats with placements left; a card that ``p`` cannot tell
    to be in hand or face down counts half."""
    n = state[H_NUM_PLAYERS]
    weights = scratch(NUM_CARDS, np.float64)
    for q in range(n):
        if placed(state, q) >= PER_ROUND:
            continue
        for k in range(NUM_CARDS):
            loc = seen_by(state, p, q, k)
            if loc == LOC_HAND:
                weights[k] += 1.0
            elif loc < 0:
                weights[k] += 0.5
    total = weights.sum()
    if total > 0:
        weights /= total
    return weights


@on_demand
def guard_outlook(state, g, p, fill, level_pool, empties, gains, pool_cards):
    """``(P(win), expected gold for p if won)`` at position ``g``, empty spaces filled from ``fill``.

    ``state`` is a scratch copy: empty spaces beside ``g`` are set to phantom cards of
    other seats while their strengths are enumerated, then emptied again. ``empties``
    (``SIDES``), ``gains`` (``MAX_PLAYERS``) and ``pool_cards`` (``NUM_GUARDS``) are work space.
    """
    n = state[H_NUM_PLAYERS]
    count = 0
    for side in range(SIDES):
        if state[SPACE + SIDES * g + side] < 0:
            empties[count] = SIDES * g + side
            count += 1
    combos = NUM_CARDS**count
    win = 0.0
    gold = 0.0
    cards = 0
    for card in range(NUM_GUARDS):  # the pool's cards once, in order, rather than the 36 per combination
        if level_pool[card] != 0:
            pool_cards[cards] = card
            cards += 1
    for combo in range(combos):
        weight = 1.0
        code = combo
        for i in range(count):
            k = code % NUM_CARDS
            code //= NUM_CARDS
            weight *= fill[k]
            state[SPACE + empties[i]] = ((p + 1 + i) % n) * NUM_CARDS + k
        if weight == 0.0:
            continue
        pair = pair_strength(state, g)
        for j in range(cards):
            card = pool_cards[j]
            if pair >= fight_strength(state, g, GUARD_STRENGTH[card]):
                for q in range(MAX_PLAYERS):
                    gains[q] = 0
                loot_shares(state, g, fight_loot(state, g, GUARD_LOOT[card]), gains)
                win += weight / cards
                gold += weight * gains[p] / cards
    for i in range(count):
        state[SPACE + empties[i]] = -1
    return win, gold


@on_demand
def expected_gold(state, p, fill, empties, gains, pool_cards):
    """Seat ``p``'s expected gold from this round's fights and healing in ``state`` (a scratch copy;
    the other arguments after ``fill`` are :func:`guard_outlook`'s work space)."""
    n = state[H_NUM_PLAYERS]
    reach = 1.0
    total = 0.0
    for g in range(n):
        win, gold = guard_outlook(
            state, g, p, fill, unseen_guards(state, guard_level(state, g)), empties, gains, pool_cards
        )
        heal = 0
        for side in range(SIDES):
            occupant = state[SPACE + SIDES * g + side]
            if occupant >= 0 and occupant // NUM_CARDS == p:
                heal += heal_cost(state, occupant % NUM_CARDS)
        total += reach * gold - (1.0 - reach * win) * heal
        reach *= win
    return total


@kernel(POLICY_SIG)
def greedy_action(state, action_mask, rng):
    """The legal play with the most expected gold for the seat on move; ``state`` is not modified."""
    if state[PHASE] == PH_SETUP:
        return SETUP0 + weakest_pair()
    p = state[H_CURRENT]
    fill = playable_cards(state, p)
    sim = scratch_empty(STATE_SIZE, np.int32)
    values = scratch_empty(NUM_ACTIONS, np.float64)
    empties = scratch_empty(SIDES, np.int64)
    gains = scratch_empty(MAX_PLAYERS, np.int64)
    pool_cards = scratch_empty(NUM_GUARDS, np.int64)
    for a in range(NUM_ACTIONS):
        values[a] = -np.inf
    best = -np.inf
    for a in range(PLAY0, NUM_ACTIONS):
        if action_mask[a] == 0:
            continue
        copy_vector(sim, state)
        place_card(sim, p, (a - PLAY0) // NUM_SPACES, (a - PLAY0) % NUM_SPACES)
        values[a] = expected_gold(sim, p, fill, empties, gains, pool_cards) + sim[GOLD + p] - state[GOLD + p]
        best = max(best, values[a])
    mask = scratch(NUM_ACTIONS, np.int8)
    for a in range(NUM_ACTIONS):
        mask[a] = values[a] >= best - TIE
    return rng_pick_set(mask, rng)
