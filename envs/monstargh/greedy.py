"""A greedy one-ply heuristic for MONSTArgh! (``monstargh-greedy-v1``).

A position is worth the visible monsters of the player's own species minus those of
the other species in play: half the best-placed one, half their average (the player
cannot know who holds which, and an unassigned species scores for nobody).
For every legal action the agent copies the state and plays the decision with the
engine's own ``play_step``, which resolves the interaction loop exactly as the rules
do but stops before the draw and the turn's end, so nothing hidden is touched and a
scene-ending play is judged on its final table. A card choice is worth its best
completion (the best cell or focus target); steal choices met on the way are taken
greedily by the value right after each steal. Ties are broken with the agent's seeded
generator.

The agent reads the table, its own hand and its own species token only, as the state
contract of :mod:`monster_zoo.agents.base` demands; rules are never re-implemented here.
"""

import numpy as np

from ..core.contract import H_CURRENT, POLICY_SIG
from ..core.kernels import copy_vector, kernel, on_demand, scratch_empty
from ..core.rng import rng_below
from .actions import NUM_ACTIONS
from .components import NUM_SPECIES
from .rules import legal_mask, play_step, visible_counts
from .state_layout import IN_PLAY, PH_STEAL, PHASE, STATE_SIZE, TOKEN

TIE = 1e-9
# Which other species' visible monsters to count against one's own: the best of them alone
# (1.0) or their average (0.0). Nobody knows who holds the best species, and may be nobody;
# over 1,200 games per count against random play, 0.5 won 2-player games 0.887 of the time
# against 0.796 for the best alone, and did as well or better with 3, 4 and 6 players.
BEST_WEIGHT = 0.5


@on_demand
def table_value(state, player, visible):
    """Own species' visible monsters minus the other species' threat: the mean of the most
    visible other species in play and of their average (see ``BEST_WEIGHT``); ``visible`` is work
    space of ``NUM_SPECIES`` entries."""
    visible_counts(state, visible)
    own = state[TOKEN + player]
    best_other = 0
    total = 0
    others = 0
    for s in range(NUM_SPECIES):
        if s != own and state[IN_PLAY + s]:
            best_other = max(best_other, visible[s])
            total += visible[s]
            others += 1
    threat = BEST_WEIGHT * best_other + (1.0 - BEST_WEIGHT) * total / others
    return visible[own] - threat


@on_demand
def steal_greedily(state, player, done, mask, trial, visible):
    """Make every steal choice still pending in ``state``, each by the value right after it
    (``mask``, ``trial`` and ``visible`` are work space, allocated once per decision)."""
    while not done and state[PHASE] == PH_STEAL:
        legal_mask(state, mask)
        best = -1e18
        choice = -1
        for a in range(NUM_ACTIONS):
            if mask[a]:
                copy_vector(trial, state)
                play_step(trial, a)
                v = table_value(trial, player, visible)
                if v > best:
                    best = v
                    choice = a
        done = play_step(state, choice)
    return done


@on_demand
def decision_value(state, action, player, trial, mask, follow, steal_mask, steal_trial, visible):
    """The value of ``action`` with its play completed greedily (see the module docs); the arrays
    after ``player`` are work space, allocated once per decision (two masks, three states)."""
    copy_vector(trial, state)
    done = play_step(trial, action)
    done = steal_greedily(trial, player, done, steal_mask, steal_trial, visible)
    if done:
        return table_value(trial, player, visible)
    legal_mask(trial, mask)  # a card was chosen: its cell or target is next
    best = -1e18
    for a in range(NUM_ACTIONS):
        if mask[a]:
            copy_vector(follow, trial)
            finished = steal_greedily(follow, player, play_step(follow, a), steal_mask, steal_trial, visible)
            if finished:
                best = max(best, table_value(follow, player, visible))
    return best


@kernel(POLICY_SIG)
def greedy_action(state, mask, rng):
    """The legal action of the seat on move with the best value; ties at random."""
    player = state[H_CURRENT]
    trial = scratch_empty(STATE_SIZE, np.int32)
    follow = scratch_empty(STATE_SIZE, np.int32)
    steal_trial = scratch_empty(STATE_SIZE, np.int32)
    follow_mask = scratch_empty(NUM_ACTIONS, np.int8)
    steal_mask = scratch_empty(NUM_ACTIONS, np.int8)
    visible = scratch_empty(NUM_SPECIES, np.int64)
    best = -1e18
    ties = 0
    choice = -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            v = decision_value(state, a, player, trial, follow_mask, follow, steal_mask, steal_trial, visible)
            if v > best + TIE:
                best = v
                ties = 1
                choice = a
            elif v > best - TIE:
                ties += 1
                if rng_below(rng, ties) == 0:
                    choice = a
    return choice
