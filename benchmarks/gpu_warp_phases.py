"""A CPU model of phase mixing in GPU warps: how many game phases the 32 games of a warp are in, and
what stepping each warp's games phase by phase saves.

    python -m monster_zoo.benchmarks.gpu_warp_phases                    # Monster Arena, 16 warps
    python -m monster_zoo.benchmarks.gpu_warp_phases --games monster_arena-v0,mighty_monsters-v0 --warps 64

The GPU engine runs one game per thread, 32 threads a warp, and a warp whose games wait for different
decisions runs each phase's code in turn, each time for the threads in that phase only. This model
plays ``--warps`` x 32 seeded random games on the CPU with the game's own kernels (the engine's seeds
and action generators), each ``--steps`` steps after ``--warmup`` steps that spread the games over
the phases as a long run does, under two schedules of each warp:

* ``lockstep`` (the plain in-launch loop): every round each game takes a step; the round runs the
  code of every phase its games are in (``phases_share``: the share of rounds with k phases);
* ``majority_first`` (:mod:`monster_zoo.envs.gpu.drivers`' loop for games that declare their phases):
  every round the games of the warp's most common phase among those with steps left take a step.

``phase_runs_per_step``: phase code runs per game step (lower is better; 1/32 when every warp's games
are always in one phase). Both schedules play the very same games (``same_games``: the final states
are equal). One JSON line per game with the git commit, package versions and host, printed and
appended to ``--json`` where given.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

WARP_SIZE = 32
DISTRIBUTIONS = ("numpy", "numba")


def start_games(game_id: str, num_games: int, seed: int, num_players: int | None):
    """``(spec, config, states, rngs, action_rngs)`` of ``num_games`` games dealt as the CPU engine
    deals them for ``seed``."""
    import monster_zoo

    spec = monster_zoo.spec(game_id)
    options = {} if num_players is None else {"num_players": num_players}
    engine = monster_zoo.make_batch(game_id, num_envs=num_games, seed=seed, **options)
    engine.reset()
    return spec, engine.config, engine.states.copy(), engine.rngs.copy(), engine.action_rngs.copy()


def phase_reader(spec):
    """``phase(state)`` from the game's rules' ``phase_of`` (its Python function), else None."""
    phase_of = getattr(getattr(spec, "rules", None), "phase_of", None)
    return None if phase_of is None else phase_of.py_func


def make_stepper(spec, config):
    """``step(state, rng, action_rng)``: one random legal action, auto-reset, as the GPU loop plays it."""
    from monster_zoo.envs.core.header import running
    from monster_zoo.envs.core.rng import rng_pick_counted

    mask = np.zeros(spec.num_actions, np.int8)
    is_running = running.py_func

    def step(state, rng, action_rng):
        spec.apply_action(state, rng_pick_counted(mask, spec.legal_mask(state, mask), action_rng), rng)
        if not is_running(state):
            spec.init_state(state, config, rng)

    return step


def lockstep(warp, steps, step, phase) -> Counter:
    """Every game of ``warp`` (lists of state, rng, action rng) steps ``steps`` times, all together; the
    count of rounds by the number of phases their games were in."""
    mixed = Counter()
    for _ in range(steps):
        mixed[len({phase(state) for state, _, _ in warp})] += 1
        for game in warp:
            step(*game)
    return mixed


def majority_first(warp, steps, step, phase) -> int:
    """Every game of ``warp`` steps ``steps`` times, each round the games of the most common phase among
    those with steps left (ties to the lowest phase, as the GPU loop); the number of rounds."""
    left = [steps] * len(warp)
    rounds = 0
    while any(left):
        phases = [phase(state) if n else None for (state, _, _), n in zip(warp, left)]
        counts = Counter(p for p in phases if p is not None)
        best = max(sorted(counts), key=lambda p: counts[p])
        for k, game in enumerate(warp):
            if phases[k] == best:
                step(*game)
                left[k] -= 1
        rounds += 1
    return rounds


def model(game_id: str, warps: int, steps: int, warmup: int, seed: int, num_players: int | None) -> dict:
    """The model's figures for one game (see the module's docstring)."""
    spec, config, states, rngs, action_rngs = start_games(game_id, warps * WARP_SIZE, seed, num_players)
    phase = phase_reader(spec)
    if phase is None:
        return {"game": game_id, "skipped": "its rules declare no phases (phase_of, NUM_PHASES)"}
    step = make_stepper(spec, config)
    for k in range(states.shape[0]):
        for _ in range(warmup):
            step(states[k], rngs[k], action_rngs[k])
    copies = states.copy(), rngs.copy(), action_rngs.copy()
    mixed, rounds = Counter(), 0
    for w in range(warps):
        lanes = range(w * WARP_SIZE, (w + 1) * WARP_SIZE)
        mixed += lockstep([(states[k], rngs[k], action_rngs[k]) for k in lanes], steps, step, phase)
        rounds += majority_first([tuple(a[k] for a in copies) for k in lanes], steps, step, phase)
    game_steps = warps * WARP_SIZE * steps
    lockstep_runs = sum(k * n for k, n in mixed.items())
    return {
        "game": game_id,
        "num_players": int(config[0]),
        "warps": warps,
        "steps": steps,
        "warmup": warmup,
        "phases_share": {str(k): round(n / (warps * steps), 4) for k, n in sorted(mixed.items())},
        "lockstep_mean_phases": round(lockstep_runs / (warps * steps), 3),
        "lockstep_phase_runs_per_step": round(lockstep_runs / game_steps, 4),
        "majority_first_phase_runs_per_step": round(rounds / game_steps, 4),
        "majority_first_games_per_round": round(game_steps / rounds, 2),
        "same_games": bool(np.array_equal(states, copies[0]) and np.array_equal(rngs, copies[1])),
    }


def parse_args(argv=None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="monster_arena-v0", help="comma-separated game ids")
    parser.add_argument("--warps", type=int, default=16, help="warps of 32 games (default 16)")
    parser.add_argument("--steps", type=int, default=200, help="steps per game measured (default 200)")
    parser.add_argument("--warmup", type=int, default=300, help="steps per game before (default 300)")
    parser.add_argument("--players", type=int, default=None, help="player count (default: the game's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="JSON-lines file the lines are appended to")
    args = parser.parse_args(argv)
    for name in ("warps", "steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.warmup < 0:
        parser.error(f"--warmup must be 0 or more, got {args.warmup}")
    return args


def main(argv=None) -> int:
    """Model every game asked; one JSON line each."""
    args = parse_args(argv)
    import monster_zoo
    from monster_zoo.evaluation.host import provenance

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in monster_zoo.available()]
    if unknown or not games:
        raise SystemExit(
            f"--games: unknown {', '.join(unknown) or '(none)'}; available: {', '.join(monster_zoo.available())}"
        )
    facts = {"benchmark": "gpu_warp_phases", **provenance(DISTRIBUTIONS)}
    for game_id in games:
        line = json.dumps(
            {**model(game_id, args.warps, args.steps, args.warmup, args.seed, args.players), **facts}
        )
        print(line, flush=True)
        if args.json is not None:
            with open(args.json, "a", encoding="utf-8") as out:  # one whole line per write: a record
                out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
