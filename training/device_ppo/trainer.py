"""Self-play PPO with action masks whose torch policy acts on the batched engine's own arrays.

    python -m monster_zoo.training.device_ppo --help
    monster-zoo device-train --game marry_the_monster-v0 --total-timesteps 1000000

The games are those of ``monster-zoo train`` (:class:`monster_zoo.envs.core.selfplay.LearnerGames`:
one random learner seat per game, the other seats played inside numba by an opponent drawn per game
from the mix of ``random``, ``greedy`` and frozen snapshots of the learner), but no Stable-Baselines3
vec env sits between them and the policy: the learner reads the engine's observation, mask and reward
arrays as tensors (``torch.from_numpy``, no copy) and hands its actions back as the tensor's array, and
the PPO parts are TorchRL's (:mod:`monster_zoo.training.device_ppo.learner`). The rollout is a few
tensors, filled in place; nothing per step is a Python object per game. On the CPU the games are
stepped in parts by ``--game-threads`` threads side by side
(:class:`monster_zoo.envs.core.threaded_games.ThreadedLearnerGames`: by default one per core), the
same games as one thread's.

Devices: ``--device cpu`` plays the games on the CPU engine; ``--device cuda`` plays them on the GPU
(:class:`monster_zoo.envs.gpu.learner_games.GpuLearnerGames`: one CUDA thread per game, random
opponents inside the thread, frozen snapshots as torch networks on the device) with the policy, the
rollout and the update on the GPU too, nothing read back per step or per minibatch: the losses add
up on the device, and everything an update reports (its losses, the rewards of the games that ended,
the count of illegal learner actions) travels to the host in one read per update (:func:`read_back`);
whether a snapshot's move is still awaited travels to the host while the next opponent rounds are
queued. ``--num-envs`` and ``--batch-size`` default per device (:func:`device_sizes`: on a GPU the
most games whose rollout fits a quarter of its memory, up to 65,536), and ``--torch-compile``
compiles the policy step and the gradient step on a GPU. Random and greedy opponents play inside the games'
threads; an opponent acting from Python (e.g. ``mcts``) has no GPU build and is refused on cuda,
naming the opponents that run; cuda without numba-cuda or a GPU is refused at once with what to
install or check. Under numba-cuda's simulator
(``NUMBA_ENABLE_CUDASIM=1``) ``--device cuda`` runs the GPU driver as Python with torch on the CPU: a
test of the path, not a speed.

A run writes ``{out_dir}/{game}__{exp_name}__{seed}__{unix time}/``: ``args.json``, ``metrics.csv``
(the metric names of ``monster-zoo train``), ``checkpoints/step_N.pt`` (every tensor to resume from,
read back with ``torch.load(weights_only=True)``: nothing pickled runs) with a policy file
``step_N.npz`` beside each, ``final_model.pt`` / ``final_model.npz``, ``summary.json`` and ``curves.png`` (``--plot``). The policy
files are PPO policy files: play one as ``ppo:<run>/final_model.npz``.
"""

import json
import os
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import SimpleNamespace

from monster_zoo.envs.core.safe_writing import open_atomic, write_atomic
from monster_zoo.training.run_start import (
    MetricsLog,
    baseline_rates,
    check_arguments,
    flag,
    game_options,
    new_run,
    parse_mix,
    ppo_flag_bounds,
    progress_bar,
    say_starting,
)
from monster_zoo.training.run_start import build_parser as parser_for

DEVICES = ("cpu", "cuda")
NETWORK_DTYPES = (
    "auto",
    "float32",
    "bfloat16",
)  # auto and the learner's, named here so that --help needs no torch
# torch.compile's modes (the learner's COMPILE_MODES), named here so that --help needs no torch
COMPILE_MODES = ("off", "default", "reduce-overhead", "max-autotune")
CHECKPOINT_FORMAT = "monster-zoo device-ppo checkpoint 1"
# --num-envs and --batch-size 0 on the CPU: the sizes its measurements chose (docs/guides/gpu.md)
CPU_NUM_ENVS, CPU_BATCH_SIZE = 512, 2048
# on a GPU a launch steps every game at once, and 16,384 games filled about 6% of an H200: the default
# is the most games, up to GPU_MAX_NUM_ENVS, whose rollout fits in GPU_MEMORY_SHARE of its memory
GPU_MAX_NUM_ENVS, GPU_MIN_NUM_ENVS, GPU_MEMORY_SHARE = 2**16, 2**10, 0.25
GPU_MINIBATCHES = 32  # --batch-size 0 on a GPU: the rollout in this many minibatches


@dataclass
class Args:
    """Every knob of a run; each field is a command-line flag (``--total-timesteps``)."""

    game: str = flag("marry_the_monster-v0", "registry id of the game")
    option: list[str] = field(
        default_factory=list, metadata={"help": "game option KEY=VALUE, repeatable (e.g. num_players=3)"}
    )
    exp_name: str = flag("device_ppo", "experiment name, part of the run name")
    seed: int = flag(1, "seed of the games, the opponents and torch")
    device: str = flag(
        "cpu",
        f"where the policy and the games run: one of {', '.join(DEVICES)} "
        "(cuda: the gpu extra and an NVIDIA GPU; opponents random, greedy and snapshots)",
    )
    total_timesteps: int = flag(1_000_000, "learner decisions to train on")
    time_limit: float = flag(
        0.0, "stop after this many minutes of wall time, whatever the timesteps (0: no limit)"
    )
    num_envs: int = flag(
        0,
        f"games played side by side (0: the device's default: {CPU_NUM_ENVS} on cpu; on cuda the most, "
        f"up to {GPU_MAX_NUM_ENVS}, whose rollout takes at most a quarter of the GPU's memory)",
    )
    num_steps: int = flag(32, "learner decisions per game per rollout (rollout = num_envs * num_steps)")
    # 2e-3 in minibatches of 2,048 (SB3's train: 3e-4 in 1,024, four passes): with one pass over rollouts
    # four times train's, the policy moved too little per rollout; after equal wall time this agent was
    # the strongest measured against greedy (docs/guides/gpu.md's CPU table)
    learning_rate: float = flag(2e-3, "Adam learning rate")
    gamma: float = flag(0.995, "discount per learner decision")
    gae_lambda: float = flag(0.95, "GAE lambda")
    batch_size: int = flag(
        0,
        f"minibatch size of the PPO update (0: the device's default: {CPU_BATCH_SIZE} on cpu; on cuda "
        f"the rollout in {GPU_MINIBATCHES} minibatches)",
    )
    # One pass: on a CPU the update is compute-bound and a second pass cost a third of the run's time;
    # after equal wall time one pass's agent was as strong as two passes' (docs/guides/gpu.md's CPU table)
    update_epochs: int = flag(1, "passes over each rollout")
    clip_coef: float = flag(0.2, "PPO clipping coefficient")
    ent_coef: float = flag(0.01, "entropy bonus")
    net_arch: str = flag("128,128", "hidden layer sizes of the actor and of the critic (tanh)")
    shared_trunk: bool = flag(
        False,
        "the actor and the critic share their hidden layers (--net-arch), each with its "
        "own head; the policy file is still the actor's plain MLP",
    )
    # bfloat16 halved the update's time on this project's AVX512-BF16 CPU, and its agent was as strong
    # after equal wall time (docs/guides/gpu.md's CPU table); where bfloat16 is emulated it is slower
    network_dtype: str = flag(
        "auto",
        f"precision of the networks' passes in the rollout and the update: one of "
        f"{', '.join(NETWORK_DTYPES)} (bfloat16: torch's autocast, weights stay float32; "
        "auto: bfloat16 where the device has it in hardware, else float32)",
    )
    # a GPU launches each small kernel of the networks' passes separately; compiled, they are fused and
    # with reduce-overhead replayed as CUDA graphs. On a CPU the first calls' compile costs more than
    # it saves in a run's time, so it is refused there
    torch_compile: str = flag(
        "off",
        f"run the policy step and the update's gradient step through torch.compile in this mode: one of "
        f"{', '.join(COMPILE_MODES)} (cuda only; reduce-overhead also replays them as CUDA graphs)",
    )
    opponents: str = flag(
        "random:0.1,greedy:0.5,snapshots:0.4",
        "opponent mix NAME:WEIGHT,...; names from monster_zoo.agents.make_agent, "
        "plus 'snapshots' (the self-play pool)",
    )
    snapshot_every: int = flag(10, "PPO updates between snapshots of the learner into the pool")
    pool_size: int = flag(8, "snapshots kept in the pool (oldest dropped first)")
    eval_every: int = flag(
        250_000, "timesteps between evaluations against random and greedy (0: only at the end)"
    )
    eval_games: int = flag(200, "games per evaluation and opponent (seats rotated)")
    checkpoint_every: int = flag(250_000, "timesteps between checkpoints (0: final model only)")
    resume: str = flag(
        "",
        "start from a checkpoint of an earlier run of the same game, options, --net-arch and "
        "--shared-trunk "
        "(its final_model.pt or checkpoints/step_N.pt); its timesteps count toward the total",
    )
    out_dir: str = flag("runs", "folder of the runs")
    torch_threads: int = flag(1, "torch CPU threads (0: torch's default, one per core)")
    # The games' drivers release the GIL, so parts of the games step on other cores meanwhile;
    # the games are those of one thread whatever the count (envs/core/threaded_games.py)
    game_threads: int = flag(
        0,
        "threads that step the games on --device cpu, each a part of them side by side; "
        "the games and results are the same for any count (0: one per available core, "
        "at most one per 64 games; 1 where an opponent acts from Python)",
    )
    progress: bool = flag(True, "show a progress bar")
    plot: bool = flag(True, "draw the learning curves into curves.png at the end")


def build_parser():
    """The trainer's command line: one flag per :class:`Args` field, its help the field's."""
    return parser_for(Args, "python -m monster_zoo.training.device_ppo", __doc__.split("\n\n")[0])


def argument_problem(args: Args) -> str | None:
    """Why ``args`` cannot make a run, or None; checked before anything is written."""
    from monster_zoo.evaluation.arg_checks import (
        first_problem,
        int_list,
        out_of_bounds,
        plain_name,
        policy_size_problem,
        writable_dir,
    )

    return first_problem(
        None if args.device in DEVICES else f"--device {args.device!r} is not one of {', '.join(DEVICES)}",
        None
        if args.network_dtype in NETWORK_DTYPES
        else (f"--network-dtype {args.network_dtype!r} is not one of {', '.join(NETWORK_DTYPES)}"),
        None
        if args.torch_compile in COMPILE_MODES
        else f"--torch-compile {args.torch_compile!r} is not one of {', '.join(COMPILE_MODES)}",
        None
        if args.torch_compile == "off" or args.device != "cpu"
        else (
            f"--torch-compile {args.torch_compile}: compiling pays on a GPU only (on a CPU the compile "
            "takes longer than it saves); use --device cuda or --torch-compile off"
        ),
        out_of_bounds(
            [
                ("--num-envs", args.num_envs, args.num_envs >= 0, "at least 0 (0: the device's default)"),
                (
                    "--batch-size",
                    args.batch_size,
                    args.batch_size >= 0,
                    "at least 0 (0: the device's default)",
                ),
                # the shared ranges, with 0 standing for a default that is always in range
                *ppo_flag_bounds(
                    replace(args, num_envs=args.num_envs or 1, batch_size=args.batch_size or CPU_BATCH_SIZE)
                ),
            ]
        ),
        int_list("--net-arch", args.net_arch)[1],
        policy_size_problem("--net-arch", args.game, int_list("--net-arch", args.net_arch)[0] or []),
        None
        if args.game_threads >= 0
        else f"--game-threads {args.game_threads}: at least 0 (0: one per core)",
        None
        if args.device == "cpu" or args.game_threads in (0, 1)
        else (
            f"--game-threads {args.game_threads}: the games on --device {args.device} are stepped by the device, "
            "so only 0 or 1 fit there"
        ),
        _cuda_problem(args) if args.device == "cuda" else None,
        None if not args.resume or Path(args.resume).is_file() else f"--resume {args.resume!r} is not a file",
        plain_name("--exp-name", args.exp_name),
        writable_dir("--out-dir", Path(args.out_dir)),
    )


GPU_OPPONENTS = ("random", "greedy", "snapshots")


def _cuda_problem(args: Args) -> str | None:
    """Why ``--device cuda`` cannot run here or with this opponent mix, or None."""
    try:
        names = list(parse_mix(args.opponents))
    except (TypeError, ValueError):
        names = []  # the mix's own check names what is wrong with it
    others = [name for name in names if name not in GPU_OPPONENTS]
    if others:
        return (
            f"--device cuda plays the opponents on the GPU, where {', '.join(others)} cannot play (it acts "
            f"from Python, not from a numba policy kernel): use a mix of {', '.join(GPU_OPPONENTS)}, "
            f"e.g. --opponents random:0.1,greedy:0.5,snapshots:0.4, or --device cpu"
        )
    try:
        from monster_zoo.envs.gpu import require_gpu

        require_gpu()
        import torch

        from monster_zoo.envs.gpu.learner_games import SIMULATED

        if not SIMULATED and not torch.cuda.is_available():
            return (
                "--device cuda: torch sees no CUDA device (a CPU-only torch build?); install a CUDA build of "
                "torch (https://pytorch.org/get-started/locally/) or use --device cpu"
            )
    except (RuntimeError, ImportError) as error:
        return "--device cuda: " + str(error).removeprefix("device='cuda': ")
    return None


def game_threads(asked: int, num_envs: int) -> int:
    """Threads that step ``num_envs`` CPU games for ``--game-threads asked`` (0: one per core this
    process may use, at most one per 64 games, at least one)."""
    if asked:
        return min(asked, num_envs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, num_envs // 64))


def device_sizes(args: Args, obs_size: int, num_actions: int) -> Args:
    """``args`` with ``--num-envs 0`` and ``--batch-size 0`` made the device's defaults (module
    constants): on the CPU the sizes its measurements chose; on a GPU the most games, from
    ``GPU_MAX_NUM_ENVS`` halving down to ``GPU_MIN_NUM_ENVS``, whose rollout buffers (observations
    and masks, about three copies while the update reorders them) take at most ``GPU_MEMORY_SHARE``
    of the GPU's memory, and the rollout in ``GPU_MINIBATCHES`` minibatches."""
    on_gpu = torch_device(args.device) != "cpu"
    num_envs = args.num_envs
    if not num_envs and not on_gpu:
        num_envs = CPU_NUM_ENVS
    elif not num_envs:
        import torch

        per_game = 3 * args.num_steps * (4 * obs_size + num_actions)
        budget = GPU_MEMORY_SHARE * torch.cuda.get_device_properties(0).total_memory
        num_envs = GPU_MAX_NUM_ENVS
        while num_envs > GPU_MIN_NUM_ENVS and num_envs * per_game > budget:
            num_envs //= 2
    batch_size = args.batch_size or (
        max(CPU_BATCH_SIZE, num_envs * args.num_steps // GPU_MINIBATCHES) if on_gpu else CPU_BATCH_SIZE
    )
    return replace(args, num_envs=num_envs, batch_size=batch_size)


def torch_device(device: str) -> str:
    """Where torch runs for ``--device``: the GPU engine's arrays' device for cuda (the CPU under
    numba-cuda's simulator), else ``device``."""
    if device != "cuda":
        return device
    from monster_zoo.envs.gpu.learner_games import TORCH_DEVICE

    return TORCH_DEVICE


def main(argv: Sequence[str] | None = None) -> int:
    """Train, evaluate and save; return 0 (bad arguments exit with code 2 and a message, before
    anything is written)."""
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    check_arguments(parser, args, argument_problem)
    say_starting(parser.prog)
    import torch

    # needs the device-train extra
    from monster_zoo.training.device_ppo.learner import Learner, resolve_network_dtype

    options = game_options(parser, args.game, args.option)
    mix, baselines = _opponent_mix(parser, args, options)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    from monster_zoo import envs
    from monster_zoo.evaluation.arg_checks import int_list

    spec = envs.spec(args.game)
    args = device_sizes(args, spec.obs_size, spec.num_actions)
    network_dtype = resolve_network_dtype(args.network_dtype, torch_device(args.device))
    learner = Learner(
        spec.obs_size,
        spec.num_actions,
        int_list("--net-arch", args.net_arch)[0],
        args.learning_rate,
        args.clip_coef,
        args.ent_coef,
        torch_device(args.device),
        shared_trunk=args.shared_trunk,
        network_dtype=network_dtype,
        compile_mode=args.torch_compile,
    )
    start_step = _resume(parser, args, options, learner) if args.resume else 0
    run = new_run(args.out_dir, args.game, args.exp_name, args.seed, args)
    training = Training(args, options, run, learner, mix, baselines, start_step)
    seconds = training.train()
    summary = training.finish(seconds)
    print(
        f"run {run.name}: {summary['timesteps']} timesteps in {seconds:.0f} s ({summary['timesteps_per_second']:.0f}/s)"
    )
    for rate in training.rates.values():
        print(f"  win rate {rate}")
    if args.plot:
        from monster_zoo.evaluation.plots import plot_learning_curves

        plot_learning_curves([run.dir], run.dir / "curves.png")
        print(f"  learning curves: {run.dir / 'curves.png'}")
    print(
        f"  model: {run.dir / 'final_model.npz'} (play it as agent 'ppo:{run.dir / 'final_model.npz'}' "
        f"with the same --option values)"
    )
    return 0


def _opponent_mix(parser, args: Args, options: dict):
    """``(mix, baselines by name)``; a bad mix or a baseline the game lacks exits through ``parser.error``."""
    from monster_zoo.agents import make_agent

    try:
        mix = parse_mix(args.opponents)
        baselines = {
            name: make_agent(name, args.game, seed=args.seed + 7919 * k, options=options)
            for k, name in enumerate(mix)
            if name != "snapshots"
        }
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    return mix, baselines


def _resume(parser, args: Args, options: dict, learner) -> int:
    """Load ``--resume``'s tensors into ``learner``; its timesteps. A checkpoint of another game,
    options or network exits through ``parser.error``."""
    import pickle

    import torch

    try:
        state = torch.load(args.resume, map_location=torch_device(args.device), weights_only=True)
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError("not a checkpoint of this trainer")
        trained = json.loads(state["game"])
        if trained != {"game": args.game, "options": options}:
            raise ValueError(
                f"it trained {trained['game']} with options {trained['options']}, "
                f"this run is {args.game} with {options}"
            )
        learner.load_state_dict(state)
    # weights_only refuses anything but tensors and plain data with an UnpicklingError
    except (OSError, RuntimeError, KeyError, ValueError, TypeError, pickle.UnpicklingError) as error:
        first = " ".join(str(error).strip().splitlines()[:2])
        parser.error(f"--resume {args.resume!r} cannot start this run (--net-arch?): {first}")
    return int(state["timesteps"])


ENDED_WINDOW = 1000  # rollout/ep_rew_mean: the mean over at least this many of the latest games
# the update's losses (the learner's LOSSES, in order) under the names Stable-Baselines3's PPO logs
# its own; the values are TorchRL's ClipPPOLoss terms (the entropy's times --ent-coef)
LOSS_METRICS = ("train/policy_gradient_loss", "train/value_loss", "train/entropy_loss")


def read_back(figures) -> list[float]:
    """A device tensor's values on the host: the trainer's one read from the device per update (it
    waits for the GPU's queued work). Every figure an update reports travels in this one tensor."""
    return figures.tolist()


class Clock:
    """Marks on the timeline of the work queued on ``device``: CUDA events on a GPU (recorded without
    waiting, their times read after the update's read back), the host's clock on a CPU."""

    def __init__(self, device: str):
        self.on_cuda = device == "cuda"

    def mark(self):
        """A mark at the work queued so far."""
        if not self.on_cuda:
            return time.perf_counter()
        import torch

        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def seconds(self, start, end) -> float:
        """Seconds between two marks (on a GPU, once the work up to ``end`` is done)."""
        return start.elapsed_time(end) / 1000 if self.on_cuda else end - start


class Training:
    """A run under way: the games, the learner, the opponent pool, the logs and the latest evaluation."""

    def __init__(self, args: Args, options: dict, run, learner, mix: dict, baselines: dict, start_step: int):
        import torch

        from monster_zoo import envs
        from monster_zoo.envs.core.selfplay import LearnerGames

        self.args, self.options, self.run, self.learner = args, options, run, learner
        self.mix, self.baselines, self.snapshots = mix, baselines, []
        self.step, self.start_step, self.updates = start_step, start_step, 0
        self.metrics = MetricsLog(run.dir / "metrics.csv")
        self.on_gpu, self.device = args.device == "cuda", torch_device(args.device)
        from monster_zoo.envs.core.threaded_games import ThreadedLearnerGames, plays_in_numba

        # An opponent acting from Python sees each part's slots apart, which could change its draws:
        # such a mix keeps one thread, so that the games never depend on --game-threads
        in_numba = all(plays_in_numba(baseline) for baseline in baselines.values())
        self.game_threads = (
            game_threads(args.game_threads, args.num_envs) if in_numba and not self.on_gpu else 1
        )
        spec, config = envs.spec(args.game), envs.config(args.game, options)
        if self.on_gpu:
            from monster_zoo.envs.gpu.learner_games import GpuLearnerGames

            self.games = GpuLearnerGames(spec, config, args.num_envs, seed=args.seed)
        elif self.game_threads > 1:
            self.games = ThreadedLearnerGames(
                spec, config, args.num_envs, seed=args.seed, threads=self.game_threads
            )
        else:
            self.games = LearnerGames(spec, config, args.num_envs, seed=args.seed)
        self.seconds = {"rollout": 0.0, "update": 0.0}  # where the time goes
        self.generator = torch.Generator().manual_seed(args.seed)
        self.rates: dict = {}
        self.evaluated_step: int | None = None
        if "snapshots" in mix:  # self-play starts against the untrained policy itself
            self._snapshot()
        self._refresh_pool()
        self.games.reset()

    # --- the opponent pool ------------------------------------------------------------------
    def _snapshot(self) -> None:
        name = f"snapshot@{self.step}"
        if self.on_gpu:  # a frozen copy of the actor, run by torch on the games' device
            self.snapshots.append(SimpleNamespace(name=name, policy_logits=self.learner.frozen_actor()))
        else:
            from monster_zoo.agents.ppo.agent import PPOAgent

            self.snapshots.append(
                PPOAgent(
                    self.args.seed + self.updates,
                    layers=self.learner.actor_layers(),
                    deterministic=False,
                    name=name,
                )
            )
        del self.snapshots[: -self.args.pool_size]

    def _refresh_pool(self) -> None:
        opponents, weights = [], []
        for name, weight in self.mix.items():
            group = self.snapshots if name == "snapshots" else [self.baselines[name]]
            opponents += group
            weights += [weight / len(group)] * len(group)
        self.games.set_opponents(opponents, weights)

    # --- training ------------------------------------------------------------------------------
    def rollout(self) -> dict:
        """``num_steps`` learner decisions in every game, the policy reading the engine's arrays in place."""
        import torch

        g, n, t_max = self.games, self.args.num_envs, self.args.num_steps
        spec = g.spec
        empty = partial(torch.empty, device=self.device)
        buffers = {
            "observations": empty((t_max, n, spec.obs_size)),
            "masks": empty((t_max, n, spec.num_actions), dtype=torch.bool),
            "actions": empty((t_max, n), dtype=torch.int64),
            "log_probs": empty((t_max, n)),
            "values": empty((t_max, n)),
            "rewards": empty((t_max, n)),
            "dones": empty((t_max, n), dtype=torch.bool),
        }
        if self.on_gpu:  # the GPU games' device arrays, as tensors without a copy
            from monster_zoo.envs.gpu.learner_games import tensor_view as view
        else:
            view = torch.from_numpy  # the engine's own memory, refreshed by each step
        observations = view(g.observations)
        rewards, terminated, truncated = (view(a) for a in (g.rewards, g.terminated, g.truncated))
        masks = view(g.masks) if self.on_gpu else None
        for t in range(t_max):
            buffers["observations"][t] = observations
            if self.on_gpu:
                buffers["masks"][t] = masks
            else:
                buffers["masks"][t].numpy()[:] = g.masks  # the read-only view, copied once into the rollout
            actions, log_probs, values = self.learner.act(buffers["observations"][t], buffers["masks"][t])
            if self.on_gpu:  # legality counted on the device, read with the update's figures
                g.step(actions, check=False)
            else:
                g.step(actions.numpy())
            buffers["actions"][t], buffers["log_probs"][t], buffers["values"][t] = actions, log_probs, values
            buffers["rewards"][t] = rewards
            buffers["dones"][t] = terminated | truncated
        buffers["next_value"] = self.learner.value(observations)
        self.step += n * t_max
        return buffers

    def _figures(self, rollout: dict, losses):
        """What an update reports, as one tensor on the device: the losses, the learner's summed
        reward in the games that ended during the rollout and their count, and the count of learner
        actions the GPU games refused (0 on the CPU, whose games refuse at once)."""
        import torch

        from monster_zoo.envs.gpu.learner_games import tensor_view

        dones = rollout["dones"]
        refused = tensor_view(self.games.refused).to(losses.dtype) if self.on_gpu else losses.new_zeros(1)
        ended = torch.stack([(rollout["rewards"] * dones).sum(), dones.sum().to(losses.dtype)])
        return torch.cat([losses, ended, refused])

    def train(self) -> float:
        """PPO until ``--total-timesteps`` (or ``--time-limit``); the seconds it took."""
        args = self.args
        started = time.time()
        next_eval = self.step + args.eval_every if args.eval_every else None
        next_checkpoint = self.step + args.checkpoint_every if args.checkpoint_every else None
        # (reward sum, games) of the latest rollouts' ended games, at least ENDED_WINDOW games once
        # that many ended
        ended: deque = deque()
        bar = progress_bar(args.total_timesteps, self.run.name, args.progress)
        bar.update(min(self.step, args.total_timesteps))
        clock = Clock(self.device)
        while self.step < args.total_timesteps and (
            not args.time_limit or time.time() - started < 60 * args.time_limit
        ):
            before = self.step
            marks = [clock.mark()]
            rollout = self.rollout()
            marks.append(clock.mark())
            losses = self.learner.update(
                rollout, args.gamma, args.gae_lambda, args.update_epochs, args.batch_size, self.generator
            )
            marks.append(clock.mark())
            # the update's one read back: the GPU has not waited for the host since the last one
            *loss_values, reward_sum, games, refused = read_back(self._figures(rollout, losses))
            self.seconds["rollout"] += clock.seconds(marks[0], marks[1])
            self.seconds["update"] += clock.seconds(marks[1], marks[2])
            if refused:
                self.games.check_actions()  # raises IllegalActionError with the count
            self.updates += 1
            bar.update(min(self.step, args.total_timesteps) - min(before, args.total_timesteps))
            self.metrics.log(
                self.step, "charts/SPS", (self.step - self.start_step) / max(time.time() - started, 1e-9)
            )
            for name, value in zip(LOSS_METRICS, loss_values):
                self.metrics.log(self.step, name, value)
            if games:
                ended.append((reward_sum, games))
                while sum(count for _, count in ended) - ended[0][1] >= ENDED_WINDOW:
                    ended.popleft()
            if ended:
                mean = sum(total for total, _ in ended) / sum(count for _, count in ended)
                self.metrics.log(self.step, "rollout/ep_rew_mean", mean)
            if self.updates % args.snapshot_every == 0 and "snapshots" in self.mix:
                self._snapshot()
                self._refresh_pool()
                self.metrics.log(self.step, "train/pool_size", len(self.snapshots))
            if next_eval and self.step >= next_eval:
                self.evaluate()
                next_eval += args.eval_every
            if next_checkpoint and self.step >= next_checkpoint:
                self.save(self.run.dir / "checkpoints" / f"step_{self.step}.pt")
                next_checkpoint += args.checkpoint_every
        bar.close()
        return time.time() - started

    def evaluate(self) -> dict:
        """Win rates of the deterministic policy against random and greedy, logged with their 95% intervals."""
        from monster_zoo.agents.ppo.agent import PPOAgent

        agent = PPOAgent(self.args.seed, layers=self.learner.actor_layers(), deterministic=True)
        self.rates = baseline_rates(
            agent,
            self.args.game,
            self.options,
            self.args.seed,
            self.args.eval_games,
            log=lambda metric, value: self.metrics.log(self.step, metric, value),
            intervals=True,
        )
        self.evaluated_step = self.step
        return self.rates

    def save(self, path: Path) -> None:
        """The checkpoint ``path`` (``.pt``: tensors and plain data) and the policy file beside it (``.npz``)."""
        import torch

        from monster_zoo.agents.ppo.agent import run_model_name
        from monster_zoo.agents.ppo.policy_file import make_metadata, write_policy

        args = self.args
        state = {
            "format": CHECKPOINT_FORMAT,
            "timesteps": self.step,
            "game": json.dumps({"game": args.game, "options": self.options}),
            **self.learner.state_dict(),
        }
        with open_atomic(path) as stream:
            torch.save(state, stream)
        hidden = [w.shape[1] for w, _, _ in self.learner.actor_layers()[:-1]]
        metadata = make_metadata(
            args.game,
            self.options,
            hidden,
            "tanh",
            run_model_name(args.exp_name, args.seed, None if path.parent == self.run.dir else self.step),
            {
                "algorithm": "PPO (TorchRL parts, array-side)",
                "run_name": self.run.name,
                "seed": args.seed,
                "timesteps": self.step,
            },
        )
        write_policy(path.with_suffix(".npz"), self.learner.actor_layers(), metadata)

    def finish(self, seconds: float) -> dict:
        """The final model, its evaluation and ``summary.json``, which it returns."""
        run, args = self.run, self.args
        self.save(run.dir / "final_model.pt")
        if self.evaluated_step != self.step:
            self.evaluate()
        self.metrics.close()
        summary = {
            "run_name": run.name,
            "timesteps": self.step,
            "train_seconds": round(seconds, 1),
            "timesteps_per_second": round((self.step - self.start_step) / max(seconds, 1e-9), 1),
            "device": args.device,
            "num_envs": args.num_envs,
            "batch_size": args.batch_size,
            "game_threads": self.game_threads,
            "network_dtype": self.learner.network_dtype,
            "torch_compile": args.torch_compile,
            # snapshot opponents on a GPU: the rounds of their moves queued, and how often the host
            # waited for the GPU to learn whether another round was needed
            **(
                {
                    "opponent_rounds": self.games.opponent_rounds,
                    "opponent_round_waits": self.games.opponent_round_waits,
                }
                if self.on_gpu
                else {}
            ),
            **{f"{part}_seconds": round(spent, 2) for part, spent in self.seconds.items()},
            "model": str(run.dir / "final_model.npz"),
            "checkpoint": str(run.dir / "final_model.pt"),
            **{
                f"winrate_vs_{k}": {"rate": r.rate, "interval": list(r.interval), "games": r.games}
                for k, r in self.rates.items()
            },
        }
        write_atomic(run.dir / "summary.json", json.dumps(summary, indent=2))
        return summary


if __name__ == "__main__":
    sys.exit(main())
