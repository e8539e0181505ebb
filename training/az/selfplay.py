"""Self-play of expert iteration: the learned search plays every seat of many games at once.

:func:`play_games` keeps ``parallel`` games going side by side in one state array; each move it
calls :func:`monster_zoo.agents.az.search.search_and_play`, which searches and moves in every
running game inside numba (on several threads when :mod:`monster_zoo.envs.core.threads` allows),
and starts the next game in a slot as soon as its game ends. With ``batched_leaves`` it calls
:func:`~monster_zoo.agents.az.search.search_and_play_lockstep` instead: the games' searches
advance in lock step and every simulation's leaves go through the network as one batch (BLAS),
on one thread; the same searches, the network's outputs differing only by float rounding.
Every decision is kept: the mover's observation, the player count, the legal mask and the
search's improved policy; when a game ends
its returns (``reward="win"``, ruling C3; 0 for all in a truncated game) become the value targets
of its decisions, rotated to each mover (:func:`monster_zoo.training.az.learner.value_targets`).
With ``search_value_share`` a share of each searched decision's target is instead the search's
own value of the move it chose (every seat's mean over the simulations through that move): a
target of less variance than one game's result, which the deeper search already looked past
(MuZero's and Willemsen et al.'s mixed value targets).

Game ``g`` of a call plays ``player_counts[g % len(player_counts)]`` seats and is seeded from
``(seed, g)`` alone, its search (or teacher) from a generator of its own, so a round is reproduced exactly by
its seed, whatever the number of parallel games or threads.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.az.search import SearchSettings, search_and_play, search_and_play_lockstep, trees
from monster_zoo.agents.network import MAX_SEATS, AZNetwork, input_size
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.header import running
from monster_zoo.envs.core.rng import SEED_MASK, make_rng

from .learner import Batch, value_targets

SEARCH_SALT = 0x5EA2C4_5EA2C4
# Lock step pays for networks of at most this many inputs, at 64 games side by side: the batch
# saves on the 256-wide layers, while each game's tree and first layer grow with its observation
# and actions, and lock step visits every game's tree once per simulation (out of the caches in
# the large games). Measured on an AMD EPYC, 64 simulations (training/AZ.md): lock step against
# one search per game 1.0x and 1.2x at 286 and 402 inputs (64 games), 0.9x at 719 (MONSTArgh!,
# 32 games), with the one-row pass's eight-row blocks; before them (a pass 1.3-1.8x slower) it
# gained 1.4x, 1.6x and 1.2x at 286, 402 and 719 inputs and lost (0.9x) at 1,747 and 3,489, and
# 64 games against 32 in lock step gave 1.08x and 1.09x at 286 and 402 inputs, 0.79x at 719.
# One search per game does not depend on the count (0.92-1.21x, within the noise).
BATCHED_INPUT_LIMIT = 512


@dataclass
class SelfPlayStats:
    """What a round of self-play did."""

    games: int
    decisions: int
    truncated: int
    mean_length: float


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game`` of a self-play call seeded ``seed``."""
    return (seed * 1_000_003 + game) & SEED_MASK


def play_games(
    network: AZNetwork,
    games: int,
    player_counts: Sequence[int],
    settings: SearchSettings,
    seed: int,
    parallel: int = 64,
    options: dict = None,
    batched_leaves: bool = False,
    search_value_share: float = 0.0,
):
    """Play ``games`` self-play games of ``network``'s game with the search; return the decisions
    (a :class:`~monster_zoo.training.az.learner.Batch`, game by game) and
    :class:`SelfPlayStats`. ``options`` are further game options (``max_steps``, rule options).
    ``batched_leaves``: the searches in lock step, their leaves evaluated as one batch (see the
    module doc), on one thread whatever :mod:`monster_zoo.envs.core.threads` allows.
    ``search_value_share`` (0 to 1): the share of a searched decision's value target that is the
    search's value of its chosen move (:func:`chosen_move_values`), the rest the game's result."""
    if not 0.0 <= search_value_share <= 1.0:
        raise ValueError(f"search_value_share {search_value_share!r}: a share from 0 to 1")
    spec = envs.spec(network.game_id)
    parallel = max(1, min(parallel, games))
    children, visits, values, priors = trees(parallel, settings.simulations + 1, spec.num_actions)
    settings_array = settings.as_array()
    rollout = tuned_rollout(network.game_id)
    search = search_and_play_lockstep if batched_leaves else search_and_play

    def search_moves(states, slots, game_rngs, search_rngs, policies, actions, observations, masks):
        search(
            states,
            slots,
            game_rngs,
            search_rngs,
            settings_array,
            spec.determinize is not None,
            network.params,
            network.shapes,
            children,
            visits,
            values,
            priors,
            policies,
            actions,
            observations,
            masks,
            spec.legal_mask,
            spec.apply_action,
            spec.returns,
            spec.observe_into,
            spec.determinize,
            rollout,
        )
        return chosen_move_values(children, visits, values, slots, actions, masks)

    if not batched_leaves:
        return play_with(
            network.game_id, search_moves, games, player_counts, seed, parallel, options, search_value_share
        )
    from threadpoolctl import threadpool_limits

    try:
        import scipy.linalg.cython_blas  # noqa: F401  (the BLAS numba calls: loaded so that the limit reaches it)
    except ImportError as err:
        raise ImportError(
            "batched leaves multiply through numba's BLAS, which needs scipy: install "
            "monster-zoo[train], or search one game at a time (--batched-leaves off)"
        ) from err

    # One BLAS thread: over a few dozen rows a second thread cost far more in handing over than it
    # saved (self-play at 2 threads ran 10-35x slower than at 1; training/AZ.md).
    with threadpool_limits(1, user_api="blas"):
        return play_with(
            network.game_id, search_moves, games, player_counts, seed, parallel, options, search_value_share
        )


def chosen_move_values(
    children: np.ndarray,
    visits: np.ndarray,
    values: np.ndarray,
    slots: np.ndarray,
    actions: np.ndarray,
    masks: np.ndarray,
) -> np.ndarray:
    """After a search in each game ``slots[j]`` (trees as :func:`~monster_zoo.agents.az.search.trees`
    stacks them) chose ``actions[j]``: every absolute seat's mean value over the simulations
    through that move, ``[rows, MAX_SEATS]``. A row is NaN where the mover had one legal action
    (``masks[j]``): the search does not run then, and the tree still holds an earlier search."""
    out = np.full((len(slots), MAX_SEATS), np.nan, np.float32)
    nodes = children[slots, 0, actions]
    searched = (masks.sum(axis=1) > 1) & (nodes >= 0)
    rows, nodes = slots[searched], nodes[searched]
    out[searched] = values[rows, nodes] / np.maximum(visits[rows, nodes], 1)[:, None]
    return out


def batched_leaves_pay(game_id: str, threads: int) -> bool:
    """Whether lock-step self-play (``batched_leaves``) was measured to pay for ``game_id``'s
    networks on ``threads`` numba threads: their input is at most :data:`BATCHED_INPUT_LIMIT`
    wide, and one thread (lock step runs on one; with more, one search per game per thread)."""
    return input_size(game_id) <= BATCHED_INPUT_LIMIT and threads == 1


def parallel_games_pay(game_id: str, batched: bool) -> int:
    """The games side by side that were measured to pay for ``game_id``'s self-play: 64 in lock
    step (``batched``, on networks of at most :data:`BATCHED_INPUT_LIMIT` inputs), else 32."""
    return 64 if batched and input_size(game_id) <= BATCHED_INPUT_LIMIT else 32


def play_with(
    game_id: str,
    move,
    games: int,
    player_counts: Sequence[int],
    seed: int,
    parallel: int = 64,
    options: dict = None,
    search_value_share: float = 0.0,
):
    """Play ``games`` games of ``game_id``, ``parallel`` side by side, every move made by
    ``move(states, slots, game_rngs, mover_rngs, policies, actions, observations, masks)``, which
    for each running slot ``slots[j]`` records the mover's observation and mask in row ``j``, writes
    the policy target and the action into row ``j`` of ``policies`` and ``actions`` and applies the
    action with the slot's game generator. It may return each row's search values per absolute
    seat (``[rows, MAX_SEATS]``, NaN where it has none), which make ``search_value_share`` of the
    value targets. Return the decisions and :class:`SelfPlayStats` as :func:`play_games` does (it
    is this loop with the search as ``move``)."""
    no_values = np.full(MAX_SEATS, np.nan, np.float32)
    spec = envs.spec(game_id)
    options = dict(options or {})
    configs = {n: envs.config(game_id, {**options, "num_players": n, "reward": "win"}) for n in player_counts}
    parallel = max(1, min(parallel, games))
    states = np.zeros((parallel, spec.state_size), np.int32)
    game_rngs = np.zeros((parallel, 1), np.uint64)
    mover_rngs = np.zeros((parallel, 1), np.uint64)
    observations = np.zeros((parallel, spec.obs_size), np.float32)
    masks = np.zeros((parallel, spec.num_actions), np.int8)
    policies = np.zeros((parallel, spec.num_actions), np.float32)
    actions = np.zeros(parallel, np.int64)
    playing = np.full(parallel, -1, np.int64)  # the game in each slot, -1 when the slot is idle
    moves = {}  # game -> its decisions so far, one tuple of arrays per move
    finished = []  # (game, decisions, movers, returns per seat)
    started = 0
    truncated = 0

    def start(slot: int) -> None:
        nonlocal started
        game = started
        started += 1
        n = player_counts[game % len(player_counts)]
        game_rngs[slot] = make_rng(game_seed(seed, game))
        mover_rngs[slot] = make_rng(game_seed(seed, game) ^ SEARCH_SALT)
        spec.init_state(states[slot], configs[n], game_rngs[slot])
        playing[slot] = game
        moves[game] = []

    for slot in range(parallel):
        start(slot)
    while (playing >= 0).any():
        slots = np.flatnonzero(playing >= 0)
        movers = states[slots, H_CURRENT].copy()
        k = len(slots)
        searched = move(
            states, slots, game_rngs, mover_rngs, policies[:k], actions[:k], observations[:k], masks[:k]
        )
        # The move's rows converted at once, not one call per row: the loop over rows is Python's.
        move_obs, move_masks, move_policies = (
            observations[:k].astype(np.float16),
            masks[:k].copy(),
            policies[:k].astype(np.float16),
        )
        for j, slot in enumerate(slots):
            game = playing[slot]
            moves[game].append(
                (
                    move_obs[j],
                    move_masks[j],
                    move_policies[j],
                    movers[j],
                    no_values if searched is None else searched[j],
                )
            )
            s = states[slot]
            over = s[H_TERMINAL] != 0
            if not running.py_func(s):
                result = np.zeros(MAX_SEATS, np.float32)
                if over:
                    spec.returns(s, result[: s[0]])
                else:
                    truncated += 1
                finished.append((game, int(s[0]), moves.pop(game), result))
                playing[slot] = -1
                if started < games:
                    start(slot)
    return _decisions(finished, search_value_share), SelfPlayStats(
        games=len(finished),
        decisions=sum(len(m) for _, _, m, _ in finished),
        truncated=truncated,
        mean_length=float(np.mean([len(m) for _, _, m, _ in finished])),
    )


def _decisions(finished, search_value_share: float = 0.0) -> Batch:
    """The finished games' decisions as one batch, game by game, value targets filled in: each
    game's result, mixed with ``search_value_share`` of the search's values where a decision has them."""
    obs, masks, policies, movers, counts, returns = [], [], [], [], [], []
    for _, n, game_moves, result in sorted(finished, key=lambda item: item[0]):
        for o, m, p, mover, searched in game_moves:
            obs.append(o)
            masks.append(m)
            policies.append(p)
            movers.append(mover)
            mixed = search_value_share > 0 and not np.isnan(searched[0])
            returns.append(
                (1 - search_value_share) * result + search_value_share * searched if mixed else result
            )
        counts += [n] * len(game_moves)
    counts = np.array(counts, np.int8)
    return Batch(
        np.array(obs),
        counts,
        np.array(masks),
        np.array(policies),
        value_targets(np.array(returns), np.array(movers, np.int64), counts.astype(np.int64)),
    )
