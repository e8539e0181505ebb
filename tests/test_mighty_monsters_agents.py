"""The Mighty Monsters greedy baseline: legality, the state contract, its heuristic, its strength."""

import numpy as np
import pytest
from mighty_monsters_diagram import state_from_castle

from monster_zoo import envs
from monster_zoo.agents.greedy.agent import GreedyAgent
from monster_zoo.agents.random.agent import RandomAgent
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.mighty_monsters.actions import NUM_ACTIONS, action_to_str
from monster_zoo.envs.mighty_monsters.greedy import greedy_action
from monster_zoo.envs.mighty_monsters.rules import legal_mask
from monster_zoo.evaluation.match import run_match, wilson_interval

GAME = "mighty_monsters-v0"


def play_through(agents, seed, on_decision, **options):
    """Play one AEC game; ``on_decision(agent, obs, mask, state)`` returns the action to take."""
    env = envs.make(GAME, num_players=len(agents), **options)
    raw = env.unwrapped
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[raw.possible_agents.index(name)]
        env.step(on_decision(agent, obs["observation"], obs["action_mask"], raw.engine_state))


def choose(state) -> str:
    """The greedy's choice in ``state``, by name."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask(state, mask)
    return action_to_str(greedy_action(state, mask, make_rng(0)), state)


@pytest.mark.parametrize(
    "options", [{}, {"kings_rules": True}, {"guard_lineup": True, "setup_hand": "random"}]
)
def test_greedy_is_legal_and_never_mutates_the_state(options):
    for seed in range(3):
        agents = [GreedyAgent(seed, GAME), RandomAgent(seed), GreedyAgent(seed + 1, GAME), RandomAgent(1)]

        def check(agent, obs, mask, state):
            before = state.copy()
            a = agent.act(obs, mask, state if agent.needs_state else None)
            assert np.array_equal(state, before), "the agent modified the live engine state"
            assert mask[a] == 1
            return a

        play_through(agents, seed, check, **options)


def test_greedy_ignores_hidden_information():
    """Redealing what the seat on move cannot see (determinize: others' secret hands, face-down
    guards, deck and king order) never changes the greedy's choice."""
    spec = envs.spec(GAME)
    checked = 0
    for seed in range(4):
        agents = [GreedyAgent(seed, GAME), RandomAgent(seed), RandomAgent(seed + 1)]

        def compare(agent, obs, mask, state):
            nonlocal checked
            if not agent.needs_state:
                return agent.act(obs, mask)
            keep = agent.rng.copy()
            a = agent.act(obs, mask, state)
            for k in range(3):
                other = state.copy()
                spec.determinize(other, int(state[H_CURRENT]), make_rng(100 * seed + k))
                agent.rng[:] = keep
                assert agent.act(obs, mask, other) == a, spec.to_text(state)
                checked += 1
            return a

        play_through(agents, seed, compare, kings_rules=seed % 2 == 1)
    assert checked > 50


def test_greedy_keeps_its_strongest_cards_at_setup():
    env = envs.make(GAME)
    env.reset(seed=0)
    raw = env.unwrapped
    a = GreedyAgent(0, GAME).act(None, env.observe(env.agent_selection)["action_mask"], raw.engine_state)
    assert raw.action_to_str(a) == "lay down 1+2"


def test_greedy_takes_the_sure_win_at_the_main_gate():
    """Beside a 4 at a level-1 guard (strength at most 6) a 5 wins for sure and takes the odd coin;
    the second guard's pair of 2 almost surely loses to its level-3 guard, so a monster behind it
    would only pay healing, and replacing the 4 would cost gold for nothing."""
    state = state_from_castle("* p1:4\n*** p2:1 p1:1\n*** p2:2", hands={0: [1, 5]})
    assert choose(state) == "play 5 at G1b"


def test_greedy_beats_random_in_four_player_games():
    result = run_match(GAME, ["greedy", "random", "random", "random"], games=200, seed=12345, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(
        f"\ngreedy vs 3 random: {greedy.wins}/{greedy.games} = {greedy.win_rate:.3f} [95% {low:.3f}, {high:.3f}]"
    )
    assert greedy.win_rate >= 0.80


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [3, 5, 6])
def test_greedy_beats_random_at_other_player_counts(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=100 * num_players, seed=777, progress=False)
    greedy = result.stats[0]
    low, _ = wilson_interval(greedy.wins, greedy.games)
    assert low > 0.75


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"kings_rules": True}, {"guard_lineup": True}, {"setup_hand": "random"}])
def test_greedy_beats_random_in_the_variants(options):
    result = run_match(
        GAME, ["greedy", "random", "random", "random"], games=400, seed=99, progress=False, options=options
    )
    greedy = result.stats[0]
    assert wilson_interval(greedy.wins, greedy.games)[0] > 0.75
