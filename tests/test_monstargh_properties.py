"""Property tests of MONSTArgh!: invariants over thousands of random games and the no-leak
property for every hidden item (MA-18), over random reachable states (hypothesis)."""

import numpy as np
import pytest
from conftest import reachable_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monstargh import observation, rules
from monster_zoo.envs.monstargh.components import (
    MAX_REACH,
    NEAR_X,
    NEAR_Y,
    NUM_CARDS,
    NUM_FOCUS,
    NUM_NEAR,
    SPECIES_IN_PLAY,
)
from monster_zoo.envs.monstargh.state_layout import (
    CARD_CELL,
    CARD_LEVEL,
    CELL_HEIGHT,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    CELLS_USED,
    DECK_LEFT,
    FOCUS,
    HELD,
    IN_PLAY,
    NEAR,
    SCENE,
    STARS,
    TOKEN,
    W_DECK,
    W_OUT,
    W_PLAYING,
    W_TABLE,
    WHERE,
    WINNER,
)

GAME = "monstargh-v0"
SPEC = envs.spec(GAME)
# A scene has at most 36 monster plays and 12 focus plays of two decisions each, plus one steal
# choice per cell emptied (at most 35).
MAX_SCENE_STEPS = 2 * (NUM_CARDS + 6 * NUM_FOCUS) + NUM_CARDS - 1
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def near_from_scratch(state):
    """The NEAR field recomputed from the cells alone: for each occupied cell slot, the top card
    of the occupied cell at each near offset, ``rules.NO_CARD`` where there is none."""
    reach = MAX_REACH + 2  # room for the near offsets of a cell at the edge of reach
    grid = np.full((2 * reach + 1, 2 * reach + 1), rules.NO_CARD, np.int32)
    tops = state[CELL_TOP : CELL_TOP + NUM_CARDS]
    used = np.flatnonzero(tops >= 0)
    xs, ys = state[CELL_X + used] + reach, state[CELL_Y + used] + reach
    grid[ys, xs] = tops[used]
    near = np.full((NUM_CARDS, NUM_NEAR), rules.NO_CARD, np.int32)
    near[used] = grid[ys[:, None] + NEAR_Y, xs[:, None] + NEAR_X]
    return near.ravel()


def assert_invariants(state, where):
    """Cards conserved (MA-1, MA-3), stacks consistent, the table within reach of the origin, and
    every count and near cell kept in step in the state equal to its value recomputed from scratch."""
    n = int(state[H_NUM_PLAYERS])
    species = int(state[IN_PLAY : IN_PLAY + 6].sum())
    assert species == SPECIES_IN_PLAY[n], where
    loc = state[WHERE : WHERE + NUM_CARDS]
    assert (loc == W_OUT).sum() == NUM_CARDS - 6 * species, f"{where}: cards of species out of play moved"
    assert np.isin(loc, [W_OUT, W_DECK, W_TABLE, W_PLAYING, *range(n)]).all(), f"{where}: card nowhere"
    assert (loc == W_PLAYING).sum() <= 1, where
    on_table = np.flatnonzero(loc == W_TABLE)
    cells = state[CARD_CELL + on_table]
    heights = state[CELL_HEIGHT : CELL_HEIGHT + NUM_CARDS]
    tops = state[CELL_TOP : CELL_TOP + NUM_CARDS]
    assert heights.sum() == len(on_table), f"{where}: stack heights and cards on the table differ"
    coords = set()
    for k in np.flatnonzero(tops >= 0):
        members = on_table[cells == k]
        levels = sorted(state[CARD_LEVEL + members])
        assert levels == list(range(heights[k])), f"{where}: stack {k} levels {levels}"
        assert state[CARD_LEVEL + tops[k]] == heights[k] - 1, f"{where}: top card not on top"
        xy = (int(state[CELL_X + k]), int(state[CELL_Y + k]))
        assert xy not in coords, f"{where}: two cells at {xy}"
        assert max(abs(xy[0]), abs(xy[1])) <= MAX_REACH, f"{where}: a cell beyond reach"
        coords.add(xy)
    assert (heights[tops < 0] == 0).all(), where
    off_table = np.flatnonzero(loc != W_TABLE)
    assert (state[CARD_CELL + off_table] == -1).all(), f"{where}: a card off the table keeps a cell"
    assert np.array_equal(state[NEAR : NEAR + NUM_CARDS * NUM_NEAR], near_from_scratch(state)), (
        f"{where}: the near cells kept in the state differ from the table"
    )
    assert state[CELLS_USED] == (tops >= 0).sum(), f"{where}: occupied-cell count out of step"
    assert state[DECK_LEFT] == (loc == W_DECK).sum(), f"{where}: deck count out of step"
    assert all(state[HELD + p] == (loc == p).sum() for p in range(n)), f"{where}: hand count out of step"
    for p in range(n):
        assert (loc == p).sum() <= 3 + NUM_FOCUS, f"{where}: seat {p} holds too many monsters"
        held = state[FOCUS + p * NUM_FOCUS : FOCUS + (p + 1) * NUM_FOCUS]
        assert set(held.tolist()) <= {0, 1}
    if not state[H_TERMINAL]:
        tokens = state[TOKEN : TOKEN + n]
        assert len(set(tokens.tolist())) == n and all(state[IN_PLAY + t] for t in tokens), where


def run_random_games(num_players, options, num_games, seed):
    """Random games on the batched engine, every state checked; returns (lengths, scenes)."""
    engine = envs.make_batch(GAME, 64, seed, num_players=num_players, **options)
    engine.reset()
    lengths, scenes = [], []
    stars = engine.states[:, STARS : STARS + num_players].copy()
    while len(lengths) < num_games:
        pre = engine.states.copy()
        _, masks, rewards, terminated, truncated = engine.step(engine.random_actions())
        assert not truncated.any(), "a random game reached the default max_steps"
        ended = terminated | truncated
        assert (masks.sum(1) > 0).all(), "a running game offers no legal action"
        for i in range(engine.states.shape[0]):
            assert_invariants(engine.states[i], f"{num_players}p {options} slot {i}")
        now = engine.states[:, STARS : STARS + num_players]
        assert (now[~ended] >= stars[~ended]).all(), "stars went down (MA-15)"
        stars = now.copy()
        assert not rewards[~ended].any(), "reward before the end (MA-20)"
        for i in np.flatnonzero(ended):
            assert abs(float(rewards[i].sum())) < 1e-4, f"rewards {rewards[i]} do not sum to 0"
            length = int(pre[i, H_STEPS]) + 1
            played = int(pre[i, SCENE])
            assert length <= MAX_SCENE_STEPS * (played + 1), f"{length} steps in {played} scenes"
            lengths.append(length)
            scenes.append(played)
    return lengths, scenes


@pytest.mark.parametrize(
    "options", [{}, {"tiebreak": "extra_scene", "reward": "score"}], ids=["share", "extra_scene"]
)
def test_invariants_over_random_games(options, record_property):
    """MA-1, MA-3, MA-5, MA-17, MA-20: 1,000+ random games per option set (200 per player count),
    every state checked: cards conserved, stacks consistent, stars never lost, games end."""
    report = []
    total = 0
    for n in range(2, 7):
        lengths, scenes = run_random_games(n, options, 200, seed=1000 * n)
        total += len(lengths)
        report.append(
            f"{n}p: {len(lengths)} games, mean {np.mean(lengths):.0f} steps, longest "
            f"{max(lengths)}, {np.mean(scenes):.2f} scenes"
        )
        assert max(lengths) < SPEC.max_game_length
    record_property("random_games", "; ".join(report))
    assert total >= 1000


# --- hidden information (MA-18) -------------------------------------------------------------------------
@st.composite
def live_states(draw):
    """A live state after 0-150 random actions, 2-6 players."""
    n = draw(st.integers(2, 6))
    return reachable_state(GAME, {"num_players": n}, draw(st.integers(0, 2**40)), draw(st.integers(0, 150)))


def view(state, seat):
    """Seat's observation and, when on move, its mask."""
    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(state, seat, obs)
    mask = np.zeros(SPEC.num_actions, np.int8)
    if state[H_CURRENT] == seat:
        rules.legal_mask(state, mask)
    return obs, mask


def assert_same_view(a, b, seat, what):
    """``seat`` sees the same in both states."""
    (oa, ma), (ob, mb) = view(a, seat), view(b, seat)
    assert np.array_equal(oa, ob), f"seat {seat} sees {what}"
    assert np.array_equal(ma, mb), f"seat {seat}'s mask depends on {what}"


@SETTINGS
@given(state=live_states(), data=st.data())
def test_other_seats_species_and_unassigned_tokens_are_invisible(state, data):
    """MA-18: permuting the species of the other seats and the unassigned tokens changes nothing
    the observer sees."""
    n = int(state[H_NUM_PLAYERS])
    observer = data.draw(st.integers(0, n - 1))
    own = int(state[TOKEN + observer])
    pool = [s for s in range(6) if state[IN_PLAY + s] and s != own]
    others = [q for q in range(n) if q != observer]
    dealt = data.draw(st.permutations(pool))[: len(others)]
    changed = state.copy()
    for q, s in zip(others, dealt):
        changed[TOKEN + q] = s
    assert_same_view(state, changed, observer, "another seat's species")


@SETTINGS
@given(state=live_states(), data=st.data())
def test_other_hands_and_the_deck_are_invisible(state, data):
    """MA-18: exchanging a card between another seat's hand and the deck, or between two other
    hands, changes nothing the observer sees (the deck has no order to change)."""
    n = int(state[H_NUM_PLAYERS])
    observer = data.draw(st.integers(0, n - 1))
    hidden = [
        c
        for c in range(NUM_CARDS)
        if state[WHERE + c] == W_DECK or (0 <= state[WHERE + c] < n and state[WHERE + c] != observer)
    ]
    if len(hidden) < 2:
        return
    a, b = data.draw(st.lists(st.sampled_from(hidden), min_size=2, max_size=2, unique=True))
    changed = state.copy()
    changed[WHERE + a], changed[WHERE + b] = state[WHERE + b], state[WHERE + a]
    assert_same_view(state, changed, observer, "a hidden card's place")


@SETTINGS
@given(state=live_states(), data=st.data())
def test_own_hand_and_species_are_seen(state, data):
    """MA-18: the observer does see a change of its own species or of a card in its own hand."""
    n = int(state[H_NUM_PLAYERS])
    observer = data.draw(st.integers(0, n - 1))
    own = int(state[TOKEN + observer])
    other = next(s for s in range(6) if state[IN_PLAY + s] and s != own)
    changed = state.copy()
    changed[TOKEN + observer] = other
    assert not np.array_equal(view(state, observer)[0], view(changed, observer)[0])
    deck = [c for c in range(NUM_CARDS) if state[WHERE + c] == W_DECK]
    mine = [c for c in range(NUM_CARDS) if state[WHERE + c] == observer]
    if deck and mine:
        swapped = state.copy()
        swapped[WHERE + deck[0]], swapped[WHERE + mine[0]] = observer, W_DECK
        assert not np.array_equal(view(state, observer)[0], view(swapped, observer)[0])


@SETTINGS
@given(state=live_states(), seed=st.integers(0, 2**40))
def test_determinize_keeps_what_is_public(state, seed):
    """MA-18: determinize redeals other seats' species and monsters, keeping hand sizes, the table,
    the focus cards and the observer's own cards."""
    n = int(state[H_NUM_PLAYERS])
    for observer in range(n):
        resampled = state.copy()
        observation.determinize(resampled, observer, make_rng(seed))
        assert_invariants(resampled, "after determinize")
        for q in range(n):
            assert rules.hand_monsters(resampled, q) == rules.hand_monsters(state, q)
        for c in range(NUM_CARDS):
            if state[WHERE + c] in (observer, W_TABLE, W_PLAYING, W_OUT):
                assert resampled[WHERE + c] == state[WHERE + c]
        assert resampled[TOKEN + observer] == state[TOKEN + observer]
        assert np.array_equal(resampled[WINNER : WINNER + n], state[WINNER : WINNER + n])
