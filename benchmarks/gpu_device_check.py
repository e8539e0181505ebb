"""The GPU engine on a real GPU, in one command: PTX check, GPU = CPU parity, GPU benchmark, Pgx anchors.

Run on a machine with an NVIDIA GPU (``bash benchmarks/gpu_device_check.sh`` installs what it needs
first); well under ten minutes on one H100. Every result is one JSON line (stdout, and appended to
``--json``), each carrying the device, driver and versions; the parts:

1. ``ptx``: ``monster-zoo gpu check --parts engine``'s compile of every game for cc 8.0 and 9.0.
2. ``parity``: :func:`monster_zoo.envs.gpu.parity.compare` on the GPU for every game at its smallest
   and largest player count (``--parity-envs`` games each, to their end, auto-reset included, then
   random steps inside one launch); and whether torch takes the engine's arrays without a copy.
3. ``bench``: every game's GPU engine at batch sizes 2^10 .. 2^20, stepping from Python
   (``step(random_actions())``, a legality check and a mask copy included) and inside one launch
   (``step_random``); steps per second, the median of ``--repeats`` timed repeats after a warm-up
   (compile time reported apart).
4. ``pgx``: Pgx ``connect_four`` and ``sparrow_mahjong`` on JAX's GPU backend at the same sizes
   (random legal actions, auto-reset, ``lax.fori_loop`` inside one jit), in a subprocess so JAX's
   memory stays apart; skipped with the reason when Pgx or a JAX GPU is missing.
5. ``trainer``: the array-side PPO trainer (``monster_zoo.training.device_ppo``) on the GPU. First
   the learner-seat games on the device against the CPU's
   (:func:`monster_zoo.envs.gpu.parity.compare_learner`: ``--parity-envs`` games with random
   opponents, a quarter of that with greedy, a pool with frozen networks, and random opponents with
   a learner that now and then plays an illegal move under ``illegal_action="penalize"``;
   ``trainer_parity`` lines, ``illegal_played`` counting those moves), then ``device-train --device cuda`` for ``--trainer-minutes`` of training at
   ``--trainer-envs`` games (2-player Marry the Monster, or the first of ``--games`` at its smallest
   count; minibatches of twice as many decisions; opponents random 0.2 and snapshots 0.8, the
   trainer's own figure rather than greedy's search), reporting timesteps/s, the seconds in rollouts and in updates, the GPU memory it took
   and the win rates against random and greedy after the run (``trainer`` line). About 3 minutes on
   a cold machine with the default minute of training: ``--parts trainer`` runs it alone.

Sizing: on this project's 2-core host the PTX compile alone takes 100-160 s for the five games and
each part compiles (numba's CPU cache and numba-cuda's kernels start cold on a fresh machine), so
where one call must stay under ten minutes, run it as two: ``--parts ptx,parity`` then
``--parts bench,pgx,trainer``; the JSON lines of both go to the same file. Every part's failure is
recorded as an ``error`` line and the others still run (exit status 1).

``--quick`` shrinks everything for a smoke test (the numbers mean nothing); it also runs under
numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) without a GPU, as ``tests/test_gpu_device_check.py``
does.
"""

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

PARTS = ("ptx", "parity", "bench", "pgx", "trainer")
PGX_GAMES = ("connect_four", "sparrow_mahjong")
FULL_SIZES = tuple(2**k for k in (10, 12, 14, 16, 18, 20))
QUICK_SIZES = (4, 8)
HERE = Path(__file__).resolve().parent
TRAINER_GAME = "marry_the_monster-v0"
TRAINER_OPPONENTS = "random:0.2,snapshots:0.8"


def versions() -> dict[str, str | None]:
    """Versions of what the figures depend on (None: not importable)."""
    found = {"python": platform.python_version()}
    for name in ("numpy", "numba", "numba_cuda", "llvmlite", "torch", "jax", "jaxlib", "pgx", "cupy"):
        try:
            module = __import__(name)
            found[name] = getattr(module, "__version__", "?")
        except Exception:
            found[name] = None
    return found


def device_facts() -> dict:
    """The GPU's name, capability, driver and CUDA runtime as numba-cuda sees them, or the simulator."""
    from numba import cuda

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return {"device": "numba-cuda simulator", "driver": None, "compute_capability": None}
    device = cuda.get_current_device()
    facts = {
        "device": device.name.decode() if isinstance(device.name, bytes) else str(device.name),
        "compute_capability": ".".join(map(str, device.compute_capability)),
    }
    try:
        facts["driver"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
    except Exception:
        facts["driver"] = None
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        facts["nvidia_smi"] = smi.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        facts["nvidia_smi"] = None
    return facts


class Recorder:
    """Prints each result as a JSON line with the shared facts and appends it to a file."""

    def __init__(self, path: Path | None, facts: dict):
        self.path, self.facts = path, facts

    def __call__(self, part: str, **fields) -> None:
        line = json.dumps({"part": part, **fields, **self.facts}, default=str)
        print(line, flush=True)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(line + "\n")


def run_ptx(record: Recorder, games: Sequence[str]) -> None:
    from monster_zoo.envs.gpu.ptx_check import check

    # the engine's drivers only: the trainer part compiles the learner-seat drivers for the device it runs
    # them on, and their PTX compile (greedy's search) would take minutes of the check's budget
    for line in check(games, parts=("engine",)):
        record("ptx", game=line.split()[0], drivers=line.split()[1], ok=" ok " in line, line=line)


def run_parity(record: Recorder, games: Sequence[str], num_envs: int) -> None:
    import monster_zoo
    from monster_zoo.envs.gpu.parity import compare

    for game_id in games:
        spec = monster_zoo.spec(game_id)
        for n in sorted({spec.min_players, spec.max_players}):
            start = time.perf_counter()
            result = compare(game_id, n, num_envs, seed=2026, random_steps=50)
            record("parity", **result.as_dict(), seconds=round(time.perf_counter() - start, 1))
    record("parity_zero_copy", **zero_copy(games[0]))


def zero_copy(game_id: str) -> dict:
    """Whether torch and CuPy see the engine's observation buffer itself (same device pointer)."""
    import monster_zoo

    engine = monster_zoo.make_batch(game_id, num_envs=8, seed=0, device="cuda")
    obs, _ = engine.reset()
    found = {"game": game_id}
    if not hasattr(obs, "__cuda_array_interface__"):
        return {**found, "skipped": "numba-cuda's simulator hands out host arrays"}
    pointer = obs.__cuda_array_interface__["data"][0]
    try:
        import torch

        found["torch_same_memory"] = torch.as_tensor(obs, device="cuda").data_ptr() == pointer
    except Exception as error:
        found["torch_same_memory"] = f"skipped: {type(error).__name__}: {error}"[:200]
    try:
        import cupy

        found["cupy_same_memory"] = cupy.asarray(obs).data.ptr == pointer
    except Exception as error:
        found["cupy_same_memory"] = f"skipped: {type(error).__name__}: {error}"[:200]
    return found


def timed(work: Callable[[int], None], steps: int, repeats: int) -> list[float]:
    """Seconds of ``work(steps)`` per repeat (each ends with the device synchronised)."""
    from numba import cuda

    times = []
    for _ in range(repeats):
        cuda.synchronize()
        start = time.perf_counter()
        work(steps)
        cuda.synchronize()
        times.append(time.perf_counter() - start)
    return times


def steps_for(work: Callable[[int], None], target_seconds: float) -> int:
    """How many steps of ``work`` take about ``target_seconds`` (after its warm-up call)."""
    steps = 1
    while True:
        seconds = min(timed(work, steps, 1))
        if seconds >= target_seconds / 4 or steps >= 1 << 16:
            return max(1, int(steps * target_seconds / max(seconds, 1e-9)))
        steps *= 4


def run_bench(
    record: Recorder, games: Sequence[str], sizes: Sequence[int], repeats: int, seconds: float
) -> None:
    for game_id in games:
        for size in sizes:
            try:
                bench_size(record, game_id, size, repeats, seconds)
            except Exception as error:
                record("bench", game=game_id, num_envs=size, error=f"{type(error).__name__}: {error}"[:500])
                break


def bench_size(record: Recorder, game_id: str, size: int, repeats: int, seconds: float) -> None:
    """Both ways of stepping ``size`` games of ``game_id`` on the GPU, one JSON line each."""
    import monster_zoo

    start = time.perf_counter()
    engine = monster_zoo.make_batch(game_id, num_envs=size, seed=0, device="cuda")
    engine.reset()
    engine.step(engine.random_actions())
    engine.step_random(1)
    warm = time.perf_counter() - start  # compile (first size) and allocation

    def from_python(steps: int) -> None:
        for _ in range(steps):
            engine.step(engine.random_actions())

    for mode, work in (("python", from_python), ("launch", engine.step_random)):
        steps = steps_for(work, seconds)
        times = timed(work, steps, repeats)
        median = statistics.median(times)
        record(
            "bench",
            game=game_id,
            mode=mode,
            num_envs=size,
            steps_per_call=steps,
            repeats=repeats,
            steps_per_second=size * steps / median,
            seconds=[round(t, 4) for t in times],
            warmup_seconds=round(warm, 2),
        )


PGX_SCRIPT = r"""
import json, statistics, sys, time
import jax, jax.numpy as jnp
import pgx
from pgx.experimental import auto_reset
game, sizes, repeats, seconds = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
backend = jax.default_backend()
env = pgx.make(game)
step = auto_reset(env.step, env.init)

def act(key, mask):
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))

for size in sizes:
    keys = jax.random.split(jax.random.PRNGKey(0), size)
    state = jax.jit(jax.vmap(env.init))(keys)

    def one(carry):
        state, key = carry
        key, pick, chance = jax.random.split(key, 3)
        actions = jax.vmap(act)(jax.random.split(pick, size), state.legal_action_mask)
        return jax.vmap(step)(state, actions, jax.random.split(chance, size)), key

    one_jit = jax.jit(one)

    @jax.jit
    def many(carry, steps):
        return jax.lax.fori_loop(0, steps, lambda i, c: one(c), carry)

    carry = (state, jax.random.PRNGKey(1))
    start = time.perf_counter()
    carry = jax.block_until_ready(one_jit(carry))
    carry = jax.block_until_ready(many(carry, 2))
    warm = time.perf_counter() - start
    def run(carry, mode, steps):
        if mode == "python":
            for _ in range(steps):
                carry = one_jit(carry)
        else:
            carry = many(carry, steps)
        return jax.block_until_ready(carry)

    for mode in ("python", "launch"):
        steps = 1
        while True:  # as many steps as take about `seconds`
            start = time.perf_counter()
            carry = run(carry, mode, steps)
            took = time.perf_counter() - start
            if took >= seconds / 4 or steps >= 1 << 16:
                steps = max(1, int(steps * seconds / max(took, 1e-9)))
                break
            steps *= 4
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            carry = run(carry, mode, steps)
            times.append(time.perf_counter() - start)
        print(json.dumps({"game": game, "backend": backend, "jax_device": str(jax.devices()[0]), "mode": mode,
                          "num_envs": size, "steps_per_call": steps, "repeats": repeats,
                          "steps_per_second": size * steps / statistics.median(times),
                          "seconds": [round(t, 4) for t in times], "warmup_seconds": round(warm, 2)}), flush=True)
"""


def run_pgx(record: Recorder, sizes: Sequence[int], repeats: int, seconds: float, need_gpu: bool) -> None:
    environment = {**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    environment.pop("NUMBA_ENABLE_CUDASIM", None)
    for game in PGX_GAMES:
        try:
            done = subprocess.run(
                [sys.executable, "-c", PGX_SCRIPT, game, json.dumps(list(sizes)), str(repeats), str(seconds)],
                capture_output=True,
                text=True,
                timeout=300,
                env=environment,
            )
        except subprocess.TimeoutExpired:
            record("pgx", game=game, skipped="timed out after 300 s")
            continue
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 and not rows:
            record("pgx", game=game, skipped=(done.stderr.strip().splitlines() or ["no output"])[-1][:300])
            continue
        for row in rows:
            if need_gpu and row["backend"] != "gpu":
                record("pgx", game=game, skipped=f"JAX runs on {row['backend']}, not a GPU")
                break
            record("pgx", **row)


def run_trainer(
    record: Recorder, game_id: str, parity_envs: int, minutes: float, num_envs: int, quick: bool
) -> None:
    """The learner-seat games' parity on the device, then a timed ``device-train --device cuda`` run.
    Each piece's failure is recorded as an ``error`` line and the next piece still runs."""
    import tempfile

    import monster_zoo
    from monster_zoo.envs.gpu.parity import POOLS, compare_learner

    players = 2 if game_id == TRAINER_GAME else monster_zoo.spec(game_id).min_players
    # the last case: random opponents, the learner now and then playing an illegal move under
    # illegal_action="penalize" (the kernel's penalty path, so far run only under the simulator)
    for pool, illegal_every in [(pool, 0) for pool in POOLS] + [("random", 40)]:
        start = time.perf_counter()
        try:  # greedy's search on the CPU side is the slow part: a quarter of the games
            envs = max(2, parity_envs // 4) if pool == "greedy" else parity_envs
            result = compare_learner(game_id, players, envs, pool, seed=2026, illegal_every=illegal_every)
        except Exception as error:
            record(
                "error",
                failed_part=f"trainer_parity {pool}",
                error=f"{type(error).__name__}: {error}"[:2000],
                traceback=traceback.format_exc()[-3000:],
            )
            continue
        record("trainer_parity", **result, seconds=round(time.perf_counter() - start, 1))
    from monster_zoo.training.device_ppo import trainer

    out = Path(tempfile.mkdtemp(prefix="device_train_"))
    timesteps = 64 if quick else 10**12  # the time limit ends a full run
    argv = [
        "--game",
        game_id,
        "--option",
        f"num_players={players}",
        "--device",
        "cuda",
        "--opponents",
        TRAINER_OPPONENTS,
        "--num-envs",
        str(num_envs),
        "--num-steps",
        "8" if quick else "32",
        "--batch-size",
        "32" if quick else str(2 * num_envs),
        "--total-timesteps",
        str(timesteps),
        "--time-limit",
        "0" if quick else str(minutes),
        "--eval-every",
        "0",
        "--eval-games",
        "2" if quick else "100",
        "--checkpoint-every",
        "0",
        "--no-progress",
        "--out-dir",
        str(out),
        "--seed",
        "1",
        # the epochs and learning rate of the first H200 figure (438,400 timesteps/s, 2026-11-28), so
        # that the rollout and update seconds and the strength after a minute stay comparable across
        # runs (device-train's CPU defaults are now 1 epoch and 2e-3)
        "--update-epochs",
        "2",
        "--learning-rate",
        "3e-4",
    ]
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout holds the JSON lines only
            code = trainer.main(argv)
    except SystemExit as exit_:  # a refused flag: argparse has printed why on stderr
        code = exit_.code
    if code != 0:
        raise RuntimeError(f"device-train exited with {code}: {' '.join(argv)}")
    (run_dir,) = out.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    spent = summary["rollout_seconds"] + summary["update_seconds"]
    memory = None
    try:
        import torch

        if torch.cuda.is_available():
            memory = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    except ImportError:
        pass
    record(
        "trainer",
        game=game_id,
        num_players=players,
        opponents=TRAINER_OPPONENTS,
        num_envs=num_envs,
        timesteps=summary["timesteps"],
        train_seconds=summary["train_seconds"],
        timesteps_per_second=summary["timesteps_per_second"],
        rollout_seconds=summary["rollout_seconds"],
        update_seconds=summary["update_seconds"],
        network_dtype=summary["network_dtype"],
        rollout_share=round(summary["rollout_seconds"] / spent, 3) if spent else None,
        wall_seconds=round(time.perf_counter() - start, 1),
        torch_max_memory_gib=memory,
        **{k: v for k, v in summary.items() if k.startswith("winrate_vs_")},
        argv=argv,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)} (default: all)"
    )
    parser.add_argument(
        "--games", default="", help="comma-separated game ids (default: every registered game)"
    )
    parser.add_argument("--parity-envs", type=int, default=512, help="games per parity case (default 512)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per figure (default 5)")
    parser.add_argument(
        "--seconds", type=float, default=0.25, help="wall time of one timed repeat (default 0.25)"
    )
    parser.add_argument("--json", type=Path, default=None, help="JSON-lines file to append to as well")
    parser.add_argument(
        "--trainer-minutes",
        type=float,
        default=1.0,
        help="minutes of training in the trainer part (default 1)",
    )
    parser.add_argument(
        "--trainer-envs",
        type=int,
        default=16384,
        help="games played side by side in the trainer part (default 16384)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: a smoke test whose numbers mean nothing"
    )
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; valid: {', '.join(PARTS)}")
    import monster_zoo
    from monster_zoo.envs.gpu import require_gpu

    games = [g for g in args.games.split(",") if g] or monster_zoo.available()
    bad = [g for g in games if g not in monster_zoo.available()]
    if bad:
        parser.error(f"unknown game(s) {', '.join(bad)}; available: {', '.join(monster_zoo.available())}")
    require_gpu()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats, seconds = (1, 0.01) if args.quick else (args.repeats, args.seconds)
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    )
    record = Recorder(
        args.json,
        {
            **device_facts(),
            "versions": versions(),
            "git": revision.stdout.strip() or None,
            "quick": args.quick,
        },
    )
    start = time.perf_counter()
    runs = {
        "ptx": lambda: run_ptx(record, games),
        "parity": lambda: run_parity(record, games, 2 if args.quick else args.parity_envs),
        "bench": lambda: run_bench(record, games, sizes, repeats, seconds),
        "pgx": lambda: run_pgx(record, sizes, repeats, seconds, need_gpu=not args.quick),
        "trainer": lambda: run_trainer(
            record,
            args.games.split(",")[0] if args.games else TRAINER_GAME,
            2 if args.quick else args.parity_envs,
            args.trainer_minutes,
            4 if args.quick else args.trainer_envs,
            args.quick,
        ),
    }
    failed = []
    for part in PARTS:
        if part in parts:
            try:
                runs[part]()
            except Exception as error:
                failed.append(part)
                record(
                    "error",
                    failed_part=part,
                    error=f"{type(error).__name__}: {error}"[:2000],
                    traceback=traceback.format_exc()[-3000:],
                )
    record("done", seconds=round(time.perf_counter() - start, 1), failed_parts=failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
