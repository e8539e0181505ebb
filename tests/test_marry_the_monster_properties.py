"""Property tests of Marry the Monster's rules over random reachable states (hypothesis).

Each property restates a rule as something that must hold for every legal action in
any state, not just in the hand-drawn positions of ``test_marry_the_monster_rules.py``.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monster_zoo import envs
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng, rng_pick_counted
from monster_zoo.envs.marry_the_monster import observation, rules
from monster_zoo.envs.marry_the_monster.actions import END, MOVE0, NUM_ACTIONS, PLAY0
from monster_zoo.envs.marry_the_monster.components import (
    CELL_NAMES,
    LINE_DIR,
    LINE_DIST,
    MAX_RAY,
    NUM_CELLS,
    PLAY_COST,
    PLAY_KIND,
    RAY,
    STOMP,
)
from monster_zoo.envs.marry_the_monster.state_layout import (
    DESTROYED,
    DISCARD,
    FACHAN,
    HAND,
    HEIGHT,
    OWNER,
    PENDING,
    PH_MAIN,
    PH_STOMP,
    PHASE,
    SCORE,
    STOMP_N,
)

MTM = "marry_the_monster-v0"
SPEC = envs.spec(MTM)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def live_states(draw, phase=None):
    """A live state after 0-300 random actions from a random seed, 2-5 players.

    With ``phase`` the game is played on with random legal actions until that phase comes up.
    """
    seed = draw(st.integers(0, 2**40))
    config = envs.config(MTM, {"num_players": draw(st.integers(2, 5))})
    state = random_playout(SPEC, config, draw(st.integers(0, 300)), seed)[0]
    rng, actions = make_rng(seed + 1), make_rng(seed + 2)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    while phase is not None and int(state[PHASE]) != phase:
        count = rules.legal_mask(state, mask)
        rules.apply_action(state, rng_pick_counted(mask, count, actions), rng)
        if state[H_TERMINAL]:
            SPEC.init_state(state, config, rng)
    return state


def legal(state):
    """Legal action indices of the seat on move."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return np.flatnonzero(mask)


@SETTINGS
@given(state=live_states(phase=PH_STOMP))
def test_mtm_12_every_stomp_destroys_exactly_the_previewed_line(state):
    """MTM-12: for any stomp target, the buildings that fall are exactly those from the fachan up to
    where he stops, each no higher than the stomp, and he stops before the first higher one."""
    p = int(state[H_CURRENT])
    strength = int(state[STOMP_N])
    fachan = int(state[FACHAN])
    for target in legal(state):
        after = state.copy()
        rules.apply_action(after, int(target), make_rng(0))
        fallen = [c for c in range(NUM_CELLS) if state[HEIGHT + c] > 0 and after[HEIGHT + c] == 0]
        d = LINE_DIR[fachan, target]
        assert d >= 0, f"target {CELL_NAMES[target]} is not on a line from the fachan"
        line = RAY[fachan, d, : LINE_DIST[fachan, target]]  # from the fachan's neighbour to the target
        expected = []
        stop = fachan
        for c in line:
            if state[HEIGHT + c] > strength:
                break
            if state[HEIGHT + c] > 0:
                expected.append(c)
            stop = c
        assert sorted(fallen) == sorted(expected), f"stomp {strength} at {CELL_NAMES[target]}"
        assert int(after[FACHAN]) == stop
        if int(after[H_CURRENT]) != p or after[H_TERMINAL]:
            continue  # nothing was left to do, so the turn ended by itself (MTM-23)
        assert int(after[PHASE]) == PH_MAIN
        assert int(after[DESTROYED]) - int(state[DESTROYED]) == len(expected)
        for c in expected:  # pieces wait beside the board until step 5 (MTM-16, MTM-20)
            owner = int(state[OWNER + c])
            assert after[PENDING + owner] >= state[PENDING + owner] + state[HEIGHT + c]


@SETTINGS
@given(state=live_states(phase=PH_MAIN))
def test_mtm_10_card_plays_move_exactly_their_cost_to_the_discard(state):
    """MTM-10, MTM-15: every legal card play takes exactly its cards from the hand to the discard
    pile, triples included, and nothing else changes hands."""
    p = int(state[H_CURRENT])
    for action in legal(state):
        if not PLAY0 <= action < END:
            continue
        play = action - PLAY0
        after = state.copy()
        rules.apply_action(after, int(action), make_rng(0))
        paid = state[HAND + 3 * p : HAND + 3 * p + 3] - after[HAND + 3 * p : HAND + 3 * p + 3]
        gained = after[DISCARD : DISCARD + 3] - state[DISCARD : DISCARD + 3]
        assert np.array_equal(paid, PLAY_COST[play]), f"{SPEC.action_to_str(action)} paid {paid}"
        assert np.array_equal(gained, PLAY_COST[play])
        if PLAY_KIND[play] == STOMP:
            assert int(after[PHASE]) == PH_STOMP


@SETTINGS
@given(state=live_states(phase=PH_MAIN))
def test_mtm_9_fachan_moves_only_over_empty_cells(state):
    """MTM-9: every legal move ends on an empty cell along one direction with only empty cells on
    the way, and changes nothing but the fachan's place."""
    fachan = int(state[FACHAN])
    for action in legal(state):
        if not MOVE0 <= action < PLAY0:
            continue
        d, k = divmod(int(action) - MOVE0, MAX_RAY)
        after = state.copy()
        rules.apply_action(after, int(action), make_rng(0))
        dest = int(after[FACHAN])
        assert LINE_DIR[fachan, dest] == d and LINE_DIST[fachan, dest] == k + 1
        assert all(state[HEIGHT + c] == 0 for c in RAY[fachan, d, : k + 1])
        assert np.array_equal(after[OWNER : OWNER + NUM_CELLS], state[OWNER : OWNER + NUM_CELLS])


@SETTINGS
@given(state=live_states())
def test_mtm_5_scores_never_fall_and_change_only_at_a_turn_start(state):
    """MTM-5: a score changes only when its owner's turn starts, by their buildings' cell values."""
    for action in legal(state):
        after = state.copy()
        rules.apply_action(after, int(action), make_rng(1))
        grew = after[SCORE : SCORE + 5] - state[SCORE : SCORE + 5]
        assert (grew >= 0).all()
        if int(after[H_TERMINAL]) == 0 and int(after[H_CURRENT]) == int(state[H_CURRENT]):
            assert not grew.any(), f"{SPEC.action_to_str(action)} changed a score mid-turn"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**40), num_players=st.integers(2, 5))
def test_mtm_turn_slots_match_their_documented_meaning(seed, num_players):
    """Observation slots 272-277 (MTM-6, MTM-8, MTM-11, MTM-12): over random games, each turn slot
    equals its docstring meaning, recomputed from the actions of the turn so far: stomps played
    (one awaiting its target included), free houses and towers left (step 3 only), Build houses
    left (while a Build places), pending stomp strength (while a stomp awaits its target)."""
    from monster_zoo.envs.marry_the_monster.components import BUILD, HOUSES_PER_BUILD, PLAY_STRENGTH
    from monster_zoo.envs.marry_the_monster.observation import OBS_TURN
    from monster_zoo.envs.marry_the_monster.state_layout import PH_BUILD, PH_FREE, TURN

    config = envs.config(MTM, {"num_players": num_players})
    state = np.zeros(SPEC.state_size, np.int32)
    rng, actions = make_rng(seed), make_rng(seed + 1)
    SPEC.init_state(state, config, rng)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    obs = np.zeros(SPEC.obs_size, np.float32)
    turn = None
    for _ in range(600):
        p = int(state[H_CURRENT])
        if turn != int(state[TURN]):
            turn = int(state[TURN])
            free_houses = rules.free_house_allowance(state[SCORE + p])
            free_towers = rules.free_tower_allowance(state[SCORE + p])
            stomps, build_left, strength = 0, 0, 0
        phase = int(state[PHASE])
        observation.observe_into(state, max(p, 0), obs)
        expected = [
            stomps / 2,
            None,
            free_houses / 3 if phase == PH_FREE else 0.0,
            min(free_towers / 3, 1.0) if phase == PH_FREE else 0.0,
            build_left / 2 if phase == PH_BUILD else 0.0,
            strength / 3 if phase == PH_STOMP else 0.0,
        ]
        for k, want in enumerate(expected, start=2):
            if want is not None:
                assert np.isclose(obs[OBS_TURN + k], want), (
                    k,
                    phase,
                    obs[OBS_TURN : OBS_TURN + 10],
                    expected,
                )
        if state[H_TERMINAL]:
            return
        action = rng_pick_counted(mask, rules.legal_mask(state, mask), actions)
        if action < MOVE0 and phase == PH_FREE:
            if state[HEIGHT + action] == 0:
                free_houses -= 1
            else:
                free_towers -= 1
        elif action < MOVE0 and phase == PH_BUILD:
            build_left -= 1
        elif action == END or action < PLAY0:
            pass  # moving the fachan, fortifying, a stomp's target or ending a step
        elif PLAY_KIND[action - PLAY0] == BUILD:
            build_left = HOUSES_PER_BUILD
        elif PLAY_KIND[action - PLAY0] == STOMP:
            stomps += 1
            strength = int(PLAY_STRENGTH[action - PLAY0])
        rules.apply_action(state, action, rng)
