"""PettingZoo conformance of every registered game under every option set (checklist points 5-8).

Nothing here knows a game's rules: each test reads the registry, the GameSpec and
the env's public API, so a new game gets these tests by being registered. Agents
are played with a seeded ``random.Random`` over the legal actions.
"""

import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, H_TERMINAL

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

# Enough cycles for api_test/seed_test to play a whole game at every player count.
API_CYCLES = 500


# --- helpers -----------------------------------------------------------------------
def legal(env, agent=None):
    """Legal action indices of ``agent`` (default: the agent on move) from its mask."""
    agent = env.agent_selection if agent is None else agent
    return np.flatnonzero(env.observe(agent)["action_mask"]).tolist()


def is_done(env) -> bool:
    """Whether the agent on move has terminated or been truncated."""
    a = env.agent_selection
    return env.terminations[a] or env.truncations[a]


def random_step(env, rng: random.Random):
    """Step the agent on move with a random legal action (None once it has finished); return it."""
    action = None if is_done(env) else rng.choice(legal(env))
    env.step(action)
    return action


def play(env, rng: random.Random, num_steps: int = 10**9) -> None:
    """Play up to ``num_steps`` random legal actions, stopping when the game is over (agents kept)."""
    for _ in range(num_steps):
        if not env.agents or is_done(env):
            return
        random_step(env, rng)


def snapshot(env):
    """Everything a step may change, as comparable values (the observation of every agent included)."""
    raw = env.unwrapped
    views = {}
    for agent in raw.agents:
        obs = raw.observe(agent)
        views[agent] = (obs["observation"].tobytes(), obs["action_mask"].tobytes())
    return (
        raw.state().tobytes(),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        raw.agent_selection,
        list(raw.agents),
        repr(raw.infos),
        views,
    )


def trajectory(env, seed: int, policy_seed: int = 0, num_steps: int = 10**9):
    """Snapshots of a game from ``reset(seed=seed)`` under a seeded random policy."""
    env.reset(seed=seed)
    rng = random.Random(policy_seed)
    out = [snapshot(env)]
    for _ in range(num_steps):
        if is_done(env):
            break
        random_step(env, rng)
        out.append(snapshot(env))
    return out


def text_after(message: str, bad_value) -> str:
    """The part of an error message after the refused value, where the valid values are listed."""
    r = repr(bad_value)
    assert r in message, f"message does not show the refused value {r}: {message}"
    return message[message.index(r) + len(r) :]


# --- PettingZoo's own checks ---------------------------------------------------------
def test_api_test(case):
    api_test(case.make(), num_cycles=API_CYCLES)


def test_seed_test(case):
    seed_test(case.make, num_cycles=API_CYCLES)


# --- pickling --------------------------------------------------------------------------
def test_pickle_mid_game_continues_identically(case):
    env = case.make()
    env.reset(seed=3)
    rng = random.Random(3)
    play(env, rng, 25)
    clone = pickle.loads(pickle.dumps(env))
    assert snapshot(clone) == snapshot(env)
    # Both must also share the future: the game's chance generator travels in the pickle.
    steps = 0
    while not is_done(env):
        action = rng.choice(legal(env))
        env.step(action)
        clone.step(action)
        assert snapshot(clone) == snapshot(env), f"diverged {steps} steps after unpickling"
        steps += 1
    assert env.unwrapped.state()[H_TERMINAL] == 1


def test_pickled_clone_is_independent(case):
    env = case.make()
    env.reset(seed=5)
    play(env, random.Random(5), 10)
    before = snapshot(env)
    clone = pickle.loads(pickle.dumps(env))
    play(clone, random.Random(6), 10)
    assert snapshot(env) == before


@pytest.mark.parametrize("wrapped", [True, False])
def test_fresh_env_pickles(case, wrapped):
    env = envs.make(case.game_id, wrapped=wrapped, **case.options)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.possible_agents == env.possible_agents
    assert clone.unwrapped.options == env.unwrapped.options
    assert trajectory(clone, seed=9, num_steps=40) == trajectory(env, seed=9, num_steps=40)


# --- rendering -------------------------------------------------------------------------
def test_render_ansi_names_every_agent(case):
    env = case.make(render_mode="ansi")
    env.reset(seed=1)
    rng = random.Random(1)
    while True:
        text = env.render()
        assert isinstance(text, str) and text.strip()
        missing = [a for a in env.possible_agents if a not in text]
        assert not missing, f"render lacks {missing}:\n{text}"
        if is_done(env):
            break
        play(env, rng, 17)


def test_render_human_prints_the_board(case, capsys):
    env = case.make(render_mode="human")
    env.reset(seed=1)
    capsys.readouterr()
    assert env.render() is None
    printed = capsys.readouterr().out
    assert printed.strip() == case.spec.to_text(env.unwrapped.state()).strip()
    # PettingZoo convention: a "human" env draws itself on every step.
    env.step(legal(env)[0])
    assert case.spec.to_text(env.unwrapped.state()).strip() in capsys.readouterr().out


# --- seeding ---------------------------------------------------------------------------
def test_different_seeds_give_different_games(case):
    games = [trajectory(case.make(), seed=seed, num_steps=40) for seed in range(6)]
    distinct = {tuple(s[0] for s in g) for g in games}
    assert len(distinct) == len(games), "two seeds gave the same game"


def test_reset_with_the_same_seed_repeats_the_game(case):
    env = case.make()
    first = trajectory(env, seed=11)
    second = trajectory(env, seed=11)  # same env, dirty from the first game
    third = trajectory(case.make(), seed=11)
    assert env.unwrapped.state()[H_TERMINAL] == 1
    assert first == second == third


# --- spaces, masks and types -----------------------------------------------------------
def test_spaces_are_cached_and_consistent(case):
    env = case.make()
    env.reset(seed=0)
    s = case.spec
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == s.num_actions
        assert env.observation_space(agent)["action_mask"].dtype == np.int8
        assert env.observation_space(agent)["observation"].shape == (s.obs_size,)
        assert env.observation_space(agent).contains(env.observe(agent))


def test_masks_and_value_types_through_a_game(case):
    env = case.make()
    env.reset(seed=7)
    rng = random.Random(7)
    n = case.spec.num_actions
    while True:
        on_move = env.agent_selection
        over = is_done(env)
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (n,)
            assert set(np.unique(mask)) <= {0, 1}
            if agent == on_move and not over:
                assert mask.any(), f"{agent} is on move without a legal action"
            else:
                assert not mask.any(), f"{agent} has a mask off-turn or after the end"
        assert all(type(v) is bool for v in env.terminations.values())
        assert all(type(v) is bool for v in env.truncations.values())
        assert all(type(v) is float for v in env.rewards.values())
        assert all(type(v) is float for v in env.unwrapped._cumulative_rewards.values())
        _, reward, term, trunc, _ = env.last()
        assert type(reward) is float and type(term) is bool and type(trunc) is bool
        if over:
            break
        random_step(env, rng)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.unwrapped.state()[H_CURRENT] == -1


# --- truncation --------------------------------------------------------------------------
def test_truncation_at_small_max_steps(case):
    env = case.make(max_steps=5)
    env.reset(seed=2)
    rng = random.Random(2)
    for _ in range(5):
        assert not any(env.truncations.values())
        random_step(env, rng)
    assert env.truncations == {a: True for a in env.possible_agents}
    assert not any(env.terminations.values())
    assert all(r == 0.0 for r in env.rewards.values())
    assert all(r == 0.0 for r in env.unwrapped._cumulative_rewards.values())
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    with pytest.raises(ValueError, match=env.agent_selection):
        env.step(0)
    retired = 0
    while env.agents:
        env.step(None)
        retired += 1
    assert retired == len(env.possible_agents)


def test_batch_truncation_at_small_max_steps(case):
    engine = envs.make_batch(case.game_id, 4, 0, **{**case.options, "max_steps": 5})
    engine.reset()
    for _step in range(5):
        assert not engine.truncated.any()
        _, _, rewards, terminated, truncated = engine.step(engine.random_actions())
    assert truncated.all() and not terminated.any()
    assert not rewards.any()
    assert (engine.states[:, H_STEPS] == 0).all(), "truncated games were not restarted"


# --- options -----------------------------------------------------------------------------
def test_unknown_option_is_refused_with_the_valid_names(game_id):
    names = [o.name for o in envs.spec(game_id).options]
    for build in (
        lambda: envs.make(game_id, foo=1),
        lambda: envs.make(game_id, wrapped=False, foo=1),
        lambda: envs.make_batch(game_id, 2, foo=1),
    ):
        with pytest.raises(TypeError) as err:
            build()
        msg = str(err.value)
        assert "foo" in msg and game_id in msg
        assert all(name in msg for name in names), msg


def bad_values(game_id):
    """(option, bad value, texts the message must list after the value) for every declared option."""
    out = []
    for opt in envs.spec(game_id).options:
        if opt.choices is not None:
            valid = [repr(c) for c in opt.choices]
            ints = [c for c in opt.choices if isinstance(c, int) and not isinstance(c, bool)]
            if ints:
                for bad in (max(ints) + 2, float(ints[0]), True):
                    out.append((opt.name, bad, valid))
            else:
                out.append((opt.name, "x", valid))
        else:
            for bad in (0, -3, 2.5, "7"):
                if not opt.check(bad):
                    out.append((opt.name, bad, [opt.valid]))
    return out


def test_bad_option_values_are_refused_listing_the_valid_values(game_id):
    cases = bad_values(game_id)
    names = {c[0] for c in cases}
    # The values the project promises to refuse, wherever the game declares the option.
    for required in {"num_players", "reward", "max_steps"} & {o.name for o in envs.spec(game_id).options}:
        assert required in names
    for name, bad, listed in cases:
        with pytest.raises(ValueError) as err:
            envs.make(game_id, **{name: bad})
        msg = str(err.value)
        assert name in msg and game_id in msg, msg
        tail = text_after(msg, bad)
        missing = [v for v in listed if v not in tail]
        assert not missing, f"{name}={bad!r}: message does not list {missing}: {msg}"


def test_marry_the_monster_named_bad_options():
    """The exact refusals of bad options, spelled out for the first game."""
    gid = "marry_the_monster-v0"
    for kwargs in ({"num_players": 7}, {"num_players": 3.0}, {"num_players": True}, {"num_players": 1}):
        with pytest.raises(ValueError, match=r"2, 3, 4, 5"):
            envs.make(gid, **kwargs)
        with pytest.raises(ValueError, match=r"2, 3, 4, 5"):
            envs.make_batch(gid, 2, **kwargs)
    with pytest.raises(ValueError, match=r"'win', 'score'"):
        envs.make(gid, reward="x")
    with pytest.raises(ValueError, match=r"an integer from 1 to 2147483647"):
        envs.make(gid, max_steps=0)
    with pytest.raises(ValueError, match=r"'raise', 'penalize'"):
        envs.make(gid, illegal_action="ignore")
    with pytest.raises(ValueError, match=r"'ansi', 'human', 'rgb_array'"):
        envs.make(gid, render_mode="video")


def test_unknown_game_lists_the_available_ids():
    for call in (
        lambda: envs.make("nope-v0"),
        lambda: envs.spec("nope-v0"),
        lambda: envs.make_batch("nope-v0", 2),
    ):
        with pytest.raises(ValueError) as err:
            call()
        msg = str(err.value)
        assert "nope-v0" in msg
        assert all(g in msg for g in envs.available()), msg


# --- bad actions ---------------------------------------------------------------------------
def bad_actions(env):
    """(action, text the message must contain) for every kind of bad input in the current state."""
    s = env.unwrapped.spec
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    return [
        (None, None),
        (2.5, "2.5"),
        ("3", "'3'"),
        (True, "True"),
        (-1, "-1"),
        (s.num_actions, str(s.num_actions)),
        (illegal, s.action_to_str(illegal, env.unwrapped.state())),
    ]


def test_bad_actions_raise_and_change_nothing(case):
    env = case.make()
    env.reset(seed=4)
    rng = random.Random(4)
    s = case.spec
    for chunk in (0, 9, 23, 40):
        play(env, rng, chunk)
        if is_done(env):
            break
        agent = env.agent_selection
        for action, text in bad_actions(env):
            before = snapshot(env)
            with pytest.raises(ValueError) as err:
                env.step(action)
            msg = str(err.value)
            assert agent in msg, f"{action!r}: message does not name {agent}: {msg}"
            if text is not None:
                assert text in msg, f"{action!r}: message lacks {text!r}: {msg}"
            if type(action) is int and 0 <= action < s.num_actions:
                reason = s.reasons[int(s.illegal_reason(env.unwrapped.state(), action))]
                assert reason in msg, msg
                first_legal = s.action_to_str(legal(env)[0], env.unwrapped.state())
                assert f"legal now: {first_legal}" in msg, f"the message should suggest legal actions: {msg}"
            assert snapshot(env) == before, f"{action!r} changed the game"
        # numpy integers are valid actions, and the env still plays after the refusals
        action = np.int64(legal(env)[0])
        env.step(action)
    assert env.unwrapped.state()[H_STEPS] > 0


@pytest.mark.parametrize("kind", ["illegal", "out_of_range"])
def test_penalize_ends_the_game(case, kind):
    env = case.make(illegal_action="penalize")
    env.reset(seed=8)
    play(env, random.Random(8), 12)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    action = int(np.flatnonzero(mask == 0)[0]) if kind == "illegal" else case.spec.num_actions
    state = env.unwrapped.state()
    env.step(action)
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values())
    assert env.infos[offender].get("illegal_move") is True
    assert np.array_equal(env.unwrapped.state(), state), "the illegal action was applied"
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    total = {a: 0.0 for a in env.possible_agents}
    while env.agents:
        agent = env.agent_selection
        _, reward, term, _, _ = env.last()
        assert term
        total[agent] += reward
        env.step(None)
    assert total[offender] == -1.0 and sum(total.values()) == -1.0


# --- mask and reasons agree ------------------------------------------------------------------
def test_mask_agrees_with_illegal_reason(case):
    """On every state of a few random games (terminal ones included), mask[a] == 1 iff reason == 0."""
    s = case.spec
    env = case.make()
    mask = np.zeros(s.num_actions, np.int8)
    checked = 0
    for seed in range(3):
        env.reset(seed=100 + seed)
        rng = random.Random(seed)
        while True:
            state = env.unwrapped.state()
            count = s.legal_mask(state, mask)
            assert count == mask.sum()
            reasons = np.array([s.illegal_reason(state, a) for a in range(s.num_actions)])
            disagree = np.flatnonzero((mask == 1) != (reasons == 0))
            assert not disagree.size, (
                f"mask and illegal_reason disagree on {[s.action_to_str(a, state) for a in disagree]} "
                f"(mask {mask[disagree].tolist()}, reasons {reasons[disagree].tolist()})\n{s.to_text(state)}"
            )
            assert all(int(r) in s.reasons for r in reasons if r)
            assert s.illegal_reason(state, -1) != 0 and s.illegal_reason(state, s.num_actions) != 0
            assert np.array_equal(state, env.unwrapped.state()), "a query changed the state"
            if state[H_TERMINAL]:
                assert count == 0
            else:
                assert np.array_equal(mask, env.observe(env.agent_selection)["action_mask"])
            checked += 1
            if is_done(env):
                break
            random_step(env, rng)
    assert checked > 100


# --- what a step keeps: the observation contract and the last action's trail -------------------
def test_observe_into_writes_every_entry_whatever_the_buffer_held(case):
    """The env hands out observations in uninitialised buffers, so every game's ``observe_into``
    must write each entry: one filled with garbage first gives what one filled with zeros does."""
    env = case.make()
    env.reset(seed=11)
    raw, rng = env.unwrapped, random.Random(11)
    for _ in range(60):
        for seat in range(len(raw.possible_agents)):
            clean = np.zeros(case.spec.obs_size, np.float32)
            dirty = np.full(case.spec.obs_size, np.nan, np.float32)
            case.spec.observe_into(raw.engine_state, seat, clean)
            case.spec.observe_into(raw.engine_state, seat, dirty)
            assert np.array_equal(clean, dirty), f"seat {seat}: entries left unwritten"
        if is_done(env):
            break
        random_step(env, rng)


def test_the_last_action_is_rebuilt_from_the_trail_exactly(case):
    """The state the last action met, rebuilt by replaying the game's actions, is the state the
    game really had before it, however many steps pass between two questions and across a pickle."""
    env = case.make()
    env.reset(seed=5)
    raw, rng = env.unwrapped, random.Random(5)
    assert raw.last_action() is None
    before = None
    for step in range(400):
        if is_done(env):
            break
        before, seat = raw.state(), raw._seat[env.agent_selection]
        action = random_step(env, rng)
        if step % (1 + step % 7) == 0:  # asked after 1 to 7 steps, so the replay catches up by several
            if step % 5 == 0:
                raw = pickle.loads(pickle.dumps(raw))
            got_seat, got_action, met = raw._trail.last(raw.spec.apply_action)
            assert (got_seat, got_action) == (seat, action) and np.array_equal(met, before), f"step {step}"
            assert raw.last_action()[:2] == (seat, action)
            env = raw  # continue on the (possibly unpickled) raw env
    assert before is not None
