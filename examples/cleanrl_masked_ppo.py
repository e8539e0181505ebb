"""CleanRL-style masked PPO in one file over ``monster_zoo.make_vector_env``, then its win rate against greedy.

The whole trainer is below, top to bottom, in the manner of CleanRL's ``ppo.py``: a gymnasium
``VectorEnv`` of ``--num-envs`` learner-seat games (one seat learns, the others are played inside
the env by random legal moves or, with ``--opponent greedy``, by the greedy baseline), an MLP actor
critic whose logits are masked by ``info["action_mask"]`` (illegal actions get ``-1e8``, as CleanRL's
invalid-action-masking scripts do), GAE and the clipped PPO update. The env's default ``SameStep``
autoreset makes every step a decision of the learner with a legal action: a finished game's slot
already shows its next game, so ``terminated | truncated`` cuts the advantage and nothing else is
needed. With ``--device cuda`` the games run on the GPU and the env hands out torch tensors on it
(the ``gpu`` extra and an NVIDIA GPU): the same file, no copy to the host per step.

The defaults are a tiny budget (seconds on a CPU). The full settings::

    python examples/cleanrl_masked_ppo.py --game marry_the_monster-v0 --num-players 2 \\
        --num-envs 1024 --num-steps 64 --total-timesteps 20000000 --opponent greedy --eval-games 1000

(add ``--device cuda`` on a GPU; ``--time-limit SECONDS`` stops at a wall time, as
``monster-zoo device-train --time-limit`` does). The timesteps per second and the win rate against greedy they
reach, beside ``monster-zoo device-train``'s at equal wall time, are measured by ``benchmarks/trainer_adapters.py --race``;
docs/guides/own_trainer.md links the measurement.
"""

import argparse
import time

import numpy as np
import torch
from torch import nn

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
    parser.add_argument(
        "--num-steps", type=int, default=32, help="steps per game per rollout (default %(default)s)"
    )
    parser.add_argument("--total-timesteps", type=int, default=2048, help="learner decisions to train on")
    parser.add_argument(
        "--time-limit", type=float, default=0.0, help="stop training after this many seconds (0: no limit)"
    )
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--hidden", type=int, default=128, help="width of the two hidden layers")
    parser.add_argument("--eval-games", type=int, default=32, help="games against greedy after training")
    parser.add_argument(
        "--device", choices=["cpu", "cuda"], default="cpu", help="where games and network run"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the network, the games and the evaluation"
    )
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads (default %(default)s)")
    return parser.parse_args(argv)


class Agent(nn.Module):
    """Actor and critic, two hidden layers each, as CleanRL's."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()

        def mlp(out: int, gain: float) -> nn.Sequential:
            layers = [nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()]
            head = nn.Linear(hidden, out)
            nn.init.orthogonal_(head.weight, gain)
            nn.init.zeros_(head.bias)
            return nn.Sequential(*layers, head)

        self.actor, self.critic = mlp(num_actions, 0.01), mlp(1, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the entropy, the value), illegal actions masked out."""
        logits = torch.where(mask, self.actor(obs), torch.tensor(-1e8, device=obs.device))
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def as_tensor(array, device: str) -> torch.Tensor:
    """The env's array as a tensor on ``device`` (already one on ``cuda``: no copy)."""
    return torch.as_tensor(array, device=device)


def to_env(envs, actions: torch.Tensor):
    """Actions as the env takes them: a numpy array on the CPU, the tensor itself on cuda."""
    return actions.cpu().numpy() if envs.device == "cpu" else actions


def train(args, envs, agent: Agent) -> tuple[int, float]:
    """CleanRL's PPO loop over the vector env; returns (timesteps, seconds)."""
    device, n, steps = envs.torch_device, args.num_envs, args.num_steps
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    obs = torch.zeros((steps, n, obs_size), device=device)
    masks = torch.zeros((steps, n, num_actions), dtype=torch.bool, device=device)
    actions = torch.zeros((steps, n), dtype=torch.long, device=device)
    logprobs, rewards, dones, values = (torch.zeros((steps, n), device=device) for _ in range(4))
    next_obs, info = envs.reset(seed=args.seed)
    next_obs, next_mask = as_tensor(next_obs, device), as_tensor(info["action_mask"], device)
    next_done = torch.zeros(n, device=device)
    iterations = max(1, args.total_timesteps // (n * steps))
    batch = n * steps
    minibatch = max(1, batch // args.num_minibatches)
    start = time.perf_counter()
    done = 0
    for _ in range(iterations):
        if args.time_limit and time.perf_counter() - start >= args.time_limit:
            break  # equal wall time against another trainer: stop between updates
        done += 1
        for step in range(steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            next_obs, reward, terminated, truncated, info = envs.step(to_env(envs, action))
            rewards[step] = as_tensor(reward, device)
            next_done = as_tensor(terminated | truncated, device).float()
            next_obs, next_mask = as_tensor(next_obs, device), as_tensor(info["action_mask"], device)
        with torch.no_grad():  # generalised advantage estimation, cut where a game ended
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n, device=device)
            for t in reversed(range(steps)):
                nonterminal = 1.0 - (next_done if t == steps - 1 else dones[t + 1])
                following = next_value if t == steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values
        b_obs, b_masks = obs.reshape(batch, obs_size), masks.reshape(batch, num_actions)
        b_actions, b_logprobs = actions.reshape(batch), logprobs.reshape(batch)
        b_advantages, b_returns = advantages.reshape(batch), returns.reshape(batch)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch, device=device)
            for first in range(0, batch, minibatch):
                rows = order[first : first + minibatch]
                _, newlogprob, entropy, newvalue = agent.act(b_obs[rows], b_masks[rows], b_actions[rows])
                ratio = (newlogprob - b_logprobs[rows]).exp()
                adv = b_advantages[rows]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                value_loss = 0.5 * ((newvalue - b_returns[rows]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    return done * batch, time.perf_counter() - start


def win_rate(args, agent: Agent, options: dict) -> float:
    """The share of ``--eval-games`` games the greedy-masked policy (its most likely legal action)
    wins against greedy opponents (its final reward is positive)."""
    greedy = [make_agent("greedy", args.game, args.seed, options)]
    n = min(args.num_envs, args.eval_games)
    envs = monster_zoo.make_vector_env(
        args.game, n, opponents=greedy, seed=args.seed + 10_000, device=args.device, **options
    )
    device = envs.torch_device
    obs, info = envs.reset()
    wins = played = 0
    while played < args.eval_games:
        with torch.no_grad():
            obs_t, mask = as_tensor(obs, device), as_tensor(info["action_mask"], device)
            logits = torch.where(mask, agent.actor(obs_t), torch.tensor(-1e8, device=device))
        obs, reward, terminated, truncated, info = envs.step(to_env(envs, logits.argmax(-1)))
        ended = np.asarray(torch.as_tensor(terminated | truncated).cpu())
        won = np.asarray(torch.as_tensor(reward).cpu()) > 0
        take = np.flatnonzero(ended)[: args.eval_games - played]
        wins += int(won[take].sum())
        played += len(take)
    return wins / played


def main(argv=None) -> int:
    """Train, then evaluate against greedy."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    options = {"num_players": args.num_players}
    opponents = None if args.opponent == "random" else [make_agent("greedy", args.game, args.seed, options)]
    envs = monster_zoo.make_vector_env(
        args.game, args.num_envs, opponents=opponents, seed=args.seed, device=args.device, **options
    )
    agent = Agent(envs.single_observation_space.shape[0], envs.single_action_space.n, args.hidden)
    agent.to(envs.torch_device)  # where the env's tensors live (the CPU under numba-cuda's simulator)
    timesteps, seconds = train(args, envs, agent)
    print(
        f"{args.game}, {args.num_players} players, {args.num_envs} games on {args.device}: trained "
        f"{timesteps} timesteps against {args.opponent} in {seconds:.1f} s ({timesteps / seconds:,.0f} timesteps/s)"
    )
    rate = win_rate(args, agent, options)
    print(
        f"win rate of the trained policy against greedy: {rate:.2f} over {args.eval_games} games "
        f"(an even share is {1 / args.num_players:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
