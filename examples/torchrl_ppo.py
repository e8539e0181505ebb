"""TorchRL's PPO over ``monster_zoo.make_torchrl_env``: its Collector, GAE, ClipPPOLoss and MaskedCategorical.

The env is the learner form (one seat of every game learns, the others are played inside the env
by random legal moves or, with ``--opponent greedy``, the greedy baseline), ``batch_size=[num_envs]``;
``"action_mask"`` is where TorchRL's ``MaskedCategorical`` reads the legal actions. Every part of
the trainer is TorchRL's own: a ``Collector`` gathers ``--frames-per-batch`` frames in-process, GAE
computes advantages (cut where a game ended), ``ClipPPOLoss`` updates actor and critic on
minibatches. After training the policy's most likely legal action plays ``--eval-games`` games
against greedy and the win rate is printed. With ``--device cuda`` the games, the collector and the
networks stay on the GPU (the ``gpu`` extra and an NVIDIA GPU).

The defaults are a tiny budget. The full settings::

    python examples/torchrl_ppo.py --game marry_the_monster-v0 --num-players 2 --num-envs 1024 \\
        --frames-per-batch 65536 --total-frames 20000000 --opponent greedy --eval-games 1000

The frames per second of a TorchRL ``Collector`` with a masked MLP policy over this env are measured
by ``benchmarks/trainer_adapters.py`` (docs/guides/own_trainer.md links the measurement); this
trainer's own rate and strength at the full settings are not measured there.
"""

import argparse
import time
import warnings

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import monster_zoo
from monster_zoo.agents import make_agent


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, opponents, PPO's settings, evaluation, device, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument("--opponent", choices=["random", "greedy"], default="random", help="the other seats")
    parser.add_argument(
        "--num-envs", type=int, default=16, help="games stepped together (default %(default)s)"
    )
    parser.add_argument("--frames-per-batch", type=int, default=512, help="frames per collected batch")
    parser.add_argument("--total-frames", type=int, default=2048, help="frames to train on")
    parser.add_argument("--minibatch", type=int, default=128, help="frames per PPO minibatch")
    parser.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--hidden", type=int, default=128, help="width of the two hidden layers")
    parser.add_argument("--eval-games", type=int, default=32, help="games against greedy after training")
    parser.add_argument(
        "--device", choices=["cpu", "cuda"], default="cpu", help="where games and networks run"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the networks, the games and the evaluation"
    )
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads (default %(default)s)")
    return parser.parse_args(argv)


def mlp(inputs: int, outputs: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, outputs)
    )


def main(argv=None) -> int:
    """Train with TorchRL's collector and PPO loss, then evaluate against greedy."""
    args = parse_args(argv)
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # TorchRL's notices about its next API
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    options = {"num_players": args.num_players}
    opponents = None if args.opponent == "random" else [make_agent("greedy", args.game, args.seed, options)]
    env = monster_zoo.make_torchrl_env(
        args.game, args.num_envs, opponents=opponents, seed=args.seed, device=args.device, **options
    )
    obs_size = env.observation_spec["observation"].shape[-1]
    num_actions = env.action_spec.space.n
    device = env.device
    actor = ProbabilisticActor(
        TensorDictModule(
            mlp(obs_size, num_actions, args.hidden), in_keys=["observation"], out_keys=["logits"]
        ),
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    ).to(device)
    critic = ValueOperator(mlp(obs_size, 1, args.hidden), in_keys=["observation"]).to(device)
    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.01, normalize_advantage=True)
    advantage = GAE(gamma=args.gamma, lmbda=args.gae_lambda, value_network=critic)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.learning_rate)
    collector = Collector(
        env,
        actor,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.total_frames,
        auto_register_policy_transforms=False,  # the policy needs no transform of the env
    )
    frames, start = 0, time.perf_counter()
    for batch in collector:
        frames += batch.numel()
        with torch.no_grad():
            advantage(batch)
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for rows in torch.randperm(flat.numel(), device=device).split(args.minibatch):
                losses = loss(flat[rows])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()
    seconds = time.perf_counter() - start
    print(
        f"{args.game}, {args.num_players} players, {args.num_envs} games on {args.device}: trained {frames} "
        f"frames against {args.opponent} in {seconds:.1f} s ({frames / seconds:,.0f} frames/s)"
    )
    print(
        f"win rate against greedy: {win_rate(args, actor, options):.2f} over {args.eval_games} games "
        f"(an even share is {1 / args.num_players:.2f})"
    )
    return 0


def win_rate(args, actor, options: dict) -> float:
    """The share of ``--eval-games`` games the policy's most likely legal action wins against greedy."""
    greedy = [make_agent("greedy", args.game, args.seed, options)]
    env = monster_zoo.make_torchrl_env(
        args.game,
        min(args.num_envs, args.eval_games),
        opponents=greedy,
        seed=args.seed + 10_000,
        device=args.device,
        **options,
    )
    td = env.reset()
    wins = played = 0
    while played < args.eval_games:
        with torch.no_grad():
            logits = actor.module[0](td["observation"])
        td["action"] = logits.masked_fill(~td["action_mask"], float("-inf")).argmax(-1)
        out, td = env.step_and_maybe_reset(td)
        ended = np.flatnonzero(out["next", "done"].squeeze(-1).cpu().numpy())[: args.eval_games - played]
        wins += int((out["next", "reward"].squeeze(-1).cpu().numpy()[ended] > 0).sum())
        played += len(ended)
    return wins / played


if __name__ == "__main__":
    raise SystemExit(main())
