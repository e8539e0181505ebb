"""A warm start for expert iteration: the network first learns from games of a teacher kernel.

A network of random weights makes the first rounds of self-play nearly random games whose
search targets teach little; in Marry the Monster the network alone took an hour of self-play
to play as well as the greedy baseline. The game's greedy kernel (the same numba function the
``greedy`` agent and the tuned search's rollouts play) is a teacher that costs a thousandth of a
search per move. :func:`play_teacher_games` plays it in every seat of many games at once, on the
self-play loop of :mod:`monster_zoo.training.az_selfplay`: the policy target of a decision is
the teacher's choice (one-hot), its value targets the game's final returns, as in self-play.
With probability ``epsilon`` a move plays a uniformly drawn legal action instead (the target
stays the teacher's choice), so the games, and the values learned from them, cover positions
the teacher alone would never reach. The trainer (``--warm-start-games``) fills the replay
buffer with these decisions and trains on them before its first round; self-play then replaces
them as the buffer turns over.
"""
from typing import Dict, Sequence

from numba import prange, types

from monster_zoo import envs
from monster_zoo.agents.search import rollout_kernel
from monster_zoo.envs.core.batch import FLOATS2, INTS, MASKS, RNGS, STATES
from monster_zoo.envs.core.contract import APPLY_ACTION_T, H_CURRENT, LEGAL_MASK_T, OBSERVE_T, POLICY_T
from monster_zoo.envs.core.rng import rng_below, rng_pick_set
from monster_zoo.envs.core.threads import batch_kernel

from .az_selfplay import play_with

# Probabilities are drawn as integers below this (one in a million is fine enough for epsilon).
PROBABILITY_SCALE = 1_000_000


@batch_kernel(types.void(STATES, INTS, RNGS, RNGS, types.int64, FLOATS2, INTS, FLOATS2, MASKS,
                         LEGAL_MASK_T, APPLY_ACTION_T, OBSERVE_T, POLICY_T), batch_arg=1)
def teacher_and_play(states, slots, game_rngs, teacher_rngs, epsilon_scaled, policies, actions, observations, masks,
                     legal_mask, apply_action, observe_into, teacher):
    """In each game ``i = slots[j]``: record the mover's observation and mask in row ``j``, write the
    teacher's choice as a one-hot policy into row ``j`` of ``policies``, and play it, or with
    probability ``epsilon_scaled / PROBABILITY_SCALE`` a uniformly drawn legal action (written
    into ``actions``), with the game's own generator. Each game owns its generators, so the moves
    do not depend on the thread count."""
    for j in prange(slots.shape[0]):
        i = slots[j]
        s = states[i]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, masks[j])
        choice = teacher(s, masks[j], teacher_rngs[i])
        policies[j, :] = 0.0
        policies[j, choice] = 1.0
        if rng_below(teacher_rngs[i], PROBABILITY_SCALE) < epsilon_scaled:
            choice = rng_pick_set(masks[j], teacher_rngs[i])
        actions[j] = choice
        apply_action(s, choice, game_rngs[i])


def play_teacher_games(game_id: str, games: int, player_counts: Sequence[int], seed: int, epsilon: float = 0.1,
                       parallel: int = 256, options: Dict = None):
    """Play ``games`` games of ``game_id`` with its greedy kernel in every seat (a random legal move
    with probability ``epsilon``); return the decisions and stats as
    :func:`~monster_zoo.training.az_selfplay.play_games` does. Game ``g`` is seeded from
    ``(seed, g)`` alone, so the result does not depend on ``parallel`` or the thread count."""
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
    spec = envs.spec(game_id)
    teacher = rollout_kernel(game_id, "greedy")
    epsilon_scaled = int(round(epsilon * PROBABILITY_SCALE))

    def teacher_moves(states, slots, game_rngs, teacher_rngs, policies, actions, observations, masks):
        teacher_and_play(states, slots, game_rngs, teacher_rngs, epsilon_scaled, policies, actions, observations,
                         masks, spec.legal_mask, spec.apply_action, spec.observe_into, teacher)

    return play_with(game_id, teacher_moves, games, player_counts, seed, parallel, options)
