"""No array a caller receives can corrupt a game or crash the process.

The batched engine used to check legality against the ``masks`` array it had returned: a
caller that wrote ones into it and stepped random indices segfaulted Mighty Monsters and
Monster Factory, hung MONSTArgh! inside a kernel and corrupted the other games' states.
Every adapter is now driven that way, scribbling over everything it hands out (made
writeable first, as numpy allows), next to a twin that never sees a scribble: both must
stay byte-identical. The drive runs in a subprocess, so a segfault or a hang fails the test
instead of killing pytest.
"""

import subprocess
import sys

import numpy as np
import pytest

from monster_zoo import envs

DRIVE = r'''
import sys
import numpy as np
from monster_zoo import envs

game, steps = sys.argv[1], int(sys.argv[2])
num_actions = envs.spec(game).num_actions
rng = np.random.default_rng(0)


def scribble(*arrays):
    for a in arrays:
        a = np.asarray(a)
        a.flags.writeable = True  # numpy lets a caller undo read-only on a view
        a[...] = 1


def actions_for(masks):
    """Random indices half the time (mostly illegal), else a random legal action per slot."""
    if rng.random() < 0.5:
        return rng.integers(0, num_actions, len(masks))
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def drive(step, twin_step, masks_of, handed_out, same):
    for _ in range(steps):
        masks = masks_of()
        scribble(*handed_out())
        acts = actions_for(masks)
        try:
            step(acts)
        except ValueError:
            continue
        twin_step(acts)
        assert same(), "a scribble changed the game"


for num_envs in (1, 4):
    engine, twin = (envs.make_batch(game, num_envs, seed=0) for _ in range(2))
    out = [engine.reset()]
    twin.reset()
    drive(lambda a: out.__setitem__(0, engine.step(a)), twin.step, lambda: twin.masks.copy(),
          lambda: (*out[0], engine.states), lambda: np.array_equal(engine.states, twin.states))

vec, twin_vec = (envs.make_vec_env(game, 3, seed=1) for _ in range(2))
vec.reset(), twin_vec.reset()
drive(vec.step, twin_vec.step, twin_vec.action_masks,
      lambda: (vec.action_masks(), vec.games.masks, vec.games.observations),
      lambda: np.array_equal(vec.games.states, twin_vec.games.states))

env, twin_env = (envs.make_learner_env(game) for _ in range(2))
infos = [env.reset(seed=2)[1]]
twin_env.reset(seed=2)
drive(lambda a: infos.__setitem__(0, env.step(a[0])[4]), lambda a: twin_env.step(a[0]),
      lambda: twin_env.action_masks()[None],
      lambda: (infos[0]["action_mask"], env.action_masks(), env.games.masks),
      lambda: np.array_equal(env.games.states, twin_env.games.states))
print("ok")
'''


def test_handed_out_arrays_are_read_only():
    engine = envs.make_batch("mighty_monsters-v0", 2, seed=0)
    for arrays in (engine.reset(), engine.step(engine.random_actions()), (engine.states,)):
        for a in arrays:
            with pytest.raises(ValueError, match="read-only"):
                a[...] = 1
    games = envs.make_vec_env("mighty_monsters-v0", 2).games
    for a in games.reset():
        assert not a.flags.writeable


def test_handed_out_buffer_misuse_is_refused_in_process():
    # a sequence of misuses of the handed-out buffers, on a game that used to segfault: every attempt is
    # refused or legal, and the state stays what the rules can make
    engine = envs.make_batch("mighty_monsters-v0", 1, seed=0)
    _, masks = engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        masks = np.asarray(masks)
        masks.flags.writeable = True
        masks[:] = 1
        action = rng.integers(0, engine.spec.num_actions, 1)
        legal = bool(engine._masks[0, action[0]])  # the engine's own mask, to know what to expect
        try:
            masks = engine.step(action)[1]
        except ValueError as err:
            assert not legal and "is illegal" in str(err)
        else:
            assert legal


def test_scribbling_over_every_handed_out_array_changes_nothing(game_id):
    run = subprocess.run(
        [sys.executable, "-c", DRIVE, game_id, "150"], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), (
        f"exit {run.returncode} (a negative code is a signal: -11 is a segfault)\n{run.stderr[-3000:]}"
    )
