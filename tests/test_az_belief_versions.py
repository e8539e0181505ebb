"""``az`` with beliefs as a version of its own (``<game>-az-vK``, K of ``BELIEF_VERSIONS``): the
game's shipped network searched with its simulations dealt from the seat's belief.

The version plays its network's weights and settings with the belief's default settings where the
game hides information; ``az`` still plays the network without beliefs; the version refuses any
other game, decides the same from the same seed, and reads the game only through its seat's view: a
game whose states it is told with everything its seat cannot see redealt gives it the same belief
and the same moves (the redeal of tests/test_belief.py's invariance).
"""

import shutil

import numpy as np
import pytest
from conftest import redeclare
from test_agents_know_their_game import other_game, view
from test_belief import seat_view

from monster_zoo import envs
from monster_zoo.agents import WrongGameError, available_agents, make_agent
from monster_zoo.agents.az import shipped
from monster_zoo.agents.az.agent import ShippedAZ, shipped_player_counts
from monster_zoo.agents.greedy.agent import greedy_kernel
from monster_zoo.agents.network import read_network
from monster_zoo.agents.registry import versioned_name
from monster_zoo.agents.search.tuned import search_config
from monster_zoo.agents.shipped_files import CHAMPION_DIR, write_manifest
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.registry import declaration

SHIPPING = [g for g in envs.available() if shipped.belief_versions(g)]
GAME = "monstargh-v0"  # hides the others' hands and the deck; its version-2 search is among the cheapest
MTM = "marry_the_monster-v0"


def belief_version(game_id: str) -> tuple[int, int]:
    """``(belief version, its network version)`` of the game (one each)."""
    ((version, network),) = shipped.belief_versions(game_id).items()
    return version, network


def test_every_game_with_a_network_ships_a_belief_version():
    assert {envs.spec(g).name for g in SHIPPING} == set(shipped.BELIEF_VERSIONS)
    for game_id in SHIPPING:
        version, network = belief_version(game_id)
        assert network == shipped.newest_version(game_id) and version > network


@pytest.mark.parametrize("game_id", SHIPPING)
def test_the_belief_version_searches_its_network_at_its_settings_with_beliefs(game_id):
    """Listed for ``az`` and ``az-timed`` (not ``az-net``: the network alone does not search); its
    network's weights and play settings, the belief's defaults where the game hides information;
    the short name ``az`` still plays the network without beliefs."""
    game = envs.spec(game_id).name
    version, network = belief_version(game_id)
    names = available_agents(game_id)
    assert f"{game}-az-v{version}" in names and f"{game}-az-timed-v{version}" in names
    assert f"{game}-az-net-v{version}" not in names
    assert versioned_name(game_id, "az") == f"{game}-az-v{network}"
    table = {"num_players": shipped_player_counts(game_id)[0]}
    agent = make_agent(f"{game}-az-v{version}", game_id, 0, table)
    plain = make_agent(f"{game}-az-v{network}", game_id, 0, table)
    assert type(agent) is ShippedAZ and agent.version == version and agent.name == f"{game}-az-v{version}"
    assert np.array_equal(
        agent.network.params, read_network(shipped.shipped_network_path(game_id, network)).params
    )
    assert agent.settings == plain.settings
    assert shipped.play_settings(game_id, version) == shipped.play_settings(game_id, network)
    hides = declaration(game_id).hides_information
    assert agent.belief_settings == (search_config(game_id).belief if hides else None)
    assert plain.belief_settings is None and make_agent("az", game_id, 0, table).belief_settings is None
    timed = make_agent(f"{game}-az-timed-v{version}", game_id, 0, table)
    assert timed.belief_settings == agent.belief_settings and timed.budget_ms is not None


def test_the_belief_version_refuses_another_game():
    agent = make_agent("monstargh-az-v3", GAME, 0, {"num_players": 2})
    other = other_game(GAME)
    obs, mask, state = view(other, envs.spec(other).min_players)
    with pytest.raises(WrongGameError, match=f"made for {GAME} with num_players=2"):
        agent.act(obs, mask, state)
    with pytest.raises(WrongGameError, match=f"this game is {other}"):
        agent.check_game(other, envs.config(other, {}))
    with pytest.raises(ValueError, match="unknown agent 'monster_arena-az-v3' for monstargh-v0"):
        make_agent("monster_arena-az-v3", "monstargh-v0")


def play_turns(agent, game_id: str, seed: int, turns: int, shown=lambda state, seat: state):
    """The first ``turns`` decisions of ``agent`` in seat 0 of a 2-player game against greedy,
    told the deal and every move as ``shown(state, 0)``: each decision's action, the belief's
    step, the belief's particles and weights it searched from, and the search's policy."""
    spec = envs.spec(game_id)
    state = np.zeros(spec.state_size, np.int32)
    game_rng, moves_rng = make_rng(seed), make_rng(seed + 1)
    spec.init_state(state, envs.config(game_id, {"num_players": 2}), game_rng)
    greedy = greedy_kernel(game_id)
    mask = np.zeros(spec.num_actions, np.int8)
    agent.watch(0, shown(state, 0))
    decisions = []
    while state[H_CURRENT] >= 0 and len(decisions) < turns:
        mover = int(state[H_CURRENT])
        spec.legal_mask(state, mask)
        if mover == 0:
            seen = shown(state, 0)
            action = agent.act(seat_view(spec, seen, 0), mask, seen)
            belief = agent.belief
            decisions.append(
                (
                    action,
                    int(seen[H_STEPS]),
                    belief.particles.copy(),
                    belief.weights.copy(),
                    agent.policy.copy(),
                )
            )
        else:
            action = greedy(state, mask, moves_rng)
        spec.apply_action(state, int(action), game_rng)
        agent.watch(0, shown(state, 0), mover, int(action))
    return decisions


def same_decisions(first, second) -> bool:
    return len(first) == len(second) and all(
        a == b and all(np.array_equal(x, y) for x, y in zip(rest_a, rest_b))
        for (a, *rest_a), (b, *rest_b) in zip(first, second)
    )


def game_v3(seed: int):
    return make_agent("monstargh-az-v3", GAME, seed, {"num_players": 2})


def test_the_belief_version_decides_the_same_for_a_seed():
    agent = game_v3(4)
    first = play_turns(agent, GAME, 9, turns=4)
    assert len(first) == 4 and same_decisions(first, play_turns(game_v3(4), GAME, 9, turns=4))
    # the belief is live: it weighed every move of the game up to its last decision
    assert len(agent.belief.evidence) == first[-1][1] > 4


def test_the_belief_version_reads_only_its_seat_view():
    """Told copies of the states with everything seat 0 cannot see redealt (afresh at every move),
    the version holds the same particles and weights and makes the same searches and moves."""
    spec = envs.spec(GAME)
    redeal_rng = make_rng(77)
    changed = []

    def redealt(state, seat):
        twin = state.copy()
        spec.determinize(twin, seat, redeal_rng)
        changed.append(not np.array_equal(twin, state))
        return twin

    true_game = play_turns(game_v3(2), GAME, 5, turns=4)
    told_redeals = play_turns(game_v3(2), GAME, 5, turns=4, shown=redealt)
    assert any(changed)  # the redeals showed it other states than the game's
    assert same_decisions(true_game, told_redeals)


# --- the version numbers -----------------------------------------------------------------------
@pytest.fixture
def only_v1(tmp_path, monkeypatch):
    """A champions folder holding Marry the Monster's version 1 alone."""
    monkeypatch.setattr(shipped, "CHAMPION_DIR", tmp_path)
    shutil.copyfile(CHAMPION_DIR / "marry_the_monster-az-v1.npz", tmp_path / "marry_the_monster-az-v1.npz")
    write_manifest(tmp_path)
    return tmp_path


def test_a_belief_version_whose_network_does_not_ship_is_not_listed(only_v1):
    assert shipped.belief_versions(MTM) == {}
    names = available_agents(MTM)
    assert "marry_the_monster-az-v1" in names and "marry_the_monster-az-v3" not in names
    assert versioned_name(MTM, "az") == "marry_the_monster-az-v1"


def test_a_network_shipped_under_a_belief_versions_number_is_refused_naming_the_free_one(only_v1):
    for version in (2, 3):
        (only_v1 / f"marry_the_monster-az-v{version}.npz").write_bytes(b"stand-in")
    with pytest.raises(ValueError, match=r"ship the file as version 4 \(marry_the_monster-az-v4.npz\)"):
        shipped.belief_versions(MTM)


def test_a_belief_version_plays_its_own_declared_settings_where_it_has_them(monkeypatch):
    flat = declaration(MTM).agents["az"]
    own = {**flat, "versions": {**flat.get("versions", {}), 3: {"simulations": 41}}}
    redeclare(monkeypatch, MTM, agents={**declaration(MTM).agents, "az": own})
    assert shipped.play_settings(MTM, 3).simulations == 41
    assert make_agent("marry_the_monster-az-v3", MTM, 0, {"num_players": 2}).settings.simulations == 41
    assert shipped.play_settings(MTM, 2).simulations != 41
