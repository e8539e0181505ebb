"""The TorchRL environments (``make_torchrl_env``), learner and self-play forms, against TorchRL's own
checker and collector and against the games they batch: ``check_env_specs`` for every game and both
forms, a ``Collector`` with a masked policy in-process, the same games as ``make_vector_env`` and the
AEC env for a seed, and refused inputs that change nothing."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import monster_zoo
from monster_zoo.envs.core.illegal import IllegalActionError

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from tensordict.nn import TensorDictModule  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402
from torchrl.modules import MaskedCategorical, ProbabilisticActor  # noqa: E402

MAX_STEPS = 30


def small(game_id: str) -> dict:
    return {"num_players": monster_zoo.spec(game_id).min_players, "max_steps": MAX_STEPS}


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL's notices about future defaults
        yield


@pytest.mark.parametrize("form", ["learner", "selfplay"])
@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_check_env_specs_passes(game_id, form):
    env = monster_zoo.make_torchrl_env(game_id, 3, form=form, seed=2, **small(game_id))
    assert tuple(env.batch_size) == (3,)
    check_env_specs(env, break_when_any_done="both")
    # long enough that games end and slots restart through TorchRL's partial resets
    rollout = env.rollout(2 * MAX_STEPS + 5, break_when_any_done=False)
    assert rollout["next", "done"].any()
    if form == "learner":
        legal = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1))
        assert legal.all() and rollout["action_mask"].any(-1).all()
    else:
        acting = rollout["agents", "mask"]
        assert (acting.sum(-1) == 1).all(), "exactly one seat acts in every step"
        rewards = rollout["next", "agents", "reward"].squeeze(-1)
        assert (rewards[~rollout["next", "done"].squeeze(-1)] == 0).all()


def masked_policy(env, obs_key, mask_key, action_key):
    """A small MLP whose logits TorchRL's MaskedCategorical samples over the legal actions."""
    spec = monster_zoo.spec("marry_the_monster-v0")
    net = torch.nn.Sequential(
        torch.nn.Linear(spec.obs_size, 32), torch.nn.Tanh(), torch.nn.Linear(32, spec.num_actions)
    )
    module = TensorDictModule(
        net,
        in_keys=[obs_key],
        out_keys=[(*obs_key[:-1], "logits") if isinstance(obs_key, tuple) else "logits"],
    )
    logits = (*obs_key[:-1], "logits") if isinstance(obs_key, tuple) else "logits"
    return ProbabilisticActor(
        module,
        in_keys={"logits": logits, "mask": mask_key},
        out_keys=[action_key],
        distribution_class=MaskedCategorical,
        spec=env.full_action_spec[action_key],
    )


@pytest.mark.parametrize("form", ["learner", "selfplay"])
def test_collector_runs_in_process_with_a_masked_policy(form):
    env = monster_zoo.make_torchrl_env(
        "marry_the_monster-v0", 4, form=form, seed=3, num_players=2, max_steps=MAX_STEPS
    )
    if form == "learner":
        policy = masked_policy(env, "observation", "action_mask", "action")
    else:
        policy = masked_policy(
            env, ("agents", "observation"), ("agents", "action_mask"), ("agents", "action")
        )
    collector = Collector(env, policy, frames_per_batch=64, total_frames=256)
    frames = batches = ends = 0
    mask_key, action_key = (
        ("action_mask", "action") if form == "learner" else (("agents", "action_mask"), ("agents", "action"))
    )
    for batch in collector:
        batches += 1
        frames += batch.numel()
        ends += int(batch["next", "done"].sum())
        assert batch[mask_key].gather(-1, batch[action_key].unsqueeze(-1)).all(), (
            "an illegal action was sampled"
        )
    collector.shutdown()
    assert frames == 256 and batches == 4 and ends >= 4


def test_learner_form_plays_the_vector_env_games():
    """For a seed and the same actions the learner form shows make_vector_env's observations,
    rewards and ends (the ended game's last view where a game ends)."""
    game_id = "monster_arena-v0"
    env = monster_zoo.make_torchrl_env(game_id, 3, seed=9, **small(game_id))
    vec = monster_zoo.make_vector_env(game_id, 3, seed=9, **small(game_id))
    td = env.reset()
    obs, info = vec.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        assert np.array_equal(td["observation"].numpy(), obs) and np.array_equal(
            td["action_mask"].numpy(), info["action_mask"]
        )
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        td["action"] = torch.as_tensor(actions)
        out, td = env.step_and_maybe_reset(td)
        obs, reward, terminated, truncated, info = vec.step(actions)
        nxt = out["next"]
        assert np.array_equal(nxt["reward"].squeeze(-1).numpy(), reward)
        assert np.array_equal(nxt["terminated"].squeeze(-1).numpy(), terminated)
        assert np.array_equal(nxt["truncated"].squeeze(-1).numpy(), truncated)
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            assert np.array_equal(nxt["observation"][i].numpy(), info["final_obs"][i])
            assert not nxt["action_mask"][i].any()
    assert ended >= 3
    env.set_seed(9)
    again = env.reset()
    assert np.array_equal(again["observation"].numpy(), vec.reset(seed=9)[0])


def test_selfplay_form_shows_every_seat_the_aec_view():
    """Slot i's first game is the AEC env's ``reset(seed=seed + i)``: every seat's observation, the
    acting seat and its legal actions, and every seat's final reward."""
    game_id, seed, n = "mighty_monsters-v0", 4, 2
    env = monster_zoo.make_torchrl_env(game_id, n, form="selfplay", seed=seed, **small(game_id))
    aecs = [monster_zoo.make(game_id, **small(game_id)) for _ in range(n)]
    for i, aec in enumerate(aecs):
        aec.reset(seed=seed + i)
    td = env.reset()
    rng = np.random.default_rng(1)
    live = np.ones(n, bool)
    while live.any():
        actions = torch.zeros((n, env.num_players), dtype=torch.int64)
        for i in np.flatnonzero(live):
            aec = aecs[i]
            seat = aec.agents.index(aec.agent_selection)
            assert td["agents", "mask"][i].tolist() == [p == seat for p in range(env.num_players)]
            for p, agent in enumerate(aec.possible_agents):
                assert np.array_equal(
                    td["agents", "observation"][i, p].numpy(), aec.observe(agent)["observation"]
                )
            legal = aec.observe(aec.agent_selection)["action_mask"].astype(bool)
            assert np.array_equal(td["agents", "action_mask"][i, seat].numpy(), legal)
            actions[i, seat] = int(rng.choice(np.flatnonzero(legal)))
        for i in np.flatnonzero(~live):  # a slot past its first game plays on with any legal move
            seat = int(td["agents", "mask"][i].int().argmax())
            actions[i, seat] = int(td["agents", "action_mask"][i, seat].int().argmax())
        td["agents", "action"] = actions
        out, td = env.step_and_maybe_reset(td)
        for i in np.flatnonzero(live):
            aecs[i].step(int(actions[i, aecs[i].agents.index(aecs[i].agent_selection)]))
            if out["next", "done"][i]:
                rewards = out["next", "agents", "reward"][i].squeeze(-1).numpy()
                expected = [aecs[i]._cumulative_rewards[a] for a in aecs[i].possible_agents]
                assert np.allclose(rewards, expected)
                live[i] = False


def test_bad_inputs_are_refused_changing_nothing():
    game_id = "monstargh-v0"
    for kwargs, words in [
        ({"form": "parallel"}, "valid values: 'learner', 'selfplay'"),
        ({"device": "tpu"}, "valid values: 'cpu', 'cuda'"),
        ({"form": "selfplay", "device": "cuda"}, "runs on the CPU"),
        (
            {"form": "selfplay", "illegal_action": "penalize"},
            "leave opponents, weights and illegal_action out",
        ),
        ({"num_envs": 0}, "num_envs=0"),
        ({"form": "selfplay", "num_envs": 0}, "num_envs=0"),
        ({"seed": -2}, "seed -2"),
    ]:
        with pytest.raises(ValueError, match=words):
            monster_zoo.make_torchrl_env(game_id, **{"num_envs": 2, **kwargs})
    env = monster_zoo.make_torchrl_env(game_id, 2, seed=1, **small(game_id))
    td = env.reset()
    states = env.vector_env.games.states.copy()
    td["action"] = (~td["action_mask"]).int().argmax(-1)
    with pytest.raises(IllegalActionError, match="slot 0: player_"):
        env.step(td)
    assert np.array_equal(env.vector_env.games.states, states)
    selfplay = monster_zoo.make_torchrl_env(game_id, 2, form="selfplay", seed=1, **small(game_id))
    td = selfplay.reset()
    states = selfplay.games.states.copy()
    td["agents", "action"] = (~td["agents", "action_mask"]).int().argmax(-1)
    with pytest.raises(IllegalActionError, match="slot 0: player_"):
        selfplay.step(td)
    assert np.array_equal(selfplay.games.states, states)


@pytest.mark.slow  # worker processes start torch and TorchRL: minutes on a busy 2-core machine
def test_multiprocess_collector_runs_over_it():
    """TorchRL's multi-process backend: two worker processes, each building its own env from a factory."""
    from functools import partial

    from torchrl.collectors import MultiSyncCollector

    make = partial(
        monster_zoo.make_torchrl_env, "marry_the_monster-v0", 4, num_players=2, max_steps=MAX_STEPS
    )
    env = make(seed=0)
    policy = masked_policy(env, "observation", "action_mask", "action")
    collector = MultiSyncCollector([make, make], policy, frames_per_batch=128, total_frames=256)
    collector.set_seed(5)
    frames = 0
    for batch in collector:
        frames += batch.numel()
        assert batch["action_mask"].gather(-1, batch["action"].unsqueeze(-1)).all()
    collector.shutdown()
    assert frames == 256


SIMULATED_SCRIPT = """
import json, warnings
import numpy as np
import torch
import monster_zoo
from torchrl.envs.utils import check_env_specs
warnings.simplefilter("ignore")  # splitmix64's uint64 wrap under the simulator; TorchRL's notices
options = {"num_players": 2, "max_steps": 20}
gpu = monster_zoo.make_torchrl_env("monster_arena-v0", 2, device="cuda", seed=3, **options)
cpu = monster_zoo.make_torchrl_env("monster_arena-v0", 2, seed=3, **options)
check_env_specs(gpu)
gpu.set_seed(3)
td, ctd = gpu.reset(), cpu.reset()
same, ends = True, 0
for _ in range(30):
    same &= torch.equal(td["observation"], ctd["observation"]) and torch.equal(td["action_mask"], ctd["action_mask"])
    action = td["action_mask"].int().argmax(-1)
    td["action"], ctd["action"] = action, action.clone()
    out, td = gpu.step_and_maybe_reset(td)
    cout, ctd = cpu.step_and_maybe_reset(ctd)
    same &= torch.equal(out["next", "reward"], cout["next", "reward"]) and torch.equal(out["next", "done"], cout["next", "done"])
    same &= torch.equal(out["next", "observation"], cout["next", "observation"])
    ends += int(cout["next", "done"].sum())
print(json.dumps({"same": bool(same), "ends": ends}))
"""


@pytest.mark.slow  # the simulator runs the rules as Python; the vector env's own simulator test is in the default run
def test_learner_form_on_cuda_plays_the_cpu_games_under_the_simulator():
    """``device="cuda"`` (numba-cuda's simulator: torch on the CPU): TorchRL's checker passes and the
    same seed and actions give the CPU form's observations, masks, rewards and ends."""
    if subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode:
        pytest.skip("numba-cuda is not installed (the gpu extra)")
    done = subprocess.run(
        [sys.executable, "-c", SIMULATED_SCRIPT],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["same"] and result["ends"] >= 1, result
