"""Pin each game id to a fingerprint of what the id promises (``tests/game_versions.json``).

    python tests/record_game_versions.py                  # pin every registered id not pinned yet
    python tests/record_game_versions.py monstargh-v1     # pin one new id

A game id (``<game>-vN``) fixes the rules, the observation, the action space and the rewards
(``CHANGELOG.md``). ``tests/test_game_versions.py`` recomputes every registered id's fingerprint
and fails when it differs from the pin: the way out is a new id (``-vN+1``), a CHANGELOG entry,
and this script to pin the new id. It never rewrites an existing pin: an id whose pin is already
recorded is refused, so a changed game can never pass under its old id.

A fingerprint holds, for every supported player count at default options: the observation and
action spaces, the observation size and version, the default step limit, a SHA-256 of every
seat's observation and mask at ``reset(seed=SEED)``, and a SHA-256 of a playthrough from that
reset (every action, then every seat's observation, mask, reward, termination and truncation
after it), its moves drawn by ``random.Random(SEED)`` among the legal ones, for at most
``MAX_STEPS`` actions. Arrays are hashed as bytes of a fixed dtype and byte order and floats are
never printed, so the fingerprint is the same in every process and at every thread count.
"""

import hashlib
import json
import random
import struct
import sys
from pathlib import Path

import numpy as np
from gymnasium import spaces

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # lets the script run from any directory without installing
    sys.path.insert(0, str(ROOT))

from monster_zoo import envs  # noqa: E402

PINS_PATH = Path(__file__).resolve().parent / "game_versions.json"
SEED = 2026
# Long enough for most random games to end (so final rewards are pinned), short enough that
# every id at every player count fingerprints in seconds.
MAX_STEPS = 400


def _feed(digest, array, dtype: str) -> None:
    """Hash ``array``'s values as bytes of ``dtype`` (explicit byte order)."""
    digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())


def _feed_seats(digest, env) -> None:
    """Hash every seat's observation and mask, in seat order."""
    for agent in env.possible_agents:
        seen = env.observe(agent)
        _feed(digest, seen["observation"], "<f4")
        _feed(digest, seen["action_mask"], "<i1")


def describe_space(space) -> str:
    """A space as stable text: dtypes and shapes by name, bounds as plain floats when uniform
    and as a SHA-256 of their float64 bytes otherwise."""
    if isinstance(space, spaces.Dict):
        return "Dict(" + ", ".join(f"{k}: {describe_space(v)}" for k, v in sorted(space.spaces.items())) + ")"
    if isinstance(space, spaces.Box):

        def bound(values):
            values = np.asarray(values, dtype="<f8")
            if (values == values.flat[0]).all():
                return repr(float(values.flat[0]))
            return "sha256:" + hashlib.sha256(values.tobytes()).hexdigest()

        return f"Box({bound(space.low)}, {bound(space.high)}, {tuple(space.shape)}, {np.dtype(space.dtype).name})"
    if isinstance(space, spaces.Discrete):
        return f"Discrete({int(space.n)}, start={int(space.start)})"
    raise TypeError(f"no stable description for space {space!r}: add its type to describe_space")


def _per_agent(env, space_of) -> object:
    """One description when every seat has the same space, else one per seat."""
    described = {agent: describe_space(space_of(agent)) for agent in env.possible_agents}
    return next(iter(described.values())) if len(set(described.values())) == 1 else described


def table_fingerprint(game_id: str, options: dict, seed: int = SEED) -> dict:
    """The fingerprint of ``game_id`` with ``options`` (see the module docstring)."""
    env = envs.make(game_id, **options)
    env.reset(seed=seed)
    at_reset = hashlib.sha256()
    _feed_seats(at_reset, env)

    played = hashlib.sha256()
    pick = random.Random(seed)  # random() is the one stream Python promises to keep
    steps = 0
    while steps < MAX_STEPS and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[int(pick.random() * len(legal))])
        env.step(action)
        steps += 1
        _feed(played, [action], "<i8")
        _feed_seats(played, env)
        for agent in env.possible_agents:
            played.update(
                struct.pack(
                    "<d??",
                    float(env.rewards[agent]),
                    bool(env.terminations[agent]),
                    bool(env.truncations[agent]),
                )
            )
    over = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    return {
        "observation_space": _per_agent(env, env.observation_space),
        "action_space": _per_agent(env, env.action_space),
        "observation_at_reset": at_reset.hexdigest(),
        "playthrough": played.hexdigest(),
        "playthrough_steps": steps,
        "playthrough_ended": bool(over),
    }


def fingerprint(game_id: str) -> dict:
    """Everything ``game_id`` promises, at every supported player count with default options."""
    spec = envs.spec(game_id)
    counts = range(spec.min_players, spec.max_players + 1)
    takes_count = any(option.name == "num_players" for option in spec.options)
    tables = (
        {f"{n} players": table_fingerprint(game_id, {"num_players": n}) for n in counts}
        if takes_count
        else {"default options": table_fingerprint(game_id, {})}
    )
    return {
        "observation_size": spec.obs_size,
        "observation_version": spec.observation_version,
        "num_actions": spec.num_actions,
        "default_max_steps": spec.max_game_length,
        "tables": tables,
    }


def load_pins(path: Path = PINS_PATH) -> dict:
    """The recorded pins, id -> fingerprint (empty when the file does not exist yet)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def differences(pinned: dict, actual: dict, where: str = "") -> list:
    """Paths of the fields where ``actual`` differs from ``pinned``, e.g. ``tables/3 players/playthrough``."""
    if not (isinstance(pinned, dict) and isinstance(actual, dict)):
        return [] if pinned == actual else [where or "(whole fingerprint)"]
    found = []
    for key in sorted(set(pinned) | set(actual)):
        path = f"{where}/{key}" if where else key
        if key not in pinned or key not in actual:
            found.append(path)
        else:
            found += differences(pinned[key], actual[key], path)
    return found


def record(game_ids, path: Path = PINS_PATH) -> dict:
    """Pin each id of ``game_ids`` in ``path`` and return the pins written.

    Every id must be registered and not pinned yet; otherwise ValueError, naming the ids, and
    the file is left as it was (a pinned id's fingerprint is never rewritten).
    """
    pins = load_pins(path)
    unknown = [g for g in game_ids if g not in envs.available()]
    if unknown:
        raise ValueError(
            f"unknown game id(s) {', '.join(unknown)}; registered: {', '.join(envs.available())}"
        )
    pinned = [g for g in game_ids if g in pins]
    if pinned:
        raise ValueError(
            f"{', '.join(pinned)} already pinned in {path.name}: a pin is never rewritten. If the game "
            f"changed, register it under a new id (<game>-v<N+1>), say what changed in CHANGELOG.md "
            f"and pin the new id."
        )
    new = {g: fingerprint(g) for g in game_ids}
    pins.update(new)
    path.write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return new


def main(argv) -> int:
    """Pin the ids named in ``argv``, or every registered id without a pin when none is named."""
    ids = argv or [g for g in envs.available() if g not in load_pins()]
    if not ids:
        print(f"every registered id is pinned in {PINS_PATH.relative_to(ROOT)}; nothing to record")
        return 0
    try:
        new = record(ids)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    for game_id, pin in new.items():
        print(f"{PINS_PATH.relative_to(ROOT)}: pinned {game_id} ({', '.join(pin['tables'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
