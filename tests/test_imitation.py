"""Warm start by cloning a teacher (``train --warm-start greedy``): the data and the fitted policy."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.training.ppo import imitation as imitation

GAME = "monster_factory-v0"
OPTIONS = {"num_players": 2}


def fresh_policy(game, seed=0):
    """The policy of a new MaskablePPO model for ``game`` (random weights)."""
    from sb3_contrib import MaskablePPO

    vec = envs.make_vec_env(game, 4, seed=seed, **OPTIONS)
    return MaskablePPO("MlpPolicy", vec, n_steps=8, batch_size=32, seed=seed, device="cpu").policy


def test_demonstrations_are_the_teachers_legal_choices():
    teacher = make_agent("greedy", GAME, seed=1, options=OPTIONS)
    demos = imitation.collect(GAME, OPTIONS, teacher, 500, seed=2, num_envs=16)
    assert demos.observations.shape == (500, envs.spec(GAME).obs_size) and len(demos.actions) == 500
    assert demos.masks[np.arange(500), demos.actions].all(), "a demonstrated action is not legal"
    again = imitation.collect(
        GAME, OPTIONS, make_agent("greedy", GAME, seed=1, options=OPTIONS), 500, seed=2, num_envs=16
    )
    assert np.array_equal(again.actions, demos.actions) and np.array_equal(
        again.observations, demos.observations
    )


def test_a_teacher_that_does_not_read_the_state_is_refused():
    with pytest.raises(ValueError, match="must decide from the engine state"):
        imitation.collect(GAME, OPTIONS, make_agent("random", GAME, seed=0), 100)


def test_cloning_makes_the_policy_agree_with_the_teacher_far_above_chance():
    """Marry the Monster's greedy rarely ties, so agreement measures the cloning (Monster Factory's
    greedy breaks many ties at random, which caps any clone's agreement)."""
    game = "marry_the_monster-v0"
    teacher = make_agent("greedy", game, seed=3, options=OPTIONS)
    demos = imitation.collect(game, OPTIONS, teacher, 6000, seed=4, num_envs=32)
    chance = float(np.mean(1.0 / demos.masks.sum(axis=1)))  # a random legal pick's expected agreement
    result = imitation.clone(fresh_policy(game), demos, epochs=10, learning_rate=2e-3)
    assert result["samples"] == 6000
    assert result["held_out_agreement"] > 2.5 * chance, (result, chance)
