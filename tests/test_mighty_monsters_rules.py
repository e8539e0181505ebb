"""Mighty Monsters: one or more tests per rule of ``seeds/mighty_monsters/rules.md``.

Each test names its rule id (MM-1 .. MM-21 and the examples MM-7.1 .. MM-14.1, the king tiles
MM-20.1 .. MM-20.12); expectations come from the rules text, the rulings and the rulebook's worked
examples, not from running the engine. Castles are drawn as diagrams (see ``tests/mighty_monsters_diagram.py``):
one line per guard from the main gate, the guard as level stars (optionally with
``strength/loot``), then the two monster spaces as ``p<seat>:<strength>`` or ``--``.
The rulebook's players are seated Inga = 0, Frank = 1, Ani = 2, Jenny = 3 unless a test says otherwise.
"""

import random

import numpy as np
import pytest
from mighty_monsters_diagram import (
    apply,
    cards_at,
    golds,
    legal_names,
    plays_at,
    state_from_castle,
    strength_card,
)

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.mighty_monsters import observation, rules
from monster_zoo.envs.mighty_monsters.actions import (
    NUM_ACTIONS,
    PLAY0,
    action_to_str,
    play_action,
    str_to_action,
)
from monster_zoo.envs.mighty_monsters.components import (
    GUARD_LEVEL,
    GUARD_LOOT,
    GUARD_STRENGTH,
    KING_NAMES,
    NUM_GUARDS,
)
from monster_zoo.envs.mighty_monsters.state_layout import (
    CASTLE,
    DECK_COUNT,
    G_CASTLE,
    G_DECK,
    G_DISCARD_HIDDEN,
    G_DISCARD_SEEN,
    GOLD,
    GUARD_STATUS,
    KING,
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
    SPACE,
    START_PLAYER,
    STATE_SIZE,
    WINNER,
)

ENV_ID = "mighty_monsters-v0"
INGA, FRANK, ANI, JENNY = 0, 1, 2, 3


def new_game(num_players=4, seed=0, setup="choose", lineup=False, kings=False, reward=0):
    """A fresh game as the env's reset makes it."""
    state = np.zeros(STATE_SIZE, np.int32)
    config = np.array([num_players, 1000, reward, int(setup == "random"), int(lineup), int(kings)], np.int64)
    rules.init_state(state, config, make_rng(seed))
    return state


def play_random(state, seed=0, until=None):
    """Play random legal actions until the game ends (or ``until(state)`` holds); return the states."""
    rng, pick = make_rng(seed), random.Random(seed)
    seen = [state.copy()]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    while not state[H_TERMINAL] and not (until and until(state)):
        rules.legal_mask(state, mask)
        rules.apply_action(state, pick.choice(np.flatnonzero(mask).tolist()), rng)
        seen.append(state.copy())
    return seen


def fight(state):
    """Phase 2 on a copy: ``(state after, position of the lost fight or -1)``."""
    state = state.copy()
    lost = rules.fight_guards(state)
    return state, lost


def gains(before, after):
    """Gold change per seat."""
    return [a - b for a, b in zip(golds(after), golds(before))]


# ============================================================ MM-1 players
@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_mm_1_three_to_six_players(num_players):
    """MM-1: 3-6 players, seats player_0 .. player_{n-1}."""
    env = envs.make(ENV_ID, num_players=num_players)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]


def test_mm_1_default_four_players_and_refusals():
    """MM-1: four players by default; 2 or 7 players, or a non-int count, are refused."""
    env = envs.make(ENV_ID)
    env.reset(seed=0)
    assert len(env.possible_agents) == 4
    for bad in (2, 7, 4.0, True):
        with pytest.raises(ValueError, match="3, 4, 5, 6"):
            envs.make(ENV_ID, num_players=bad)


# ============================================================ MM-2 cards and gold
def test_mm_2_cards_healing_and_starting_gold():
    """MM-2: five cards of strength 1-5 healing 1, 1, 2, 2, 3 per player; 8 gold each."""
    state = new_game(5, seed=3)
    assert golds(state) == [8] * 5
    for p in range(5):
        assert sorted(cards_at(state, p, LOC_HAND) + cards_at(state, p, LOC_DOWN)) == [1, 2, 3, 4, 5]
    assert [int(rules.heal_cost(state, strength_card(s))) for s in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]


# ============================================================ MM-3 start player
def test_mm_3_random_start_player_is_seeded():
    """MM-3: the first start player is drawn by the seeded generator: every seat can start, and the
    same seed gives the same one; the setup (and then phase 1) begins with them."""
    starts = {int(new_game(4, seed)[START_PLAYER]) for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    for seed in range(5):
        a, b = new_game(4, seed), new_game(4, seed)
        assert np.array_equal(a, b)
        assert a[H_CURRENT] == a[START_PLAYER]
        r = new_game(4, seed, setup="random")
        assert r[PHASE] == PH_PLACE and r[H_CURRENT] == r[START_PLAYER]


# ============================================================ MM-4 secret hand
def test_mm_4_setup_choice_lays_two_cards_down():
    """MM-4: each player in turn from the start player names the pair to lay face down; the other
    three form the hand; phase 1 begins after the last choice."""
    state = new_game(3, seed=1)
    first = int(state[START_PLAYER])
    assert state[PHASE] == PH_SETUP
    assert len(legal_names(state)) == 10
    order = []
    for pair in ("lay down 1+2", "lay down 3+5", "lay down 2+4"):
        order.append(int(state[H_CURRENT]))
        state = apply(state, pair)
    assert order == [first, (first + 1) % 3, (first + 2) % 3]
    assert cards_at(state, order[0], LOC_DOWN) == [1, 2] and cards_at(state, order[0], LOC_HAND) == [3, 4, 5]
    assert cards_at(state, order[1], LOC_DOWN) == [3, 5]
    assert cards_at(state, order[2], LOC_HAND) == [1, 3, 5]
    assert state[PHASE] == PH_PLACE and state[H_CURRENT] == first
    # nobody else learns the choice: the cards stay unknown to the others
    assert not state[KNOWN : KNOWN + 15].any()


def test_mm_4_random_setup_deals_hands():
    """MM-4: with setup_hand="random" there is no setup decision; hands of 3 are dealt at random."""
    hands = set()
    for seed in range(30):
        state = new_game(4, seed, setup="random")
        assert state[PHASE] == PH_PLACE
        for p in range(4):
            assert len(cards_at(state, p, LOC_HAND)) == 3 and len(cards_at(state, p, LOC_DOWN)) == 2
        hands.add(tuple(cards_at(state, 0, LOC_HAND)))
    assert len(hands) > 5


# ============================================================ MM-5 castle and guards
def test_mm_5_castle_deck_and_guard_backs():
    """MM-5: one face-down guard per player with two spaces each; 36 guards, 12 per level, inside
    their backs' ranges; the deck holds the rest."""
    assert NUM_GUARDS == 36
    ranges = {1: ((3, 6), (3, 6)), 2: ((5, 8), (6, 9)), 3: ((6, 10), (9, 14))}
    for level, ((s0, s1), (l0, l1)) in ranges.items():
        cards = [c for c in range(NUM_GUARDS) if GUARD_LEVEL[c] == level]
        assert len(cards) == 12
        assert all(s0 <= GUARD_STRENGTH[c] <= s1 and l0 <= GUARD_LOOT[c] <= l1 for c in cards)
    for n in (3, 6):
        state = new_game(n, seed=2)
        castle = [int(state[CASTLE + g]) for g in range(6)]
        assert all(c >= 0 for c in castle[:n]) and all(c < 0 for c in castle[n:])
        assert not state[REVEALED : REVEALED + 6].any()
        assert state[DECK_COUNT] == 36 - n
        assert (state[SPACE : SPACE + 2 * n] == -1).all()
        assert f"G{n}b" in " ".join(legal_names(apply(state, *["lay down 1+2"] * n)))


def test_mm_5_empty_deck_reshuffles_the_discards():
    """MM-5: dealing from an empty deck first shuffles the discarded guards into a new deck."""
    state = state_from_castle("*\n*\n*")
    for c in range(NUM_GUARDS):
        if state[GUARD_STATUS + c] == G_DECK:
            state[GUARD_STATUS + c] = G_DISCARD_SEEN if c % 2 else G_DISCARD_HIDDEN
    state[DECK_COUNT] = 0
    rules.discard_castle(state)
    rules.deal_guards(state, make_rng(4))
    assert state[DECK_COUNT] == 36 - 3
    statuses = state[GUARD_STATUS : GUARD_STATUS + NUM_GUARDS]
    assert (statuses == G_CASTLE).sum() == 3 and (statuses == G_DECK).sum() == 33


# ============================================================ MM-6 rounds
@pytest.mark.parametrize("num_players,rounds", [(3, 6), (4, 6), (5, 5), (6, 6)])
def test_mm_6_rounds_per_player_count(num_players, rounds):
    """MM-6: 6 rounds with 3, 4 or 6 players, 5 with 5; no guards are dealt after the last."""
    states = play_random(new_game(num_players, seed=num_players), seed=num_players)
    final = states[-1]
    assert final[H_TERMINAL] == 1 and final[ROUND] == rounds
    assert final[DECK_COUNT] == 36 - num_players * rounds
    assert max(int(s[ROUND]) for s in states[:-1]) == rounds - 1


# ============================================================ MM-7 playing a monster
def test_mm_7_place_on_any_empty_space():
    """MM-7: the player may put any hand card on any empty space, both sides of a guard included."""
    state = state_from_castle("*  p1:3\n**\n***", hands={0: [1, 4, 5]})
    for space in ("G1b", "G2a", "G2b", "G3a", "G3b"):
        assert {1, 4, 5} <= plays_at(state, space)
    after = apply(state, "play 4 at G3b")
    assert cards_at(after, 0, LOC_CASTLE) == [4] and cards_at(after, 0, LOC_HAND) == [1, 5]
    assert golds(after) == golds(state)


def test_mm_7_1_rulebook_place_and_replace_examples():
    """MM-7.1: Ani places her 4 on an open space; Ani replaces Inga's 2 with her 4."""
    state = state_from_castle("*  p0:2\n*\n*", current=ANI, hands={ANI: [1, 4, 5]})
    placed = apply(state, "play 4 at G2a")
    assert int(placed[SPACE + 2]) // 5 == ANI
    replaced = apply(state, "play 4 at G1a (replace player_0's 2)")
    assert 2 in cards_at(replaced, INGA, LOC_HAND)
    assert cards_at(replaced, ANI, LOC_CASTLE) == [4]


# ============================================================ MM-8 replacing
def test_mm_8_replacement_conditions():
    """MM-8: strictly stronger, not a 5, pair below the printed maximum, and enough gold."""
    state = state_from_castle(
        """
        G1 *    p1:3  p2:2
        G2 **   p1:5  p2:1
        G3 ***  p2:4  --
    """,
        hands={0: [1, 3, 4]},
    )
    assert plays_at(state, "G1a") == {4}  # 4 beats 3; a 3 is not stronger than 3
    assert plays_at(state, "G1b") == {3, 4}  # pair 5 < 6
    assert plays_at(state, "G2a") == set()  # a 5 stays
    assert plays_at(state, "G2b") == {3, 4}  # pair 6 < 8

    def reason(name):
        return rules.REASONS[int(rules.illegal_reason(state, str_to_action(name)))]

    assert "strictly stronger" in reason("play 3 at G1a")
    assert "strength 5" in reason("play 4 at G2a")
    full = state.copy()
    full[SPACE + 1] = 2 * 5 + strength_card(3)  # G1: 3 + 3 = 6, the level-1 maximum
    assert plays_at(full, "G1a") == set() and plays_at(full, "G1b") == set()
    assert (
        "maximum strength" in rules.REASONS[int(rules.illegal_reason(full, str_to_action("play 4 at G1a")))]
    )
    weak = state.copy()
    weak[SPACE + 4] = 2 * 5 + strength_card(1)  # G3: seat 2's 1 instead of its 4
    assert plays_at(weak, "G3a") == {3, 4}
    weak[GOLD] = 2  # level 3 costs 1 + 2
    assert plays_at(weak, "G3a") == set()
    assert "too little gold" in rules.REASONS[int(rules.illegal_reason(weak, str_to_action("play 4 at G3a")))]


@pytest.mark.parametrize("level,treasury,owner", [(1, 1, 0), (2, 1, 1), (3, 1, 2)])
def test_mm_8_fees_by_level_and_own_card(level, treasury, owner):
    """MM-8: level 1 pays 1 to the treasury, level 2 also 1 to the owner, level 3 also 2; replacing
    one's own monster pays 1 to the treasury only. The replaced card returns to its owner's hand."""
    stars = "*" * level
    state = state_from_castle(f"{stars} p1:1 p0:2\n*\n*", hands={0: [3, 4]})
    other = apply(state, "play 3 at G1a (replace player_1's 1)")
    assert gains(state, other) == [-(treasury + owner), owner, 0]
    assert 1 in cards_at(other, 1, LOC_HAND) and other[KNOWN + 5 + strength_card(1)] == 1
    own = apply(state, "play 4 at G1b (replace player_0's 2)")
    assert gains(state, own) == [-1, 0, 0]
    assert cards_at(own, 0, LOC_HAND) == [2, 3] and cards_at(own, 0, LOC_CASTLE) == [4]


def test_mm_8_1_rulebook_pair_five_may_pair_six_may_not():
    """MM-8.1: maximum 6; Inga's 2 and Frank's 3 (5) may each be replaced by Ani, 3 + 3 (6) not."""
    below = state_from_castle("* p0:2 p1:3\n*\n*", current=ANI, hands={ANI: [4, 5]})
    assert plays_at(below, "G1a") == {4, 5} and plays_at(below, "G1b") == {4, 5}
    equal = state_from_castle("* p0:3 p1:3\n*\n*", current=ANI, hands={ANI: [4, 5]})
    assert plays_at(equal, "G1a") == set() and plays_at(equal, "G1b") == set()


# ============================================================ MM-9 turn order
def test_mm_9_order_skips_players_with_two_monsters():
    """MM-9: clockwise from the start player; a seat with 2 monsters placed is skipped, and a seat
    whose monster was replaced plays again when its turn comes round."""
    state = new_game(4, seed=5, setup="random")
    start = int(state[START_PLAYER])
    order = []
    for _ in range(4):
        order.append(int(state[H_CURRENT]))
        state = apply(state, sorted(n for n in legal_names(state) if "replace" not in n)[0])
    assert order == [(start + i) % 4 for i in range(4)]
    state = state_from_castle(
        """
        G1 *    p0:1  p1:4
        G2 *    p2:3  p3:3
        G3 *    p2:1  p3:1
        G4 *    --    --
    """,
        current=1,
        hands={1: [2, 5], 0: [3, 5]},
    )
    # seats 2 and 3 have placed both monsters: after seat 1 comes seat 0
    after = apply(state, "play 2 at G4a")
    assert after[H_CURRENT] == 0
    # seat 0 replacing its own 1 keeps one monster placed: everyone else is done, so seat 0 again
    assert apply(after, "play 3 at G1a (replace player_0's 1)")[H_CURRENT] == 0
    # seat 0 replacing seat 1's 4 gives seat 1 an extra turn, next in clockwise order
    again = apply(after, "play 5 at G1b (replace player_1's 4)")
    assert again[H_CURRENT] == 1 and cards_at(again, 1, LOC_HAND) == [4, 5]


def test_mm_9_1_rulebook_three_player_sequence():
    """MM-9.1: Inga replaces Frank's 2 with her 4 (level 1, 1 to the treasury); Frank, on move again,
    replaces Inga's 2 with his 3 (level 2, 1 to the treasury and 1 to Inga); Inga cannot replace
    anything and places her 2 on the last free space, which ends phase 1."""
    state = state_from_castle(
        """
        G1 *    p1:2  p2:2
        G2 **   p0:2  p1:5
        G3 ***  p2:5  --
    """,
        current=INGA,
        hands={INGA: [1, 4], FRANK: [3], ANI: [3]},
    )
    state = apply(state, "play 4 at G1a (replace player_1's 2)")
    assert golds(state) == [7, 8, 8]
    assert state[H_CURRENT] == FRANK and cards_at(state, FRANK, LOC_HAND) == [2, 3]
    state = apply(state, "play 3 at G2a (replace player_0's 2)")
    assert golds(state) == [8, 6, 8]
    assert state[H_CURRENT] == INGA and cards_at(state, INGA, LOC_HAND) == [1, 2]
    assert all(name.endswith("at G3b") for name in legal_names(state))
    assert plays_at(state, "G3b") == {1, 2}
    done = apply(state, "play 2 at G3b")
    assert done[ROUND] == 1, "the full castle starts the fights and the next round"


# ============================================================ MM-10 end of phase 1
def test_mm_10_phase_ends_when_the_castle_is_full():
    """MM-10: the last free space filled, the fights run at once; before that the phase goes on
    and everyone who must still play has a legal action."""
    state = state_from_castle("* p0:1 p1:1\n* p1:2 p2:2\n* p2:3 --", hands={0: [4, 5]})
    assert not rules.castle_full(state)
    after = apply(state, "play 4 at G3b")
    assert after[ROUND] == 1 and (after[SPACE : SPACE + 6] == -1).all()
    for s in play_random(new_game(5, seed=9)):
        if not s[H_TERMINAL] and s[PHASE] == PH_PLACE:
            assert len(legal_names(s)) > 0 and not rules.castle_full(s)


# ============================================================ MM-11 fights
def test_mm_11_split_rules():
    """MM-11: halves with the odd coin to the stronger monster, none on equal strength, all of it to
    a sole owner; then the next guard is fought."""
    state = state_from_castle("""
        G1 *4/5   p0:3  p1:1
        G2 *4/3   p0:2  p1:2
        G3 *3/3   p2:1  p2:4
    """)
    after, lost = fight(state)
    assert lost == -1
    assert gains(state, after) == [2 + 1 + 1, 2 + 1, 3]
    assert after[REVEALED : REVEALED + 3].tolist() == [1, 1, 1]


def test_mm_11_1_rulebook_eleven_gold_split_six_five():
    """MM-11.1: Inga's 2 and Frank's 4 (6) beat a guard of strength 6 worth 11: Frank 6, Inga 5."""
    state = state_from_castle("""
        G1 ***6/11  p0:2  p1:4
        G2 ***10/14 p2:1  p0:1
        G3 *        p1:1  p2:2
    """)
    after, lost = fight(state)
    assert lost == 1
    assert gains(state, after) == [5, 6, 0]


def test_mm_11_2_rulebook_lost_fight_against_nine():
    """MM-11.2: Inga's 3 and Frank's 5 (8) lose to strength 9: no loot, no further guard flipped."""
    state = state_from_castle("""
        G1 ***9/12  p0:3  p1:5
        G2 *3/3     p2:5  p0:4
        G3 *3/3     p1:4  p2:4
    """)
    after, lost = fight(state)
    assert lost == 0
    assert gains(state, after) == [0, 0, 0]
    assert after[REVEALED : REVEALED + 3].tolist() == [1, 0, 0]


# ============================================================ MM-12 healing
def test_mm_12_1_rulebook_healing_one_one_two():
    """MM-12.1: Inga and Ani lose at the third guard, the fourth stays face down beside Frank's two
    monsters: Inga pays 1, Ani 1, Frank 2, Jenny nothing."""
    state = state_from_castle("""
        G1 *3/3      p3:4  p0:4
        G2 *3/3      p3:5  p2:5
        G3 ***10/14  p0:2  p2:1
        G4 **        p1:1  p1:2
    """)
    fought, lost = fight(state)
    assert lost == 2
    healed = fought.copy()
    rules.heal_monsters(healed, lost)
    assert gains(fought, healed) == [-1, -2, -1, 0]


def test_mm_12_pay_what_you_can_and_no_healing_after_a_clean_sweep():
    """MM-12: a player short of gold pays all they have and no more; if every guard falls, nobody heals."""
    state = state_from_castle("***10/14 p0:5 p1:4\n* p0:3 p1:2\n* p2:1 p2:2", gold=[2, 8, 0])
    fought, lost = fight(state)
    healed = fought.copy()
    rules.heal_monsters(healed, lost)
    assert lost == 0 and golds(healed) == [0, 8 - 2 - 1, 0]
    sweep = state_from_castle("*4/3 p0:5 p1:4\n*3/3 p0:3 p1:2\n*3/4 p2:1 p2:2")
    fought, lost = fight(sweep)
    healed = fought.copy()
    rules.heal_monsters(healed, lost)
    assert lost == -1 and golds(healed) == golds(fought)


# ============================================================ MM-13 end of a round
def test_mm_13_round_end_rotation_guards_king_and_start_player():
    """MM-13: face-down cards to hand, played ones face down, all known; new face-down guards, the
    old ones discarded (face-down ones unseen); the start player passes clockwise."""
    state = state_from_castle("***10/14 p0:5 p1:4\n* p0:3 p1:2\n* p2:1 p2:2", start=2, known=False)
    old = [int(state[CASTLE + g]) for g in range(3)]
    after = state.copy()
    rules.end_round(after, make_rng(1))
    assert after[START_PLAYER] == 0 and after[ROUND] == 1 and after[PHASE] == PH_PLACE
    assert after[H_CURRENT] == 0
    assert cards_at(after, 0, LOC_DOWN) == [3, 5] and cards_at(after, 0, LOC_HAND) == [1, 2, 4]
    assert after[KNOWN : KNOWN + 15].all()
    assert after[GUARD_STATUS + old[0]] == G_DISCARD_SEEN
    assert (
        after[GUARD_STATUS + old[1]] == G_DISCARD_HIDDEN and after[GUARD_STATUS + old[2]] == G_DISCARD_HIDDEN
    )
    assert all(after[GUARD_STATUS + int(after[CASTLE + g])] == G_CASTLE for g in range(3))
    assert after[DECK_COUNT] == state[DECK_COUNT] - 3
    assert not after[REVEALED : REVEALED + 3].any() and (after[SPACE : SPACE + 6] == -1).all()


def test_mm_13_1_rulebook_hand_rotation():
    """MM-13.1: Jenny takes her two face-down cards into hand (3 again) and lays her two monsters face down."""
    state = state_from_castle("* p3:4 p0:1\n* p3:5 p1:1\n* p2:1 p0:2\n* p1:2 p2:2", hands={JENNY: [3]})
    assert cards_at(state, JENNY, LOC_DOWN) == [1, 2] and cards_at(state, JENNY, LOC_HAND) == [3]
    rules.rotate_cards(state)
    assert cards_at(state, JENNY, LOC_HAND) == [1, 2, 3] and cards_at(state, JENNY, LOC_DOWN) == [4, 5]


# ============================================================ MM-14 end of the game
def test_mm_14_game_ends_after_the_last_round_with_the_castle_on_view():
    """MM-14: after the last round's healing the game is over; the castle stays as fought."""
    state = state_from_castle("*4/3 p0:5 p1:4\n*3/3 p0:3 p1:2\n*3/4 p2:1 p2:2", round_=6)
    rules.end_round(state, make_rng(0))
    assert state[H_TERMINAL] == 1 and state[PHASE] == 2 and state[H_CURRENT] == -1
    assert state[REVEALED : REVEALED + 3].all() and (state[SPACE : SPACE + 6] >= 0).all()
    assert golds(state) == [8 + 2 + 2, 8 + 1 + 1, 8 + 4]
    assert state[WINNER : WINNER + 3].tolist() == [1, 0, 1]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    assert rules.legal_mask(state, mask) == 0


def test_mm_14_1_rulebook_final_ranking_with_shared_last_place():
    """MM-14.1: Inga 32, Frank 19, Ani 19, Jenny 23: Inga alone wins."""
    state = state_from_castle("* p0:1 p1:1\n* p2:1 p3:1\n* p0:2 p1:2\n* p2:2 p3:2", gold=[32, 19, 19, 23])
    rules.finish_game(state)
    assert state[WINNER : WINNER + 4].tolist() == [1, 0, 0, 0]
    out = np.zeros(4, np.float32)
    rules.returns(state, out)
    assert out.tolist() == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])


# ============================================================ MM-15 rewards
def test_mm_15_rewards_shared_win_score_mode_and_full_tie():
    """MM-15: k tied winners get 1/k, the others -1/(n-k); all tied gives 0; score mode is gold minus the mean."""
    castle = "* p0:1 p1:1\n* p2:1 p3:1\n* p0:2 p1:2\n* p2:2 p3:2"
    out = np.zeros(4, np.float32)
    shared = state_from_castle(castle, gold=[20, 20, 5, 7])
    rules.finish_game(shared)
    rules.returns(shared, out)
    assert out.tolist() == pytest.approx([0.5, 0.5, -0.5, -0.5])
    tie = state_from_castle(castle, gold=[9, 9, 9, 9])
    rules.finish_game(tie)
    rules.returns(tie, out)
    assert out.tolist() == [0.0] * 4
    score = state_from_castle(castle, gold=[32, 19, 19, 23], reward="score")
    rules.finish_game(score)
    rules.returns(score, out)
    assert out.tolist() == pytest.approx([32 - 23.25, 19 - 23.25, 19 - 23.25, 23 - 23.25])
    running = state_from_castle(castle)
    rules.returns(running, out)
    assert not out.any()


# ============================================================ MM-16 truncation
def test_mm_16_default_step_limit_and_the_length_bound():
    """MM-16: max_steps defaults to 1000, above the bound of 61 actions per player a game can take."""
    assert envs.spec(ENV_ID).max_game_length == 1000
    env = envs.make(ENV_ID)
    assert env.unwrapped.options["max_steps"] == 1000
    for n in (3, 6):
        for seed in range(20):
            states = play_random(new_game(n, seed, kings=seed % 2 == 1), seed=seed)
            assert len(states) - 1 <= 61 * n


# ============================================================ MM-17 decisions
def test_mm_17_action_space_names_read_back():
    """MM-17: Discrete(70): 10 setup pairs, then (strength, space); every name reads back."""
    assert NUM_ACTIONS == 70
    assert action_to_str(0) == "lay down 1+2" and action_to_str(9) == "lay down 4+5"
    assert play_action(strength_card(4), 3) == PLAY0 + 3 * 12 + 3
    assert action_to_str(PLAY0 + 3 * 12 + 3) == "play 4 at G2b"
    for a in range(NUM_ACTIONS):
        assert str_to_action(action_to_str(a)) == a
        assert str_to_action(str(a)) == a
    state = state_from_castle("* p1:2\n*\n*", hands={0: [3, 4, 5]})
    name = action_to_str(play_action(strength_card(3), 0), state)
    assert name == "play 3 at G1a (replace player_1's 2)" and str_to_action(name) == play_action(2, 0)
    with pytest.raises(ValueError):
        str_to_action("play 6 at G1a")


def test_mm_17_fights_and_rounds_are_automatic():
    """MM-17: the step that fills the castle runs fights, healing, rotation and the next deal; the
    agent next on move is always the start player of a fresh round, with a legal action."""
    env = envs.make(ENV_ID, num_players=3, setup_hand="random")
    env.reset(seed=4)
    rng = random.Random(4)
    rounds_seen = set()
    while not env.terminations[env.agent_selection]:
        state = env.unwrapped.state()
        rounds_seen.add(int(state[ROUND]))
        assert state[PHASE] == PH_PLACE
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask.any()
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    assert rounds_seen == set(range(6))


# ============================================================ MM-18 bad input
def test_mm_18_illegal_action_raises_and_changes_nothing():
    """MM-18: an illegal replacement raises naming the agent, the action and the reason."""
    env = envs.make(ENV_ID, num_players=3, setup_hand="random")
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.unwrapped.state()
    setup = str_to_action("lay down 1+2")
    with pytest.raises(ValueError, match=rf"{agent}.*lay down 1\+2.*setup choice is over"):
        env.step(setup)
    assert np.array_equal(before, env.unwrapped.state())
    fresh = envs.make(ENV_ID, num_players=3)
    fresh.reset(seed=1)
    with pytest.raises(ValueError, match="first choose the two cards"):
        fresh.step(play_action(0, 0))


# ============================================================ MM-19 guard line-up
def test_mm_19_lineup_sorts_levels_from_the_main_gate():
    """MM-19: with guard_lineup each round's guards go lowest level first, every round; without it
    some deal is out of order."""
    unsorted = 0
    for seed in range(30):
        for lineup in (True, False):
            states = play_random(new_game(6, seed, setup="random", lineup=lineup), seed=seed)
            for s in states:
                levels = [int(GUARD_LEVEL[s[CASTLE + g]]) for g in range(6)]
                if lineup:
                    assert levels == sorted(levels)
                else:
                    unsorted += levels != sorted(levels)
    assert unsorted > 0


# ============================================================ MM-20 king's rules
def test_mm_20_a_tile_is_flipped_each_round_only_in_the_variant():
    """MM-20: in the variant a new king tile rules each round (all different); the basic game
    never flips one."""
    kings = play_random(new_game(4, seed=3, setup="random", kings=True), seed=3)
    tiles = {int(s[ROUND]): int(s[KING]) for s in kings if not s[H_TERMINAL]}
    assert sorted(tiles) == list(range(6)) and len(set(tiles.values())) == 6 and min(tiles.values()) >= 0
    assert kings[-1][KINGS_FLIPPED] == 6
    basic = play_random(new_game(4, seed=3, setup="random"), seed=3)
    assert all(s[KING] == -1 and s[KINGS_FLIPPED] == 0 for s in basic)


def test_mm_20_replacement_uses_printed_values():
    """MM-20: '+2 strength' at the second guard does not raise its printed maximum of 6 (level 1):
    pair 5 may still be replaced, pair 6 may not, exactly as without the tile."""
    castle = "* p1:1\n* p1:2 p2:3\n* p2:2 p3:4\n*"
    plain = state_from_castle(castle, hands={0: [4, 5]})
    tiled = state_from_castle(castle, hands={0: [4, 5]}, king="second guard +2 strength +3 loot")
    assert plays_at(tiled, "G2a") == plays_at(plain, "G2a") == {4, 5}
    assert plays_at(tiled, "G3a") == plays_at(plain, "G3a") == set()


def king_fight(castle, king, **kw):
    """Gold gained in phase 2 of ``castle`` with and without ``king``: ``(with, without, lost)``."""
    plain = state_from_castle(castle, **kw)
    tiled = state_from_castle(castle, king=king, **kw)
    a, lost = fight(tiled)
    b, lost_plain = fight(plain)
    return gains(tiled, a), gains(plain, b), lost, lost_plain


def test_mm_20_1_no_strength_one():
    """MM-20.1: no 1 may be placed or used to replace."""
    state = state_from_castle("* p1:2\n*\n*", hands={0: [1, 3, 4]}, king="no strength 1")
    assert all(not n.startswith("play 1 ") for n in legal_names(state))
    assert plays_at(state, "G2a") == {3, 4}
    assert "forbids" in rules.REASONS[int(rules.illegal_reason(state, str_to_action("play 1 at G2a")))]


def test_mm_20_2_costly_healing():
    """MM-20.2: strengths 4 and 5 heal for 4, the others as printed."""
    castle = "***10/14 p0:4 p1:5\n* p0:3 p1:1\n* p2:1 p2:2"
    for king, dues in ((None, [2 + 2, 3 + 1, 1 + 1]), ("costly healing", [4 + 2, 4 + 1, 1 + 1])):
        state = state_from_castle(castle, gold=[20, 20, 20], king=king)
        fought, lost = fight(state)
        rules.heal_monsters(fought, lost)
        assert gains(state, fought) == [-d for d in dues]


def test_mm_20_3_equal_pairs_plus_three_loot():
    """MM-20.3: a guard beside two monsters of equal strength has +3 loot."""
    with_tile, without, _, _ = king_fight(
        "*3/3 p0:2 p1:2\n*3/3 p1:3 p2:1\n***10/14 p0:1 p2:2", "equal pairs +3 loot"
    )
    assert without == [1, 1 + 2, 1] and with_tile == [3, 3 + 2, 1]


def test_mm_20_4_weakest_pairs_plus_three_loot():
    """MM-20.4: every guard beside the weakest pairs has +3 loot."""
    castle = "*3/3 p0:1 p1:3\n*3/4 p1:2 p2:2\n*4/3 p0:5 p2:4"
    with_tile, without, _, _ = king_fight(castle, "weakest pairs +3 loot")
    assert without == [1 + 2, 2 + 2, 2 + 1]
    assert with_tile == [3 + 2, 3 + 3, 3 + 1]  # G1 (6 loot) and G2 (7 loot) share the weakest pair, 4


def test_mm_20_5_strong_hand():
    """MM-20.5: at the round's start everyone holds 3, 4, 5 and lays 1, 2 face down, in view."""
    state = state_from_castle("*\n*\n*", known=False, king="strong hand")
    state[KING] = -1
    state[KINGS_FLIPPED] = 0  # the tile is still on top of the stack: the round is about to begin
    rules.start_round(state)
    assert state[KING] == KING_NAMES.index("strong hand")
    for p in range(3):
        assert cards_at(state, p, LOC_HAND) == [3, 4, 5] and cards_at(state, p, LOC_DOWN) == [1, 2]
    assert state[KNOWN : KNOWN + 15].all()


def test_mm_20_6_no_change():
    """MM-20.6: the tile changes nothing."""
    castle = "*3/4 p0:2 p1:2\n**5/7 p1:3 p2:3\n***9/13 p0:1 p2:2"
    with_tile, without, lost, lost_plain = king_fight(castle, "no change")
    assert with_tile == without and lost == lost_plain == 2


# Every guard falls here; without a tile the gains are [1 + 2, 2 + 2, 2 + 1].
CASTLE3 = "*3/3 p0:2 p1:3\n*3/4 p1:2 p2:3\n*4/3 p0:4 p2:1"


def test_mm_20_7_first_guard_plus_three_loot():
    """MM-20.7: the first guard has +3 loot."""
    with_tile, without, _, _ = king_fight(CASTLE3, "first guard +3 loot")
    assert without == [1 + 2, 2 + 2, 2 + 1] and with_tile == [3 + 2, 3 + 2, 2 + 1]


def test_mm_20_8_second_guard_plus_two_strength_plus_three_loot():
    """MM-20.8: the second guard has +2 strength and +3 loot: a pair of 5 no longer beats a 4."""
    castle = "*3/3 p0:2 p1:3\n*4/5 p1:2 p2:3\n*4/3 p0:4 p2:1"
    with_tile, without, lost, lost_plain = king_fight(castle, "second guard +2 strength +3 loot")
    assert lost_plain == -1 and lost == 1
    stronger = "*3/3 p0:2 p1:3\n*4/5 p1:2 p2:4\n*4/3 p0:4 p2:1"
    with_tile, without, lost, _ = king_fight(stronger, "second guard +2 strength +3 loot")
    assert lost == -1 and without == [1 + 2, 2 + 2, 3 + 1] and with_tile == [1 + 2, 2 + 4, 4 + 1]


def test_mm_20_9_first_two_guards_minus_two_loot():
    """MM-20.9: the first two guards have -2 loot."""
    with_tile, without, _, _ = king_fight(CASTLE3, "first two guards -2 loot")
    assert without == [1 + 2, 2 + 2, 2 + 1] and with_tile == [0 + 2, 1 + 1, 1 + 1]


def test_mm_20_10_last_guard_plus_ten_loot():
    """MM-20.10: the last guard has +10 loot."""
    with_tile, without, _, _ = king_fight(CASTLE3, "last guard +10 loot")
    assert without == [1 + 2, 2 + 2, 2 + 1] and with_tile == [1 + 7, 2 + 2, 2 + 6]


def test_mm_20_11_last_two_guards_plus_four_loot():
    """MM-20.11: the last two guards have +4 loot."""
    with_tile, without, _, _ = king_fight(CASTLE3, "last two guards +4 loot")
    assert without == [1 + 2, 2 + 2, 2 + 1] and with_tile == [1 + 4, 2 + 4, 4 + 3]


def test_mm_20_12_last_guard_minus_three_strength_minus_five_loot():
    """MM-20.12: the last guard has -3 strength and -5 loot, never below 0 loot: a pair of 3 now
    beats a 6 worth 5 for nothing, and a 6 worth 6 pays 1."""
    castle = "*3/3 p0:2 p1:3\n*3/4 p1:2 p2:3\n*6/5 p0:1 p2:2"
    with_tile, without, lost, lost_plain = king_fight(castle, "last guard -3 strength -5 loot")
    assert lost_plain == 2 and lost == -1 and with_tile == without
    richer = "*3/3 p0:2 p1:3\n*3/4 p1:2 p2:3\n*6/6 p0:1 p2:2"
    with_tile, _, lost, _ = king_fight(richer, "last guard -3 strength -5 loot")
    assert lost == -1 and with_tile == [1, 2 + 2, 2 + 1]


# ============================================================ MM-21 information
def observe(state, player):
    out = np.zeros(observation.OBS_SIZE, np.float32)
    observation.observe_into(state, player, out)
    return out


def card_view(state, observer, seat, strength):
    """What ``observer`` sees of ``seat``'s card: 'hand', 'down', 'castle' or 'unknown'."""
    n = int(state[H_NUM_PLAYERS])
    rel = (seat - observer) % n
    base = observation.OBS_CARDS + (rel * 5 + strength_card(strength)) * 4
    return ("hand", "down", "castle", "unknown")[int(np.argmax(observe(state, observer)[base : base + 4]))]


def test_mm_21_what_others_know_of_a_hand():
    """MM-21: in round 1 others' cards outside the castle are unknown; a card returned by a
    replacement is known in hand; when the counts leave one place, the rest is known too; after
    a round every hand is known. Guard backs show only the level."""
    state = state_from_castle("* p1:2\n*\n*", known=False, hands={0: [3, 4, 5], 1: [1, 5]})
    assert card_view(state, 0, 1, 2) == "castle"
    assert card_view(state, 0, 1, 5) == "unknown" and card_view(state, 1, 1, 5) == "hand"
    after = apply(state, "play 3 at G1a (replace player_1's 2)")
    assert card_view(after, 0, 1, 2) == "hand" and card_view(after, 2, 1, 2) == "hand"
    assert card_view(after, 0, 1, 5) == "unknown"
    later = state_from_castle("* p1:2\n*\n*", known=True)
    assert all(card_view(later, 0, 1, s) != "unknown" for s in range(1, 6))
    obs = observe(state, 0)
    guard = obs[observation.OBS_GUARDS : observation.OBS_GUARDS + 8]
    assert guard.tolist() == [1, 1, 0, 0, 0, 0, 0, 0]


def test_mm_21_counts_reveal_the_last_unknowns():
    """MM-21: once a seat's hand holds only known cards, its unknown cards must be the face-down pair."""
    state = state_from_castle("* p1:2 p1:4\n*\n*", known=False, hands={1: [1]})
    state[KNOWN + 5 + strength_card(1)] = 1  # the 1 came back into hand in view
    assert card_view(state, 0, 1, 3) == "down" and card_view(state, 0, 1, 5) == "down"
    assert card_view(state, 0, 1, 1) == "hand"
