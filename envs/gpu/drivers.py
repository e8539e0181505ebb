"""The GPU engine's drivers: one CUDA thread per game, calling the game's own kernels.

Each driver is the per-slot body of its CPU twin in :mod:`monster_zoo.envs.core.batch`, with the
slot index from ``cuda.grid(1)`` instead of a ``prange`` loop; the game's kernels (``init_state``,
``legal_mask``, ...) are the very CPU dispatchers of its declaration, which numba-cuda compiles as
device functions from their Python source (:func:`monster_zoo.envs.core.kernels.device_functions`).
:func:`driver_sources` gives the Python functions and their argument types, so that the engine
launches them and ``monster-zoo gpu check`` compiles and links them without a GPU.

A game whose rules declare their phases (``phase_of(state)`` and ``NUM_PHASES`` beside the kernels)
gets the in-launch ``random_steps`` loop that steps the games of a warp phase by phase
(:func:`game_phases`): games in different phases would make the warp run every one of their phases'
code in turn, each for a few of its threads.
"""

from numba import cuda, types

from ..core.batch import BOOLS, FLOATS2, INTS, MASKS, RNGS, STATES, play_random
from ..core.contract import CONFIG, H_CURRENT, H_TERMINAL
from ..core.header import running
from ..core.header import truncated as truncated_game
from ..core.kernels import copy_vector, device_functions
from ..core.rng import rng_pick_counted

THREADS_PER_BLOCK = 128  # a game's kernels hold much per-thread state: small blocks keep occupancy up
WARP_SIZE = 32
WARPS_PER_BLOCK = THREADS_PER_BLOCK // WARP_SIZE


def game_phases(spec):
    """``(phase_of, NUM_PHASES)`` of ``spec``'s rules where they declare their phases (``phase_of(state)``
    gives the decision a game waits for, below ``NUM_PHASES``), else None."""
    rules = getattr(spec, "rules", None)
    phase_of = getattr(rules, "phase_of", None)
    return None if phase_of is None else (phase_of, int(rules.NUM_PHASES))


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
        running,
    )
    phases = game_phases(spec)
    device = device_functions(cpu if phases is None else (*cpu, phases[0]))
    init_state, legal_mask, apply_action, returns, observe_into, pick, cut_off, play, copy, is_running = (
        device[id(f)] for f in cpu
    )
    phase_of, num_phases = (None, 1) if phases is None else (device[id(phases[0])], phases[1])
    state_size, num_actions = spec.state_size, spec.num_actions
    votes_per_buffer = WARPS_PER_BLOCK * num_phases

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

    def random_steps_by_phase(states, config, rngs, action_rngs, masks, counts, num_steps, finished):
        """``random_steps`` with each warp's games stepped phase by phase: every round steps the games
        of the warp's most common phase among those with steps left. Each game takes the very steps it
        takes alone (its own state and generators); only the order of steps across games changes."""
        # The phases are counted per warp in shared memory (block barriers: numba-cuda's simulator has
        # no warp votes), in two buffers used in turn, so that a round clears the next round's counts
        # while no thread reads them and needs two barriers, not three.
        i = cuda.grid(1)
        live = i < states.shape[0]
        votes = cuda.shared.array((2, votes_per_buffer), types.int32)
        first = (cuda.threadIdx.x // WARP_SIZE) * num_phases  # this warp's counts
        state = cuda.local.array(state_size, types.int32)
        mask = cuda.local.array(num_actions, types.int8)
        rng = cuda.local.array(1, types.uint64)
        action_rng = cuda.local.array(1, types.uint64)
        left = 0
        if live:
            copy(state, states[i])
            rng[0], action_rng[0] = rngs[i, 0], action_rngs[i, 0]
            left = num_steps
        for k in range(cuda.threadIdx.x, votes_per_buffer, cuda.blockDim.x):
            votes[0, k] = 0
            votes[1, k] = 0
        cuda.syncthreads()
        done = 0
        turn = 0
        while cuda.syncthreads_or(1 if left > 0 else 0):  # an integer predicate, as the barrier takes
            now = turn % 2
            for k in range(cuda.threadIdx.x, votes_per_buffer, cuda.blockDim.x):
                votes[1 - now, k] = 0  # every read of them came before the barrier above
            phase = phase_of(state) if left > 0 else 0
            if left > 0:
                cuda.atomic.add(votes, (now, first + phase), 1)
            cuda.syncthreads()
            best = 0
            for k in range(1, num_phases):
                if votes[now, first + k] > votes[now, first + best]:
                    best = k
            if left > 0 and phase == best:
                apply_action(state, pick(mask, legal_mask(state, mask), action_rng), rng)
                left -= 1
                if not is_running(state):
                    done += 1
                    init_state(state, config, rng)
            turn += 1
        if live:
            copy(states[i], state)
            rngs[i, 0], action_rngs[i, 0] = rng[0], action_rng[0]
            counts[i] = legal_mask(states[i], masks[i])
            cuda.atomic.add(finished, 0, done)

    return {
        "reset": (reset, (STATES, CONFIG, RNGS, MASKS, INTS, FLOATS2)),
        "count_illegal": (count_illegal, (INTS, MASKS, INTS)),
        "step": (step, (STATES, CONFIG, RNGS, INTS, MASKS, INTS, FLOATS2, FLOATS2, BOOLS, BOOLS)),
        "random_actions": (random_actions, (MASKS, INTS, RNGS, INTS)),
        "random_steps": (
            random_steps if phases is None else random_steps_by_phase,
            (STATES, CONFIG, RNGS, RNGS, MASKS, INTS, types.int64, INTS),
        ),
    }
