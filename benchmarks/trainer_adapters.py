"""The trainer adapters against the way a user reaches the games without them, as ratios in one run.

    python -m monster_zoo.benchmarks.trainer_adapters                      # the full comparison
    python -m monster_zoo.benchmarks.trainer_adapters --quick              # a smoke test; numbers mean little
    python -m monster_zoo.benchmarks.trainer_adapters --only-race --race 180  # CleanRL example vs device-train

Three comparisons and a race, each comparison timed ``--repeats`` times with the two sides interleaved (so that other load
moves both alike), medians reported:

* **gymnasium**, at each of ``--counts`` games: learner decisions per second of
  ``make_vector_env`` stepped with uniformly random legal actions against gymnasium's own
  ``SyncVectorEnv`` over as many ``make_learner_env`` (what a gymnasium user builds without it),
  the same actions drawn the same way from ``info["action_mask"]``, ``--steps`` steps a repeat;
* **TorchRL**: frames per second of a TorchRL ``Collector`` with a small masked MLP policy
  (``MaskedCategorical``) over ``make_torchrl_env(form="learner")`` of ``--torchrl-envs`` games,
  against the same collector and policy over TorchRL's ``PettingZooWrapper`` of the AEC env
  (``monster_zoo.make``), one game, every seat in one group; ``--frames`` frames a repeat. A frame
  is one decision of the policy in both (the learner env's opponents move inside its step);
* **RLlib** (with ``--rllib``): module decisions per second that one local env runner samples
  (RLlib's ``synchronous_parallel_sample``) with :func:`~monster_zoo.training.rllib.vector.vector_ppo_config`
  (``--rllib-envs`` learner games through the batched engine) against
  :func:`~monster_zoo.training.rllib.ppo.ppo_config` (one game of the multi-agent ``RLlibGameEnv``),
  the same network (``fcnet_hiddens`` 64, 64); ``--rllib-steps`` decisions a repeat;
* **the race** (with ``--race SECONDS``): ``examples/cleanrl_masked_ppo.py`` at its full settings
  (1024 games, 64 steps, against greedy) and ``monster-zoo device-train`` at its defaults, each
  trained for the same wall time, one after the other; then each final policy (its most likely legal
  action) plays ``--race-games`` games against greedy and against random by one evaluation, device-train's
  own (seats rotated, 95% Wilson intervals). Reported: each trainer's timesteps, timesteps/s and win
  rates, and the ratio of the rates.

Every line printed is JSON: first the run's facts (git revision and whether the tree was dirty,
CPU, cores, versions, 1-minute load), then one line per comparison with each side's repeats, their
medians and the ratio, and the load after it. ``--json PATH`` also appends them to ``PATH``.
Needs the ``torchrl`` extra, for the PettingZoo side the ``bench`` extra (pettingzoo) and for
``--rllib`` the ``distributed`` extra.
Timings need a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.benchmarks.bench import _git, _package_version
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.evaluation.host import host_facts


def parse_args(argv=None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.trainer_adapters",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--game", default="marry_the_monster-v0", help="registry id of the game")
    parser.add_argument("--num-players", type=int, default=2, help="players")
    parser.add_argument(
        "--counts", default="64,1024", help="comma-separated game counts of the gymnasium comparison"
    )
    parser.add_argument("--steps", type=int, default=40, help="vector steps per gymnasium repeat")
    parser.add_argument("--torchrl-envs", type=int, default=256, help="games of the TorchRL env")
    parser.add_argument("--frames", type=int, default=8192, help="collector frames per TorchRL repeat")
    parser.add_argument("--rllib", action="store_true", help="also compare RLlib's sampling (starts Ray)")
    parser.add_argument(
        "--rllib-envs", type=int, default=256, help="learner games of the RLlib vector runner"
    )
    parser.add_argument("--rllib-steps", type=int, default=4000, help="module decisions per RLlib repeat")
    parser.add_argument(
        "--race",
        type=float,
        default=0.0,
        help="also race the CleanRL example against device-train, seconds each (0: no race)",
    )
    parser.add_argument(
        "--race-games", type=int, default=400, help="games against each baseline after the race"
    )
    parser.add_argument("--only-race", action="store_true", help="run the race alone (needs --race)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats of each side; medians reported")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the actions")
    parser.add_argument("--quick", action="store_true", help="tiny sizes for a smoke test")
    parser.add_argument("--json", type=Path, default=None, help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.game not in envs.available():
        parser.error(f"unknown game {args.game!r}; valid: {', '.join(envs.available())}")
    try:
        args.counts = [int(n) for n in args.counts.split(",")]
    except ValueError:
        parser.error(f"--counts {args.counts!r}: expected comma-separated integers such as 64,1024")
    if args.quick:
        args.counts, args.steps, args.torchrl_envs, args.frames, args.repeats = [4], 3, 4, 64, 1
        args.rllib_envs, args.rllib_steps = 4, 100
        args.race, args.race_games = min(args.race, 5.0), min(args.race_games, 8)
    if args.race < 0:
        parser.error(f"--race {args.race}: expected seconds of wall time per trainer, 0 or more")
    if args.only_race and not args.race:
        parser.error("--only-race needs --race SECONDS (the wall time of each trainer)")
    sizes = [args.steps, args.torchrl_envs, args.frames, args.repeats, args.rllib_envs, args.rllib_steps]
    if min([*sizes, *args.counts, args.race_games]) < 1:
        parser.error(
            "--counts, --steps, --torchrl-envs, --frames, --rllib-envs, --rllib-steps, --race-games and --repeats"
            " must be at least 1"
        )
    return args


def random_legal(masks: np.ndarray, draws: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (the largest uniform draw among the legal)."""
    return np.where(masks, draws.random(masks.shape), -1.0).argmax(axis=1)


def steps_per_second(env, steps: int, seed: int) -> float:
    """Learner decisions per second of ``steps`` random legal vector steps of gymnasium vector ``env``."""
    draws = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, _, _, info = env.step(random_legal(info["action_mask"], draws))
    return env.num_envs * steps / (time.perf_counter() - start)


def gymnasium_comparison(args, count: int) -> dict:
    """``make_vector_env`` against ``SyncVectorEnv`` over ``make_learner_env``, ``count`` games each."""
    import gymnasium
    from gymnasium.vector import AutoresetMode

    options = {"num_players": args.num_players}
    ours = envs.make_vector_env(args.game, count, **options)
    theirs = gymnasium.vector.SyncVectorEnv(
        [lambda: envs.make_learner_env(args.game, **options) for _ in range(count)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    steps_per_second(ours, 1, args.seed)  # warm-up: numba's kernels
    steps_per_second(theirs, 1, args.seed)
    sides = {"vector_env": [], "sync_vector_env": []}
    for k in range(args.repeats):
        sides["vector_env"].append(steps_per_second(ours, args.steps, args.seed + k))
        sides["sync_vector_env"].append(steps_per_second(theirs, args.steps, args.seed + k))
    return {
        "comparison": "gymnasium",
        "num_envs": count,
        "steps": args.steps,
        "unit": "learner decisions/s",
        **medians(sides, "vector_env", "sync_vector_env"),
    }


def medians(sides: dict, ours: str, theirs: str) -> dict:
    """Each side's repeats and median, and the ratio of the medians (ours over theirs)."""
    middle = {name: statistics.median(values) for name, values in sides.items()}
    return {
        "repeats": {name: [round(v, 1) for v in values] for name, values in sides.items()},
        "medians": {name: round(v, 1) for name, v in middle.items()},
        "ratio": round(middle[ours] / middle[theirs], 2),
    }


def masked_policy(obs_size: int, num_actions: int, obs_key, mask_key, action_key, spec):
    """A small MLP whose logits TorchRL's ``MaskedCategorical`` samples over the legal actions."""
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    prefix = action_key[:-1] if isinstance(action_key, tuple) else ()
    logits = (*prefix, "logits") if prefix else "logits"
    net = torch.nn.Sequential(
        torch.nn.Linear(obs_size, 64), torch.nn.Tanh(), torch.nn.Linear(64, num_actions)
    )
    return ProbabilisticActor(
        TensorDictModule(net, in_keys=[obs_key], out_keys=[logits]),
        in_keys={"logits": logits, "mask": mask_key},
        out_keys=[action_key],
        distribution_class=MaskedCategorical,
        spec=spec,
    )


def frames_per_second(env, policy, frames: int) -> float:
    """Frames per second of a TorchRL ``Collector`` gathering ``frames`` frames in one batch."""
    from torchrl.collectors import Collector

    collector = Collector(
        env, policy, frames_per_batch=frames, total_frames=frames, auto_register_policy_transforms=False
    )
    start = time.perf_counter()
    collected = sum(batch.numel() for batch in collector)
    seconds = time.perf_counter() - start
    collector.shutdown()
    return collected / seconds


def torchrl_comparison(args) -> dict:
    """A Collector over ``make_torchrl_env`` against one over ``PettingZooWrapper(make(...))``."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    torch.manual_seed(args.seed)
    spec = envs.spec(args.game)
    options = {"num_players": args.num_players}
    ours = envs.make_torchrl_env(args.game, args.torchrl_envs, seed=args.seed, **options)
    our_policy = masked_policy(
        spec.obs_size, spec.num_actions, "observation", "action_mask", "action", ours.action_spec
    )
    aec = envs.make(args.game, **options)
    theirs = PettingZooWrapper(
        aec,
        use_mask=True,
        categorical_actions=True,
        group_map={"agents": list(aec.possible_agents)},
        seed=args.seed,
    )
    their_policy = masked_policy(
        spec.obs_size,
        spec.num_actions,
        ("agents", "observation", "observation"),
        ("agents", "action_mask"),
        ("agents", "action"),
        theirs.full_action_spec["agents", "action"],
    )
    their_policy.module[0].module.load_state_dict(our_policy.module[0].module.state_dict())  # one network
    frames_per_second(ours, our_policy, min(args.frames, 4 * args.torchrl_envs))  # warm-up
    frames_per_second(theirs, their_policy, min(args.frames, 64))
    sides = {"torchrl_env": [], "pettingzoo_wrapper": []}
    for _ in range(args.repeats):
        sides["torchrl_env"].append(frames_per_second(ours, our_policy, args.frames))
        sides["pettingzoo_wrapper"].append(frames_per_second(theirs, their_policy, args.frames))
    return {
        "comparison": "torchrl",
        "num_envs": args.torchrl_envs,
        "frames": args.frames,
        "unit": "collector frames/s",
        **medians(sides, "torchrl_env", "pettingzoo_wrapper"),
    }


def rllib_comparison(args) -> dict:
    """One local RLlib env runner over the batched learner games against one over ``RLlibGameEnv``."""
    import ray
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    from monster_zoo.training.rllib.ppo import ppo_config
    from monster_zoo.training.rllib.vector import vector_ppo_config

    options, network = {"num_players": args.num_players}, {"fcnet_hiddens": [64, 64]}
    configs = {
        "vector_runner": vector_ppo_config(
            args.game, options, num_envs=args.rllib_envs, model_config=network
        ),
        "rllib_env": ppo_config(args.game, options, model_config=network),
    }
    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        algos = {name: config.env_runners(num_env_runners=0).build_algo() for name, config in configs.items()}

        def rate(name: str) -> float:
            start = time.perf_counter()
            episodes = synchronous_parallel_sample(
                worker_set=algos[name].env_runner_group,
                max_env_steps=args.rllib_steps,
                concat=False,
                _uses_new_env_runners=True,
            )
            steps = sum(episode.env_steps() for runner in episodes for episode in runner)
            return steps / (time.perf_counter() - start)

        sides = {name: [] for name in algos}
        for name in algos:
            rate(name)  # warm-up: numba's kernels, torch
        for _ in range(args.repeats):
            for name in algos:
                sides[name].append(rate(name))
        for algo in algos.values():
            algo.stop()
    finally:
        ray.shutdown()
    return {
        "comparison": "rllib",
        "num_envs": args.rllib_envs,
        "steps": args.rllib_steps,
        "unit": "module decisions/s sampled by one env runner",
        **medians(sides, "vector_runner", "rllib_env"),
    }


def load_cleanrl_example():
    """``examples/cleanrl_masked_ppo.py`` as a module (the examples folder is not a package)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "examples" / "cleanrl_masked_ppo.py"
    if not path.is_file():
        raise SystemExit(f"the race needs {path}, which ships with a clone of the repository, not the wheel")
    spec = importlib.util.spec_from_file_location("cleanrl_masked_ppo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rates_record(rates: dict) -> dict:
    """Win rates (``WinRate`` by baseline name) as plain data."""
    return {
        name: {"rate": r.rate, "interval": list(r.interval), "games": r.games} for name, r in rates.items()
    }


def race(args) -> dict:
    """The CleanRL example and device-train, ``args.race`` seconds of training each, then both policies
    evaluated alike against the baselines."""
    import subprocess
    import tempfile

    import torch

    from monster_zoo.agents.ppo.agent import PPOAgent
    from monster_zoo.training.run_start import baseline_rates

    options = {"num_players": args.num_players}
    example = load_cleanrl_example()
    settings = ["--num-envs", "1024", "--num-steps", "64", "--opponent", "greedy"]
    if args.quick:
        settings = ["--num-envs", "16", "--num-steps", "8", "--opponent", "greedy"]
    cleanrl_args = example.parse_args(
        [
            "--game",
            args.game,
            "--num-players",
            str(args.num_players),
            "--seed",
            str(args.seed),
            *settings,
            "--total-timesteps",
            str(10**12),
            "--time-limit",
            str(args.race),
        ]
    )
    torch.manual_seed(cleanrl_args.seed)
    torch.set_num_threads(cleanrl_args.torch_threads)
    opponents = [example.make_agent("greedy", args.game, args.seed, options)]
    vector = envs.make_vector_env(
        args.game, cleanrl_args.num_envs, opponents=opponents, seed=args.seed, **options
    )
    agent = example.Agent(
        vector.single_observation_space.shape[0], vector.single_action_space.n, cleanrl_args.hidden
    )
    timesteps, seconds = example.train(cleanrl_args, vector, agent)
    linears = [m for m in agent.actor if isinstance(m, torch.nn.Linear)]
    layers = [
        (
            m.weight.detach().numpy().T.astype(np.float64),
            m.bias.detach().numpy().astype(np.float64),
            "tanh" if k < len(linears) - 1 else None,
        )
        for k, m in enumerate(linears)
    ]
    policy = PPOAgent(args.seed, layers=layers, deterministic=True)
    cleanrl = {
        "settings": " ".join(settings),
        "timesteps": timesteps,
        "train_seconds": round(seconds, 1),
        "timesteps_per_second": round(timesteps / seconds, 1),
        "winrates": rates_record(
            baseline_rates(policy, args.game, options, args.seed, args.race_games, intervals=True)
        ),
    }
    with tempfile.TemporaryDirectory() as out:
        command = [
            sys.executable,
            "-m",
            "monster_zoo.training.device_ppo",
            "--game",
            args.game,
            "--option",
            f"num_players={args.num_players}",
            "--seed",
            str(args.seed),
            "--time-limit",
            str(args.race / 60),
            "--total-timesteps",
            str(10**12),
            "--eval-every",
            "0",
            "--eval-games",
            str(args.race_games),
            "--checkpoint-every",
            "0",
            "--out-dir",
            out,
            "--no-progress",
            "--no-plot",
        ]
        if args.quick:
            command += ["--num-envs", "16", "--num-steps", "8", "--batch-size", "64"]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        summary = json.loads(next(Path(out).glob("*/summary.json")).read_text(encoding="utf-8"))
    device_train = {
        "settings": "defaults" if not args.quick else "quick",
        "timesteps": summary["timesteps"],
        "train_seconds": summary["train_seconds"],
        "timesteps_per_second": summary["timesteps_per_second"],
        "winrates": {k[len("winrate_vs_") :]: v for k, v in summary.items() if k.startswith("winrate_vs_")},
    }
    return {
        "comparison": "race",
        "seconds_each": args.race,
        "eval_games": args.race_games,
        "unit": "learner timesteps/s; win rates against the baselines, seats rotated",
        "cleanrl_example": cleanrl,
        "device_train": device_train,
        "ratio": round(device_train["timesteps_per_second"] / cleanrl["timesteps_per_second"], 2),
    }


def run_facts(args) -> dict:
    """What the run ran on: git revision, host, versions, settings and the load at its start."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "record": "run",
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "git_revision": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        **host_facts(),
        "versions": {
            name: _package_version(name)
            for name in ("numpy", "numba", "gymnasium", "torch", "torchrl", "pettingzoo", "ray")
        },
        "game": args.game,
        "num_players": args.num_players,
        "repeats": args.repeats,
        "quick": args.quick,
    }


def main(argv=None) -> int:
    """Run both comparisons; print (and with ``--json`` append) one JSON line each, after the run's facts."""
    args = parse_args(argv)
    warnings.filterwarnings("ignore")  # TorchRL's and gymnasium's notices would drown the JSON lines
    lines = [run_facts(args)]
    print(json.dumps(lines[0]), flush=True)
    comparisons = [lambda count=count: gymnasium_comparison(args, count) for count in args.counts]
    comparisons.append(lambda: torchrl_comparison(args))
    if args.rllib:
        comparisons.append(lambda: rllib_comparison(args))
    if args.only_race:
        comparisons = []
    if args.race:
        comparisons.append(lambda: race(args))
    for compare in comparisons:
        line = {**compare(), "load_1min_after": round(os.getloadavg()[0], 2)}
        lines.append(line)
        print(json.dumps(line), flush=True)
    if args.json is not None:
        old = args.json.read_text(encoding="utf-8") if args.json.exists() else ""
        write_atomic(args.json, old + "".join(json.dumps(line) + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
