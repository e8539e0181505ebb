"""The MCTS agent: forced wins, max^n backups, no reading of hidden information, determinism.

Positions are Marry the Monster boards drawn as in ``tests/marry_the_monster_diagram.py``: ``@@`` the
fachan, ``0h`` / ``1m`` / ``2T`` a house / manor / tower of seat 0 / 1 / 2, ``.v`` an
empty cell worth v points.
"""

import numpy as np
import pytest
from marry_the_monster_diagram import legal_actions, state_from_diagram

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.search.agent import MCTSAgent
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.marry_the_monster.actions import END, NUM_ACTIONS, action_to_str, str_to_action
from monster_zoo.envs.marry_the_monster.components import NUM_CARD_TYPES, cell
from monster_zoo.envs.marry_the_monster.state_layout import DECK, HAND, WINNER
from monster_zoo.evaluation.match import play_game

GAME = "marry_the_monster-v0"
SPEC = envs.spec(GAME)

# Seat 0 holds two towers and a manor; raising the manor (A3) makes the third tower.
# Seat 1 has 89 points, so it reaches 90 when it scores at the start of its turn. Its
# houses wall the fachan in, so seat 0's only choices are its cards and ending the turn.
THIRD_TOWER = """
A        0T  0T  0m  0h
B      0h  .2  .2  .2  0h
C    .1  .2  1h  1h  .2  .1
D  .1  .2  1h  @@  1h  .2  .1
E    .1  .2  1h  1h  .2  .1
F      .1  .2  .2  .2  .1
G        .1  .1  .1  .1
"""

# As THIRD_TOWER but seat 0 has only houses besides its towers: two Fortify plays on one
# house are needed for the third tower.
HOUSES_ONLY = THIRD_TOWER.replace("0T  0T  0m  0h", "0T  0T  0h  0h")

# A full valley: the fachan cannot move and nobody can place a house. Seat 1 holds two
# towers and a manor (A3); seat 2 holds 25 houses; seat 0 one house (G1).
FULL_VALLEY = """
A        1T  1T  1m  1h
B      1h  2h  2h  2h  1h
C    1h  2h  2h  2h  2h  1h
D  1h  2h  2h  @@  2h  2h  1h
E    2h  2h  2h  2h  2h  2h
F      2h  2h  2h  2h  2h
G        0h  2h  2h  2h
"""


def mcts(seed=0, simulations=2000, **kwargs) -> MCTSAgent:
    """An MCTS agent for Marry the Monster."""
    return MCTSAgent(seed, simulations=simulations, game_id=GAME, **kwargs)


def decide(agent, state) -> int:
    """The agent's action in ``state`` (the mask is the engine's)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    SPEC.legal_mask(state, mask)
    return agent.act(None, mask, state)


def play_own_turn(agent, state, seed=0) -> np.ndarray:
    """Let ``agent`` play the seat on move until its turn ends or the game does; return the state."""
    state = state.copy()
    seat = int(state[H_CURRENT])
    rng = make_rng(seed)
    while state[H_TERMINAL] == 0 and state[H_CURRENT] == seat:
        SPEC.apply_action(state, decide(agent, state), rng)
    return state


def third_tower_position(phase="main", hand=(0, 1, 1), board=THIRD_TOWER, **kwargs):
    """Seat 0 (45 points) to act in a 2-player game that seat 1 wins at its next scoring."""
    return state_from_diagram(
        board, num_players=2, scores=[45, 89], phase=phase, hands=[hand, (1, 1, 1)], **kwargs
    )


# --- forced wins -------------------------------------------------------------------------------
def test_mtm_18_finds_the_one_winning_fortify():
    """MTM-18: with two towers and 45 points, fortifying the manor wins; any other target loses."""
    state = third_tower_position(phase="fortify", hand=(0, 1, 0), cards_played=1)
    assert len(legal_actions(state)) > 3  # the manor is one of several fortify targets
    assert decide(mcts(simulations=500), state) == str_to_action("fortify A3")


def test_mtm_18_plans_a_play_and_its_target_within_the_turn():
    """MTM-18, MTM-11: a Fortify play followed by the manor as its target wins; a Build play or
    ending the turn loses."""
    state = third_tower_position()
    assert {action_to_str(a, state) for a in legal_actions(state)} == {"play build", "play fortify", "end"}
    agent = mcts()
    assert decide(agent, state) == str_to_action("play fortify")
    assert int(play_own_turn(agent, state)[WINNER + 0]) == 1


def test_mtm_11_two_fortify_plays_raise_a_house_to_the_winning_tower():
    """MTM-11, MTM-18: four actions (Fortify, a house, Fortify, the same building) win the game."""
    state = third_tower_position(hand=(0, 0, 2), board=HOUSES_ONLY)
    final = play_own_turn(mcts(simulations=3000), state)
    assert final[H_TERMINAL] == 1 and int(final[WINNER + 0]) == 1


def test_truncated_rollouts_are_worth_nothing():
    """A simulation cut off at max_steps is worth 0 to every seat; an immediate win still counts."""
    state = third_tower_position(phase="fortify", hand=(0, 1, 0), cards_played=1, max_steps=1)
    agent = mcts(simulations=300)
    decide(agent, state)
    values = agent.tree.root_values()
    win = str_to_action("fortify A3")
    assert values[win].tolist() == [1.0, -1.0]
    others = [a for a in legal_actions(state) if a != win]
    assert not values[others].any()


# --- max^n ---------------------------------------------------------------------------------------
def test_maxn_each_seat_picks_its_own_best_line():
    """Max^n backups: in a 3-player game seat 0 loses whatever it does, but seat 1's node of the
    tree chooses the Fortify play and the manor that win for seat 1 (MTM-11, MTM-18), and every
    node holds each seat's returns separately. Searched without determinizing, so seat 1's
    Fortify card is known."""
    state = state_from_diagram(
        FULL_VALLEY, num_players=3, scores=[0, 45, 89], hands=[(0, 0, 1), (0, 0, 1), (1, 1, 1)]
    )
    assert {action_to_str(a, state) for a in legal_actions(state)} == {"play fortify", "end"}
    agent = mcts(simulations=3000, determinize=False)
    decide(agent, state)
    tree = agent.tree
    seat1 = tree.children[0, END]  # seat 1 on move after seat 0 ends its turn
    fortify = tree.children[seat1, str_to_action("play fortify")]
    assert np.argmax(tree.child_visits(seat1)) == str_to_action("play fortify")
    assert np.argmax(tree.child_visits(fortify)) == cell("A3")
    assert tree.child_values(fortify)[cell("A3")].tolist() == [-0.5, 1.0, -0.5]
    # seat 0 loses in every line, so its value could not have told seat 1's choices apart
    assert tree.root_values()[END, 0] == -0.5
    assert tree.root_values()[END, 1] > 0.5
    assert np.allclose(tree.values[: tree.size].sum(axis=1), 0.0)  # returns sum to zero (ruling C3)


# --- hidden information --------------------------------------------------------------------------
def reachable(seed, steps, num_players=3):
    """A live state after ``steps`` random actions of a ``num_players`` game."""
    return random_playout(SPEC, envs.config(GAME, {"num_players": num_players}), steps, seed)[0]


def hidden_variants(state):
    """Copies of ``state`` that differ only in what the seat on move cannot see: other hands
    redealt by ``determinize``, and one card swapped between an opponent's hand and the deck."""
    p = int(state[H_CURRENT])
    for k in range(2):
        other = state.copy()
        SPEC.determinize(other, p, make_rng(100 + k))
        yield other
    for q in range(int(state[H_NUM_PLAYERS])):
        own = HAND + q * NUM_CARD_TYPES
        for t in range(NUM_CARD_TYPES):
            for u in range(NUM_CARD_TYPES):
                if q != p and t != u and state[own + t] > 0 and state[DECK + u] > 0:
                    swapped = state.copy()
                    swapped[own + t] -= 1
                    swapped[own + u] += 1
                    swapped[DECK + u] -= 1
                    swapped[DECK + t] += 1
                    yield swapped
                    break


def search_result(state, seed, **kwargs):
    """The action and root visit counts of a fresh agent seeded ``seed``."""
    agent = mcts(seed, simulations=300, **kwargs)
    action = decide(agent, state)
    return action, agent.tree.root_visits()


@pytest.mark.parametrize("belief", [None, {"particles": 8}], ids=["redeals", "belief"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_information_set_search_ignores_hidden_cards(seed, belief):
    """MTM-19: redealing or swapping the cards the seat on move cannot see changes neither the
    decision nor a single root visit count, while a search that reads the true hands may differ;
    so too where the simulations are dealt from the seat's belief."""
    state = reachable(seed, 20 * seed)
    action, visits = search_result(state, seed, belief=belief)
    variants = list(hidden_variants(state))
    assert len(variants) >= 3
    for other in variants:
        other_action, other_visits = search_result(other, seed, belief=belief)
        assert other_action == action
        assert np.array_equal(other_visits, visits)


def test_a_search_that_reads_hidden_cards_would_differ():
    """Without determinizing, the hidden cards do reach the search (so the test above is not vacuous)."""
    for seed in range(1, 4):
        state = reachable(seed, 20 * seed)
        _, visits = search_result(state, seed, determinize=False)
        assert any(
            not np.array_equal(search_result(o, seed, determinize=False)[1], visits)
            for o in hidden_variants(state)
        )


# --- determinism and the state contract ----------------------------------------------------------
def test_plays_whole_games_through_the_env():
    """Through the match runner's AEC loop (which refuses illegal actions) a small-budget agent
    finishes 2- and 3-player games against the greedy and random baselines."""
    for n, others in ((2, ["greedy"]), (3, ["greedy", "random"])):
        seats = [mcts(n, simulations=50)] + [make_agent(o, GAME, seed=n) for o in others]
        env = envs.make(GAME, num_players=n)
        outcome = play_game(env, seats, seed=n)
        assert not outcome["truncated"] and outcome["length"] > 0


def test_same_seed_same_decision_and_the_live_state_is_untouched():
    """Two agents with one seed search alike, visit by visit, and the state they read is unchanged."""
    state = reachable(5, 37)
    before = state.copy()
    first = search_result(state, 9)
    second = search_result(state, 9)
    assert first[0] == second[0] and np.array_equal(first[1], second[1])
    assert np.array_equal(state, before), "the agent modified the live engine state"
    assert first[1].sum() == 300


def test_reset_replays_the_same_search():
    """``reset(seed)`` restores the agent's generator, so the search repeats exactly."""
    state = reachable(6, 11)
    agent = mcts(4, simulations=200)
    action = decide(agent, state)
    visits = agent.tree.root_visits()
    agent.reset(4)
    assert decide(agent, state) == action and np.array_equal(agent.tree.root_visits(), visits)


def test_registry_agent_finds_its_game_from_the_state():
    """``make_agent("mcts", ...)`` builds the agent from a seed; it recognises the game by its sizes."""
    agent = make_agent("mcts", GAME, seed=3)
    assert isinstance(agent, MCTSAgent) and agent.needs_state
    state = reachable(2, 15)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    SPEC.legal_mask(state, mask)
    assert mask[agent.act(None, mask, state)] == 1
    assert agent.spec is SPEC


def test_refuses_to_act_without_the_state_or_a_move():
    """Clear errors for a missing state, an empty mask and a search made for no game."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    with pytest.raises(ValueError, match="needs the engine state"):
        mcts().act(None, mask)
    with pytest.raises(ValueError, match="allows no action"):
        mcts().act(None, mask, reachable(0, 3))
    with pytest.raises(ValueError, match="pass game_id"):
        MCTSAgent(0)


def test_the_searches_release_the_interpreter_lock():
    """A search thinking in one thread (the web app's agents) must not stop the others: both
    compiled searches run without Python's interpreter lock."""
    from monster_zoo.agents.az.search import gumbel_search
    from monster_zoo.agents.search.tree import search

    assert search.targetoptions.get("nogil") and gumbel_search.targetoptions.get("nogil")
