"""The Monster Arena greedy baseline: legal, state-preserving, blind to hidden cards, strong
against random play, registered; and its arena heuristic on hand-built positions (AR-11, AR-26)."""
import numpy as np
import pytest

import envs
from agents import available_agents, make_agent
from agents.match import run_match, wilson_interval
from agents.monster_arena_greedy import MonsterArenaGreedy, greedy_action
from agents.random_agent import RandomAgent
from envs.core.contract import H_CURRENT
from envs.core.rng import make_rng
from envs.monster_arena import rules
from envs.monster_arena.actions import NUM_ACTIONS, action_to_str
from envs.monster_arena.layout import PH_ATTACK, PHASE
from tests.ar_diagram import act, arena_state

GAME = "monster_arena-v0"


def play_through(agents, seed, on_decision, num_players):
    """Play one AEC game; ``on_decision(agent, obs, mask, state)`` returns the action."""
    env = envs.make(GAME, num_players=num_players)
    raw = env.unwrapped
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[raw.possible_agents.index(name)]
        env.step(on_decision(agent, obs["observation"], obs["action_mask"], raw.engine_state))


def test_greedy_is_legal_and_never_mutates_the_state():
    for seed in range(6):
        n = 2 + seed % 5
        agents = [MonsterArenaGreedy(seed)] + [RandomAgent(seed + k) for k in range(1, n - 1)] \
            + [MonsterArenaGreedy(seed + 10)]

        def check(agent, obs, mask, state):
            before = state.copy()
            a = agent.act(obs, mask, state if agent.needs_state else None)
            assert np.array_equal(state, before), "the agent modified the live engine state"
            assert mask[a] == 1, f"illegal action {a}"
            return a

        play_through(agents, seed, check, n)


def test_greedy_ignores_hidden_information():
    """AR-5, AR-19: resampling what the seat on move cannot see changes none of its choices."""
    spec = envs.spec(GAME)
    checked = 0
    for seed in range(4):
        agents = [MonsterArenaGreedy(seed), RandomAgent(seed), RandomAgent(seed + 1)]

        def compare(agent, obs, mask, state):
            nonlocal checked
            if not agent.needs_state:
                return agent.act(obs, mask)
            p = int(state[H_CURRENT])
            keep = agent.rng.copy()
            a = agent.act(obs, mask, state)
            for k in range(3):
                other = state.copy()
                spec.determinize(other, p, make_rng(1000 * seed + k))
                agent.rng[:] = keep
                assert agent.act(obs, mask, other) == a, spec.to_text(state)
                checked += 1
            return a

        play_through(agents, seed, compare, 3)
    assert checked > 50


def choose(state):
    """The greedy's action in ``state`` by name."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return action_to_str(greedy_action(state, mask, make_rng(0)), state)


def test_greedy_prefers_an_outer_torso_half():
    """AR-26: the heuristic goes for an outer torso half it can likely destroy rather than the
    weakest part, adds attackers until a hit is likely, then rolls."""
    state = arena_state({0: "U1[GA1[-],GA2[-],HO1] + L1[HO2,HO3,HO4]", 1: "U4[BC1,-,-] + L3[SA1[-],ST1,ST2]"})
    assert choose(state) == "target U4"
    act(state, "target U4")
    picks = []
    while state[PHASE] == PH_ATTACK and len(picks) < 10:
        picks.append(choose(state))
        if picks[-1] == "roll":
            break
        act(state, picks[-1])
    assert picks[-1] == "roll" and len(picks) >= 3  # one Horn (1d6+3) alone rarely reaches 10


def test_greedy_attacks_the_weakest_card_when_torsos_are_covered():
    """AR-11: with both halves covered it attacks the part it can most likely destroy."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U3[AP1[-,-],BC1] + L5[SA1[-],HO2]"}, energy={0: 5})
    assert choose(state) == "target BC1"


def test_greedy_covers_its_own_exposed_torso_first():
    """An outer torso half of its own is covered from inventory before attacking."""
    state = arena_state({0: "U3[HO1,-] + L5[HO2,HO3]", 1: "U1[-,-,-] + L1[-,-,-]"}, inventory={0: ["AP1", "BC1"]})
    assert choose(state) == "attach AP1"


def test_registry_names():
    names = available_agents(GAME)
    assert {"random", "greedy", "monster_arena-greedy-v1", "monster_arena-random-v1"} <= set(names)
    assert isinstance(make_agent("greedy", GAME, 1), MonsterArenaGreedy)
    assert isinstance(make_agent("monster_arena-greedy-v1", GAME, 1), MonsterArenaGreedy)


@pytest.mark.parametrize("num_players", [2, 4])
def test_greedy_beats_random(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=100 * num_players, seed=4242, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(f"\ngreedy vs {num_players - 1} random: {greedy.wins}/{greedy.games} = {greedy.win_rate:.3f} "
          f"[95% Wilson {low:.3f}, {high:.3f}]")
    assert greedy.win_rate >= 0.80


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [3, 5, 6])
def test_greedy_beats_random_at_other_player_counts(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=100 * num_players, seed=777, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(f"\ngreedy vs {num_players - 1} random: {greedy.win_rate:.3f} [{low:.3f}, {high:.3f}]")
    assert greedy.win_rate >= 0.80
