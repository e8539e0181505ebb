"""The gymnasium ``VectorEnv`` of learner games (``make_vector_env``) against gymnasium's 1.x vector
API and against the learner envs it batches: spaces, masks, both autoreset modes, seeds, the
gymnasium registration and vector wrappers, and refused inputs that change nothing.

Every game at its smallest player count, with a short ``max_steps`` so that truncation happens too,
plays thousands of random masked decisions; the SB3 vec env and gymnasium's ``SyncVectorEnv`` over
``make_learner_env`` are given the same seed and actions and must hand out the same games.
"""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import NormalizeReward, RecordEpisodeStatistics

import monster_zoo
from monster_zoo.envs.core.illegal import IllegalActionError
from monster_zoo.envs.registry import gymnasium_id

ROOT = Path(__file__).resolve().parents[1]
MAX_STEPS = 40  # short games: truncations happen within the test's steps


def small(game_id: str) -> dict:
    """The smallest table of ``game_id`` with a short step limit."""
    return {"num_players": monster_zoo.spec(game_id).min_players, "max_steps": MAX_STEPS}


def random_masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], np.int64)


def legal_mask_of_learner(env, i: int) -> np.ndarray:
    """The learner's legal actions in slot ``i``, computed from the slot's state by the game's kernel."""
    spec, state = env.game_spec, env.games.states[i]
    mask = np.zeros(spec.num_actions, np.int8)
    spec.legal_mask(state, mask)
    return mask.astype(bool)


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_spaces_follow_gymnasium_vector_api(game_id):
    s = monster_zoo.spec(game_id)
    env = monster_zoo.make_vector_env(game_id, 5, seed=1, **small(game_id))
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_observation_space == gymnasium.spaces.Box(0.0, 1.0, (s.obs_size,), np.float32)
    assert env.observation_space.shape == (5, s.obs_size)
    assert env.single_action_space == gymnasium.spaces.Discrete(s.num_actions)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([s.num_actions] * 5)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    dict_env = monster_zoo.make_vector_env(game_id, 5, seed=1, observation="dict", **small(game_id))
    assert set(dict_env.single_observation_space.spaces) == {"observation", "action_mask"}
    obs, info = dict_env.reset()
    assert dict_env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"].astype(bool), info["action_mask"])


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_random_masked_play_same_step(game_id):
    """Observations in the space, masks equal to the kernel's legal moves (and never empty), rewards
    only where games end, final views where they end, the learner's seat on move."""
    n = 6
    env = monster_zoo.make_vector_env(game_id, n, seed=11, **small(game_id))
    rng = np.random.default_rng(0)
    obs, info = env.reset()
    ended = 0
    for _ in range(400):
        assert env.observation_space.contains(obs)
        for i in range(n):
            assert np.array_equal(info["action_mask"][i], legal_mask_of_learner(env, i))
            assert env.games.states[i][0] >= 0
        assert info["action_mask"].any(axis=1).all()
        obs, reward, terminated, truncated, info = env.step(random_masked(info["action_mask"], rng))
        done = terminated | truncated
        assert not (terminated & truncated).any()
        assert (reward[~done] == 0).all() and (reward[truncated] == 0).all()
        if done.any():
            assert np.array_equal(info["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert env.single_observation_space.contains(info["final_obs"][i])
                seat = info["final_info"]["learner_seat"][i]
                assert reward[i] == info["final_info"]["returns"][i, seat]
            assert all(info["final_obs"][i] is None for i in np.flatnonzero(~done))
        ended += done.sum()
    assert ended >= n, "too few games ended to test autoreset"


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_same_as_the_sb3_vec_env_for_a_seed(game_id):
    """Same seed and actions: the SB3 vec env hands out the same observations, rewards, ends and
    final views (both run the same learner games)."""
    pytest.importorskip("stable_baselines3")
    n, seed = 4, 2**63 + 9
    ours = monster_zoo.make_vector_env(game_id, n, seed=seed, **small(game_id))
    sb3 = monster_zoo.make_vec_env(game_id, n, seed=seed, **small(game_id))
    rng = np.random.default_rng(1)
    obs, info = ours.reset()
    assert np.array_equal(obs, sb3.reset())
    for _ in range(150):
        actions = random_masked(info["action_mask"], rng)
        assert np.array_equal(info["action_mask"], sb3.action_masks())
        obs, reward, terminated, truncated, info = ours.step(actions)
        sb3_obs, sb3_reward, sb3_done, sb3_infos = sb3.step(actions)
        assert np.array_equal(obs, sb3_obs) and np.array_equal(reward, sb3_reward)
        assert np.array_equal(terminated | truncated, sb3_done)
        for i in np.flatnonzero(sb3_done):
            assert np.array_equal(info["final_obs"][i], sb3_infos[i]["terminal_observation"])
            assert truncated[i] == sb3_infos[i]["TimeLimit.truncated"]
        assert np.array_equal(ours.game_seeds(), sb3.game_seeds())


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_first_games_are_the_single_learner_envs(game_id):
    """Slot i's first game is ``make_learner_env().reset(seed=seed + i)``'s: gymnasium's own
    ``SyncVectorEnv`` over the learner env (same-step autoreset) plays it with the same actions."""
    n, seed = 3, 40
    ours = monster_zoo.make_vector_env(game_id, n, **small(game_id))
    theirs = gymnasium.vector.SyncVectorEnv(
        [lambda: monster_zoo.make_learner_env(game_id, **small(game_id)) for _ in range(n)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    rng = np.random.default_rng(2)
    obs, info = ours.reset(seed=seed)
    their_obs, their_info = theirs.reset(seed=seed)
    assert np.array_equal(obs, their_obs) and np.array_equal(info["action_mask"], their_info["action_mask"])
    first_game = np.ones(n, bool)
    for _ in range(200):
        if not first_game.any():
            break
        actions = random_masked(info["action_mask"], rng)
        # past its first game a slot plays other games in each env: each gets its own legal action
        their_actions = np.where(first_game, actions, random_masked(their_info["action_mask"], rng))
        obs, reward, terminated, truncated, info = ours.step(actions)
        their_obs, their_reward, their_term, their_trunc, their_info = theirs.step(their_actions)
        live = first_game
        assert np.array_equal(reward[live], their_reward[live])
        assert np.array_equal(terminated[live], their_term[live])
        assert np.array_equal(truncated[live], their_trunc[live])
        done = terminated | truncated
        for i in np.flatnonzero(live & ~done):
            assert np.array_equal(obs[i], their_obs[i])
        for i in np.flatnonzero(live & done):
            assert np.array_equal(info["final_obs"][i], their_info["final_obs"][i])
        first_game &= ~done
    assert not first_game.any(), "a first game did not end within the test's steps"


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_next_step_autoreset(game_id):
    """NextStep: the ending step shows the last view with no legal action; the next step ignores the
    action (not even checked) and shows the next game's first view with reward 0: the view SameStep
    shows at once. One slot each, so that the SameStep env simply sits out the extra step."""
    nxt = monster_zoo.make_vector_env(game_id, 1, seed=5, autoreset_mode="NextStep", **small(game_id))
    same = monster_zoo.make_vector_env(game_id, 1, seed=5, **small(game_id))
    assert nxt.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(3)
    obs, info = nxt.reset()
    same_obs, same_info = same.reset()
    ends = 0
    while ends < 3:
        assert np.array_equal(obs, same_obs) and np.array_equal(info["action_mask"], same_info["action_mask"])
        assert np.array_equal(nxt.game_seeds(), same.game_seeds())
        actions = random_masked(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = nxt.step(actions)
        same_obs, same_reward, same_term, same_trunc, same_info = same.step(actions)
        assert reward == same_reward and terminated == same_term and truncated == same_trunc
        if terminated[0] or truncated[0]:
            ends += 1
            assert not info["action_mask"].any() and info["_returns"][0]
            assert np.array_equal(obs[0], same_info["final_obs"][0])
            assert info["learner_seat"][0] == same_info["final_info"]["learner_seat"][0]
            assert reward[0] == info["returns"][0, info["learner_seat"][0]]
            obs, reward, terminated, truncated, info = nxt.step(np.array([nxt.game_spec.num_actions + 5]))
            assert reward[0] == 0 and not terminated[0] and not truncated[0]


def test_next_step_slots_wait_one_step_each():
    """With many slots, the slots that just ended sit out one step while the others play on."""
    game_id = "monster_arena-v0"
    env = monster_zoo.make_vector_env(game_id, 6, seed=8, autoreset_mode="NextStep", **small(game_id))
    rng = np.random.default_rng(6)
    obs, info = env.reset()
    waiting = np.zeros(6, bool)
    waited = 0
    for _ in range(200):
        actions = random_masked(np.where(waiting[:, None], True, info["action_mask"]), rng)
        kept = env.games.states[waiting].copy()
        obs, reward, terminated, truncated, info = env.step(actions)
        assert np.array_equal(env.games.states[waiting], kept)
        assert (reward[waiting] == 0).all() and not (terminated | truncated)[waiting].any()
        assert info["action_mask"][waiting].any(axis=1).all()
        waited += waiting.sum()
        waiting = terminated | truncated
        assert not info["action_mask"][waiting].any()
    assert waited >= 6


def test_next_step_reward_and_episode_statistics():
    """gymnasium's RecordEpisodeStatistics counts each game's return and learner decisions under
    NextStep; NormalizeReward keeps rewards finite and scaled."""
    game_id = "marry_the_monster-v0"
    env = RecordEpisodeStatistics(
        monster_zoo.make_vector_env(game_id, 4, seed=2, autoreset_mode="NextStep", **small(game_id))
    )
    rng = np.random.default_rng(4)
    obs, info = env.reset()
    lengths = np.zeros(4, int)
    waiting = np.zeros(4, bool)
    episodes = 0
    for _ in range(300):
        actions = random_masked(np.where(waiting[:, None], True, info["action_mask"]), rng)
        obs, reward, terminated, truncated, info = env.step(actions)
        lengths[~waiting] += 1
        done = terminated | truncated
        for i in np.flatnonzero(done):
            episodes += 1
            assert info["episode"]["r"][i] == reward[i] == info["returns"][i, info["learner_seat"][i]]
            assert info["episode"]["l"][i] == lengths[i]
        lengths[done] = 0
        waiting = done
    assert episodes >= 4
    # full-length games, so that they end with wins and losses rather than truncations
    normalized = NormalizeReward(monster_zoo.make_vector_env(game_id, 8, seed=2, num_players=2))
    obs, info = normalized.reset()
    rewards = []
    for _ in range(300):
        obs, reward, terminated, truncated, info = normalized.step(random_masked(info["action_mask"], rng))
        rewards.append(reward)
        raw = np.zeros(8)
        if "final_info" in info:
            final = info["final_info"]
            raw = np.where(info["_final_info"], final["returns"][np.arange(8), final["learner_seat"]], 0)
        assert np.allclose(reward, raw / np.sqrt(normalized.return_rms.var + normalized.epsilon))
    assert np.isfinite(rewards).all() and (np.array(rewards) != 0).any()


def test_gymnasium_make_vec_gives_it():
    game_id = "monster_arena-v0"
    env = gymnasium.make_vec(
        gymnasium_id(game_id), num_envs=3, vectorization_mode="vector_entry_point", num_players=2, seed=7
    )
    assert type(env).__name__ == "LearnerVectorEnv" and env.num_envs == 3
    direct = monster_zoo.make_vector_env(game_id, 3, seed=7, num_players=2)
    assert np.array_equal(env.reset()[0], direct.reset()[0])
    # without vectorization_mode, gymnasium picks the vector entry point too
    assert gymnasium.make_vec(gymnasium_id(game_id), num_envs=2, num_players=2).num_envs == 2


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_seeded_resets_replay_and_unseeded_resets_move_on(game_id):
    env = monster_zoo.make_vector_env(game_id, 3, **small(game_id))
    rng = np.random.default_rng(5)

    def play(seed):
        obs, info = env.reset(seed=seed)
        trace = [obs.copy()]
        r = np.random.default_rng(seed)
        for _ in range(60):
            obs, reward, terminated, truncated, info = env.step(random_masked(info["action_mask"], r))
            trace += [obs.copy(), reward.copy(), terminated.copy(), truncated.copy()]
        return trace

    first, again = play(21), play(21)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    env.reset(seed=21)
    before = env.game_seeds()
    env.step(random_masked(env.action_masks(), rng))
    env.reset()
    assert (env.game_seeds() != before).all()
    mask = np.array([True, False, True])
    kept = env.games.states[1].copy()
    shown = env.game_seeds()
    env.reset(options={"reset_mask": mask})
    assert np.array_equal(env.games.states[1], kept)
    assert env.game_seeds()[1] == shown[1] and (env.game_seeds()[mask] != shown[mask]).all()


def test_render_shows_one_game():
    game_id = "marry_the_monster-v0"
    env = monster_zoo.make_vector_env(game_id, 3, seed=1, render_mode="ansi", **small(game_id))
    env.reset()
    spec = monster_zoo.spec(game_id)
    assert env.render() == spec.to_text(env.games.states[0])
    other = monster_zoo.make_vector_env(
        game_id, 3, seed=1, render_mode="ansi", render_slot=2, **small(game_id)
    )
    other.reset()
    assert other.render() == spec.to_text(other.games.states[2])
    with pytest.raises(ValueError, match=r"pass a slot in 0\.\.2"):
        monster_zoo.make_vector_env(game_id, 3, render_mode="ansi", render_slot=3)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert monster_zoo.make_vector_env(game_id, 2, seed=1).render() is None


def test_penalize_loses_only_the_offending_slot():
    game_id = "mighty_monsters-v0"
    env = monster_zoo.make_vector_env(game_id, 3, seed=4, illegal_action="penalize", **small(game_id))
    obs, info = env.reset()
    actions = random_masked(info["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~info["action_mask"][1])[0])
    obs, reward, terminated, truncated, info = env.step(actions)
    assert terminated[1] and reward[1] == -1 and info["final_info"]["illegal_move"][1]
    assert not info["final_info"]["illegal_move"][[0, 2]].any()


# --- refused inputs: a clear error naming the fix, nothing stepped -----------------------------------
def state_of(env):
    g = env.games
    return [a.copy() for a in (g.states, g.game_rngs, g.seat_rngs, g.policy_rngs, g.learner_seats)]


def unchanged(env, before) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(state_of(env), before))


@pytest.mark.parametrize(
    "actions, words",
    [
        (np.zeros((3, 1), np.int64), "shape (3, 1)"),
        (np.zeros(2, np.int64), "shape (2,)"),
        ([0, 0], "list of 2"),
        (np.zeros(3, np.float32), "not an integer"),
        ("0,0,0", "'0,0,0'"),
    ],
)
def test_bad_actions_are_refused_changing_nothing(actions, words):
    game_id = "monstargh-v0"
    env = monster_zoo.make_vector_env(game_id, 3, seed=4, **small(game_id))
    env.reset()
    before = state_of(env)
    with pytest.raises(IllegalActionError, match=words.replace("(", r"\(").replace(")", r"\)")):
        env.step(actions)
    assert unchanged(env, before)


def test_illegal_and_device_actions_are_refused_changing_nothing():
    game_id = "monster_factory-v0"
    env = monster_zoo.make_vector_env(game_id, 3, seed=4, **small(game_id))
    obs, info = env.reset()
    before = state_of(env)
    actions = random_masked(info["action_mask"], np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~info["action_mask"][2])[0])
    with pytest.raises(
        IllegalActionError, match=r"slot 2: player_\d \(the learner\): action \d+ .* is illegal"
    ):
        env.step(actions)
    assert unchanged(env, before)
    actions[2] = 10**6
    with pytest.raises(IllegalActionError, match=r"slot 2: .* action 1000000 is out of range 0\.\.199"):
        env.step(actions)
    assert unchanged(env, before)
    torch = pytest.importorskip("torch")
    with pytest.raises(IllegalActionError, match=r"actions.cpu\(\).numpy\(\)"):
        env.step(torch.zeros(3, dtype=torch.int64))
    assert unchanged(env, before)
    with pytest.raises(RuntimeError, match="call reset"):
        monster_zoo.make_vector_env(game_id, 2, seed=1).step(np.zeros(2, np.int64))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_envs": 0}, "num_envs=0 is not valid; expected an integer >= 1"),
        ({"num_envs": -3}, "num_envs=-3"),
        ({"num_envs": 2.0}, "num_envs=2.0"),
        ({"num_envs": True}, "num_envs=True"),
        ({"num_envs": 10**13}, "pass num_envs of at most"),
        ({"device": "tpu"}, "valid values: 'cpu', 'cuda'"),
        ({"observation": "image"}, "valid values: 'flat', 'dict'"),
        ({"autoreset_mode": "Later"}, "valid values: 'SameStep', 'NextStep'"),
        ({"render_mode": "rgb_array"}, "valid values: None, 'ansi', 'human'"),
        ({"illegal_action": "ignore"}, "valid values: 'raise', 'penalize'"),
        ({"seed": -1}, "seed -1 is not valid"),
        ({"num_players": 9}, "num_players"),
    ],
)
def test_bad_construction_is_refused(kwargs, words):
    arguments = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        monster_zoo.make_vector_env("marry_the_monster-v0", **arguments)


def test_bad_resets_are_refused_changing_nothing():
    env = monster_zoo.make_vector_env("marry_the_monster-v0", 3, seed=1)
    with pytest.raises(ValueError, match="call reset"):
        env.reset(options={"reset_mask": np.ones(3, bool)})
    env.reset()
    before = state_of(env)
    for seed, options, words in [
        ([1, 2, 3], None, "one seed seeds every slot"),
        (2.5, None, "seed 2.5 is not valid"),
        (None, {"reset_mask": [True, False, True]}, "numpy bool array of shape"),
        (None, {"reset_mask": np.ones(2, bool)}, "numpy bool array of shape"),
        (None, {"speed": 2}, "unknown reset option"),
    ]:
        with pytest.raises(ValueError, match=words):
            env.reset(seed=seed, options=options)
        assert unchanged(env, before)


def test_cuda_without_a_gpu_is_refused_naming_the_fix():
    done = subprocess.run(
        [sys.executable, "-c", "from numba import cuda; print(cuda.is_available())"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"},
    )
    if done.stdout.strip() == "True":
        pytest.skip("a GPU is here: the cuda env is tested by the device checks")
    with pytest.raises(RuntimeError, match="numba-cuda|device='cpu'"):
        monster_zoo.make_vector_env("marry_the_monster-v0", 2, seed=1, device="cuda")
    with pytest.raises(ValueError, match="autoreset_mode='SameStep'"):
        monster_zoo.make_vector_env("marry_the_monster-v0", 2, device="cuda", autoreset_mode="NextStep")


SIMULATED_SCRIPT = """
import json, warnings
import numpy as np
import torch
import monster_zoo
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
game_id, n, seed = "marry_the_monster-v0", 2, 3
options = {"num_players": 2, "max_steps": 30}
gpu = monster_zoo.make_vector_env(game_id, n, seed=seed, device="cuda", observation="dict", **options)
cpu = monster_zoo.make_vector_env(game_id, n, seed=seed, observation="dict", **options)
obs, info = gpu.reset()
cpu_obs, cpu_info = cpu.reset()
rng = np.random.default_rng(0)
mismatch, ended = None, 0
for t in range(40):
    if not (torch.is_tensor(obs["observation"]) and np.array_equal(obs["observation"].numpy(), cpu_obs["observation"])
            and np.array_equal(info["action_mask"].numpy(), cpu_info["action_mask"])):
        mismatch = f"view at step {t}"
        break
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in cpu_info["action_mask"]])
    obs, reward, term, trunc, info = gpu.step(torch.as_tensor(actions))
    cpu_obs, cpu_reward, cpu_term, cpu_trunc, cpu_info = cpu.step(actions)
    if not (np.array_equal(reward.numpy(), cpu_reward) and np.array_equal(term.numpy(), cpu_term)
            and np.array_equal(trunc.numpy(), cpu_trunc)):
        mismatch = f"step {t}"
        break
    for i in np.flatnonzero(cpu_term | cpu_trunc):
        ended += 1
        if not np.array_equal(info["final_obs"][i].numpy(), cpu_info["final_obs"][i]["observation"]):
            mismatch = f"final view at step {t}"
refused = ""
try:
    gpu.step(np.zeros(n, np.int64))
except ValueError as error:
    refused = str(error)
print(json.dumps({"mismatch": mismatch, "ended": ended, "refused": refused}))
"""


def test_cuda_env_plays_the_cpu_games_under_the_simulator():
    """On device='cuda' (numba-cuda's simulator: the arrays in host memory, torch on the CPU) the
    same seed and actions give the CPU env's observations, masks, rewards, ends and final views as
    torch tensors; a numpy batch of actions is refused naming the fix."""
    pytest.importorskip("torch")
    if subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode:
        pytest.skip("numba-cuda is not installed (the gpu extra)")
    done = subprocess.run(
        [sys.executable, "-c", SIMULATED_SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    result = json.loads(done.stdout.splitlines()[-1])
    assert result["mismatch"] is None and result["ended"] >= 1, result
    assert "torch.as_tensor(actions" in result["refused"]


INFO_KEYS = {"action_mask", "learner_seat"}
FINAL_KEYS = {"returns", "learner_seat", "illegal_move"}


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
def test_info_holds_only_what_the_learner_knows_and_arrays_are_its_own(mode):
    """No seed (it rebuilds the hidden deal) reaches ``info``; writing into what is handed out
    changes no game (the masks the actions are checked against included)."""
    game_id = "mighty_monsters-v0"
    env = monster_zoo.make_vector_env(game_id, 4, seed=3, autoreset_mode=mode, **small(game_id))
    twin = monster_zoo.make_vector_env(game_id, 4, seed=3, autoreset_mode=mode, **small(game_id))
    obs, info = env.reset()
    twin.reset()
    rng = np.random.default_rng(2)
    waiting = np.zeros(4, bool)
    for _ in range(150):
        public = {key for key in info if not key.startswith("_")}
        allowed = INFO_KEYS | (FINAL_KEYS if mode == "NextStep" else {"final_obs", "final_info"})
        assert public <= allowed, sorted(public)
        assert set(info.get("final_info", {})) <= FINAL_KEYS | {f"_{k}" for k in FINAL_KEYS}
        actions = random_masked(np.where(waiting[:, None], True, info["action_mask"]), rng)
        obs[...] = 1.0
        info["action_mask"][...] = True
        obs, reward, terminated, truncated, info = env.step(actions)
        twin.step(actions)
        assert np.array_equal(env.games.states, twin.games.states)
        waiting = (terminated | truncated) & (mode == "NextStep")


@pytest.mark.slow
def test_cleanrl_example_runs_on_cuda_under_the_simulator():
    """The CleanRL-style example's ``--device cuda`` path (tensors handed from the GPU games to the
    network and back), at a few steps under numba-cuda's simulator."""
    pytest.importorskip("torch")
    if subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode:
        pytest.skip("numba-cuda is not installed (the gpu extra)")
    arguments = "--device cuda --num-envs 2 --num-steps 4 --total-timesteps 8 --eval-games 1"
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore",
            str(ROOT / "examples" / "cleanrl_masked_ppo.py"),
            *arguments.split(),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 games on cuda: trained 8 timesteps" in done.stdout and "win rate" in done.stdout
