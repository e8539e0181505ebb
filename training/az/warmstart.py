"""Teachers for expert iteration: games whose decisions the network learns from before, and
beside, its own search's games.

A network of random weights makes the first rounds of self-play nearly random games whose
search targets teach little; in Marry the Monster the network alone took an hour of self-play
to play as well as the greedy baseline. Two teachers cost a thousandth of a search per move:

- ``greedy``: the game's greedy kernel (the same numba function the ``greedy`` agent and the
  tuned search's rollouts play); the policy target of a decision is its choice (one-hot);
- ``champion``: the newest shipped champion of each player count (``monster_zoo.agents.ppo.champions``,
  as ``champion`` plays it); the target is its whole distribution over the legal actions
  (distillation), the move its most probable action (as the champion plays). A plain-MLP PPO
  champion plays inside numba; a placement network (Monster Factory's, see
  :mod:`monster_zoo.agents.ppo.placement`) and a learned-search network shipped as a champion
  version (played alone: its policy head's softmax over the legal actions,
  :meth:`~monster_zoo.agents.az.agent.AZNetAgent.probabilities`) through their numpy or numba
  forward pass outside the game loop, one batch per move of every game. A count's teacher thus
  changes only when a new champion version ships for it. Counts without a champion fall back to
  the greedy kernel.

:func:`play_teacher_games` plays the teacher in every seat of many games at once, on the
self-play loop of :mod:`monster_zoo.training.az.selfplay`; the value targets are the games'
final returns, as in self-play. With probability ``epsilon`` a move plays a uniformly drawn
legal action instead (the target stays the teacher's), so the games, and the values learned from
them, cover positions the teacher alone would never reach. The trainer fills the replay buffer
with these decisions before its first round (``--warm-start-games``) and, with
``--teacher-share``, adds some to every round, so self-play refines the teacher's play instead of
first unlearning it.
"""

from collections.abc import Sequence

import numpy as np
from numba import njit, prange, types

from monster_zoo import envs
from monster_zoo.agents.az.agent import AZNetAgent
from monster_zoo.agents.ppo.agent import PPOAgent
from monster_zoo.agents.search.tuned import rollout_kernel
from monster_zoo.envs.core.batch import FLOATS2, INTS, MASKS, RNGS, STATES
from monster_zoo.envs.core.contract import APPLY_ACTION_T, H_CURRENT, LEGAL_MASK_T, OBSERVE_T, POLICY_T
from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.opponents import (
    ACT_NONE,
    ACT_RELU,
    ACT_TANH,
    MLPWeights,
    masked_exp,
    mlp_logits_rows,
)
from monster_zoo.envs.core.rng import rng_below, rng_pick_set
from monster_zoo.envs.core.threads import batch_kernel

from .selfplay import play_with

# Probabilities are drawn as integers below this (one in a million is fine enough for epsilon).
PROBABILITY_SCALE = 1_000_000
TEACHERS = ("greedy", "champion")


@njit(cache=True)
def explore_and_play(state, mask, choice, epsilon_scaled, teacher_rng, game_rng, apply_action):
    """Play the teacher's ``choice`` in ``state``, or with probability ``epsilon_scaled /
    PROBABILITY_SCALE`` a uniformly drawn legal action of ``mask``; return the action played."""
    if rng_below(teacher_rng, PROBABILITY_SCALE) < epsilon_scaled:
        choice = rng_pick_set(mask, teacher_rng)
    apply_action(state, choice, game_rng)
    return choice


@batch_kernel(
    types.void(
        STATES,
        INTS,
        INTS,
        RNGS,
        RNGS,
        types.int64,
        FLOATS2,
        INTS,
        FLOATS2,
        MASKS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        OBSERVE_T,
        POLICY_T,
    ),
    batch_arg=2,
)
def teacher_and_play(
    states,
    slots,
    rows,
    game_rngs,
    teacher_rngs,
    epsilon_scaled,
    policies,
    actions,
    observations,
    masks,
    legal_mask,
    apply_action,
    observe_into,
    teacher,
):
    """For each row ``j`` of ``rows``, in game ``i = slots[j]``: record the mover's observation and
    mask in row ``j``, write the teacher kernel's choice as a one-hot policy into row ``j`` of
    ``policies``, and play it, or with probability ``epsilon_scaled / PROBABILITY_SCALE`` a
    uniformly drawn legal action (written into ``actions``), with the game's own generator. Each
    game owns its generators, so the moves do not depend on the thread count."""
    for t in prange(rows.shape[0]):
        j = rows[t]
        i = slots[j]
        s = states[i]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, masks[j])
        choice = teacher(s, masks[j], teacher_rngs[i])
        policies[j, :] = 0.0
        policies[j, choice] = 1.0
        actions[j] = explore_and_play(
            s, masks[j], choice, epsilon_scaled, teacher_rngs[i], game_rngs[i], apply_action
        )


@batch_kernel(
    types.void(
        STATES,
        INTS,
        INTS,
        RNGS,
        RNGS,
        types.int64,
        FLOATS2,
        INTS,
        FLOATS2,
        MASKS,
        types.float32[::1],
        types.int64[:, ::1],
        INTS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        OBSERVE_T,
    ),
    batch_arg=2,
)
def mlp_teacher_and_play(
    states,
    slots,
    rows,
    game_rngs,
    teacher_rngs,
    epsilon_scaled,
    policies,
    actions,
    observations,
    masks,
    params,
    shapes,
    activations,
    legal_mask,
    apply_action,
    observe_into,
):
    """As :func:`teacher_and_play` with an MLP policy (flat, as
    :class:`~monster_zoo.envs.core.opponents.MLPWeights`) for teacher: the policy target is its
    softmax over the legal actions, the move its most probable legal action (or a random one with
    probability ``epsilon_scaled / PROBABILITY_SCALE``). One forward pass serves every row."""
    n = rows.shape[0]
    width = 0
    for layer in range(shapes.shape[0]):
        width = max(width, shapes[layer, 0], shapes[layer, 1])
    xs = np.empty((n, width), np.float32)
    logits = np.empty((n, max(width, masks.shape[1])), np.float32)
    for t in prange(n):
        j = rows[t]
        s = states[slots[j]]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, masks[j])
        copy_vector(xs[t], observations[j])
    mlp_logits_rows(params, shapes, activations, np.arange(n), xs, logits)
    for t in prange(n):
        j = rows[t]
        i = slots[j]
        total = masked_exp(logits[t], masks[j], logits[t])
        choice = -1
        for a in range(masks.shape[1]):
            policies[j, a] = logits[t, a] / total
            if masks[j, a] != 0 and (choice < 0 or logits[t, a] > logits[t, choice]):
                choice = a
        actions[j] = explore_and_play(
            states[i], masks[j], choice, epsilon_scaled, teacher_rngs[i], game_rngs[i], apply_action
        )


@batch_kernel(types.void(STATES, INTS, INTS, FLOATS2, MASKS, LEGAL_MASK_T, OBSERVE_T), batch_arg=2)
def observe_rows(states, slots, rows, observations, masks, legal_mask, observe_into):
    """For each row ``j`` of ``rows``: the observation and legal mask of the mover of game
    ``slots[j]``, into row ``j`` (what a teacher outside numba decides from)."""
    for t in prange(rows.shape[0]):
        j = rows[t]
        s = states[slots[j]]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, masks[j])


@batch_kernel(
    types.void(STATES, INTS, INTS, RNGS, RNGS, types.int64, FLOATS2, INTS, MASKS, APPLY_ACTION_T), batch_arg=2
)
def play_most_probable(
    states, slots, rows, game_rngs, teacher_rngs, epsilon_scaled, policies, actions, masks, apply_action
):
    """For each row ``j`` of ``rows``, whose policy target the teacher has written: play its most
    probable legal action (the first of equals) in game ``slots[j]``, or with probability
    ``epsilon_scaled / PROBABILITY_SCALE`` a uniformly drawn legal one, into ``actions[j]``."""
    for t in prange(rows.shape[0]):
        j = rows[t]
        i = slots[j]
        choice = -1
        for a in range(masks.shape[1]):
            if masks[j, a] != 0 and (choice < 0 or policies[j, a] > policies[j, choice]):
                choice = a
        actions[j] = explore_and_play(
            states[i], masks[j], choice, epsilon_scaled, teacher_rngs[i], game_rngs[i], apply_action
        )


Champion = MLPWeights | PPOAgent | AZNetAgent


def champion_teacher_versions(
    game_id: str, player_counts: Sequence[int], version: int | None = None
) -> dict[int, int]:
    """The champion version that teaches at each of ``player_counts`` where one ships: the newest,
    or with ``version`` the newest up to ``version``. Counts without a champion are left out."""
    from monster_zoo.agents.ppo.champions import champion_versions

    if version is not None and version < 1:
        raise ValueError(f"a champion version is at least 1, got {version}")
    name = envs.spec(game_id).name
    chosen = {}
    for n in player_counts:
        versions = [v for v in champion_versions(name, n) if version is None or v <= version]
        if versions:  # version 1 ships wherever a champion does, so a pin never empties a shipped count
            chosen[n] = max(versions)
    return chosen


def teacher_names(
    game_id: str, player_counts: Sequence[int], teacher: str, version: int | None = None
) -> dict[str, str]:
    """Which agent plays the teacher games at each player count (keys are counts as text, for a
    network file's JSON metadata): ``<game>-champion-vK`` where ``teacher`` is ``champion`` and one
    ships, else the game's greedy player, so a network file says which teachers made it."""
    from monster_zoo.agents.registry import versioned_name

    name = envs.spec(game_id).name
    champions = champion_teacher_versions(game_id, player_counts, version) if teacher == "champion" else {}
    return {
        str(n): f"{name}-champion-v{champions[n]}" if n in champions else versioned_name(game_id, "greedy")
        for n in player_counts
    }


def champion_teachers(
    game_id: str, player_counts: Sequence[int], options: dict = None, version: int | None = None
) -> dict[int, Champion]:
    """The shipped champion of each of ``player_counts`` (its newest version, or with ``version``
    its newest version up to ``version``, checked against the champions' manifest): numba-ready :class:`MLPWeights` for a plain-MLP PPO policy, the agent
    itself (:class:`~monster_zoo.agents.ppo.agent.PPOAgent` for a placement network,
    :class:`~monster_zoo.agents.az.agent.AZNetAgent` for a learned-search network), whose
    ``probabilities`` teach. Counts without a champion are left out."""
    from monster_zoo.agents.ppo.champions import load_champion

    codes = {None: ACT_NONE, "tanh": ACT_TANH, "relu": ACT_RELU}
    teachers: dict[int, Champion] = {}
    for n, pinned in champion_teacher_versions(game_id, player_counts, version).items():
        agent = load_champion(0, game_id, {**dict(options or {}), "num_players": n}, version=pinned)
        plain_mlp = isinstance(agent, PPOAgent) and agent.placement is None
        teachers[n] = MLPWeights([(w, b, codes[act]) for w, b, act in agent.layers]) if plain_mlp else agent
    return teachers


def play_teacher_games(
    game_id: str,
    games: int,
    player_counts: Sequence[int],
    seed: int,
    epsilon: float = 0.1,
    parallel: int = 256,
    options: dict = None,
    teacher: str = "greedy",
    teacher_version: int | None = None,
):
    """Play ``games`` games of ``game_id`` with ``teacher`` (one of :data:`TEACHERS`) in every seat
    (a random legal move with probability ``epsilon``); return the decisions and stats as
    :func:`~monster_zoo.training.az.selfplay.play_games` does. Game ``g`` is seeded from
    ``(seed, g)`` alone, so the result does not depend on ``parallel`` or the thread count.
    ``teacher_version`` pins the champion teachers (see :func:`champion_teachers`)."""
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
    if teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {teacher!r}; valid: {', '.join(TEACHERS)}")
    spec = envs.spec(game_id)
    greedy = rollout_kernel(game_id, "greedy")
    champions = (
        champion_teachers(game_id, player_counts, options, teacher_version) if teacher == "champion" else {}
    )
    epsilon_scaled = int(round(epsilon * PROBABILITY_SCALE))

    def teacher_moves(states, slots, game_rngs, teacher_rngs, policies, actions, observations, masks):
        counts = states[slots, 0]
        for n in np.unique(counts):
            rows = np.flatnonzero(counts == n)
            champion = champions.get(int(n))
            if champion is None:
                teacher_and_play(
                    states,
                    slots,
                    rows,
                    game_rngs,
                    teacher_rngs,
                    epsilon_scaled,
                    policies,
                    actions,
                    observations,
                    masks,
                    spec.legal_mask,
                    spec.apply_action,
                    spec.observe_into,
                    greedy,
                )
            elif not isinstance(champion, MLPWeights):  # an agent with probabilities, outside numba
                observe_rows(states, slots, rows, observations, masks, spec.legal_mask, spec.observe_into)
                policies[rows] = champion.probabilities(observations[rows], masks[rows])
                play_most_probable(
                    states,
                    slots,
                    rows,
                    game_rngs,
                    teacher_rngs,
                    epsilon_scaled,
                    policies,
                    actions,
                    masks,
                    spec.apply_action,
                )
            else:
                mlp_teacher_and_play(
                    states,
                    slots,
                    rows,
                    game_rngs,
                    teacher_rngs,
                    epsilon_scaled,
                    policies,
                    actions,
                    observations,
                    masks,
                    champion.params,
                    champion.shapes,
                    champion.activations,
                    spec.legal_mask,
                    spec.apply_action,
                    spec.observe_into,
                )

    return play_with(game_id, teacher_moves, games, player_counts, seed, parallel, options)
