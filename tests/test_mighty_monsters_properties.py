"""Mighty Monsters properties: invariants over 1,000+ random games, hypothesis properties of the
rules over random reachable states, and the no-leak property for every hidden item (MM-21).

Hidden items: another seat's setup choice (which of its unknown cards lie in hand or face down),
the values of face-down guards, the guard deck's order and the king tiles' order. Changing only
one of them must leave the observer's observation and, when on move, its mask unchanged.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monster_zoo import envs
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_MAX_STEPS, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng, rng_pick_counted
from monster_zoo.envs.mighty_monsters import observation as view
from monster_zoo.envs.mighty_monsters import rules
from monster_zoo.envs.mighty_monsters.actions import NUM_ACTIONS, PLAY0
from monster_zoo.envs.mighty_monsters.components import (
    GUARD_LEVEL,
    GUARD_STRENGTH,
    LEVEL_STRENGTH,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_GUARDS,
    NUM_KING_TILES,
    NUM_SPACES,
    STARTING_GOLD,
    STRENGTH,
)
from monster_zoo.envs.mighty_monsters.state_layout import (
    BANK,
    CARD_LOC,
    CASTLE,
    DECK,
    DECK_COUNT,
    G_CASTLE,
    G_DECK,
    G_DISCARD_HIDDEN,
    GOLD,
    GUARD_STATUS,
    KING_ORDER,
    KINGS_FLIPPED,
    KNOWN,
    LOC_CASTLE,
    LOC_DOWN,
    LOC_HAND,
    PH_PLACE,
    PH_SETUP,
    PHASE,
    REVEALED,
    ROUND,
    SETUP_DONE,
    SPACE,
    WINNER,
)

MM = "mighty_monsters-v0"
SPEC = envs.spec(MM)
OPTION_SETS = [
    {},
    {"setup_hand": "random"},
    {"guard_lineup": True},
    {"kings_rules": True},
    {"kings_rules": True, "guard_lineup": True, "reward": "score"},
]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEES = {1: (1, 0), 2: (1, 1), 3: (1, 2)}  # MM-8: (treasury, owner) by level, written from the rules


# --- invariants over random games -----------------------------------------------------------
def invariant_violations(states: np.ndarray) -> dict:
    """For ``[games, state]``, a dict ``name -> bool[games]`` flagging each broken invariant."""
    n = states[:, H_NUM_PLAYERS]
    seated = np.arange(MAX_PLAYERS)[None, :] < n[:, None]
    gold = states[:, GOLD : GOLD + MAX_PLAYERS]
    locs = states[:, CARD_LOC : CARD_LOC + MAX_PLAYERS * NUM_CARDS].reshape(
        len(states), MAX_PLAYERS, NUM_CARDS
    )
    in_castle = (locs == LOC_CASTLE).sum(2)
    in_hand = (locs == LOC_HAND).sum(2)
    down = (locs == LOC_DOWN).sum(2)
    spaces = states[:, SPACE : SPACE + NUM_SPACES]
    status = states[:, GUARD_STATUS : GUARD_STATUS + NUM_GUARDS]
    castle = states[:, CASTLE : CASTLE + MAX_PLAYERS]
    placing = (states[:, PHASE] == PH_PLACE) | (states[:, H_TERMINAL] == 1)
    # every monster on a space is its owner's card marked in the castle, and vice versa
    space_mismatch = np.zeros(len(states), bool)
    for i in range(len(states)):
        on_spaces = sorted(int(x) for x in spaces[i] if x >= 0)
        marked = sorted(
            q * NUM_CARDS + k
            for q in range(MAX_PLAYERS)
            for k in range(NUM_CARDS)
            if locs[i, q, k] == LOC_CASTLE
        )
        deck = sorted(int(c) for c in states[i, DECK : DECK + states[i, DECK_COUNT]])
        space_mismatch[i] = on_spaces != marked or deck != sorted(
            np.flatnonzero(status[i] == G_DECK).tolist()
        )
    guard_cards = np.stack([(status == G_CASTLE).sum(1), ((castle >= 0) & seated).sum(1)], 1)
    live = states[:, H_TERMINAL] == 0
    return {
        "gold + treasury flow != starting gold (MM-2)": gold.sum(1) + states[:, BANK] != STARTING_GOLD * n,
        "negative gold (MM-12)": (gold < 0).any(1),
        "gold for an empty seat": ((gold != 0) & ~seated).any(1),
        "hand + castle != 3 or face down != 2 in phase 1 (MM-4, MM-13)": (
            placing[:, None] & seated & ((in_hand + in_castle != 3) | (down != 2))
        ).any(1),
        "more than 2 monsters placed (MM-9)": (in_castle > 2).any(1),
        "castle and cards disagree, or deck and statuses": space_mismatch,
        "guards in the castle != one per seat (MM-5)": (guard_cards[:, 0] != n) | (guard_cards[:, 1] != n),
        "a monster beside a missing guard": ((spaces >= 0) & (np.repeat(castle, 2, axis=1) < 0)).any(1),
        "seat on move wrong": np.where(
            live, (states[:, H_CURRENT] < 0) | (states[:, H_CURRENT] >= n), states[:, H_CURRENT] != -1
        ),
        "steps past max_steps": states[:, H_STEPS] > states[:, H_MAX_STEPS],
    }


def assert_invariants(states: np.ndarray, context: str) -> None:
    """Fail naming the first broken invariant and showing the offending state as text."""
    for name, bad in invariant_violations(states).items():
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            pytest.fail(f"{context}: invariant '{name}' broken in game {i}:\n{SPEC.to_text(states[i])}")


def run_random_games(options: dict, num_games: int, seed: int):
    """Random games on the batched engine, checking invariants after every step; returns lengths."""
    n = options.get("num_players", 4)
    engine = envs.make_batch(MM, 64, seed, **options)
    engine.reset()
    assert_invariants(engine.states, "after reset")
    mask = np.zeros(NUM_ACTIONS, np.int8)
    returns = np.zeros(n, np.float32)
    lengths = []
    while len(lengths) < num_games:
        pre_states, pre_rngs = engine.states.copy(), engine.rngs.copy()
        actions = engine.random_actions()
        _, masks, rewards, terminated, truncated = engine.step(actions)
        assert not truncated.any(), "a game hit the default max_steps"
        assert_invariants(engine.states, f"{options}")
        assert (masks.sum(1) > 0).all(), "a running game offers no legal action (MM-17)"
        assert not rewards[~terminated].any()
        for i in np.flatnonzero(terminated):
            final, rng = pre_states[i].copy(), pre_rngs[i].copy()
            SPEC.apply_action(final, int(actions[i]), rng)
            assert final[H_TERMINAL] == 1
            assert_invariants(final[None, :], f"{options}, final state")
            assert SPEC.legal_mask(final, mask) == 0
            SPEC.returns(final, returns)
            assert np.array_equal(returns, rewards[i])
            assert abs(float(rewards[i].sum())) < 1e-4, "rewards do not sum to 0 (MM-15)"
            gold = final[GOLD : GOLD + n]
            assert np.array_equal(final[WINNER : WINNER + n], (gold == gold.max()).astype(np.int32)), "MM-14"
            assert final[ROUND] == {3: 6, 4: 6, 5: 5, 6: 6}[n], "MM-6"
            lengths.append(int(final[H_STEPS]))
    return lengths


def test_invariants_over_1000_random_games(record_property):
    """MM-2, MM-5, MM-6, MM-9, MM-14, MM-15, MM-16: 1,280 random games over every player count and
    option set; every step keeps gold, cards and guards conserved, and games stay short."""
    report, total = [], 0
    for n in (3, 4, 5, 6):
        for j, options in enumerate(OPTION_SETS):
            lengths = run_random_games({**options, "num_players": n}, 64, 1000 * n + 97 * j)
            total += len(lengths)
            assert max(lengths) <= 61 * n, "MM-16: longer than the rules allow"
            report.append(f"{n}p {options}: longest {max(lengths)}")
    record_property("random_games", "; ".join(report))
    assert total >= 1000


# --- rule properties over reachable states --------------------------------------------------
@st.composite
def live_states(draw, phase=PH_PLACE):
    """A live state in ``phase`` after random actions from a random seed, any option set."""
    seed = draw(st.integers(0, 2**40))
    options = {**draw(st.sampled_from(OPTION_SETS)), "num_players": draw(st.integers(3, 6))}
    if phase == PH_SETUP:
        options["setup_hand"] = "choose"
    config = envs.config(MM, options)
    state = random_playout(SPEC, config, draw(st.integers(0, 5 if phase == PH_SETUP else 150)), seed)[0]
    rng, pick = make_rng(seed + 1), make_rng(seed + 2)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    while int(state[PHASE]) != phase or state[H_TERMINAL]:
        if state[H_TERMINAL]:
            SPEC.init_state(state, config, rng)
            continue
        count = rules.legal_mask(state, mask)
        rules.apply_action(state, rng_pick_counted(mask, count, pick), rng)
    return state


def legal(state):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return np.flatnonzero(mask)


@SETTINGS
@given(state=live_states())
def test_mm_8_every_legal_replacement_meets_the_conditions_and_pays_the_fees(state):
    """MM-7, MM-8: a legal play on an occupied space is strictly stronger, not over a 5, at a guard
    whose pair is below its printed maximum, affordable, and moves exactly the fees; the replaced
    card goes back to its owner's hand. A play on an empty space costs nothing."""
    p = int(state[H_CURRENT])
    for action in legal(state):
        k, space = divmod(int(action) - PLAY0, NUM_SPACES)
        occupant = int(state[SPACE + space])
        after = state.copy()
        rules.place_card(after, p, k, space)
        paid = state[GOLD : GOLD + MAX_PLAYERS] - after[GOLD : GOLD + MAX_PLAYERS]
        assert state[CARD_LOC + p * NUM_CARDS + k] == LOC_HAND
        if occupant < 0:
            assert not paid.any()
            continue
        owner, old = divmod(occupant, NUM_CARDS)
        g = space // 2
        level = int(GUARD_LEVEL[state[CASTLE + g]])
        beside = [int(state[SPACE + 2 * g + s]) for s in (0, 1)]
        pair = sum(int(STRENGTH[x % NUM_CARDS]) for x in beside if x >= 0)
        assert STRENGTH[k] > STRENGTH[old] and STRENGTH[old] != 5
        assert pair < LEVEL_STRENGTH[level, 1]
        treasury, fee = (1, 0) if owner == p else FEES[level]
        assert paid[p] == treasury + fee and state[GOLD + p] >= treasury + fee
        if owner != p:
            assert paid[owner] == -fee
        assert after[CARD_LOC + owner * NUM_CARDS + old] == LOC_HAND


@SETTINGS
@given(state=live_states())
def test_mm_11_phase_two_and_three_on_the_filled_castle(state):
    """MM-11, MM-12: on the castle as filled by the move that ends phase 1, the first lost guard
    (if any) is stronger than its pair and all before it are not, nothing behind it is revealed,
    loot only adds gold, and healing leaves everyone with 0 or more."""
    p = int(state[H_CURRENT])
    for action in legal(state):
        k, space = divmod(int(action) - PLAY0, NUM_SPACES)
        full = state.copy()
        rules.place_card(full, p, k, space)
        if not rules.castle_full(full):
            continue
        fought = full.copy()
        lost = rules.fight_guards(fought)
        n = int(state[H_NUM_PLAYERS])
        stop = n if lost < 0 else lost
        for g in range(stop):
            assert rules.pair_strength(full, g) >= rules.fight_strength(
                full, g, GUARD_STRENGTH[full[CASTLE + g]]
            )
        if lost >= 0:
            assert rules.pair_strength(full, lost) < rules.fight_strength(
                full, lost, GUARD_STRENGTH[full[CASTLE + lost]]
            )
            assert not fought[REVEALED + lost + 1 : REVEALED + n].any()
        assert (fought[GOLD : GOLD + n] >= full[GOLD : GOLD + n]).all()
        rules.heal_monsters(fought, lost)
        assert (fought[GOLD : GOLD + n] >= 0).all()


# --- no leaks (MM-21) ---------------------------------------------------------------------------
def observation(state, seat):
    out = np.zeros(view.OBS_SIZE, np.float32)
    view.observe_into(state, seat, out)
    return out


def mask_of(state):
    out = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, out)
    return out


def assert_invisible(before, after, observer, what):
    assert np.array_equal(observation(before, observer), observation(after, observer)), (
        f"seat {observer} sees {what}"
    )
    if before[H_CURRENT] == observer:
        assert np.array_equal(mask_of(before), mask_of(after)), f"seat {observer}'s mask depends on {what}"


def hand_swaps(state, observer):
    """States where one other seat swaps an unknown card in hand with an unknown face-down one."""
    n = int(state[H_NUM_PLAYERS])
    for q in range(n):
        if q == observer:
            continue
        unknown = [k for k in range(NUM_CARDS) if rules.seen_by(state, observer, q, k) < 0]
        for a in unknown:
            for b in unknown:
                if (
                    state[CARD_LOC + q * NUM_CARDS + a] == LOC_HAND
                    and state[CARD_LOC + q * NUM_CARDS + b] == LOC_DOWN
                ):
                    swapped = state.copy()
                    swapped[CARD_LOC + q * NUM_CARDS + a] = LOC_DOWN
                    swapped[CARD_LOC + q * NUM_CARDS + b] = LOC_HAND
                    yield f"seat {q}'s secret hand", swapped


def guard_swaps(state):
    """States where a face-down castle guard trades places with an unseen guard of its level in the
    deck or among the face-down discards."""
    n = int(state[H_NUM_PLAYERS])
    for g in range(n):
        card = int(state[CASTLE + g])
        if card < 0 or state[REVEALED + g]:
            continue
        for other in range(NUM_GUARDS):
            status = int(state[GUARD_STATUS + other])
            if GUARD_LEVEL[other] != GUARD_LEVEL[card] or status not in (G_DECK, G_DISCARD_HIDDEN):
                continue
            swapped = state.copy()
            swapped[CASTLE + g] = other
            swapped[GUARD_STATUS + other] = G_CASTLE
            swapped[GUARD_STATUS + card] = status
            if status == G_DECK:
                deck = swapped[DECK : DECK + NUM_GUARDS]
                deck[deck == other] = card
            yield f"the face-down guard at G{g + 1}", swapped


@SETTINGS
@given(state=live_states(), data=st.data())
def test_mm_21_hidden_items_are_invisible(state, data):
    """MM-21: others' secret hands, face-down guard values, the deck's order and the king tiles'
    order can change without the observer's observation or mask changing."""
    n = int(state[H_NUM_PLAYERS])
    perm = data.draw(st.permutations(range(int(state[DECK_COUNT]))))
    deck = state.copy()
    deck[DECK : DECK + len(perm)] = state[DECK : DECK + len(perm)][list(perm)]
    flipped = int(state[KINGS_FLIPPED])
    kperm = data.draw(st.permutations(range(NUM_KING_TILES - flipped)))
    kings = state.copy()
    unflipped = slice(KING_ORDER + flipped, KING_ORDER + NUM_KING_TILES)
    kings[unflipped] = state[unflipped][list(kperm)]
    for observer in range(n):
        assert_invisible(state, deck, observer, "the guard deck's order")
        assert_invisible(state, kings, observer, "the king tiles' order")
        for what, swapped in list(hand_swaps(state, observer)) + list(guard_swaps(state)):
            assert_invisible(state, swapped, observer, what)


@SETTINGS
@given(state=live_states(phase=PH_SETUP))
def test_mm_21_setup_choices_are_invisible(state):
    """MM-4, MM-21: during setup another seat's choice (any pair laid down) is invisible to the
    observer; its own choice is visible to itself."""
    n = int(state[H_NUM_PLAYERS])
    for q in range(n):
        if not state[SETUP_DONE + q]:
            continue
        for pair in range(10):
            other = state.copy()
            rules.lay_down(other, q, pair)
            for observer in range(n):
                if observer != q:
                    assert_invisible(state, other, observer, f"seat {q}'s setup choice")
            if not np.array_equal(
                other[CARD_LOC + q * NUM_CARDS : CARD_LOC + (q + 1) * NUM_CARDS],
                state[CARD_LOC + q * NUM_CARDS : CARD_LOC + (q + 1) * NUM_CARDS],
            ):
                assert not np.array_equal(observation(state, q), observation(other, q))


def test_mm_21_no_leak_checks_are_not_vacuous():
    """MM-21: in round 1 the swaps above exist (hands and guards), and the owner does see its own swap."""
    found_hand = found_guard = 0
    for seed in range(20):
        state = random_playout(SPEC, envs.config(MM, {"setup_hand": "random"}), 2, seed)[0]
        for what, swapped in hand_swaps(state, 0):
            found_hand += 1
            q = int(what.split()[1][:-2])
            assert not np.array_equal(observation(state, q), observation(swapped, q))
        found_guard += sum(1 for _ in guard_swaps(state))
    assert found_hand > 20 and found_guard > 20


# --- determinize ----------------------------------------------------------------------------------
@SETTINGS
@given(state=live_states(), rng_seed=st.integers(0, 2**40), observer=st.integers(0, 5))
def test_mm_21_determinize_keeps_the_public_state_and_the_card_counts(state, rng_seed, observer):
    """MM-21: determinize moves only hidden things: the observer's cards, known cards, castle
    levels, counts per place and level stay; the deck holds exactly the G_DECK cards."""
    n = int(state[H_NUM_PLAYERS])
    observer %= n
    after = state.copy()
    SPEC.determinize(after, observer, make_rng(rng_seed))
    assert_invariants(after[None, :], "after determinize")
    own = slice(CARD_LOC + observer * NUM_CARDS, CARD_LOC + (observer + 1) * NUM_CARDS)
    assert np.array_equal(state[own], after[own])
    known = state[KNOWN : KNOWN + MAX_PLAYERS * NUM_CARDS] == 1
    assert np.array_equal(
        state[CARD_LOC : CARD_LOC + MAX_PLAYERS * NUM_CARDS][known],
        after[CARD_LOC : CARD_LOC + MAX_PLAYERS * NUM_CARDS][known],
    )
    for g in range(n):
        assert GUARD_LEVEL[state[CASTLE + g]] == GUARD_LEVEL[after[CASTLE + g]]
        if state[REVEALED + g]:
            assert state[CASTLE + g] == after[CASTLE + g]
    for status in (G_DECK, G_DISCARD_HIDDEN):
        for level in (1, 2, 3):
            before_count = (
                (state[GUARD_STATUS : GUARD_STATUS + NUM_GUARDS] == status) & (GUARD_LEVEL == level)
            ).sum()
            after_count = (
                (after[GUARD_STATUS : GUARD_STATUS + NUM_GUARDS] == status) & (GUARD_LEVEL == level)
            ).sum()
            assert before_count == after_count
    assert sorted(after[KING_ORDER : KING_ORDER + NUM_KING_TILES]) == list(range(NUM_KING_TILES))
    flipped = int(state[KINGS_FLIPPED])
    assert np.array_equal(state[KING_ORDER : KING_ORDER + flipped], after[KING_ORDER : KING_ORDER + flipped])
    assert_invisible(state, after, observer, "the determinized state")


def test_mm_21_determinize_resamples_every_hidden_item():
    """MM-21: over a few round-1 states, determinize changes others' hands, face-down guards, the
    deck order and the king order, reproducibly for one generator seed."""
    changed = {"hands": 0, "castle": 0, "deck": 0, "kings": 0}
    for seed in range(15):
        state = random_playout(SPEC, envs.config(MM, {"kings_rules": True}), 5, seed)[0]
        a, b = state.copy(), state.copy()
        SPEC.determinize(a, 0, make_rng(seed))
        SPEC.determinize(b, 0, make_rng(seed))
        assert np.array_equal(a, b)
        changed["hands"] += not np.array_equal(a[CARD_LOC : CARD_LOC + 30], state[CARD_LOC : CARD_LOC + 30])
        changed["castle"] += not np.array_equal(a[CASTLE : CASTLE + 6], state[CASTLE : CASTLE + 6])
        changed["deck"] += not np.array_equal(a[DECK : DECK + 36], state[DECK : DECK + 36])
        changed["kings"] += not np.array_equal(
            a[KING_ORDER : KING_ORDER + 12], state[KING_ORDER : KING_ORDER + 12]
        )
    assert min(changed.values()) >= 8, changed
