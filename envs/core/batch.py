"""Generic batched drivers: many games stepped in parallel with the games' own kernels.

The drivers are written once and receive a game's kernels as first-class numba
functions (see ``contract``), so the same compiled driver serves every game and
no rule is ever written twice. Each slot owns its game generator (and a separate
generator for random actions), so results do not depend on the thread count.
Finished or truncated games are reset in place (auto-reset); their final
rewards are reported in the step that ended them. Each driver is built serial and
parallel and picks per call (:mod:`monster_zoo.envs.core.threads`: one thread and small
batches stay serial).
"""

import numpy as np
from numba import njit, prange, types

from .contract import (
    APPLY_ACTION_T,
    CONFIG,
    H_CURRENT,
    H_TERMINAL,
    INIT_STATE_T,
    LEGAL_MASK_T,
    OBSERVE_T,
    RETURNS_T,
)
from .header import running
from .header import truncated as truncated_game
from .illegal import IllegalActionError, batch_refusals
from .inputs import check_num_envs, check_seed
from .kernels import copy_vector, inlined
from .rng import SEED_MASK, make_rng, make_rngs, rng_pick_counted
from .threads import batch_kernel

STATES = types.int32[:, ::1]
RNGS = types.uint64[:, ::1]
MASKS = types.int8[:, ::1]
FLOATS2 = types.float32[:, ::1]
BOOLS = types.boolean[::1]
INTS = types.int64[::1]


@batch_kernel(types.void(STATES, CONFIG, RNGS, MASKS, INTS, FLOATS2, INIT_STATE_T, LEGAL_MASK_T, OBSERVE_T))
def batch_reset(states, config, rngs, masks, counts, obs, init_state, legal_mask, observe_into):
    """Start a new game in every slot and write the mover's mask, its count and observation."""
    for i in prange(states.shape[0]):
        init_state(states[i], config, rngs[i])
        counts[i] = legal_mask(states[i], masks[i])
        observe_into(states[i], states[i, H_CURRENT], obs[i])


@batch_kernel(
    types.int64(
        STATES,
        CONFIG,
        RNGS,
        INTS,
        MASKS,
        INTS,
        FLOATS2,
        FLOATS2,
        BOOLS,
        BOOLS,
        INIT_STATE_T,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        OBSERVE_T,
    ),
    first_class_args=True,
)
def batch_step(
    states,
    config,
    rngs,
    actions,
    masks,
    counts,
    obs,
    rewards,
    terminated,
    truncated,
    init_state,
    legal_mask,
    apply_action,
    returns,
    observe_into,
):
    """Apply one action per slot and auto-reset finished games.

    ``masks`` holds the legal actions of the state being stepped; an action it
    does not allow leaves its slot unchanged and is counted in the result.
    ``rewards[i]`` holds every seat's final reward in the step a game ended.
    """
    illegal = 0
    for i in prange(states.shape[0]):
        a = actions[i]
        rewards[i, :] = 0.0
        terminated[i] = False
        truncated[i] = False
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            illegal += 1
            continue
        s = states[i]
        apply_action(s, a, rngs[i])
        if s[H_TERMINAL] != 0:
            returns(s, rewards[i])
            terminated[i] = True
        elif truncated_game(s):
            truncated[i] = True
        if terminated[i] or truncated[i]:
            init_state(s, config, rngs[i])
        counts[i] = legal_mask(s, masks[i])
        observe_into(s, s[H_CURRENT], obs[i])
    return illegal


@batch_kernel(types.void(MASKS, INTS, RNGS, INTS))
def batch_random_actions(masks, counts, rngs, out):
    """A uniformly random legal action per slot, drawn from ``rngs`` (not the game's), from the
    masks and their counts of legal actions as the other drivers wrote them (the pick
    ``rng_pick_set`` makes of such a mask, without counting it again or compiling it)."""
    for i in prange(masks.shape[0]):
        out[i] = rng_pick_counted(masks[i], counts[i], rngs[i])


# No signature: compiled (and cached) as part of batch_random_steps, its one caller.
@njit(cache=True)
def random_steps(state, config, rng, action_rng, mask, num_steps, init_state, legal_mask, apply_action):
    """Play ``num_steps`` random legal actions on one state (auto-reset); return games finished."""
    # The slot's rows are views of the batch's arrays, which share one reference count: every
    # kernel call that counts a reference would bounce that count's cache line between the
    # threads. Copies of its own (written back at the end) keep a thread's counting local.
    work, work_mask = state.copy(), mask.copy()
    work_rng, work_action_rng = rng.copy(), action_rng.copy()
    finished = play_random(
        work, config, work_rng, work_action_rng, work_mask, num_steps, init_state, legal_mask, apply_action
    )
    copy_vector(state, work)
    copy_vector(mask, work_mask)
    copy_vector(rng, work_rng)
    copy_vector(action_rng, work_action_rng)
    return finished


@inlined
def play_random(state, config, rng, action_rng, mask, num_steps, init_state, legal_mask, apply_action):
    """The loop of :func:`random_steps` (and of the GPU engine's, one thread per slot) on the arrays
    given: ``num_steps`` random legal actions, auto-reset; returns games finished."""
    finished = 0
    for _ in range(num_steps):
        count = legal_mask(state, mask)
        apply_action(state, rng_pick_counted(mask, count, action_rng), rng)
        if not running(state):
            finished += 1
            init_state(state, config, rng)
    return finished


@batch_kernel(
    types.int64(
        STATES, CONFIG, RNGS, RNGS, MASKS, INTS, types.int64, INIT_STATE_T, LEGAL_MASK_T, APPLY_ACTION_T
    )
)
def batch_random_steps(
    states, config, rngs, action_rngs, masks, counts, num_steps, init_state, legal_mask, apply_action
):
    """Play ``num_steps`` random legal actions in every slot; return games finished.

    The pure engine loop used by the benchmarks: no observations, auto-reset.
    """
    # A scalar reduction (numba parallelises it) rather than an array and its sum, which are
    # much more to compile.
    finished = 0
    for i in prange(states.shape[0]):
        finished += random_steps(
            states[i],
            config,
            rngs[i],
            action_rngs[i],
            masks[i],
            num_steps,
            init_state,
            legal_mask,
            apply_action,
        )
        counts[i] = legal_mask(states[i], masks[i])
    return finished


ACTION_SEED_SALT = 0x5EED5EED5EED


def action_rng(seed: int) -> np.ndarray:
    """The generator of random actions paired with game seed ``seed``, kept apart from the
    game's own generator so choosing actions never shifts the game's chance."""
    return make_rng(seed ^ ACTION_SEED_SALT)


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` the caller cannot write by accident (numpy lets a view be made
    writeable again, so what the engine reads back must never be such a view)."""
    view = array.view()
    view.flags.writeable = False
    return view


class BatchEngine:
    """``num_envs`` games of one kind stepped together by the batched drivers.

    Game ``i`` is seeded ``(seed + i) mod 2**63``, exactly as ``env.reset(seed=seed + i)``
    seeds the AEC env, so both give the same games for the same actions.
    Observations are from the seat on move in each slot.

    The arrays handed out (``obs``, ``masks``, ``rewards``, ``terminated``, ``truncated``)
    are read-only views, overwritten by the next call; ``states`` is a read-only copy.
    Legality is checked against a private mask that no caller ever receives, so writing
    into a handed-out array (even after making it writeable) cannot make the kernels apply
    an illegal action or see a state the rules did not make.
    Seeds, ``num_envs`` and actions follow the contract of
    :mod:`~monster_zoo.envs.core.inputs` and :mod:`~monster_zoo.envs.core.illegal`.
    """

    def __init__(self, spec, config: np.ndarray, num_envs: int, seed: int = 0):
        num_envs = check_num_envs(num_envs, spec.env_id)
        check_seed(seed, spec.env_id, allow_none=False)
        self.spec = spec
        self.config = np.ascontiguousarray(config, dtype=np.int64)
        self.num_envs = num_envs
        self.num_players = int(self.config[0])
        self._states = np.zeros((num_envs, spec.state_size), np.int32)
        self._masks = np.zeros((num_envs, spec.num_actions), np.int8)  # the engine's own: legality
        self._counts = np.zeros(num_envs, np.int64)  # legal actions in each mask
        self._shown_masks = np.zeros_like(self._masks)  # the caller's copy
        self._obs = np.zeros((num_envs, spec.obs_size), np.float32)
        self._rewards = np.zeros((num_envs, self.num_players), np.float32)
        self._terminated = np.zeros(num_envs, np.bool_)
        self._truncated = np.zeros(num_envs, np.bool_)
        self.masks, self.obs = read_only(self._shown_masks), read_only(self._obs)
        self.rewards, self.terminated, self.truncated = (
            read_only(a) for a in (self._rewards, self._terminated, self._truncated)
        )
        self._actions = np.zeros(num_envs, np.int64)
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Reseed every slot: game generators ``(seed + i) mod 2**63``, action generators derived apart."""
        seed = check_seed(seed, self.spec.env_id, allow_none=False)
        seeds = [(seed + i) & SEED_MASK for i in range(self.num_envs)]
        self.rngs = make_rngs(seeds)
        self.action_rngs = np.stack([action_rng(s) for s in seeds])

    def reset(self):
        """Start every game; return ``(obs, masks)`` of the seat on move (read-only views)."""
        s = self.spec
        batch_reset(
            self._states,
            self.config,
            self.rngs,
            self._masks,
            self._counts,
            self._obs,
            s.init_state,
            s.legal_mask,
            s.observe_into,
        )
        self._shown_masks[:] = self._masks
        return self.obs, self.masks

    @property
    def states(self) -> np.ndarray:
        """A read-only copy of every slot's state (hidden information included)."""
        return read_only(self._states.copy())

    @property
    def current_players(self) -> np.ndarray:
        """The seat on move in each slot."""
        return self._states[:, H_CURRENT].copy()

    def observe_json(self, slot: int, seat: int) -> dict:
        """Seat ``seat``'s JSON view of the game in ``slot`` (:mod:`monster_zoo.envs.core.json_view`), as
        ``env.unwrapped.observe_json`` gives it, except ``last_moves``, empty: the engine keeps no history."""
        from .json_view import seat_view  # for language models only: the training loop never pays for it

        if not isinstance(slot, (int, np.integer)) or not 0 <= slot < self.num_envs:
            raise ValueError(f"slot must be an integer from 0 to {self.num_envs - 1}, got {slot!r}")
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be an integer from 0 to {self.num_players - 1}, got {seat!r}")
        state = self._states[slot]
        return seat_view(self.spec, state.copy(), int(seat), np.flatnonzero(self._masks[slot]).tolist())

    def step(self, actions):
        """Apply one action per slot; return ``(obs, masks, rewards, terminated, truncated)``.

        The arrays are read-only views of the engine's buffers, overwritten by the next
        call: copy what you keep. ``actions``: ``num_envs`` integer action indices (a 1-d
        array or a list). Raises IllegalActionError (a ValueError) naming the slot, the
        player, the action and the reason, changing nothing, if any action is refused.
        """
        acts, refused = batch_refusals(
            self.spec,
            self._states,
            self._masks,
            actions,
            lambda i: f"slot {i}: player_{int(self._states[i, H_CURRENT])}",
        )
        if refused:
            raise IllegalActionError(next(iter(refused.values())))
        s = self.spec
        batch_step(
            self._states,
            self.config,
            self.rngs,
            acts,
            self._masks,
            self._counts,
            self._obs,
            self._rewards,
            self._terminated,
            self._truncated,
            s.init_state,
            s.legal_mask,
            s.apply_action,
            s.returns,
            s.observe_into,
        )
        self._shown_masks[:] = self._masks
        return self.obs, self.masks, self.rewards, self.terminated, self.truncated

    def random_actions(self) -> np.ndarray:
        """A random legal action per slot from the engine's own action generators."""
        batch_random_actions(self._masks, self._counts, self.action_rngs, self._actions)
        return self._actions.copy()

    def step_random(self, num_steps: int) -> int:
        """Run ``num_steps`` random steps per slot inside numba; return games finished."""
        s = self.spec
        finished = int(
            batch_random_steps(
                self._states,
                self.config,
                self.rngs,
                self.action_rngs,
                self._masks,
                self._counts,
                int(num_steps),
                s.init_state,
                s.legal_mask,
                s.apply_action,
            )
        )
        self._shown_masks[:] = self._masks
        return finished


def random_playout(spec, config: np.ndarray, num_steps: int, seed: int = 0):
    """One game state through ``num_steps`` random legal actions (auto-resetting).

    The game is seeded ``seed`` and the actions drawn from ``action_rng(seed)``, exactly
    like slot 0 of a ``BatchEngine`` with that seed. Returns ``(state, game_rng,
    games_finished)``; this is the single-state engine loop of the benchmarks.
    """
    seed = check_seed(seed, spec.env_id, allow_none=False)
    states = np.zeros((1, spec.state_size), np.int32)
    masks = np.zeros((1, spec.num_actions), np.int8)
    counts = np.zeros(1, np.int64)
    config = np.ascontiguousarray(config, dtype=np.int64)
    rngs, actions = make_rng(seed)[None], action_rng(seed)[None]
    spec.init_state(states[0], config, rngs[0])
    # The batched loop on a batch of one, always its serial build: one kernel for both loops.
    finished = batch_random_steps.serial(
        states,
        config,
        rngs,
        actions,
        masks,
        counts,
        int(num_steps),
        spec.init_state,
        spec.legal_mask,
        spec.apply_action,
    )
    return states[0], rngs[0], int(finished)
