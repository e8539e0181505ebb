"""Monster Factory properties: invariants over 1,000+ random games, and hypothesis properties of
random reachable states (tile conservation, matching, completion, scoring, observations).

The checks restate the rules independently of the kernels: they read the state through the
layout offsets and recompute what must hold (every touching pair of tiles matches, MF-10; a
complete monster shows no thin or thick edge to an empty cell, MF-11; scores add up, MF-15; the
open cells the actions number are exactly the empty cells a thin or thick edge of a monster in
progress faces, each listed once with what lies around it, MF-19).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monster_zoo import envs
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng, rng_pick_counted
from monster_zoo.envs.monster_factory import observation as view
from monster_zoo.envs.monster_factory import rules
from monster_zoo.envs.monster_factory.actions import NUM_ACTIONS
from monster_zoo.envs.monster_factory.components import (
    DX,
    DY,
    EDGES,
    INVENTORY,
    KIND_EYE,
    MAX_MONSTERS,
    MAX_OPEN_CELLS,
    MAX_PLAYERS,
    NUM_KINDS,
    TOTAL_TILES,
)
from monster_zoo.envs.monster_factory.state_layout import (
    CELL_NEEDS,
    CELL_TILE,
    CURRENT_MONSTER,
    DISCARDED,
    HAND,
    MON_DONE,
    MON_EYES,
    MON_OPEN,
    MON_ORDINAL,
    MON_OWNER,
    MON_SIZE,
    NUM_CELLS,
    NUM_PLACED,
    SCORE,
    SEAT_TILES,
    SLOT_BITS,
    SLOT_SPAN,
    SUPPLY,
    SUPPLY_LEFT,
    TILE_KIND,
    TILE_MONSTER,
    TILE_ROT,
    TILE_X,
    TILE_Y,
    WINNER,
)

GAME = "monster_factory-v0"
SPEC = envs.spec(GAME)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tiles_of(state):
    """Placed tiles as a list of (monster, x, y, edges N E S W, eye)."""
    out = []
    for i in range(int(state[NUM_PLACED])):
        k, r = int(state[TILE_KIND + i]), int(state[TILE_ROT + i])
        out.append(
            (
                int(state[TILE_MONSTER + i]),
                int(state[TILE_X + i]),
                int(state[TILE_Y + i]),
                tuple(int(e) for e in EDGES[k, r]),
                int(KIND_EYE[k]),
            )
        )
    return out


def violations(state):
    """Names of the invariants ``state`` breaks (an empty list when all hold)."""
    bad = []
    n = int(state[H_NUM_PLAYERS])
    placed = np.zeros(NUM_KINDS, np.int64)
    for i in range(int(state[NUM_PLACED])):
        placed[state[TILE_KIND + i]] += 1
    hand = np.zeros(NUM_KINDS, np.int64)
    if state[HAND] >= 0:
        hand[state[HAND]] = 1
    supply, discarded = state[SUPPLY : SUPPLY + NUM_KINDS], state[DISCARDED : DISCARDED + NUM_KINDS]
    if not np.array_equal(supply + discarded + placed + hand, INVENTORY):
        bad.append("tiles per kind: supply + left the game + placed + hand != inventory (MF-2)")
    if (supply < 0).any() or (discarded < 0).any():
        bad.append("negative tile count")
    if supply.sum() != state[SUPPLY_LEFT]:
        bad.append("the supply's total is not the sum of its kinds")
    tiles = tiles_of(state)
    cells, slots = {}, {}
    for i, (m, x, y, edges, _eye) in enumerate(tiles):
        if (m, x, y) in cells:
            bad.append("two tiles on one cell")
        cells[(m, x, y)] = edges
        slots[(m, x, y)] = i
    # The open cells (MF-19), worked out from the tiles: cell -> (edge or 3 per side, slots).
    expected = {}
    for (m, x, y), edges in cells.items():
        for d in range(4):
            cell = (m, x + DX[d], y + DY[d])
            if edges[d] != 0 and cell not in cells:
                around = [
                    (
                        cells[(m, cell[1] + DX[e], cell[2] + DY[e])][(e + 2) % 4],
                        slots[(m, cell[1] + DX[e], cell[2] + DY[e])],
                    )
                    if (m, cell[1] + DX[e], cell[2] + DY[e]) in cells
                    else (3, -1)
                    for e in range(4)
                ]
                expected[cell] = around
    listed = {}
    for j in range(int(state[NUM_CELLS])):
        seat, x, y = (int(v) for v in rules.open_cell(state, j))
        m = int(state[CURRENT_MONSTER + seat])
        listed[(m, x, y)] = [
            ((int(state[CELL_NEEDS + j]) >> (2 * e)) & 3, int(state[CELL_TILE + 4 * j + e])) for e in range(4)
        ]
    if len(listed) != state[NUM_CELLS] or listed != expected:
        bad.append("the open cells are not the empty cells thin or thick edges face (MF-19)")
    if state[NUM_CELLS] > MAX_OPEN_CELLS:
        bad.append("more open cells than the actions number (MF-19)")
    score = np.zeros(MAX_PLAYERS, np.int64)
    for m in range(MAX_MONSTERS):
        mine = [t for t in tiles if t[0] == m]
        if len(mine) != state[MON_SIZE + m] or sum(t[4] for t in mine) != state[MON_EYES + m]:
            bad.append("monster size or eye count wrong")
        if not mine:
            continue
        if (mine[0][1], mine[0][2]) != (0, 0):
            bad.append("a monster's first tile is not at (0, 0)")
        open_edges, joins = 0, 0
        for _, x, y, edges, _ in mine:
            for d in range(4):
                other = cells.get((m, x + DX[d], y + DY[d]))
                if other is None:
                    open_edges += edges[d] != 0
                elif other[(d + 2) % 4] != edges[d]:
                    bad.append("touching edges do not match (MF-10)")
                else:
                    joins += edges[d] != 0
        if len(mine) > 1 and joins < 2 * (len(mine) - 1):
            bad.append("a monster is not joined together (MF-10)")
        done = int(state[MON_DONE + m])
        if not done and open_edges != state[MON_OPEN + m]:
            bad.append("the open edges kept in step are wrong (MF-11)")
        if done != (open_edges == 0):
            bad.append("complete flag disagrees with the open edges (MF-11)")
        if done:
            owner = int(state[MON_OWNER + m])
            score[owner] += len(mine) if state[MON_ORDINAL + m] == 0 else sum(t[4] for t in mine)
    if not np.array_equal(score[:n], state[SCORE : SCORE + n]):
        bad.append("scores are not the sum over complete monsters (MF-15)")
    for q in range(n):
        open_ones = [
            m
            for m in range(MAX_MONSTERS)
            if state[MON_SIZE + m] > 0 and state[MON_OWNER + m] == q and not state[MON_DONE + m]
        ]
        if len(open_ones) > 1 or open_ones != ([int(state[CURRENT_MONSTER + q])] if open_ones else []):
            bad.append("not exactly the monster in progress of CURRENT_MONSTER (MF-13)")
    if state[H_STEPS] > TOTAL_TILES:
        bad.append("more actions than tiles (MF-17)")
    if state[H_TERMINAL]:
        best = state[SCORE : SCORE + n].max()
        if not np.array_equal(
            state[WINNER : WINNER + n], (state[SCORE : SCORE + n] == best).astype(np.int32)
        ):
            bad.append("winners are not the highest scores (MF-16)")
        first_done = all(state[MON_DONE + q] for q in range(n))
        if not first_done and supply.sum() != 0:
            bad.append("the game ended with a first monster open and tiles in the supply (MF-14)")
    elif all(state[MON_DONE + q] for q in range(n)) or (supply.sum() == 0 and state[HAND] < 0):
        bad.append("the game goes on after its end (MF-14)")
    return bad


def play_random_games(num_players, num_games, seed, options=None):
    """Random games on the single-state kernels; every step checked. Returns (lengths, first sizes)."""
    config = envs.config(GAME, {"num_players": num_players, **(options or {})})
    state = np.zeros(SPEC.state_size, np.int32)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    out = np.zeros(num_players, np.float32)
    lengths = []
    for g in range(num_games):
        rng, pick = make_rng(seed + g), make_rng(10**6 + seed + g)
        SPEC.init_state(state, config, rng)
        while True:
            problems = violations(state)
            assert not problems, f"{problems}\n{SPEC.to_text(state)}"
            count = SPEC.legal_mask(state, mask)
            if state[H_TERMINAL]:
                assert count == 0
                break
            assert count > 0 and state[H_CURRENT] >= 0, "a seat on move without an action (MF-20)"
            SPEC.apply_action(state, rng_pick_counted(mask, count, pick), rng)
        SPEC.returns(state, out)
        assert abs(float(out.sum())) < 1e-4
        lengths.append(int(state[H_STEPS]))
    return lengths


def test_invariants_over_1000_random_games(record_property):
    """1,000 games, 200 per player count (half with random start tiles), every state checked."""
    report = []
    for n in range(2, 7):
        lengths = play_random_games(n, 100, 1000 * n)
        lengths += play_random_games(n, 100, 1000 * n + 500, {"start_tiles": "random"})
        report.append(f"{n}p: longest {max(lengths)}, mean {np.mean(lengths):.0f}")
        assert max(lengths) <= TOTAL_TILES < SPEC.max_game_length
    record_property("random_games", "; ".join(report))


@pytest.mark.slow
def test_invariants_over_10000_random_games():
    for n in range(2, 7):
        assert max(play_random_games(n, 2000, 10**5 * n)) <= TOTAL_TILES


def seat_tile_problems(state):
    """The per-seat tile lists (``SEAT_TILES``: cell key and slot of each tile of the seat's latest
    monster, searched when a cell opens) recomputed from the placed tiles."""
    bad = []
    for q in range(int(state[H_NUM_PLAYERS])):
        mine = [m for m in range(MAX_MONSTERS) if state[MON_OWNER + m] == q and state[MON_SIZE + m] > 0]
        if not mine:
            continue
        m = max(mine)
        listed = sorted(
            (int(v) >> SLOT_BITS, int(v) & (SLOT_SPAN - 1))
            for v in state[SEAT_TILES + q * TOTAL_TILES :][: int(state[MON_SIZE + m])]
        )
        expected = sorted(
            (rules.cell_key(m, int(state[TILE_X + i]), int(state[TILE_Y + i])), i)
            for i in range(int(state[NUM_PLACED]))
            if state[TILE_MONSTER + i] == m
        )
        if listed != expected:
            bad.append(f"seat {q}: the tile list of monster {m} is not its tiles")
    return bad


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_batched_engine_keeps_every_incremental_structure(num_players):
    """Thousands of random steps of the batched engine (auto-reset included): after every step,
    every slot's open cells, open edges, sizes, scores and seat tile lists equal what the placed
    tiles say, recomputed from scratch."""
    engine = envs.make_batch(GAME, num_envs=6, seed=100 * num_players, num_players=num_players)
    engine.reset()
    finished = 0
    for _ in range(300):
        finished += engine.step_random(1)
        for state in engine.states:
            problems = violations(state) + seat_tile_problems(state)
            assert not problems, f"{problems}\n{SPEC.to_text(state)}"
    assert finished >= 6  # auto-reset states were checked too


# --- hypothesis properties ------------------------------------------------------------------
@st.composite
def live_states(draw):
    """A live state after 0-90 random actions from a random seed, 2-6 players, either start mode."""
    options = {
        "num_players": draw(st.integers(2, 6)),
        "start_tiles": draw(st.sampled_from(["choose", "random"])),
    }
    state = random_playout(
        SPEC, envs.config(GAME, options), draw(st.integers(0, 90)), draw(st.integers(0, 2**40))
    )[0]
    return state


def observation(state, seat):
    out = np.zeros(SPEC.obs_size, np.float32)
    SPEC.observe_into(state, seat, out)
    return out


@SETTINGS
@given(state=live_states(), seed=st.integers(0, 2**40))
def test_every_legal_action_keeps_the_invariants(state, seed):
    """MF-10, MF-11, MF-13, MF-15: whatever legal action is taken, the invariants still hold."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    SPEC.legal_mask(state, mask)
    for a in np.flatnonzero(mask)[:40]:
        after = state.copy()
        SPEC.apply_action(after, int(a), make_rng(seed))
        assert not violations(after), (SPEC.action_to_str(int(a), state), violations(after))
        assert after[H_STEPS] == state[H_STEPS] + 1


@SETTINGS
@given(state=live_states())
def test_observation_is_in_range_and_shows_every_tile(state):
    """MF-18: the observation is in [0, 1]; each placed tile's cell, edges and open sides, and each
    open cell with what lies around it (MF-19), can be read back."""
    n = int(state[H_NUM_PLAYERS])
    f = view.TILE_FEATURES
    for seat in range(n):
        obs = observation(state, seat)
        assert obs.dtype == np.float32 and (obs >= 0).all() and (obs <= 1).all()
        occupied = {(m, x, y) for m, x, y, _, _ in tiles_of(state)}
        for i, (m, x, y, edges, eye) in enumerate(tiles_of(state)):
            row = obs[view.OBS_TILES + i * f : view.OBS_TILES + (i + 1) * f]
            open_sides = [int(edges[d] != 0 and (m, x + DX[d], y + DY[d]) not in occupied) for d in range(4)]
            assert row[view.F_OPEN : view.F_OPEN + 4].tolist() == open_sides
            assert row[view.F_PRESENT] == 1 and row[view.F_EYE] == eye
            assert round(row[view.F_X] * 2 * TOTAL_TILES) - TOTAL_TILES == x
            assert round(row[view.F_Y] * 2 * TOTAL_TILES) - TOTAL_TILES == y
            owner = int(state[MON_OWNER + m])
            assert row[view.F_OWNER + (owner - seat) % n] == 1
            shown = [
                int(row[view.F_EDGES + 2 * d]) + 2 * int(row[view.F_EDGES + 2 * d + 1]) for d in range(4)
            ]
            assert tuple(shown) == edges
        assert obs[view.OBS_TILES + int(state[NUM_PLACED]) * f : view.OBS_CELLS].sum() == 0
        g = view.CELL_FEATURES
        for j in range(int(state[NUM_CELLS])):
            row = obs[view.OBS_CELLS + j * g : view.OBS_CELLS + (j + 1) * g]
            owner, x, y = (int(v) for v in rules.open_cell(state, j))
            assert row[view.G_PRESENT] == 1 and row[view.G_OWNER + (owner - seat) % n] == 1
            assert round(row[view.G_X] * 2 * TOTAL_TILES) - TOTAL_TILES == x
            assert round(row[view.G_Y] * 2 * TOTAL_TILES) - TOTAL_TILES == y
            for d in range(4):
                across = (int(state[CELL_NEEDS + j]) >> (2 * d)) & 3
                flags = row[view.G_NEEDS + 3 * d : view.G_NEEDS + 3 * d + 3].tolist()
                assert flags == ([0, 0, 0] if across == 3 else [float(e == across) for e in range(3)])
        assert obs[view.OBS_CELLS + int(state[NUM_CELLS]) * g : view.OBS_HAND].sum() == 0


@SETTINGS
@given(state=live_states(), seed=st.integers(0, 2**40))
def test_nothing_is_hidden_but_nothing_else_either(state, seed):
    """MF-18 no-leak: the supply's order is the only hidden item and the state holds none, so
    determinize changes nothing and the next draw depends only on the generator, which no
    observation contains; conversely a change of the tile in hand shows to every seat."""
    resampled = state.copy()
    SPEC.determinize(resampled, 0, make_rng(seed))
    assert np.array_equal(resampled, state)
    n = int(state[H_NUM_PLAYERS])
    if state[HAND] >= 0:
        other = state.copy()
        other[HAND] = (state[HAND] + 1) % NUM_KINDS
        for seat in range(n):
            assert not np.array_equal(observation(state, seat), observation(other, seat))
