"""The learner-seat games' drivers on the GPU: one CUDA thread per slot, the game's own kernels.

Each slot does what :class:`monster_zoo.envs.core.selfplay.LearnerGames` does for it on the CPU, in
the same order and with the same generators: apply the learner's action, let the opponents move
until the learner is on move again, report a game that ended (the learner's reward, its final
observation, every seat's returns) and start the next one (its seed, the learner's seat and the
opponent drawn by :mod:`monster_zoo.envs.core.learner_slots`), replacing games that end before the
learner's first turn. Random and greedy opponents move inside the thread (``opponents.random_policy``,
the game's greedy kernel of :func:`greedy_kernel`). An opponent that is a torch policy cannot: the thread writes the mover's mask and observation, marks
the slot ``WAITING`` and stops; the policy's logits for every waiting slot are computed by torch
on the device, and :func:`driver_sources`' ``play`` draws the action from them as the CPU
draws from a frozen network's (``opponents._sample_masked``), applies it and carries on.

The kernels, their game kernels and the shared draws are compiled from the CPU's Python functions
(:func:`monster_zoo.envs.core.kernels.device_functions`); :func:`driver_sources` gives them with
their argument types, so ``monster-zoo gpu check`` compiles and links them without a GPU.
"""

import importlib

from numba import cuda, types

from ..core.batch import BOOLS, FLOATS2, INTS, MASKS, RNGS, STATES
from ..core.contract import CONFIG, H_CURRENT, H_TERMINAL
from ..core.header import running
from ..core.kernels import device_functions
from ..core.learner_slots import draw_seat_and_opponent, game_seed, seed_rng
from ..core.opponents import _sample_masked, random_policy

READY, WAITING = 0, 1  # a slot's phase: the learner is on move / a torch opponent is
KIND_RANDOM, KIND_TORCH, KIND_GREEDY = 0, 1, 2  # an opponent's kind, by its entry in the opponent table
BEGIN, LEARNER, OPPONENTS = 0, 1, 2  # what the play driver's launch moves
FLOATS = types.float32[::1]
FLOATS64 = types.float64[::1]
BYTES = types.int8[::1]


def greedy_kernel(spec):
    """The numba greedy policy kernel that ``spec``'s game declares (its ``baselines``), or None (a
    game registered without a declaration)."""
    baseline = getattr(spec, "baselines", {}).get("greedy")
    return None if baseline is None else importlib.import_module(baseline.module).greedy_action


def driver_sources(spec) -> dict[str, tuple[object, tuple]]:
    """``{name: (python function, argument types)}`` of every learner-seat driver of ``spec``'s game."""
    greedy = greedy_kernel(spec) or random_policy  # a game without greedy: no slot is given KIND_GREEDY
    cpu = (
        spec.init_state,
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        running,
        random_policy,
        greedy,
        _sample_masked,
        game_seed,
        seed_rng,
        draw_seat_and_opponent,
    )
    device = device_functions(cpu)
    (
        init_state,
        legal_mask,
        apply_action,
        returns,
        observe_into,
        is_running,
        random_move,
        greedy_move,
        sample_masked,
        seed_of_game,
        seed_generator,
        draw_seat,
    ) = (device[id(f)] for f in cpu)

    def start_game(
        i,
        states,
        config,
        game_rngs,
        seat_rngs,
        learner,
        fixed_seats,
        members,
        pool_ids,
        cumulative,
        started,
        game_seeds,
        base_seed,
    ):
        """The next game of slot ``i``: its seed and generator, the learner's seat, the opponent
        (``selfplay.LearnerGames._start_games``' slot)."""
        game_seeds[i] = seed_of_game(base_seed, i, started[i], states.shape[0])
        started[i] += 1
        seed_generator(game_rngs[i], game_seeds[i])
        seat, pick = draw_seat(seat_rngs[i], config[0], cumulative)
        learner[i] = fixed_seats[i] if fixed_seats[i] >= 0 else seat
        members[i] = pool_ids[pick]
        init_state(states[i], config, game_rngs[i])

    def proceed(
        i,
        states,
        config,
        game_rngs,
        seat_rngs,
        policy_rngs,
        learner,
        fixed_seats,
        members,
        pool_ids,
        cumulative,
        kinds,
        started,
        game_seeds,
        base_seed,
        phase,
        reported,
        rewards,
        terminated,
        truncated,
        final_obs,
        final_returns,
        final_seats,
        final_game_seeds,
        opp_masks,
        opp_obs,
    ):
        """Play slot ``i`` on until the learner is on move in a running game (``READY``) or a torch
        opponent is (``WAITING``, its mask and observation written); the first game to end is
        reported (``reported[i]`` set), later ones are replaced unreported, as the CPU does."""
        s = states[i]
        while True:
            if is_running(s):
                if s[H_CURRENT] == learner[i]:
                    phase[i] = READY
                    return
                legal_mask(s, opp_masks[i])
                kind = kinds[members[i]]
                if kind == KIND_TORCH:
                    observe_into(s, s[H_CURRENT], opp_obs[i])
                    phase[i] = WAITING
                    return
                if kind == KIND_GREEDY:
                    apply_action(s, greedy_move(s, opp_masks[i], policy_rngs[i]), game_rngs[i])
                else:
                    apply_action(s, random_move(s, opp_masks[i], policy_rngs[i]), game_rngs[i])
                continue
            if reported[i] == 0:  # the learner's game ended (``selfplay.LearnerGames._finish_games``' slot)
                reported[i] = 1
                seat = learner[i]
                final_seats[i] = seat
                final_game_seeds[i] = game_seeds[i]
                for p in range(final_returns.shape[1]):
                    final_returns[i, p] = 0.0
                if s[H_TERMINAL] != 0:
                    returns(s, final_returns[i])
                    terminated[i] = True
                else:
                    truncated[i] = True
                rewards[i] = final_returns[i, seat]
                observe_into(s, seat, final_obs[i])
            start_game(
                i,
                states,
                config,
                game_rngs,
                seat_rngs,
                learner,
                fixed_seats,
                members,
                pool_ids,
                cumulative,
                started,
                game_seeds,
                base_seed,
            )

    start_game = cuda.jit(device=True)(start_game)
    proceed = cuda.jit(device=True)(proceed)

    def play(
        mode,
        actions,
        logits,
        learner_masks,
        refused,
        penalize,
        illegal,
        states,
        config,
        game_rngs,
        seat_rngs,
        policy_rngs,
        learner,
        fixed_seats,
        members,
        pool_ids,
        cumulative,
        kinds,
        started,
        game_seeds,
        base_seed,
        phase,
        reported,
        rewards,
        terminated,
        truncated,
        final_obs,
        final_returns,
        final_seats,
        final_game_seeds,
        opp_masks,
        opp_obs,
    ):
        """One move per slot, then play on (:func:`proceed`). ``mode`` :data:`BEGIN`: start a game in
        every slot, unreported; :data:`LEARNER`: apply the learner's ``actions``, where ``learner_masks``
        allows them (a slot whose action it does not allow is left as it was and counted in
        ``refused[0]``, for the host to refuse once it reads the count; with ``penalize`` set the
        learner loses that game instead, as ``illegal_action="penalize"`` on the CPU: reward -1, the
        others 0, ``illegal[i]`` set, and the slot starts its next game); :data:`OPPONENTS`: in every
        ``WAITING`` slot, draw the torch opponent's action from its ``logits`` row (a masked softmax on
        the slot's policy generator, as the CPU draws a frozen network's) and apply it."""
        i = cuda.grid(1)
        if i >= states.shape[0] or (mode == OPPONENTS and phase[i] != WAITING):
            return
        lost = False
        if mode == LEARNER:
            a = actions[i]
            if a < 0 or a >= learner_masks.shape[1] or learner_masks[i, a] == 0:
                if penalize == 0:
                    cuda.atomic.add(refused, 0, 1)
                    return
                lost = True
        if mode == OPPONENTS:
            apply_action(states[i], sample_masked(logits[i], opp_masks[i], policy_rngs[i]), game_rngs[i])
        else:
            rewards[i] = 0.0
            terminated[i] = lost
            truncated[i] = False
            illegal[i] = lost
            reported[i] = 1 if mode == BEGIN or lost else 0
            if lost:  # ``selfplay.LearnerGames._finish_games``' slot for an illegal action
                seat = learner[i]
                final_seats[i] = seat
                final_game_seeds[i] = game_seeds[i]
                for p in range(final_returns.shape[1]):
                    final_returns[i, p] = 0.0
                final_returns[i, seat] = -1.0
                rewards[i] = -1.0
                observe_into(states[i], seat, final_obs[i])
            if mode == BEGIN or lost:
                start_game(
                    i,
                    states,
                    config,
                    game_rngs,
                    seat_rngs,
                    learner,
                    fixed_seats,
                    members,
                    pool_ids,
                    cumulative,
                    started,
                    game_seeds,
                    base_seed,
                )
            else:
                apply_action(states[i], actions[i], game_rngs[i])
        proceed(
            i,
            states,
            config,
            game_rngs,
            seat_rngs,
            policy_rngs,
            learner,
            fixed_seats,
            members,
            pool_ids,
            cumulative,
            kinds,
            started,
            game_seeds,
            base_seed,
            phase,
            reported,
            rewards,
            terminated,
            truncated,
            final_obs,
            final_returns,
            final_seats,
            final_game_seeds,
            opp_masks,
            opp_obs,
        )

    def learner_view(states, learner, masks, obs):
        """The learner's mask and observation in every slot (``selfplay.learner_view``'s slot)."""
        i = cuda.grid(1)
        if i < states.shape[0]:
            s = states[i]
            for a in range(masks.shape[1]):
                masks[i, a] = 0
            if is_running(s) and s[H_CURRENT] == learner[i]:
                legal_mask(s, masks[i])
            observe_into(s, learner[i], obs[i])

    slot_arrays = (
        STATES,
        CONFIG,
        RNGS,
        RNGS,
        RNGS,
        INTS,
        INTS,
        INTS,
        INTS,
        FLOATS64,
        BYTES,
        INTS,
        INTS,
        types.int64,
        BYTES,
        BYTES,
        FLOATS,
        BOOLS,
        BOOLS,
        FLOATS2,
        FLOATS2,
        INTS,
        INTS,
        MASKS,
        FLOATS2,
    )
    return {
        "play": (play, (types.int64, INTS, FLOATS2, MASKS, INTS, types.int64, BOOLS, *slot_arrays)),
        "learner_view": (learner_view, (STATES, INTS, MASKS, FLOATS2)),
    }
