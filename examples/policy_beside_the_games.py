"""A torch policy acting on the batched engine's own arrays, on the CPU or on an NVIDIA GPU.

The same loop runs on either device: ``monster_zoo.make_batch(..., device="cuda")`` keeps every
game's state, mask and observation on the GPU (one CUDA thread per game, the same kernels as the CPU
engine), and torch takes the observations and masks as tensors without a copy (the CUDA array
interface); the policy's actions go back the same way. On the CPU the arrays are numpy, copied into
tensors. ``--device auto`` takes the GPU when numba-cuda sees one (the ``gpu`` extra), else the CPU.
The policy is an untrained linear layer over the observation, sampled with the mask: the point is
where the data lives, not the play.

    python examples/policy_beside_the_games.py --device cuda --num-envs 65536 --steps 200
"""

import argparse
import time

import torch

import monster_zoo


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: device, game, batch size, steps, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "cuda"),
        help="where the games and the policy run (default %(default)s: cuda if usable)",
    )
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument(
        "--num-envs", type=int, default=64, help="games stepped together (default %(default)s)"
    )
    parser.add_argument("--steps", type=int, default=50, help="steps of every game (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="game i is seeded seed + i (default %(default)s)")
    return parser.parse_args(argv)


def gpu_usable() -> bool:
    """Whether numba-cuda is installed and sees a GPU."""
    try:
        from numba import cuda
    except ImportError:
        return False
    return cuda.is_available()


def as_tensor(array, device: str) -> torch.Tensor:
    """The engine's array as a tensor: the same memory on the GPU, a copy of the read-only view on the CPU."""
    return torch.as_tensor(array, device="cuda") if device == "cuda" else torch.tensor(array)


def main(argv=None) -> int:
    """Play ``--steps`` steps of every game with the policy; print where it ran and how fast."""
    args = parse_args(argv)
    device = ("cuda" if gpu_usable() else "cpu") if args.device == "auto" else args.device
    torch.manual_seed(args.seed)
    engine = monster_zoo.make_batch(args.game, num_envs=args.num_envs, seed=args.seed, device=device)
    obs, masks = engine.reset()
    spec = monster_zoo.spec(args.game)
    policy = torch.nn.Linear(spec.obs_size, spec.num_actions).to(device)
    finished = 0
    start = time.perf_counter()
    with torch.no_grad():
        for _ in range(args.steps):
            logits = policy(as_tensor(obs, device))
            logits = logits.masked_fill(as_tensor(masks, device) == 0, float("-inf"))
            actions = torch.distributions.Categorical(logits=logits).sample()
            obs, masks, _, terminated, truncated = engine.step(
                actions if device == "cuda" else actions.numpy()
            )
            finished += int(as_tensor(terminated, device).sum() + as_tensor(truncated, device).sum())
    seconds = time.perf_counter() - start
    print(
        f"{args.game} on {device}: {args.num_envs} games x {args.steps} steps in {seconds:.2f} s "
        f"({args.num_envs * args.steps / seconds:,.0f} steps/s with the policy), {finished} games finished"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
