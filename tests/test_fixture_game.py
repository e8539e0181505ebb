"""The rules of Monster Noughts, the test-only game of ``tests/fixture_games/noughts/`` (one test per
rule id NC-n of its ``rules.md``), and that it joins the suite through its declaration alone."""

import random

import numpy as np
import pytest
from conftest import FIXTURE_GAMES
from fixture_games.noughts import rules
from fixture_games.noughts.greedy import greedy_action
from fixture_games.noughts.state_layout import BOARD, MONSTER, NO_MONSTER, NUM_ROUNDS, ROUND, WINNER, WINS

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.greedy.agent import GreedyAgent
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng

GAME = "monster_noughts-v0"


def started(seed: int = 0, **options):
    """A fresh raw env of the game, reset with ``seed``."""
    env = envs.make(GAME, wrapped=False, **options)
    env.reset(seed=seed)
    return env


def with_board(env, marks: str, mover: int, monster: int = NO_MONSTER):
    """Set the board from nine characters (``.`` empty, ``X`` player_0, ``O`` player_1)."""
    state = env.engine_state
    for cell, ch in enumerate(marks):
        state[BOARD + cell] = ".XO".index(ch)
    state[H_CURRENT], state[MONSTER] = mover, monster
    env._sync_selection()
    return state


def test_the_game_is_registered_unlisted_and_found_from_its_folder():
    assert GAME in FIXTURE_GAMES and GAME not in envs.available() and envs.registry.registered(GAME)


def test_nc_1_two_players_seven_rounds_and_cells_named_by_row_and_column():
    env = started()
    assert env.possible_agents == ["player_0", "player_1"] and NUM_ROUNDS == 7
    assert [env.spec.action_to_str(a) for a in (0, 4, 8)] == ["a1", "b2", "c3"]
    assert env.spec.str_to_action("c1") == 6
    with pytest.raises(ValueError, match="a1..c3"):
        env.spec.str_to_action("d4")
    with pytest.raises(ValueError, match="num_players"):
        envs.make(GAME, num_players=3)


def test_nc_2_chance_picks_who_opens_each_round():
    openers = {int(started(seed).engine_state[H_CURRENT]) for seed in range(20)}
    assert openers == {0, 1}


def test_nc_3_the_monster_blocks_one_empty_cell_and_stays_away_from_the_last():
    env = started(3)
    state = env.engine_state
    assert 0 <= state[MONSTER] < 9 and env.legal_actions() == [c for c in range(9) if c != state[MONSTER]]
    assert rules.illegal_reason(state, int(state[MONSTER])) == rules.R_MONSTER
    seen = set()
    for seed in range(200):
        state = started(seed).engine_state
        seen.add(int(state[MONSTER]))
    assert len(seen) == 9  # it wanders over every cell
    state = with_board(started(), "XOXXOO.XO", 0)
    rules.monster_moves(state, make_rng(1))
    assert state[MONSTER] == NO_MONSTER  # one empty cell: the monster stays away


def test_nc_4_a_move_marks_a_free_cell_and_passes_the_turn():
    env = started(5)
    state = with_board(env, ".........", 0, monster=4)
    assert rules.illegal_reason(state, 4) == rules.R_MONSTER
    env.step(0)
    assert state[BOARD] == 1 and state[H_CURRENT] == 1
    assert rules.illegal_reason(state, 0) == rules.R_TAKEN
    assert rules.illegal_reason(state, 9) == rules.R_OUT_OF_RANGE


def test_nc_5_a_line_wins_the_round_and_a_full_board_draws_it():
    env = started(7)
    state = with_board(env, "XX.OO....", 0, monster=8)
    env.step(2)
    assert state[WINS] == 1 and state[ROUND] == 1 and not state[BOARD : BOARD + 9].any()
    state = with_board(env, "XOXXOOOX.", 0)
    env.step(8)
    assert list(state[WINS : WINS + 2]) == [1, 0] and state[ROUND] == 2  # drawn: nobody scores


@pytest.mark.parametrize("wins, winners", [((4, 3), [1, 0]), ((2, 2), [1, 1])])
def test_nc_6_the_most_round_wins_take_the_match_and_equal_ones_share_it(wins, winners):
    env = started(9)
    state = env.engine_state
    state[ROUND], state[WINS], state[WINS + 1] = NUM_ROUNDS - 1, wins[0], wins[1] - (wins[0] == 4)
    state = with_board(env, "XOXXOOOX.", 0)  # the last round ends drawn
    if wins[0] == 4:
        state[WINS + 1] = wins[1]
    env.step(8)
    assert state[H_TERMINAL] == 1 and list(state[WINNER : WINNER + 2]) == winners


def test_nc_7_rewards_follow_ruling_c3():
    out = np.zeros(2, np.float32)
    for mode, expected in (("win", [1.0, -1.0]), ("score", [0.5, -0.5])):
        env = started(2, reward=mode)
        state = env.engine_state
        state[ROUND], state[WINS], state[WINS + 1] = NUM_ROUNDS - 1, 3, 2
        with_board(env, "XOXXOOOX.", 0)
        env.step(8)
        rules.returns(state, out)
        assert out.tolist() == expected


def test_nc_8_everything_is_public_so_every_seat_sees_the_same_board():
    env = started(4)
    rng = random.Random(4)
    for _ in range(30):
        mine, theirs = (env.observe(a)["observation"] for a in env.possible_agents)
        assert np.array_equal(mine[0::3][:9], theirs[1::3][:9])  # my marks are the other's "theirs"
        before = env.state()
        env.spec.determinize(env.engine_state, 0, make_rng(1))
        assert np.array_equal(before, env.state())
        env.step(rng.choice(env.legal_actions()))


def test_its_agents_come_from_the_declaration():
    greedy = make_agent("greedy", GAME, seed=0)
    assert isinstance(greedy, GreedyAgent) and greedy.policy_kernel is greedy_action
    env = started(1)
    state = with_board(env, "XX.OO....", 0, monster=8)
    assert greedy.act(None, env._agent_mask("player_0"), state) == 2  # completes its line
    assert make_agent("mcts", GAME, seed=0).simulations == 200
