"""Record every game's greedy decisions on seeded positions (``tests/test_greedy_decisions.py`` checks them).

    python tests/record_greedy_decisions.py

Writes ``tests/golden/greedy_decisions.json``. Per case (a game at its smallest and largest player
count, and once with the rule options that change what greedy meets), ``POSITIONS`` positions are
reached by seeded play in which each move is greedy's with probability ``GREEDY_SHARE`` and a
uniformly random legal action otherwise (games restart when they end). At every position the greedy
kernel is asked for its action with the case's own generator, which it advances to break ties: the
record holds every action chosen (uint16, zlib-compressed, base64) and a SHA-256 of the generator's
state after each call, so a faster kernel must choose the same actions AND draw the same ties.

A greedy agent's id (``<game>-greedy-v<version>``) promises its play: re-record only after an intended
change of play, which also bumps the baseline's version (``Baseline.version``) and enters CHANGELOG.md.
"""

import base64
import hashlib
import importlib
import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # lets the script run from any directory without installing
    sys.path.insert(0, str(ROOT))

from monster_zoo import envs  # noqa: E402
from monster_zoo.envs.core.contract import H_MAX_STEPS, H_STEPS, H_TERMINAL  # noqa: E402
from monster_zoo.envs.core.rng import make_rng  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "greedy_decisions.json"
POSITIONS = 4000
GREEDY_SHARE = 0.5
# (game, options): every game at its smallest and largest count, and with the options that change
# the positions greedy meets or what it reads (rule variants, setup choices, endings).
CASES: tuple[tuple[str, dict], ...] = (
    ("marry_the_monster-v0", {"num_players": 2}),
    ("marry_the_monster-v0", {"num_players": 5}),
    ("mighty_monsters-v0", {"num_players": 3}),
    ("mighty_monsters-v0", {"num_players": 6}),
    ("mighty_monsters-v0", {"num_players": 4, "guard_lineup": True, "kings_rules": True}),
    ("monstargh-v0", {"num_players": 2}),
    ("monstargh-v0", {"num_players": 6}),
    ("monstargh-v0", {"num_players": 3, "tiebreak": "extra_scene"}),
    ("monster_arena-v0", {"num_players": 2}),
    ("monster_arena-v0", {"num_players": 6}),
    ("monster_arena-v0", {"num_players": 3, "quiet_ending_rounds": 2}),
    ("monster_factory-v0", {"num_players": 2}),
    ("monster_factory-v0", {"num_players": 6}),
    ("monster_factory-v0", {"num_players": 4, "start_tiles": "random"}),
)


def case_name(game_id: str, options: dict) -> str:
    """A case's key in the record: the game id and its options, sorted."""
    return game_id + "".join(f" {k}={v}" for k, v in sorted(options.items()))


def greedy_kernel(game_id: str):
    """The game's greedy policy kernel (``contract.POLICY_SIG``), from its declaration."""
    return importlib.import_module(envs.spec(game_id).baselines["greedy"].module).greedy_action


def seeded_positions(
    game_id: str, options: dict, count: int, seed: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``count`` (state, legal mask) positions of seeded mixed greedy/random play, each yielded
    before its move is made; the caller's greedy action is played (sent back) or a random one."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, options)
    state = np.zeros(spec.state_size, np.int32)
    mask = np.zeros(spec.num_actions, np.int8)
    game_rng, driver = make_rng(seed), np.random.default_rng(seed)
    spec.init_state(state, config, game_rng)
    for _ in range(count):
        spec.legal_mask(state, mask)
        greedy = yield state, mask
        action = int(greedy) if driver.random() < GREEDY_SHARE else int(driver.choice(np.flatnonzero(mask)))
        spec.apply_action(state, action, game_rng)
        if state[H_TERMINAL] != 0 or state[H_STEPS] >= state[H_MAX_STEPS]:  # over, or truncated
            spec.init_state(state, config, game_rng)


def decisions(
    game_id: str, options: dict, count: int = POSITIONS, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy's action at each of ``count`` seeded positions and its generator's state after each."""
    kernel = greedy_kernel(game_id)
    rng = make_rng(seed + 1)
    actions = np.zeros(count, np.uint16)
    rng_states = np.zeros(count, np.uint64)
    positions = seeded_positions(game_id, options, count, seed)
    state, mask = next(positions)
    for i in range(count):
        before = state.copy()
        actions[i] = kernel(state, mask, rng)
        assert np.array_equal(state, before), f"{game_id}: greedy changed the state it was asked about"
        rng_states[i] = rng[0]
        try:
            state, mask = positions.send(actions[i])
        except StopIteration:
            break
    return actions, rng_states


def encode_actions(actions: np.ndarray) -> str:
    """uint16 actions as compressed base64 text."""
    return base64.b64encode(zlib.compress(actions.astype("<u2").tobytes(), 9)).decode("ascii")


def decode_actions(text: str) -> np.ndarray:
    """The inverse of :func:`encode_actions`."""
    return np.frombuffer(zlib.decompress(base64.b64decode(text)), "<u2")


def rng_digest(rng_states: np.ndarray) -> str:
    """SHA-256 of the generator states, in order."""
    return hashlib.sha256(rng_states.astype("<u8").tobytes()).hexdigest()


def record_case(game_id: str, options: dict) -> dict:
    """One case's entry in the record."""
    actions, rng_states = decisions(game_id, options)
    return {
        "game": game_id,
        "options": options,
        "seed": 0,
        "positions": POSITIONS,
        "actions": encode_actions(actions),
        "rng_sha256": rng_digest(rng_states),
    }


def record() -> list[dict]:
    """Every case's entry."""
    return [record_case(game_id, options) for game_id, options in CASES]


if __name__ == "__main__":
    text = json.dumps({"cases": record()}, indent=1) + "\n"
    tmp = GOLDEN.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(GOLDEN)
    print(f"wrote {GOLDEN.relative_to(ROOT)}")
