"""Record the golden playthroughs that ``tests/test_golden.py`` replays and diffs.

    python tests/record_golden.py                        # every registered game
    python tests/record_golden.py marry_the_monster-v0   # one game

Run it only after an intended rule or rendering change, then review the change
with ``git diff tests/golden`` before committing it: the diff is the visible
effect of the change on one complete game.

A playthrough is one game with default options from ``reset(seed=SEED)``, each
move chosen by ``random.Random(SEED)`` among the legal moves. Every step lists the
text board (``render_mode="ansi"``), the agent on move, its legal moves and the
chosen move, all as text; the final board and rewards close the file.
"""

import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # lets the script run from any directory without installing
    sys.path.insert(0, str(ROOT))

from monster_zoo import envs  # noqa: E402

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SEED = 2024


def golden_path(game_id: str) -> Path:
    """Where the golden playthrough of ``game_id`` is stored."""
    return GOLDEN_DIR / f"{game_id}.txt"


def playthrough(game_id: str) -> str:
    """The text of the recorded game of ``game_id`` (see the module docstring)."""
    env = envs.make(game_id, render_mode="ansi")
    env.reset(seed=SEED)
    raw = env.unwrapped
    rng = random.Random(SEED)
    lines = [
        f"# Golden playthrough of {game_id}: default options, reset(seed={SEED}), "
        f"moves drawn by random.Random({SEED}) from the legal moves.",
        f"# Re-record after an intended change: python tests/record_golden.py {game_id}",
    ]
    step = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent = env.agent_selection
        legal = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        names = [raw.action_to_str(a) for a in legal]
        # Every move must read back from its name, or the file would not describe the game.
        unreadable = [n for a, n in zip(legal, names) if raw.spec.str_to_action(n) != a]
        if unreadable:
            raise ValueError(f"{game_id}: move names that do not read back: {unreadable}")
        action = rng.choice(legal)
        lines += [
            f"=== step {step}: {agent} ===",
            env.render(),
            f"legal ({len(legal)}): {', '.join(names)}",
            f"chosen: {raw.action_to_str(action)}",
        ]
        env.step(action)
        step += 1
    ending = "truncated" if env.truncations[env.agent_selection] else "over"
    lines += [
        f"=== game {ending} after {step} steps ===",
        env.render(),
        "rewards: " + ", ".join(f"{a} {env.rewards[a]:+.4f}" for a in env.possible_agents),
    ]
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    """Record the games named in ``argv`` (all registered games when none is named)."""
    ids = argv or envs.available()
    unknown = [g for g in ids if g not in envs.available()]
    if unknown:
        print(
            f"unknown game(s) {', '.join(unknown)}; available: {', '.join(envs.available())}", file=sys.stderr
        )
        return 2
    GOLDEN_DIR.mkdir(exist_ok=True)
    for game_id in ids:
        text = playthrough(game_id)
        path = golden_path(game_id)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text(text, encoding="utf-8")
        state = "unchanged" if old == text else ("written" if old is None else "changed")
        print(f"{path.relative_to(ROOT)}: {text.count('=== step')} steps, {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
