"""Which state fields of each game fit a 16-bit word. A narrower state would halve what a GPU thread
reads and writes per game; every state is int32, and this says where int16 would be safe before any
switch is made (the device must show that it pays first).

The ranges are those seen over seeded random games at the smallest and largest player count, auto-reset
included: a field outside int16 there cannot be narrowed; one inside may still need a bound from its
rules. Outside int16: the fields that pack bits or keys into one 32-bit word (:data:`PACKED`), which an
int16 state would have to split, and the step counter and limit, bounded by the ``max_steps`` option,
which allows int32. Every other field fits int16 in random play.
"""

import numpy as np
import pytest

import monster_zoo
from monster_zoo.envs.core import contract
from monster_zoo.envs.core.options import MAX_STEPS_LIMIT

INT16 = np.iinfo(np.int16)
# Fields that hold packed bits or keys in one 32-bit word by design (a board's bitboards, a cell's
# monster and position, a seat's tile counts).
PACKED = {
    "marry_the_monster-v0": {"own_bits", "occupied_bits"},
    "monster_factory-v0": {"cell_key", "seat_tiles"},
}
HEADER = {name: (getattr(contract, name), 1) for name in dir(contract) if name.startswith("H_")}


def fields(game_id: str) -> dict[str, tuple[int, int]]:
    """``{name: (offset, length)}`` of every field of the game's state: the shared header's and the
    blocks of its layout."""
    import importlib

    layout = importlib.import_module(f"monster_zoo.envs.{monster_zoo.spec(game_id).name}.state_layout")
    return {**HEADER, **layout._lay.blocks}


def seen_ranges(game_id: str, num_players: int, num_envs: int = 16, steps: int = 1500):
    """Per entry of the state, the least and greatest value over seeded random play."""
    engine = monster_zoo.make_batch(game_id, num_envs=num_envs, seed=num_players, num_players=num_players)
    engine.reset()
    low = high = engine.states
    for _ in range(steps):
        engine.step(engine.random_actions())
        states = engine.states
        low, high = np.minimum(low, states), np.maximum(high, states)
    return low.min(0), high.max(0)


@pytest.mark.parametrize("game_id", monster_zoo.available())
def test_every_field_but_the_packed_ones_stays_within_int16_in_random_play(game_id):
    spec = monster_zoo.spec(game_id)
    layout = fields(game_id)
    assert sum(length for _, length in layout.values()) == spec.state_size  # every entry is named
    wide = {}
    for n in sorted({spec.min_players, spec.max_players}):
        low, high = seen_ranges(game_id, n)
        for name, (offset, length) in layout.items():
            lo, hi = int(low[offset : offset + length].min()), int(high[offset : offset + length].max())
            if lo < INT16.min or hi > INT16.max:
                wide[name] = (lo, hi)
    packed = PACKED.get(game_id, set())
    assert packed <= set(layout), packed  # the packed fields are the game's
    assert set(wide) <= packed, f"{game_id}: fields outside int16 besides the packed ones: {wide}"


def test_the_step_limit_needs_int32_unless_max_steps_is_capped():
    """``max_steps`` may reach ``MAX_STEPS_LIMIT``, so ``H_STEPS`` and ``H_MAX_STEPS`` fit int16 only
    under a cap of 32,767 on the option: an int16 state would have to refuse larger limits."""
    assert MAX_STEPS_LIMIT > INT16.max
    for game_id in monster_zoo.available():
        assert monster_zoo.spec(game_id).max_game_length <= INT16.max
