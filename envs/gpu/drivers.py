"""The GPU engine's drivers: one CUDA thread per game, calling the game's own kernels.

Each driver is the per-slot body of its CPU twin in :mod:`monster_zoo.envs.core.batch`, with the
slot index from ``cuda.grid(1)`` instead of a ``prange`` loop; the game's kernels (``init_state``,
``legal_mask``, ...) are the very CPU dispatchers of its declaration, which numba-cuda compiles as
device functions from their Python source (:func:`monster_zoo.envs.core.kernels.device_functions`).
:func:`driver_sources` gives the Python functions and their argument types, so that the engine
launches them and ``monster-zoo gpu check`` compiles and links them without a GPU.
"""

from numba import cuda, types

from ..core.batch import BOOLS, FLOATS2, INTS, MASKS, RNGS, STATES, play_random
from ..core.contract import CONFIG, H_CURRENT, H_TERMINAL
from ..core.header import truncated as truncated_game
from ..core.kernels import copy_vector, device_functions
from ..core.rng import rng_pick_counted


def driver_sources(spec) -> dict[str, tuple[object, tuple]]:
    """``{name: (python function, argument types)}`` of every driver of ``spec``'s game."""
    cpu = (
        spec.init_state,
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        rng_pick_counted,
        truncated_game,
        play_random,
        copy_vector,
    )
    device = device_functions(cpu)
    init_state, legal_mask, apply_action, returns, observe_into, pick, cut_off, play, copy = (
        device[id(f)] for f in cpu
    )
    state_size, num_actions = spec.state_size, spec.num_actions

    def reset(states, config, rngs, masks, counts, obs):
        """Start a new game in every slot and write the mover's mask, its count and observation."""
        i = cuda.grid(1)
        if i < states.shape[0]:
            init_state(states[i], config, rngs[i])
            counts[i] = legal_mask(states[i], masks[i])
            observe_into(states[i], states[i, H_CURRENT], obs[i])

    def count_illegal(actions, masks, illegal):
        """Count in ``illegal[0]`` the slots whose action ``masks`` does not allow."""
        i = cuda.grid(1)
        if i < actions.shape[0]:
            a = actions[i]
            if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
                cuda.atomic.add(illegal, 0, 1)

    def step(states, config, rngs, actions, masks, counts, obs, rewards, terminated, truncated):
        """Apply one action per slot and auto-reset finished games (``batch.batch_step``'s slot)."""
        # The body of batch_step's loop. Shared as one inlined function it cost the CPU engine 10-15% of
        # a step (first-class kernels through an inlined call; measured, 2-core host), so it is not.
        i = cuda.grid(1)
        if i < states.shape[0]:
            a = actions[i]
            for p in range(rewards.shape[1]):
                rewards[i, p] = 0.0
            terminated[i] = False
            truncated[i] = False
            if a >= 0 and a < masks.shape[1] and masks[i, a] != 0:
                s = states[i]
                apply_action(s, a, rngs[i])
                if s[H_TERMINAL] != 0:
                    returns(s, rewards[i])
                    terminated[i] = True
                elif cut_off(s):
                    truncated[i] = True
                if terminated[i] or truncated[i]:
                    init_state(s, config, rngs[i])
                counts[i] = legal_mask(s, masks[i])
                observe_into(s, s[H_CURRENT], obs[i])

    def random_actions(masks, counts, rngs, out):
        """A uniformly random legal action per slot from ``rngs`` (``batch.batch_random_actions``'s slot)."""
        i = cuda.grid(1)
        if i < masks.shape[0]:
            out[i] = pick(masks[i], counts[i], rngs[i])

    def random_steps(states, config, rngs, action_rngs, masks, counts, num_steps, finished):
        """``num_steps`` random legal actions per slot inside one launch, auto-reset; adds the games
        finished to ``finished[0]`` (``batch.random_steps``' slot)."""
        # Each thread plays on copies in its local memory, which the GPU interleaves thread by thread, so
        # that neighbouring threads' reads of the same field are adjacent (the rows of ``states`` lie a
        # state apart); the CPU driver plays on copies of its own too.
        i = cuda.grid(1)
        if i < states.shape[0]:
            state = cuda.local.array(state_size, types.int32)
            mask = cuda.local.array(num_actions, types.int8)
            rng = cuda.local.array(1, types.uint64)
            action_rng = cuda.local.array(1, types.uint64)
            copy(state, states[i])
            rng[0], action_rng[0] = rngs[i, 0], action_rngs[i, 0]
            done = play(state, config, rng, action_rng, mask, num_steps, init_state, legal_mask, apply_action)
            copy(states[i], state)
            rngs[i, 0], action_rngs[i, 0] = rng[0], action_rng[0]
            counts[i] = legal_mask(states[i], masks[i])
            cuda.atomic.add(finished, 0, done)

    return {
        "reset": (reset, (STATES, CONFIG, RNGS, MASKS, INTS, FLOATS2)),
        "count_illegal": (count_illegal, (INTS, MASKS, INTS)),
        "step": (step, (STATES, CONFIG, RNGS, INTS, MASKS, INTS, FLOATS2, FLOATS2, BOOLS, BOOLS)),
        "random_actions": (random_actions, (MASKS, INTS, RNGS, INTS)),
        "random_steps": (random_steps, (STATES, CONFIG, RNGS, RNGS, MASKS, INTS, types.int64, INTS)),
    }
