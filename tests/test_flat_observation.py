"""``observation="flat"``: the AEC env's observation as a plain Box, the mask in ``infos``.

Libraries that wrap observations (SuperSuit's observation wrappers, frame stacking,
normalisers) expect a Box per agent; PettingZoo allows the action mask in
``infos[agent]["action_mask"]`` instead of a Dict observation. The flat form must show
exactly what the Dict form shows, and pass PettingZoo's API test, also under such a wrapper.
"""

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test
from pettingzoo.utils.wrappers import BaseWrapper

from monster_zoo import envs

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too


class ScaledBoxObservations(BaseWrapper):
    """A SuperSuit-style observation wrapper: it only accepts Box observation spaces and
    maps each observation through a function (here: into [-1, 1] as float64)."""

    def __init__(self, env):
        super().__init__(env)
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not isinstance(space, spaces.Box):
                raise TypeError(f"this wrapper needs Box observations, got {type(space).__name__}")
        box = env.observation_space(env.possible_agents[0])
        self._space = spaces.Box(-1.0, 1.0, box.shape, np.float64)

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        return self.env.observe(agent).astype(np.float64) * 2.0 - 1.0


def test_flat_space_is_a_box_and_dict_stays_the_default(game_id):
    spec = envs.spec(game_id)
    flat = envs.make(game_id, observation="flat")
    box = flat.observation_space(flat.possible_agents[0])
    assert isinstance(box, spaces.Box) and box.shape == (spec.obs_size,) and box.dtype == np.float32
    assert isinstance(envs.make(game_id).observation_space("player_0"), spaces.Dict)
    with pytest.raises(ValueError, match="observation='box' is not valid; valid values: 'dict', 'flat'"):
        envs.make(game_id, observation="box")


def test_flat_form_shows_what_the_dict_form_shows(game_id):
    flat, nested = envs.make(game_id, observation="flat"), envs.make(game_id)
    flat.reset(seed=1)
    nested.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in nested.agent_iter(300):
        obs, reward, terminated, truncated, info = flat.last()
        expected = nested.observe(agent)
        assert flat.agent_selection == agent
        assert np.array_equal(obs, expected["observation"])
        assert info["action_mask"].dtype == np.int8
        for other in flat.agents:  # every agent's infos carry its own mask: zeros off-turn
            assert np.array_equal(flat.infos[other]["action_mask"], nested.observe(other)["action_mask"])
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        flat.step(action)
        nested.step(action)


def test_flat_env_passes_the_api_test_bare_and_under_a_box_wrapper(game_id):
    api_test(envs.make(game_id, observation="flat"), num_cycles=200)
    api_test(ScaledBoxObservations(envs.make(game_id, observation="flat")), num_cycles=200)
    with pytest.raises(TypeError, match="needs Box observations"):
        ScaledBoxObservations(envs.make(game_id))


def test_penalized_flat_env_publishes_empty_masks(game_id):
    env = envs.make(game_id, observation="flat", illegal_action="penalize")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.infos[agent]["action_mask"] == 0)[0]))
    assert env.infos[agent]["illegal_move"] is True
    assert all(not env.infos[a]["action_mask"].any() for a in env.agents)
