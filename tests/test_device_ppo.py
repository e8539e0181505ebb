"""The array-side PPO trainer: a tiny run end to end in-process (checkpoints,
policy files that play as ``ppo:``, resume), its rollout read from the engine's arrays, and bad
flags refused before anything is written."""

import csv
import json
import os

import numpy as np
import pytest

# the trainer's own fence around TorchRL's import (importing torchrl bare would set the whole test
# run's multiprocessing start method to spawn)
pytest.importorskip("monster_zoo.training.device_ppo.torchrl_parts")

from monster_zoo.agents import make_agent
from monster_zoo.training.device_ppo import trainer

TINY = [
    "--total-timesteps",
    "512",
    "--num-envs",
    "16",
    "--num-steps",
    "16",
    "--batch-size",
    "64",
    "--snapshot-every",
    "1",
    "--eval-every",
    "256",
    "--eval-games",
    "4",
    "--checkpoint-every",
    "256",
    "--opponents",
    "random:0.3,greedy:0.3,snapshots:0.4",
    "--no-progress",
    "--no-plot",
    "--seed",
    "5",
]


def run(tmp_path, *extra):
    """Train a tiny run into ``tmp_path``; its folder (the newest one)."""
    assert trainer.main([*TINY, "--out-dir", str(tmp_path), *extra]) == 0
    return max(tmp_path.iterdir(), key=lambda p: p.stat().st_mtime_ns)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    return run(tmp_path_factory.mktemp("runs"), "--plot")


def test_a_tiny_run_writes_metrics_checkpoints_and_playable_policy_files(first_run):
    summary = json.loads((first_run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and summary["timesteps_per_second"] > 0
    assert summary["network_dtype"] in ("float32", "bfloat16")
    assert set(summary) >= {"winrate_vs_random", "winrate_vs_greedy"}
    with open(first_run / "metrics.csv") as f:
        metrics = {row["metric"] for row in csv.DictReader(f)}
    assert {"charts/SPS", "rollout/ep_rew_mean", "train/pool_size", "eval/winrate_vs_greedy"} <= metrics
    assert (first_run / "curves.png").read_bytes().startswith(b"\x89PNG")  # --plot: the learning curves
    assert {p.name for p in (first_run / "checkpoints").iterdir()} == {
        "step_256.pt",
        "step_256.npz",
        "step_512.pt",
        "step_512.npz",
    }
    agent = make_agent(f"ppo:{first_run / 'final_model.npz'}", "marry_the_monster-v0")
    from monster_zoo import envs

    env = envs.make("marry_the_monster-v0")
    env.reset(seed=1)
    seen = env.observe(env.agent_selection)
    action = agent.act(seen["observation"], seen["action_mask"])
    assert seen["action_mask"][action] == 1


def test_resume_continues_from_the_checkpoint_timesteps(first_run, tmp_path):
    resumed = run(
        tmp_path, "--resume", str(first_run / "checkpoints" / "step_256.pt"), "--total-timesteps", "768"
    )
    assert json.loads((resumed / "summary.json").read_text())["timesteps"] == 768


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--device", "tpu"], "--device 'tpu' is not one of cpu, cuda"),
        (
            ["--device", "cuda", "--opponents", "mcts:1"],
            "--device cuda plays the opponents on the GPU, where mcts cannot",
        ),
        (["--device", "cuda"], "--device cuda: "),  # no GPU here (or no numba-cuda): what to install or check
        (["--num-envs", "-1"], "--num-envs must be at least 0 (0: the device's default), got -1"),
        (["--batch-size", "1"], "--batch-size must be at least 2, got 1"),
        (["--torch-compile", "fast"], "--torch-compile 'fast' is not one of off, default, reduce-overhead"),
        (["--torch-compile", "default"], "compiling pays on a GPU only"),
        (["--net-arch", "64,x"], "--net-arch"),
        (["--network-dtype", "float16"], "--network-dtype 'float16' is not one of auto, float32, bfloat16"),
        (["--opponents", "greedy:-1"], "WEIGHT >= 0"),
        (["--resume", "/nonexistent/step_1.pt"], "is not a file"),
        (["--game-threads", "-1"], "--game-threads -1: at least 0"),
        (
            ["--device", "cuda", "--game-threads", "2"],
            "--game-threads 2: the games on --device cuda are stepped by",
        ),
    ],
)
def test_bad_flags_are_refused_before_anything_is_written(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit) as exit_:
        trainer.main([*TINY, "--out-dir", str(tmp_path), *flags])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_resume_refuses_another_games_checkpoint_and_files_that_are_not_checkpoints(
    first_run, tmp_path, capsys
):
    for flags, message in [
        (["--option", "num_players=3"], "trained marry_the_monster-v0 with options {}"),
        (["--net-arch", "32"], "cannot start this run"),
    ]:
        with pytest.raises(SystemExit):
            trainer.main(
                [*TINY, "--out-dir", str(tmp_path), "--resume", str(first_run / "final_model.pt"), *flags]
            )
        assert message in capsys.readouterr().err
    not_a_checkpoint = tmp_path / "x.pt"
    not_a_checkpoint.write_bytes(b"not torch")
    with pytest.raises(SystemExit):
        trainer.main([*TINY, "--out-dir", str(tmp_path / "runs"), "--resume", str(not_a_checkpoint)])
    assert "cannot start this run" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_the_rollout_reads_the_engines_arrays_and_acts_only_legally(tmp_path):
    parser = trainer.build_parser()
    args = trainer.Args(**vars(parser.parse_args([*TINY, "--out-dir", str(tmp_path), "--num-steps", "64"])))
    from monster_zoo import envs
    from monster_zoo.training.device_ppo.learner import Learner
    from monster_zoo.training.run_start import new_run

    spec = envs.spec(args.game)
    mix, baselines = trainer._opponent_mix(parser, args, {})
    learner = Learner(spec.obs_size, spec.num_actions, [32], 3e-4, 0.2, 0.01)
    training = trainer.Training(
        args, {}, new_run(tmp_path, args.game, "t", 5, args), learner, mix, baselines, 0
    )
    first = training.games.observations.copy()
    rollout = training.rollout()
    assert np.array_equal(rollout["observations"][0].numpy(), first)
    chosen = rollout["masks"].gather(-1, rollout["actions"].unsqueeze(-1))
    assert bool(chosen.all())  # every action the policy took was legal where it took it
    assert bool((rollout["rewards"][~rollout["dones"]] == 0).all())  # rewards come only when games end
    assert bool(rollout["dones"].any())
    assert training.step == 16 * 64


def test_a_fresh_learner_starts_near_uniform_over_the_legal_actions_as_sb3s_policy_does():
    """The networks start as SB3's MlpPolicy's (orthogonal weights, gain sqrt(2) in the hidden layers and
    0.01 in the policy head, zero biases; Adam's eps 1e-5). torch's own initialisation shrinks the
    signal layer by layer (hidden activations a quarter of these) and left legal logits up to 0.27
    apart here (these: 0.017); its agent was weaker after equal wall time with the default mix (0.415
    against greedy, 0.56 with this start, same seed and defaults otherwise: docs/guides/gpu.md)."""
    import torch

    from monster_zoo import envs
    from monster_zoo.envs.core.selfplay import LearnerGames
    from monster_zoo.training.device_ppo.learner import Learner

    spec = envs.spec("marry_the_monster-v0")
    games = LearnerGames(spec, envs.config("marry_the_monster-v0", {"num_players": 2}), 64, seed=3)
    observations, masks = (torch.from_numpy(np.array(a)) for a in games.reset())
    torch.manual_seed(0)
    learner = Learner(spec.obs_size, spec.num_actions, [128, 128], 3e-4, 0.2, 0.01)
    logits = learner.actor_net(observations).detach()
    legal = masks.bool()
    spread = logits.masked_fill(~legal, -np.inf).amax(-1) - logits.masked_fill(~legal, np.inf).amin(-1)
    assert float(spread.max()) < 0.05, spread.max()  # probabilities within 5% of uniform
    assert all(
        float(layer.bias.detach().abs().max()) == 0 for layer in learner.actor_net if hasattr(layer, "bias")
    )
    assert learner.optimizer.defaults["eps"] == 1e-5


def masked_rows(seed=0):
    """Logits and masks of 3 rows over 6 actions, a few legal per row (the first and last illegal in one)."""
    import torch

    logits = torch.randn(3, 6, generator=torch.Generator().manual_seed(seed)) * 2
    masks = torch.tensor(
        [
            [False, True, False, True, True, False],
            [True, False, False, False, False, True],
            [False, False, True, False, False, False],
        ]
    )
    return logits, masks


def test_masked_sampling_draws_the_softmax_over_the_legal_actions_and_never_an_illegal_one():
    """The rollout's sampler (inverse cumulative probabilities, not TorchRL's distribution object):
    frequencies over 200,000 draws per row within 0.005 of the softmax over the legal actions, log-
    probabilities those of TorchRL's MaskedCategorical, which the update's loss reads."""
    import torch

    from monster_zoo.training.device_ppo.learner import sample_masked
    from monster_zoo.training.device_ppo.torchrl_parts import MaskedCategorical

    logits, masks = masked_rows()
    draws = 200_000
    torch.manual_seed(0)
    actions, log_probs = sample_masked(logits.repeat(draws, 1), masks.repeat(draws, 1))
    assert bool(masks.repeat(draws, 1).gather(-1, actions.unsqueeze(-1)).all())  # never an illegal action
    frequencies = torch.stack([torch.bincount(actions[k::3], minlength=6) for k in range(3)]).double() / draws
    expected = torch.softmax(logits.masked_fill(~masks, float("-inf")), -1).double()
    assert float((frequencies - expected).abs().max()) < 0.005, (frequencies, expected)
    reference = MaskedCategorical(logits=logits.repeat(draws, 1), mask=masks.repeat(draws, 1)).log_prob(
        actions
    )
    assert torch.allclose(log_probs, reference, atol=1e-5)


@pytest.mark.parametrize("uniform", [0.0, 1.0])
def test_masked_sampling_stays_on_legal_actions_at_the_ends_of_the_uniform_draw(monkeypatch, uniform):
    """A draw of 0 takes the first legal action (not an illegal action 0), and one at the legal total
    (rounding can put it there) the last legal action, never an index past it."""
    import torch

    from monster_zoo.training.device_ppo.learner import sample_masked

    logits, masks = masked_rows()
    monkeypatch.setattr(torch, "rand_like", lambda t: torch.full_like(t, uniform))
    actions, log_probs = sample_masked(logits, masks)
    legal = [torch.nonzero(row).flatten().tolist() for row in masks]
    assert actions.tolist() == [row[0] if uniform == 0 else row[-1] for row in legal]
    assert bool(torch.isfinite(log_probs).all())


def tiny_rollout(learner, steps=4, games=8):
    """A rollout of random observations in which action 0, always legal, earned +1 and the rest -1."""
    import torch

    generator = torch.Generator().manual_seed(1)
    observations = torch.rand(steps, games, learner.actor_net[0].in_features, generator=generator)
    masks = torch.rand(steps, games, learner.actor_net[-1].out_features, generator=generator) < 0.5
    masks[..., 0] = True
    actions, log_probs, values = learner.act(observations.flatten(0, 1), masks.flatten(0, 1))
    assert log_probs.dtype == values.dtype == torch.float32  # whatever the networks' precision
    actions, log_probs, values = (x.view(steps, games).clone() for x in (actions, log_probs, values))
    return {
        "observations": observations,
        "masks": masks,
        "actions": actions,
        "log_probs": log_probs,
        "values": values,
        "rewards": torch.where(actions == 0, 1.0, -1.0),
        "dones": torch.ones(steps, games, dtype=torch.bool),
        "next_value": torch.zeros(games),
    }


@pytest.mark.parametrize(
    "shared_trunk, network_dtype",
    [(False, "float32"), (False, "bfloat16"), (True, "float32"), (True, "bfloat16")],
)
def test_an_update_moves_the_policy_toward_the_rewarded_action_in_every_precision_and_layout(
    shared_trunk, network_dtype
):
    """bfloat16 runs the networks' passes under autocast; the weights stay float32. A shared trunk is one
    set of tensors in both networks and in Adam (once), and the value loss's gradient reaches it
    (TorchRL's ``separate_losses`` left off)."""
    import torch

    from monster_zoo.training.device_ppo.learner import Learner

    torch.manual_seed(0)
    learner = Learner(12, 5, [16, 16], 1e-2, 0.2, 0.0, shared_trunk=shared_trunk, network_dtype=network_dtype)
    rollout = tiny_rollout(learner)
    observations, masks = rollout["observations"].flatten(0, 1), rollout["masks"].flatten(0, 1)

    def first_action_log_prob():
        with torch.no_grad():
            logits = learner.actor_net(observations).masked_fill(~masks, float("-inf"))
            return float(torch.log_softmax(logits, -1)[:, 0].mean())

    before = first_action_log_prob()
    for _ in range(5):
        learner.update(rollout, 0.99, 0.95, 2, 16, torch.Generator().manual_seed(0))
    assert first_action_log_prob() > before + 0.05
    assert all(p.dtype == torch.float32 for p in learner.parameters)
    assert (learner.critic_net[0].weight is learner.actor_net[0].weight) == shared_trunk
    assert (
        len(learner.parameters)
        == len({id(p) for p in learner.optimizer.param_groups[0]["params"]})
        == (6 + 2 if shared_trunk else 12)
    )
    learner.optimizer.zero_grad()
    value_loss = learner.loss(_loss_input(learner, rollout))["loss_critic"]
    value_loss.backward()
    trunk_gradient = learner.actor_net[0].weight.grad
    assert (trunk_gradient is not None and float(trunk_gradient.abs().sum()) > 0) == shared_trunk


def _loss_input(learner, rollout):
    """The loss's input for a rollout: the flattened tensors with advantages and value targets."""
    from monster_zoo.training.device_ppo.torchrl_parts import TensorDict

    n = rollout["actions"].numel()
    return TensorDict(
        {
            "observation": rollout["observations"].flatten(0, 1),
            "action_mask": rollout["masks"].flatten(0, 1),
            "action": rollout["actions"].flatten(),
            learner.log_prob_key: rollout["log_probs"].flatten(),
            "advantage": rollout["rewards"].reshape(-1, 1),
            "value_target": rollout["rewards"].reshape(-1, 1),
        },
        batch_size=[n],
    )


def test_the_command_line_names_the_learners_network_dtypes_and_auto_picks_bfloat16_only_where_native(
    monkeypatch,
):
    """auto: bfloat16 where oneDNN computes it in hardware (this project's AVX512-BF16 EPYC), float32 where
    it would be emulated (slower than float32); a named dtype is kept; a run records the one it used."""
    import torch

    from monster_zoo.training.device_ppo import learner

    assert trainer.NETWORK_DTYPES == ("auto", *learner.NETWORK_DTYPES)
    for native, expected in [(True, "bfloat16"), (False, "float32")]:
        monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: native)
        assert learner.resolve_network_dtype("auto", "cpu") == expected
        assert learner.resolve_network_dtype("float32", "cpu") == "float32"


def test_a_shared_trunk_run_exports_the_actor_as_a_policy_file_that_plays_and_resumes_only_as_shared(
    tmp_path, capsys
):
    """--shared-trunk: the policy file is the trunk and the policy head as a plain MLP (played by
    ``ppo:`` without torch), a checkpoint resumes a shared-trunk run, and a checkpoint is refused by a
    run whose actor and critic are laid out otherwise, both ways."""
    import torch

    from monster_zoo import envs

    shared = run(tmp_path / "shared", "--shared-trunk", "--network-dtype", "bfloat16")
    state = torch.load(shared / "final_model.pt", weights_only=True)
    assert state["shared_trunk"] is True and torch.equal(
        state["actor"]["0.weight"], state["critic"]["0.weight"]
    )
    with np.load(shared / "final_model.npz") as policy:
        for k, index in enumerate((0, 2, 4)):  # the actor's Linear layers: trunk, trunk, policy head
            assert np.allclose(policy[f"actor.{k}.weight"], state["actor"][f"{index}.weight"].numpy().T)
    agent = make_agent(f"ppo:{shared / 'final_model.npz'}", "marry_the_monster-v0")
    env = envs.make("marry_the_monster-v0")
    env.reset(seed=2)
    seen = env.observe(env.agent_selection)
    assert seen["action_mask"][agent.act(seen["observation"], seen["action_mask"])] == 1
    resumed = run(
        tmp_path / "resumed",
        "--shared-trunk",
        "--resume",
        str(shared / "final_model.pt"),
        "--total-timesteps",
        "768",
    )
    assert json.loads((resumed / "summary.json").read_text())["timesteps"] == 768
    separate = run(tmp_path / "separate")
    for checkpoint, flags in [
        (shared / "final_model.pt", []),
        (separate / "final_model.pt", ["--shared-trunk"]),
    ]:
        with pytest.raises(SystemExit):
            trainer.main([*TINY, "--out-dir", str(tmp_path / "refused"), "--resume", str(checkpoint), *flags])
        assert "a trunk, this run's" in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()


def test_the_command_line_forwards_device_train_and_names_the_missing_extra(tmp_path, capsys, monkeypatch):
    import sys

    from monster_zoo.cli.main import main as zoo

    with pytest.raises(SystemExit) as exit_:
        zoo(["device-train", "--device", "cuda", "--out-dir", str(tmp_path)])
    assert exit_.value.code == 2 and "--device cuda: " in capsys.readouterr().err
    for name in [m for m in sys.modules if m.split(".")[0] == "torchrl"] + ["torchrl"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the extra were not installed
    for module in ("learner", "torchrl_parts"):
        monkeypatch.delitem(sys.modules, f"monster_zoo.training.device_ppo.{module}", raising=False)
    assert zoo(["device-train", "--out-dir", str(tmp_path), "--total-timesteps", "1"]) == 1
    assert "pip install -e '.[device-train]'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_few_seconds_of_training_beat_the_untrained_policy_against_random(tmp_path):
    def win_rate_vs_random(folder, timesteps, num_envs):
        assert (
            trainer.main(
                [
                    "--option",
                    "num_players=2",
                    "--opponents",
                    "random:1",
                    "--total-timesteps",
                    timesteps,
                    "--num-envs",
                    num_envs,
                    "--num-steps",
                    "32",
                    "--eval-games",
                    "100",
                    "--eval-every",
                    "0",
                    "--checkpoint-every",
                    "0",
                    "--no-progress",
                    "--no-plot",
                    "--out-dir",
                    str(tmp_path / folder),
                ]
            )
            == 0
        )
        (run_dir,) = (tmp_path / folder).iterdir()
        return json.loads((run_dir / "summary.json").read_text())["winrate_vs_random"]

    # one update on one game's 32 decisions: next to untrained
    untrained, trained = (
        win_rate_vs_random("untrained", "1", "1"),
        win_rate_vs_random("trained", "32768", "256"),
    )
    # measured: 0.11 [0.06, 0.19] untrained, 0.79 [0.70, 0.86] after 32,768 decisions (7 s at load 3)
    assert trained["interval"][0] > max(untrained["interval"][1], 0.5), (untrained, trained)


def test_taking_torchrls_parts_leaves_the_multiprocessing_start_method_as_it_was():
    """Importing torchrl sets the process-wide start method to spawn; the trainer's import puts it
    back, so the leaderboard's and tournaments' process pools still fork (a fresh interpreter, since
    this one may have imported torchrl already)."""
    import subprocess
    import sys

    probe = (
        "import multiprocessing as mp; before = mp.get_start_method(allow_none=True); "
        "import monster_zoo.training.device_ppo.learner; "
        "assert mp.get_start_method(allow_none=True) == before, mp.get_start_method(allow_none=True); "
        "import torchrl; print(mp.get_start_method(allow_none=True))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


GPU_RUN = """
import json, sys, warnings
from pathlib import Path
import numpy as np
from monster_zoo.training.device_ppo import trainer
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
out = Path(sys.argv[1])
flags = ["--total-timesteps", "256", "--num-envs", "4", "--num-steps", "16", "--batch-size", "32",
         "--snapshot-every", "1", "--eval-every", "0", "--eval-games", "2", "--checkpoint-every", "128",
         "--no-progress", "--no-plot", "--seed", "3"]
for name, extra in [("cpu", ["--device", "cpu", "--opponents", "random:1"]),
                    ("cuda", ["--device", "cuda", "--opponents", "random:1"]),
                    ("cuda_mix", ["--device", "cuda", "--opponents", "random:0.1,greedy:0.5,snapshots:0.4"])]:
    assert trainer.main([*flags, *extra, "--out-dir", str(out / name)]) == 0
    (run,) = (out / name).iterdir()
    weights = np.load(run / "final_model.npz")
    print(json.dumps({"name": name, "summary": json.loads((run / "summary.json").read_text()),
                      "checkpoints": sorted(p.name for p in (run / "checkpoints").iterdir()),
                      "weights": {k: weights[k].tolist() for k in weights.files if k.startswith("actor.")}}))
"""


def test_device_train_on_the_gpu_driver_under_the_simulator_trains_as_on_the_cpu(tmp_path):
    """``--device cuda`` end to end under numba-cuda's simulator (the GPU learner-seat games run as
    Python, torch on the CPU): with random opponents the same seed gives the very model the CPU
    engine's run gives (the same games, observations, masks and rewards, so the same updates); with
    the default mix greedy plays inside the games' threads and the frozen torch copies their seats;
    both write checkpoints and policy files."""
    import os
    import subprocess
    import sys

    if subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode:
        pytest.skip("numba-cuda is not installed (the gpu extra; make test installs it)")
    done = subprocess.run(
        [sys.executable, "-c", GPU_RUN, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = {r["name"]: r for r in map(json.loads, [x for x in done.stdout.splitlines() if x.startswith("{")])}
    for run in runs.values():
        assert run["summary"]["timesteps"] == 256, run["summary"]
        assert run["checkpoints"] == ["step_128.npz", "step_128.pt", "step_256.npz", "step_256.pt"]
    assert runs["cuda"]["summary"]["device"] == "cuda" and runs["cpu"]["summary"]["device"] == "cpu"
    assert runs["cuda"]["weights"] == runs["cpu"]["weights"] and len(runs["cpu"]["weights"]) == 6
    assert runs["cuda_mix"]["weights"] != runs["cuda"]["weights"]
    assert runs["cuda"]["summary"]["rollout_seconds"] > 0 and runs["cuda"]["summary"]["update_seconds"] > 0


def test_the_games_and_the_trained_policy_are_the_same_for_any_count_of_game_threads(tmp_path):
    runs = {threads: run(tmp_path / str(threads), "--game-threads", str(threads)) for threads in (1, 3)}
    summaries = {k: json.loads((folder / "summary.json").read_text()) for k, folder in runs.items()}
    assert {k: s["game_threads"] for k, s in summaries.items()} == {1: 1, 3: 3}
    import torch

    states = {k: torch.load(folder / "final_model.pt", weights_only=True) for k, folder in runs.items()}
    for network in ("actor", "critic"):
        for name, tensor in states[1][network].items():
            assert torch.equal(tensor, states[3][network][name]), (network, name)
    assert summaries[1]["winrate_vs_greedy"] == summaries[3]["winrate_vs_greedy"]


def test_a_mix_with_an_opponent_acting_from_python_keeps_the_games_on_one_thread(tmp_path):
    class FromPython:  # no numba policy: act_batch is called from Python
        name = "first-legal"

        def act_batch(self, observations, masks, states=None):
            return np.argmax(masks != 0, axis=1).astype(np.int64)

    parser = trainer.build_parser()
    args = trainer.Args(
        **vars(
            parser.parse_args([*TINY, "--out-dir", str(tmp_path), "--num-envs", "256", "--game-threads", "2"])
        )
    )
    from monster_zoo import envs
    from monster_zoo.training.device_ppo.learner import Learner
    from monster_zoo.training.run_start import new_run

    spec = envs.spec(args.game)
    learner = Learner(spec.obs_size, spec.num_actions, [32], 3e-4, 0.2, 0.01)
    new = new_run(tmp_path, args.game, "t", 5, args)
    mixes = {
        "greedy": ({"greedy": 1.0}, trainer._opponent_mix(parser, args, {})[1]),
        "python": ({"python": 1.0}, {"python": FromPython()}),
    }
    threads = {
        k: trainer.Training(args, {}, new, learner, mix, baselines, 0).game_threads
        for k, (mix, baselines) in mixes.items()
    }
    assert threads == {"greedy": 2, "python": 1}
    assert trainer.game_threads(0, 256) == min(len(os.sched_getaffinity(0)), 4)
    assert trainer.game_threads(0, 16) == 1 and trainer.game_threads(8, 5) == 5


# every way a tensor's values reach the host (each one waits for the GPU's queued work on a GPU)
HOST_READS = ("item", "tolist", "cpu", "__bool__", "__float__", "__int__")


def count_host_reads(monkeypatch, optimizer) -> dict:
    """Count, from now on, every read of a tensor's values on the host and every wait for the GPU
    (torch's and numba's synchronize, a numba device array's copy to the host); the trainer's own
    :func:`~monster_zoo.training.device_ppo.trainer.read_back` is counted apart, and what it reads
    is not counted again. Adam's step counts of ``optimizer`` are not counted: torch keeps them on
    the host on every device (neither capturable nor fused), so reading them waits for nothing."""
    import torch
    from numba import cuda

    counts = {"read_back": 0, "other": []}
    inside = []

    def on_the_host(tensor) -> bool:
        return any(tensor is state.get("step") for state in optimizer.state.values())

    def counted(name, original):
        def wrapper(*args, **kwargs):
            if not inside and not (args and on_the_host(args[0])):
                counts["other"].append(name)
            return original(*args, **kwargs)

        return wrapper

    for name in HOST_READS:
        monkeypatch.setattr(torch.Tensor, name, counted(name, getattr(torch.Tensor, name)))
    monkeypatch.setattr(torch.cuda, "synchronize", counted("torch.cuda.synchronize", torch.cuda.synchronize))
    monkeypatch.setattr(cuda, "synchronize", counted("numba.cuda.synchronize", cuda.synchronize))
    try:
        device_array = type(cuda.to_device(np.zeros(1)))
    except cuda.CudaSupportError:  # neither a GPU nor the simulator: no device array to read from
        device_array = None
    if device_array is not None:
        monkeypatch.setattr(device_array, "copy_to_host", counted("copy_to_host", device_array.copy_to_host))
    read_back = trainer.read_back

    def one_read(figures):
        counts["read_back"] += 1
        inside.append(True)
        try:
            return read_back(figures)
        finally:
            inside.pop()

    monkeypatch.setattr(trainer, "read_back", one_read)
    return counts


def training_for(tmp_path, *flags):
    """A :class:`trainer.Training` of ``TINY`` and ``flags`` (no snapshots taken while it trains)."""
    parser = trainer.build_parser()
    args = trainer.Args(
        **vars(parser.parse_args([*TINY, "--out-dir", str(tmp_path), "--snapshot-every", "1000", *flags]))
    )
    from monster_zoo import envs
    from monster_zoo.training.device_ppo.learner import Learner
    from monster_zoo.training.run_start import new_run

    spec = envs.spec(args.game)
    mix, baselines = trainer._opponent_mix(parser, args, {})
    learner = Learner(
        spec.obs_size, spec.num_actions, [32], 3e-4, 0.2, 0.01, trainer.torch_device(args.device)
    )
    return trainer.Training(args, {}, new_run(tmp_path, args.game, "t", 5, args), learner, mix, baselines, 0)


def test_an_update_reads_back_from_the_device_once_and_logs_its_losses(tmp_path, monkeypatch):
    """The rollout, the update's minibatches (TorchRL's loss included) and the logging read nothing
    of a tensor on the host but the one :func:`read_back` per update, whose figures are then logged:
    on a GPU no minibatch waits for the host."""
    training = training_for(
        tmp_path, "--total-timesteps", "768", "--eval-every", "0", "--checkpoint-every", "0"
    )
    counts = count_host_reads(monkeypatch, training.learner.optimizer)
    training.train()
    training.metrics.close()
    assert training.updates == 3 and counts == {"read_back": 3, "other": []}
    with open(training.run.dir / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    for name in trainer.LOSS_METRICS:
        values = [float(r["value"]) for r in rows if r["metric"] == name]
        assert len(values) == 3 and all(np.isfinite(values)), name
    means = [float(r["value"]) for r in rows if r["metric"] == "rollout/ep_rew_mean"]
    assert 1 <= len(means) <= 3 and all(-1 <= m <= 1 for m in means)  # once games have ended
    assert training.seconds["rollout"] > 0 and training.seconds["update"] > 0


def test_the_loss_figures_are_the_mean_over_every_minibatch_of_every_epoch():
    """:meth:`Learner.update` returns each loss's mean over its minibatches as a device tensor; the
    same rollout and generator give the same figures as the minibatches' own losses averaged."""
    import torch

    from monster_zoo.training.device_ppo.learner import LOSSES, Learner

    torch.manual_seed(0)
    learner = Learner(12, 5, [16], 1e-2, 0.2, 0.01)
    rollout = tiny_rollout(learner)
    seen = []
    step = learner._minibatch_step

    def recorded(batch):
        seen.append(step(batch))
        return seen[-1]

    learner._minibatch_step = recorded
    figures = learner.update(rollout, 0.99, 0.95, 2, 16, torch.Generator().manual_seed(0))
    assert isinstance(figures, torch.Tensor) and figures.shape == (len(LOSSES),)
    minibatches = 2 * -(-rollout["actions"].numel() // 16)
    assert len(seen) == minibatches
    assert torch.allclose(figures, torch.stack(seen).mean(0))


def test_the_device_sizes_fill_the_gpu_up_to_a_quarter_of_its_memory(tmp_path, monkeypatch):
    """``--num-envs 0`` and ``--batch-size 0`` are the device's defaults: the CPU's measured sizes;
    on a GPU the most games (a power of two, 1,024 to 65,536) whose rollout takes at most a quarter
    of its memory, in 32 minibatches; sizes given are kept."""
    import torch

    from monster_zoo import envs

    monkeypatch.setattr(trainer, "torch_device", lambda device: device)
    parser = trainer.build_parser()

    def sizes(memory_gib, game, *flags):
        properties = type("Properties", (), {"total_memory": memory_gib * 2**30})
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: properties)
        args = trainer.Args(**vars(parser.parse_args(["--game", game, *flags])))
        spec = envs.spec(game)
        resolved = trainer.device_sizes(args, spec.obs_size, spec.num_actions)
        return resolved.num_envs, resolved.batch_size

    assert sizes(0, "marry_the_monster-v0", "--device", "cpu") == (512, 2048)
    assert sizes(141, "marry_the_monster-v0", "--device", "cuda") == (65536, 65536)
    # Monster Factory's observation is 12 times Marry the Monster's: fewer games fit
    factory = sizes(24, "monster_factory-v0", "--device", "cuda")
    assert factory == (4096, 4096)
    assert (
        3 * 32 * (4 * 3483 + 200) * factory[0] <= 24 * 2**30 / 4 < 3 * 32 * (4 * 3483 + 200) * 2 * factory[0]
    )
    assert sizes(1, "monster_factory-v0", "--device", "cuda")[0] == 1024
    assert sizes(
        141, "marry_the_monster-v0", "--device", "cuda", "--num-envs", "100", "--num-steps", "8"
    ) == (
        100,
        2048,
    )
    assert sizes(141, "marry_the_monster-v0", "--device", "cuda", "--batch-size", "96") == (65536, 96)


def test_torch_compile_runs_the_policy_step_and_the_gradient_step_compiled(monkeypatch):
    """``compile_mode`` hands both steps to ``torch.compile`` in that mode, and the learner calls what
    it returns (the compile itself is the device check's: on a CPU it is refused)."""
    import torch

    from monster_zoo.training.device_ppo.learner import Learner

    compiled = []

    def fake_compile(function, mode):
        def run(*args):
            compiled.append((function.__name__, mode))
            return function(*args)

        return run

    monkeypatch.setattr(torch, "compile", fake_compile)
    learner = Learner(12, 5, [16], 1e-2, 0.2, 0.01, compile_mode="reduce-overhead")
    rollout = tiny_rollout(learner)
    compiled.clear()
    learner.act(rollout["observations"][0], rollout["masks"][0])
    learner.update(rollout, 0.99, 0.95, 1, rollout["actions"].numel(), torch.Generator().manual_seed(0))
    assert compiled == [("_act", "reduce-overhead"), ("_step", "reduce-overhead")]
    with pytest.raises(ValueError, match="compile mode 'fast' is not one of off, default"):
        Learner(12, 5, [16], 1e-2, 0.2, 0.01, compile_mode="fast")


SIMULATED_AUDIT = """
import json, sys, warnings
from pathlib import Path
import pytest
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
sys.path.insert(0, sys.argv[2])
import test_device_ppo as t
from monster_zoo.training.device_ppo import trainer
with pytest.MonkeyPatch.context() as monkeypatch:
    training = t.training_for(Path(sys.argv[1]), "--device", "cuda", "--opponents", "random:0.5,greedy:0.5",
                              "--num-envs", "4", "--num-steps", "8", "--batch-size", "16",
                              "--total-timesteps", "96", "--eval-every", "0", "--checkpoint-every", "0")
    counts = t.count_host_reads(monkeypatch, training.learner.optimizer)
    training.train()
print(json.dumps({"updates": training.updates, **counts}))
"""


def simulated(script: str, *arguments: str, timeout: int = 600):
    """Run ``script`` with ``arguments`` under numba-cuda's simulator; skip where numba-cuda is missing."""
    import subprocess
    import sys

    if subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode:
        pytest.skip("numba-cuda is not installed (the gpu extra; make test installs it)")
    done = subprocess.run(
        [sys.executable, "-c", script, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_on_the_gpu_driver_an_update_reads_back_once_and_a_rollout_never(tmp_path):
    """``--device cuda`` under numba-cuda's simulator: the games' steps, the opponents inside the
    games' threads, the illegal-action count and the update read nothing back but the update's one
    :func:`read_back` (no ``copy_to_host``, no synchronize, no tensor read on the host)."""
    (counts,) = simulated(SIMULATED_AUDIT, str(tmp_path), os.path.dirname(__file__))
    assert counts == {"updates": 3, "read_back": 3, "other": []}


EVERY_GAME = """
import json, sys, warnings
from pathlib import Path
import monster_zoo
from monster_zoo.training.device_ppo import trainer
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
out = Path(sys.argv[1])
for game in monster_zoo.available():
    spec = monster_zoo.spec(game)
    for players in sorted({spec.min_players, spec.max_players}):
        folder = out / f"{game}-{players}"
        code = trainer.main(["--game", game, "--option", f"num_players={players}", "--device", "cuda",
                             "--opponents", "random:0.5,snapshots:0.5", "--num-envs", "2", "--num-steps", "4",
                             "--batch-size", "4", "--total-timesteps", "16", "--snapshot-every", "1",
                             "--eval-every", "0", "--eval-games", "1", "--checkpoint-every", "0",
                             "--network-dtype", "bfloat16" if players > spec.min_players else "float32",
                             "--no-progress", "--no-plot", "--out-dir", str(folder)])
        (run,) = folder.iterdir()
        print(json.dumps({"game": game, "players": players, "code": code,
                          "summary": json.loads((run / "summary.json").read_text())}))
"""


@pytest.mark.slow
def test_device_train_on_the_gpu_driver_runs_for_every_game_and_its_fewest_and_most_players(tmp_path):
    """Every game at its smallest and largest player count trains with ``--device cuda`` under the
    simulator (random opponents inside the games' threads, snapshots as torch networks), the most
    players in bfloat16: the learner-seat kernels of every game run, whatever their tables."""
    import monster_zoo

    runs = simulated(EVERY_GAME, str(tmp_path), timeout=1800)
    expected = {
        (game, players)
        for game in monster_zoo.available()
        for players in {monster_zoo.spec(game).min_players, monster_zoo.spec(game).max_players}
    }
    assert {(r["game"], r["players"]) for r in runs} == expected
    for r in runs:
        summary = r["summary"]
        assert r["code"] == 0 and summary["device"] == "cuda" and summary["timesteps"] == 16, r
        most = r["players"] == monster_zoo.spec(r["game"]).max_players
        assert summary["network_dtype"] == ("bfloat16" if most else "float32"), r
        assert summary["opponent_rounds"] >= 1, r  # the snapshots' rounds ran
