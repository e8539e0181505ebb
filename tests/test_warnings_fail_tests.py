"""A warning raised from monster_zoo's own code fails the test that raised it (pyproject.toml's
``filterwarnings``), so a new one is noticed; a test that means to see one uses ``pytest.warns``."""

import pytest

import monster_zoo


def test_a_warning_from_our_code_is_an_error_in_the_tests():
    env = monster_zoo.make("marry_the_monster-v0")
    env.reset(seed=0)
    with pytest.raises(UserWarning, match="render_mode"):
        env.render()  # gymnasium's convention: render() without a render_mode warns, from our adapter
