"""Every entry point refuses the same bad inputs the same way.

One set of generated bad actions, seeds, batch sizes and reset options drives every adapter
(the AEC env, the batched engine, the learner env, the SB3 vec env): each must raise a
ValueError whose message names the agent (and slot), the action and the reason, and leave
the game byte-identical. An adapter joins by writing its :class:`Driver` and adding it to
``DRIVERS`` (one line).
"""

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monster_zoo import envs
from monster_zoo.envs.core.illegal import IllegalActionError
from monster_zoo.envs.core.selfplay import LearnerGames

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

ILLEGAL = "an in-range action the rules forbid now"  # resolved per driver, in its current state
SLOT = 1  # the slot batched drivers put the bad action in (the others get legal actions)
NUM_ENVS = 3


def bad_actions():
    """Actions no entry point may accept: every kind of non-integer, out-of-range integers
    (also past int64) and an in-range action that is illegal in the current state."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),  # 3.0 too: never converted
        st.booleans(),
        st.complex_numbers(),
        st.text(max_size=3),
        st.none(),
        st.integers(max_value=-1),
        st.integers(min_value=300),  # no game has 300 actions
        st.lists(st.integers(0, 5), min_size=1, max_size=2),  # [7] is not 7
        st.sampled_from(
            [
                np.float32(1.0),
                np.float64(2.5),
                np.bool_(True),
                np.int64(-1),
                np.uint64(2**64 - 1),
                np.array([1.5]),
                np.array([[1, 2]]),
                np.array([True]),
                np.array("3"),
                (1,),
            ]
        ),
        st.just(ILLEGAL),
    )


def bad_seeds():
    """Seeds no entry point may accept (valid: None where a reset allows it, or an integer >= 0)."""
    return st.one_of(
        st.integers(max_value=-1),
        st.floats(),
        st.booleans(),
        st.text(max_size=3),
        st.complex_numbers(),
        st.lists(st.integers(0, 5), max_size=2),
        st.sampled_from([np.float64(3.0), np.bool_(False), np.int64(-5), "5", 3.7, True]),
    )


def bad_num_envs():
    """Batch sizes no batched entry point may accept (valid: an integer >= 1)."""
    return st.one_of(
        st.integers(max_value=0),
        st.floats(),
        st.booleans(),
        st.text(max_size=2),
        st.sampled_from([2.5, "3", None, np.float64(2.0), [2]]),
    )


# --- the adapters ---------------------------------------------------------------------------
class Driver:
    """One adapter under test, on one game, left in a live state.

    ``who`` is a regex for the actor its messages must name; ``submit(action)`` sends the
    action (in slot ``SLOT`` of a batch for batched adapters, legal actions elsewhere);
    ``snapshot()`` is everything a refusal must leave alone.
    """

    batched = False

    def __init__(self, game_id: str):
        self.game_id = game_id
        self.num_actions = envs.spec(game_id).num_actions

    def resolve(self, action):
        if isinstance(action, str) and action == ILLEGAL:
            forbidden = np.flatnonzero(self.mask() == 0)
            return int(forbidden[0]) if forbidden.size else -1
        return action


class AecDriver(Driver):
    def __init__(self, game_id):
        super().__init__(game_id)
        self.env = envs.make(game_id, wrapped=False)
        self.env.reset(seed=0)

    @property
    def who(self):
        return re.escape(self.env.agent_selection)

    def mask(self):
        return np.asarray(self.env.observe(self.env.agent_selection)["action_mask"])

    def submit(self, action):
        self.env.step(action)

    def snapshot(self):
        return aec_snapshot(self.env)

    def seed_entry_points(self):
        return [lambda seed: self.env.reset(seed=seed)]

    def reset_with_options(self, options):
        self.env.reset(seed=0, options=options)


class BatchDriver(Driver):
    batched = True

    def __init__(self, game_id):
        super().__init__(game_id)
        self.engine = envs.make_batch(game_id, NUM_ENVS, seed=0)
        self.engine.reset()

    @property
    def who(self):
        return rf"slot {SLOT}: player_{int(self.engine.current_players[SLOT])}"

    def mask(self):
        return self.engine.masks[SLOT]

    def legal_batch(self):
        return [int(np.flatnonzero(m)[0]) for m in self.engine.masks]

    def submit(self, action):
        self.submit_batch(self.legal_batch()[:SLOT] + [action] + self.legal_batch()[SLOT + 1 :])

    def submit_batch(self, actions):
        self.engine.step(actions)

    def snapshot(self):
        e = self.engine
        return tuple(a.tobytes() for a in (e.states, e.rngs, e.action_rngs, e.masks, e.obs))

    def seed_entry_points(self):
        return [lambda seed: envs.make_batch(self.game_id, 2, seed=seed), self.engine.seed]

    def num_envs_entry_points(self):
        return [lambda n: envs.make_batch(self.game_id, n)]


class LearnerDriver(Driver):
    def __init__(self, game_id):
        super().__init__(game_id)
        self.env = envs.make_learner_env(game_id)
        self.env.reset(seed=0)

    @property
    def who(self):
        return rf"player_{int(self.env.games.learner_seats[0])} \(the learner\)"

    def mask(self):
        return self.env.action_masks().astype(np.int8)

    def submit(self, action):
        self.env.step(action)

    def snapshot(self):
        return games_snapshot(self.env.games)

    def seed_entry_points(self):
        return [lambda seed: self.env.reset(seed=seed)]

    def reset_with_options(self, options):
        self.env.reset(seed=0, options=options)


class VecDriver(BatchDriver):
    def __init__(self, game_id):
        Driver.__init__(self, game_id)
        self.vec = envs.make_vec_env(game_id, NUM_ENVS, seed=0)
        self.vec.reset()

    @property
    def who(self):
        return rf"slot {SLOT}: player_{int(self.vec.games.learner_seats[SLOT])} \(the learner\)"

    def mask(self):
        return self.vec.action_masks()[SLOT].astype(np.int8)

    def legal_batch(self):
        return [int(np.flatnonzero(m)[0]) for m in self.vec.action_masks()]

    def submit_batch(self, actions):
        self.vec.step(actions)

    def snapshot(self):
        return games_snapshot(self.vec.games)

    def seed_entry_points(self):
        return [lambda seed: envs.make_vec_env(self.game_id, 2, seed=seed), self.vec.seed]

    def num_envs_entry_points(self):
        return [
            lambda n: envs.make_vec_env(self.game_id, n),
            lambda n: LearnerGames(envs.spec(self.game_id), envs.config(self.game_id, {}), n),
        ]

    def reset_with_options(self, options):
        self.vec.set_options(options)
        self.vec.reset()


class RLlibDriver(Driver):
    """The RLlib MultiAgentEnv (distributed extra): it steps the raw AEC env, so it refuses alike."""

    def __init__(self, game_id):
        super().__init__(game_id)
        from monster_zoo.envs.rllib_env import RLlibGameEnv

        self.env = RLlibGameEnv({"game": game_id})
        self.env.reset(seed=0)

    @property
    def who(self):
        return re.escape(self.env.raw_env.agent_selection)

    def mask(self):
        raw = self.env.raw_env
        return np.asarray(raw.observe(raw.agent_selection)["action_mask"])

    def submit(self, action):
        self.env.step({self.env.raw_env.agent_selection: action})

    def snapshot(self):
        return aec_snapshot(self.env.raw_env)

    def seed_entry_points(self):
        return [lambda seed: self.env.reset(seed=seed)]

    def reset_with_options(self, options):
        self.env.reset(seed=0, options=options)


def aec_snapshot(env):
    """The byte image of a raw AEC env: state, generator, selection, rewards and terminations."""
    return (
        env.state().tobytes(),
        env._rng.tobytes(),
        env.agent_selection,
        repr(env.rewards),
        repr(env.terminations),
    )


def games_snapshot(games):
    """The byte image of a LearnerGames: states, every generator, masks and the learner's view."""
    return tuple(
        a.tobytes()
        for a in (
            games.states,
            games.game_rngs,
            games.seat_rngs,
            games.policy_rngs,
            games.masks,
            games.observations,
            games.learner_seats,
            games.game_seeds,
        )
    )


try:
    import ray.rllib  # noqa: F401  (the RLlib adapter needs the distributed extra)

    _RLLIB = [RLlibDriver]
except ImportError:
    _RLLIB = []
DRIVERS = [AecDriver, BatchDriver, LearnerDriver, VecDriver, *_RLLIB]  # a new adapter: one more entry
BATCHED = [d for d in DRIVERS if d.batched]
_made = {}


def driver(cls, game_id) -> Driver:
    """One driver per (adapter, game) for the whole session: refusals must not change it."""
    key = (cls, game_id)
    if key not in _made:
        _made[key] = cls(game_id)
    return _made[key]


REASON = r"(is not an integer action index|is out of range 0\.\.\d+|\(.+\) is illegal: .+; legal now: .+)"


def refusal_of(call) -> str:
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


# --- actions ----------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", DRIVERS, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=bad_actions())
def test_every_adapter_refuses_a_bad_action_naming_who_what_and_why(cls, game_id, action):
    d = driver(cls, game_id)
    action = d.resolve(action)
    before = d.snapshot()
    message = refusal_of(lambda: d.submit(action))
    if action is None and cls in (AecDriver, *_RLLIB):  # the AEC env's wording for None (it retires agents)
        assert re.fullmatch(rf"{d.who} is on move and must act; None is only for finished agents", message)
    else:
        shown = re.escape(repr(action.item() if isinstance(action, np.generic) else action))
        named = (
            shown
            if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_))
            else re.escape(str(int(action)))
        )
        assert re.fullmatch(rf"{d.who}: action {named} {REASON}", message, re.S), message
    assert d.snapshot() == before, f"{cls.__name__} changed the game while refusing {action!r}"


@pytest.mark.parametrize("cls", DRIVERS, ids=lambda c: c.__name__)
def test_refusals_are_illegal_action_errors_and_integer_arrays_of_one_value_pass(cls, game_id):
    d = driver(cls, game_id)
    with pytest.raises(IllegalActionError):
        d.submit(3.0)
    legal = int(np.flatnonzero(d.mask())[0])
    d.submit(np.array([legal], np.int16))  # numpy integers of any width, as the AEC env always took


@pytest.mark.parametrize("cls", BATCHED, ids=lambda c: c.__name__)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shape=st.sampled_from([(NUM_ENVS, 1), (1, NUM_ENVS), (NUM_ENVS + 1,), (NUM_ENVS - 1,), (), (0,)]),
    container=st.sampled_from(["array", "list", "scalar"]),
)
def test_batched_adapters_refuse_a_batch_of_the_wrong_shape(cls, game_id, shape, container):
    d = driver(cls, game_id)
    batch = np.zeros(shape, np.int64)
    batch = {"array": batch, "list": batch.tolist(), "scalar": 0}[container]
    before = d.snapshot()
    message = refusal_of(lambda: d.submit_batch(batch))
    if container == "list" and shape == (NUM_ENVS, 1):  # the right length, but each action is a list
        assert re.fullmatch(
            r"slot 0: player_\d( \(the learner\))?: action \[0\] is not an integer action index", message
        ), message
    else:
        assert message.startswith(
            f"actions: expected {NUM_ENVS} integer action indices (a 1-d array of shape "
            f"({NUM_ENVS},) or a list), got "
        ), message
    assert d.snapshot() == before


# --- seeds, batch sizes, reset options ---------------------------------------------------------
@pytest.mark.parametrize("cls", DRIVERS, ids=lambda c: c.__name__)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=bad_seeds())
def test_every_seed_entry_point_refuses_a_bad_seed(cls, game_id, seed):
    d = driver(cls, game_id)
    for call in d.seed_entry_points():
        before = d.snapshot()
        message = refusal_of(lambda: call(seed))
        assert f"seed {seed!r} is not valid; expected " in message and "non-negative integer" in message
        assert d.snapshot() == before


@pytest.mark.parametrize("cls", BATCHED, ids=lambda c: c.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(num_envs=bad_num_envs())
def test_every_batched_entry_point_refuses_a_bad_num_envs(cls, game_id, num_envs):
    for call in driver(cls, game_id).num_envs_entry_points():
        message = refusal_of(lambda: call(num_envs))
        assert message == f"{game_id}: num_envs={num_envs!r} is not valid; expected an integer >= 1"


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1, 2**63 + 7, 2**64 + 3, 2**100])
def test_valid_seeds_mean_the_same_game_in_every_adapter(seed):
    game_id = "monstargh-v0"
    aec = envs.make(game_id)
    aec.reset(seed=seed)
    first = aec.observe(aec.agent_selection)["observation"]
    aec.reset(seed=seed % 2**63)  # huge seeds are reduced, as documented
    assert np.array_equal(first, aec.observe(aec.agent_selection)["observation"])
    engine = envs.make_batch(game_id, 2, seed=np.uint64(seed) if seed < 2**64 else seed)
    obs, _ = engine.reset()
    assert np.array_equal(first, obs[0])
    learner = envs.make_learner_env(game_id)
    learner.reset(seed=seed)
    assert learner.game_seed() == seed % 2**63


@pytest.mark.parametrize(
    "cls", [d for d in DRIVERS if hasattr(d, "reset_with_options")], ids=lambda c: c.__name__
)
@pytest.mark.parametrize(
    "options", [{"bogus": 1}, {"seed": 3}, {"options": 1, "bogus": 1}, "fast", [("a", 1)]]
)
def test_reset_options_are_never_silently_ignored(cls, game_id, options):
    d = cls(game_id)
    before = d.snapshot()
    message = refusal_of(lambda: d.reset_with_options(options))
    assert "reset options" in message and "valid reset options: none" in message
    assert d.snapshot() == before


@pytest.mark.parametrize("options", [None, {}, {"options": 1}])
def test_the_aec_env_takes_empty_options_and_pettingzoos_probe_silently(game_id, options):
    """gymnasium's check_env resets with ``options={}``, PettingZoo's api_test with
    ``{"options": 1}``: both are the game of ``reset(seed=0)``, with no warning."""
    plain, probed = AecDriver(game_id), AecDriver(game_id)
    plain.env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probed.reset_with_options(options)
    assert probed.snapshot() == plain.snapshot()
