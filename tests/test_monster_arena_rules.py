"""Monster Arena rules, one test per rule of ``seeds/monster_arena/rules.md`` (ids AR-n), and
the worked examples AR-47..AR-51, built from monster diagrams (``tests/monster_arena_diagram.py``)."""

import json

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_arena import building, fighting, queries, rules
from monster_zoo.envs.monster_arena.actions import NUM_ACTIONS
from monster_zoo.envs.monster_arena.components import NUM_CARDS, SEEDS_DIR, card
from monster_zoo.envs.monster_arena.observation import (
    CARD_FEATURES,
    F_INV,
    F_TABLE,
    OBS_CARDS,
    OBS_DONE,
    OBS_SIZE,
    observe_into,
)
from monster_zoo.envs.monster_arena.state_layout import (
    ALIVE,
    BID,
    DEALER,
    DONE,
    DRY_ROUNDS,
    ENERGY,
    FIRST_PLAYER,
    FROZEN,
    GRAVE_ORDER,
    HIGH,
    KNOWN,
    L_BOX,
    L_DECK,
    L_DISCARD,
    L_GRAVE,
    L_INV,
    L_ROW,
    L_TABLE,
    LAST,
    LOC,
    OWNER,
    PH_ATTACK,
    PH_AUCTION,
    PH_BUILD,
    PH_DEAL,
    PH_MAIN,
    PH_OVER,
    PH_PRIZE,
    PH_REACT,
    PHASE,
    QUIET,
    ROUND,
    TOKENS,
    TURN_SEAT,
    USED,
    WINNER,
)
from tests.monster_arena_diagram import (
    act,
    arena_state,
    base_state,
    cards_at,
    draft_state,
    legal,
    reason,
    where,
)

GAME = "monster_arena-v0"
# The kernels leave the step limit to the adapters; random games here stop at the env's default.
STEP_LIMIT = envs.spec(GAME).max_game_length


def roll_outcomes(state, *before_roll, seeds=range(400), react=()):
    """For many generator seeds, copy ``state``, apply ``before_roll`` then roll (and ``react``, then
    pass): yield (state after, dice sum) so a test can check the arithmetic for every dice result."""
    for seed in seeds:
        s = state.copy()
        rng = make_rng(seed)
        act(s, *before_roll, "roll", rng=rng)
        if s[PHASE] == PH_REACT:
            act(s, *react, rng=rng)
            if s[PHASE] == PH_REACT:
                act(s, "pass", rng=rng)
        yield s, int(s[LAST + 4])


def random_game(n, seed):
    """Play one random game; return the list of (phase, seat on move) before every action and the end state."""
    state = base_state(n, seed)
    rng, pick = make_rng(seed), np.random.default_rng(seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    trace = []
    while not state[H_TERMINAL] and state[H_STEPS] < STEP_LIMIT:
        rules.legal_mask(state, mask)
        trace.append((int(state[PHASE]), int(state[H_CURRENT])))
        rules.apply_action(state, int(pick.choice(np.flatnonzero(mask))), rng)
    return trace, state


# --- table, cards and frame ---------------------------------------------------------------
def test_ar_1_player_counts_and_seat_names():
    """AR-1: 2 to 6 players named player_0..player_{n-1}; default 4; other counts are refused."""
    assert envs.make(GAME).possible_agents == [f"player_{i}" for i in range(4)]
    for n in range(2, 7):
        assert envs.make(GAME, num_players=n).possible_agents == [f"player_{i}" for i in range(n)]
    for bad in (1, 7):
        with pytest.raises(ValueError, match="valid values: 2, 3, 4, 5, 6"):
            envs.make(GAME, num_players=bad)


def test_ar_2_card_list_matches_ruling_ar10():
    """AR-2: 12 torso halves (6 upper, 6 lower) and 48 parts with the stats of ruling AR10."""
    data = json.loads((SEEDS_DIR / "components.json").read_text())
    assert [t["code"] for t in data["torsos"]] == [
        "U1",
        "U2",
        "U3",
        "U4",
        "U5",
        "U6",
        "L1",
        "L2",
        "L3",
        "L4",
        "L5",
        "L6",
    ]
    assert sum(p["count"] for p in data["parts"]) == 48 and NUM_CARDS == 60
    by_name = {p["name"]: p for p in data["parts"] + data["torsos"]}
    # a sample typed in from the ruling: (slots, Defense, cost, dice, mod)
    expected = {
        "Ogre Chest": (3, 12, 1, 1, 1),
        "Crab Shell": (2, 13, None, 0, 0),
        "Wolf Chest": (3, 10, 2, 2, 0),
        "Serpent Coil": (2, 12, 1, 1, 2),
        "Stitched Arm": (1, 6, 1, 1, 1),
        "Gorilla Arm": (1, 7, 2, 2, 1),
        "Bone Claw": (0, 4, 1, 1, 2),
        "Scorpion Tail": (0, 6, 2, 1, 3),
        "Armor Plate": (2, 9, None, 0, 0),
        "Saw Arm": (0, 6, 3, 2, 0),
        "Horn": (0, 5, 1, 1, 3),
        "Club Tail": (1, 7, 2, 2, 1),
    }
    for name, (slots, d, cost, dice, mod) in expected.items():
        p = by_name[name]
        assert (p["slots"], p["defense"], p["cost"], p["dice"], p["mod"]) == (slots, d, cost, dice, mod), name
    counts = {p["name"]: p["count"] for p in data["parts"]}
    assert counts["Stitched Arm"] == 7 and counts["Tentacle"] == 5 and counts["Bat Wing"] == 3
    assert counts["Saw Arm"] == counts["Heart Pump"] == counts["Grave Gland"] == 1


def test_ar_3_phases_run_in_order_once():
    """AR-3: torso draft, drafting, building, arena, each once, in that order."""
    group = {0: 0, 1: 1, 2: 1, 3: 1, 4: 2, 5: None, 6: 3, 7: 3, 8: 3, 9: 3}
    for seed in range(20):
        trace, state = random_game(3, seed)
        seen = [group[ph] for ph, _ in trace if group[ph] is not None]
        assert seen == sorted(seen) and seen[0] == 0
        # a game ends in the arena (AR-44) or is still there at the step limit (AR-9)
        assert state[PHASE] == PH_OVER or (state[H_STEPS] == STEP_LIMIT and seen[-1] == 3)


def test_ar_4_chance_comes_from_the_seeded_generator():
    """AR-4: same seed and actions, same game; the first picker and dealer vary with the seed."""
    assert random_game(4, 5)[0] == random_game(4, 5)[0]
    firsts = {int(base_state(4, seed)[FIRST_PLAYER]) for seed in range(40)}
    assert firsts == {0, 1, 2, 3}


def test_ar_5_secret_draws_are_hidden_from_the_others():
    """AR-5: a part drawn unseen (end of drafting) is visible to its owner only; a part taken in
    the open is visible to everybody; the deck shows only its size."""
    state = draft_state(3, ["HO1", "BW1", "SA1"], tokens=[1, 0, 0])
    act(state, "take HO1")  # the dealer's token; then nobody has tokens: drafting ends
    assert state[PHASE] == PH_BUILD
    state2 = draft_state(3, ["HO1", "BW1", "SA1"], tokens=[3, 0, 0])
    act(state2, "take HO1", "pass")  # player_0 keeps 2 tokens, the only holder: draws 1 secretly
    secret = [c for c in range(NUM_CARDS) if state2[LOC + c] == L_INV and state2[KNOWN + c] == 0]
    assert len(secret) == 1 and state2[OWNER + secret[0]] == 0
    obs = np.zeros(OBS_SIZE, np.float32)
    c = secret[0]
    observe_into(state2, 0, obs)
    assert obs[OBS_CARDS + c * CARD_FEATURES + F_INV] == 1.0
    for viewer in (1, 2):
        observe_into(state2, viewer, obs)
        assert not obs[OBS_CARDS + c * CARD_FEATURES : OBS_CARDS + (c + 1) * CARD_FEATURES].any()
        ho = card("HO1")
        rel = (0 - viewer) % 3
        assert obs[OBS_CARDS + ho * CARD_FEATURES + F_INV + rel] == 1.0


def test_ar_6_someone_can_always_act_and_automatic_steps_ask_nobody():
    """AR-6: every live state offers the seat on move a legal action; a bidder without tokens is
    never asked (their pass is automatic)."""
    state = draft_state(3, ["HO1", "BW1", "SA1"], tokens=[15, 0, 15])
    act(state, "pass")
    assert state[PHASE] == PH_AUCTION and state[H_CURRENT] == 2  # player_1 skipped
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(40):
        s = base_state(2 + seed % 5, seed)
        rng, pick = make_rng(seed), np.random.default_rng(seed)
        while not s[H_TERMINAL] and s[H_STEPS] < STEP_LIMIT:
            assert rules.legal_mask(s, mask) > 0
            rules.apply_action(s, int(pick.choice(np.flatnonzero(mask))), rng)


def test_ar_7_rewards_sum_to_zero():
    """AR-7: one winner +1, the others -1/(n-1); two survivors of four +1/2, the others -1/2."""
    state = arena_state({0: "U3[-,-] + L5[-,-]", 1: "U1[-,-,-] + L1[-,-,-]", 2: "U2[-,-,-] + L2[-,-]"})
    queries.finish_game(state, True)
    out = np.zeros(3, np.float32)
    rules.returns(state, out)
    assert np.allclose(out, 0)  # everyone alive: everyone wins, all 0
    state[ALIVE + 1] = 0
    state[ALIVE + 2] = 0
    queries.finish_game(state, True)
    rules.returns(state, out)
    assert np.allclose(out, [1, -0.5, -0.5])
    state = arena_state(
        {
            0: "U3[-,-] + L5[-,-]",
            1: "U1[-,-,-] + L1[-,-,-]",
            2: "U2[-,-,-] + L2[-,-]",
            3: "U4[-,-,-] + L4[-,-,-]",
        }
    )
    state[ALIVE + 1] = state[ALIVE + 3] = 0
    queries.finish_game(state, True)
    out = np.zeros(4, np.float32)
    rules.returns(state, out)
    assert np.allclose(out, [0.5, -0.5, 0.5, -0.5])


def test_ar_8_torso_draft_is_snake_order():
    """AR-8: first picks clockwise from the random first player, second picks in reverse; leftovers boxed."""
    for seed in range(6):
        state = base_state(3, seed)
        f = int(state[FIRST_PLAYER])
        order = []
        for label in ("U1", "U2", "U3", "L1", "L2", "L3"):
            order.append(int(state[H_CURRENT]))
            act(state, f"take {label}")
        assert order == [f, (f + 1) % 3, (f + 2) % 3, (f + 2) % 3, (f + 1) % 3, f]
        assert cards_at(state, L_BOX) == ["L4", "L5", "L6", "U4", "U5", "U6"]
        assert where(state, "U1") == (L_TABLE, f) and where(state, "L3") == (L_TABLE, f)


def test_ar_9_step_limit_truncates_with_zero_reward():
    """AR-9: reaching max_steps truncates every agent with reward 0."""
    env = envs.make(GAME, max_steps=3)
    env.reset(seed=1)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())


# --- monsters ----------------------------------------------------------------------------------
def test_ar_10_attaching_into_empty_slots_of_ones_own_monster():
    """AR-10: a part goes into an empty slot of a card already in one's monster; the slot is part of the choice."""
    state = arena_state({0: "U1[SA1[-],-,HO1] + L2[-,-]", 1: "U2[-,-,-] + L1[-,-,-]"}, inventory={0: ["BC1"]})
    act(state, "attach BC1")
    slots = [n for n in legal(state)]
    assert slots == ["into U1 slot 2", "into L2 slot 1", "into L2 slot 2", "into SA1 slot 1"]
    assert reason(state, "into U1 slot 1") == queries.R_NOT_OPEN_SLOT
    assert reason(state, "into U2 slot 1") == queries.R_NOT_OPEN_SLOT  # not one's own monster
    act(state, "into SA1 slot 1")
    assert where(state, "BC1") == (L_TABLE, 0)
    assert state[rules.PARENT + card("BC1")] == card("SA1")


def test_ar_11_only_outer_cards_can_be_attacked():
    """AR-11: a card whose slots are all filled is covered and cannot be targeted; slotless
    cards and cards with an empty slot are outer."""
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U3[SA1[-],HO1] + L2[-,SA2[HO2]]"})
    assert reason(state, "target U3") == queries.R_COVERED
    assert reason(state, "target SA2") == queries.R_COVERED
    assert reason(state, "target SA1") == 0 and reason(state, "target HO1") == 0
    assert reason(state, "target L2") == 0 and reason(state, "target HO2") == 0
    assert reason(state, "target U1") == queries.R_NOT_TARGETABLE


# --- drafting ------------------------------------------------------------------------------
def test_ar_12_drafting_setup():
    """AR-12: after the torso draft every player has 15 tokens and a random dealer turns up 3 cards."""
    dealers = set()
    for seed in range(30):
        state = base_state(3, seed)
        rng = make_rng(seed)
        for label in ("U1", "U2", "U3", "L1", "L2", "L3"):
            act(state, f"take {label}", rng=rng)
        assert [int(state[TOKENS + p]) for p in range(3)] == [15, 15, 15]
        assert state[PHASE] == PH_DEAL and state[H_CURRENT] == state[DEALER]
        assert len(cards_at(state, L_ROW)) == 3 and len(cards_at(state, L_DECK)) == 45
        dealers.add(int(state[DEALER]))
    assert dealers == {0, 1, 2}


def test_ar_13_dealer_takes_a_card_for_one_token_or_passes():
    """AR-13: the dealer's pick costs 1 token; passing costs nothing; then the auction opens."""
    state = draft_state(3, ["HO1", "BW1", "SA1"], dealer=1)
    assert reason(state, "take HO2") == queries.R_NOT_IN_ROW
    act(state, "take BW1")
    assert where(state, "BW1") == (L_INV, 1) and state[TOKENS + 1] == 14
    assert state[PHASE] == PH_AUCTION and state[H_CURRENT] == 2
    state = draft_state(3, ["HO1", "BW1", "SA1"], dealer=1)
    act(state, "pass")
    assert state[TOKENS + 1] == 15 and cards_at(state, L_ROW) == ["BW1", "HO1", "SA1"]


def test_ar_14_english_auction():
    """AR-14: bids must beat the current bid and fit one's tokens; the auction ends when all others
    passed in succession; the winner pays and picks; no bid means no sale."""
    state = draft_state(3, ["HO1", "BW1", "SA1"], tokens=[15, 4, 15])
    act(state, "pass")
    assert state[H_CURRENT] == 1 and reason(state, "bid 5") == queries.R_BID_LOW  # holds only 4
    act(state, "bid 3")
    assert reason(state, "bid 3") == queries.R_BID_LOW  # player_2 must beat 3
    act(state, "bid 4", "pass")  # player_0 passes; player_1 cannot beat 4 and passes by itself
    assert state[PHASE] == PH_PRIZE and state[H_CURRENT] == 2
    act(state, "take BW1")
    assert [int(state[TOKENS + p]) for p in range(3)] == [15, 4, 11]
    assert where(state, "BW1") == (L_INV, 2) and cards_at(state, L_DISCARD) == ["HO1", "SA1"]
    state = draft_state(3, ["HO1", "BW1", "SA1"])
    act(state, "pass", "pass", "pass", "pass")  # dealer declines, then nobody bids
    assert state[PHASE] == PH_DEAL and state[DEALER] == 1  # no sale: next round
    assert cards_at(state, L_DISCARD) == ["BW1", "HO1", "SA1"]
    assert [int(state[TOKENS + p]) for p in range(3)] == [15, 15, 15]


def test_ar_15_discard_is_reshuffled_when_the_deck_runs_out():
    """AR-15: row leftovers go to the discard; an empty deck is refilled from the discard."""
    state = draft_state(2, ["HO1", "BW1", "SA1"], discard=["TE1", "TE2"])
    for c in range(NUM_CARDS):
        if state[LOC + c] == L_DECK:
            state[LOC + c] = L_BOX
    act(state, "take HO1", "pass", "pass")  # BW1 and SA1 unsold: discard
    assert state[DEALER] == 1 and state[PHASE] == PH_DEAL
    assert len(cards_at(state, L_ROW)) == 3 and set(cards_at(state, L_ROW)) <= {"BW1", "SA1", "TE1", "TE2"}
    assert len(cards_at(state, L_DECK)) == 1 and cards_at(state, L_DISCARD) == []


def test_ar_16_deck_passes_left_to_the_next_token_holder():
    """AR-16: the next dealer is the first seat to the left that still has tokens."""
    state = draft_state(4, ["HO1", "BW1", "SA1"], dealer=0, tokens=[15, 0, 0, 15])
    act(state, "pass", "pass", "pass")
    assert state[DEALER] == 3 and state[H_CURRENT] == 3


def test_ar_17_end_of_drafting():
    """AR-17: (a) a lone token holder draws ceil(tokens/2) parts unseen; (c) a full circle of
    dealers without spending ends it; leftover tokens go to the box and energy starts at 0."""
    state = draft_state(3, ["HO1", "BW1", "SA1"], tokens=[6, 15, 0])
    act(state, "pass", "bid 15")  # player_1 spends everything; the prize goes to them
    act(state, "take SA1")  # player_0 (6 tokens) cannot beat 15: passes by itself
    assert state[PHASE] == PH_BUILD
    drawn = [c for c in range(NUM_CARDS) if state[LOC + c] == L_INV and state[OWNER + c] == 0]
    assert len(drawn) == 3 and all(state[KNOWN + c] == 0 for c in drawn)  # ceil(6/2), unseen
    assert all(state[TOKENS + p] == 0 and state[ENERGY + p] == 0 for p in range(3))
    state = draft_state(2, ["HO1", "BW1", "SA1"])
    act(state, "pass", "pass", "pass")  # round 1: nothing spent
    assert state[DRY_ROUNDS] == 1 and state[PHASE] == PH_DEAL
    act(state, "pass", "pass", "pass")  # round 2 by the other holder: nothing spent -> end
    assert state[PHASE] == PH_MAIN and [int(state[TOKENS + p]) for p in range(2)] == [
        0,
        0,
    ]  # nobody had parts to build


def test_ar_17_ends_when_deck_and_discard_are_empty():
    """AR-17 (d): with nothing left to turn up drafting ends."""
    state = draft_state(2, ["HO1"])
    for c in range(NUM_CARDS):
        if state[LOC + c] == L_DECK:
            state[LOC + c] = L_BOX
    act(state, "take HO1")
    assert state[PHASE] == PH_BUILD


# --- building ------------------------------------------------------------------------------
def test_ar_18_building_in_turn_clockwise_parts_may_stay_in_inventory():
    """AR-18: builders take turns clockwise from the first torso picker; unattached parts stay."""
    state = draft_state(3, [], dealer=1)
    for p, labels in {0: ["HO1"], 1: ["HO2", "BW1"], 2: ["SA1"]}.items():
        for label in labels:
            state[LOC + card(label)] = L_INV
            state[OWNER + card(label)] = p
    building.start_building(state)
    assert state[H_CURRENT] == 1
    act(state, "attach HO2", "into U2 slot 1", "pass")
    assert state[H_CURRENT] == 2 and where(state, "BW1") == (L_INV, 1)
    act(state, "pass", "attach HO1", "into L1 slot 3", "pass")
    assert state[PHASE] == PH_MAIN and where(state, "SA1") == (L_INV, 2)
    assert where(state, "HO1") == (L_TABLE, 0)


def test_ar_19_building_is_secret_until_everyone_is_done():
    """AR-19: another builder's attachments do not change a player's view until all are done."""
    state = draft_state(2, [], dealer=0)
    for p, label in ((0, "HO1"), (1, "HO2")):
        state[LOC + card(label)] = L_INV
        state[OWNER + card(label)] = p
        state[KNOWN + card(label)] = 1
    building.start_building(state)
    before = np.zeros(OBS_SIZE, np.float32)
    after = np.zeros(OBS_SIZE, np.float32)
    observe_into(state, 1, before)
    act(state, "attach HO1")
    observe_into(state, 1, after)
    assert np.array_equal(before, after)
    act(state, "into U1 slot 2")  # player_0 has nothing left to attach: done by itself
    assert state[H_CURRENT] == 1 and state[DONE + 0] == 1
    observe_into(state, 1, after)
    assert np.array_equal(before[:OBS_DONE], after[:OBS_DONE])  # only 'done' and 'on move' differ
    assert "U1[" not in rules_text(state) and "U1 + L1 (being built)" in rules_text(state)
    act(state, "pass")  # player_1 done: reveal
    observe_into(state, 1, after)
    ho = card("HO1")
    assert after[OBS_CARDS + ho * CARD_FEATURES + F_TABLE + 1] == 1.0
    assert "U1[-,HO1,-]" in rules_text(state)


def rules_text(state):
    """The public text view."""
    from monster_zoo.envs.monster_arena.text_view import to_text

    return to_text(state)


# --- arena -----------------------------------------------------------------------------------
def test_ar_20_cutting_limbs():
    """AR-20: a destroyed part goes to the graveyard, the parts below it to the owner's inventory."""
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[SA1[TE1[BC1]],HO1,HO2] + L2[HO3,HO4]"})
    fighting.destroy(state, card("SA1"))
    assert where(state, "SA1") == (L_GRAVE, -1)
    assert where(state, "TE1") == (L_INV, 1) and where(state, "BC1") == (L_INV, 1)
    assert state[rules.CHILD + card("U2") * 3] == -1 and state[rules.PARENT + card("TE1")] == -1
    assert state[ALIVE + 1] == 1


def test_ar_21_a_fallen_torso_half_destroys_the_monster():
    """AR-21: destroying a torso half sends every card of the monster to the graveyard; its player is out."""
    state = arena_state(
        {0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[SA1[TE1[BC1]],HO1,-] + L2[HO3,HO4]", 2: "U3[-,-] + L3[-,-,-]"},
        inventory={1: ["HO2"]},
    )
    fighting.destroy(state, card("L2"))
    assert state[ALIVE + 1] == 0
    assert cards_at(state, L_GRAVE) == sorted(["U2", "SA1", "TE1", "BC1", "HO1", "L2", "HO3", "HO4"])
    assert cards_at(state, L_TABLE, 1) == []


def test_ar_22_graveyard_order():
    """AR-22: destroyed cards go on top; a falling monster's half lands last, on top."""
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[HO1,-,-] + L2[HO3,-]", 2: "U3[-,-] + L3[-,-,-]"})
    fighting.destroy(state, card("HO1"))
    fighting.destroy(state, card("U2"))
    order = sorted(cards_at(state, L_GRAVE), key=lambda lab: -state[GRAVE_ORDER + card(lab)])
    assert order[0] == "U2" and order[-1] == "HO1"
    assert queries.grave_top(state) == card("HO3")  # the topmost part (halves are skipped)


def test_ar_23_fewest_parts_goes_first_ties_at_random():
    """AR-23: the monster with the fewest parts starts the round; ties are broken at random; then clockwise."""
    starts = set()
    for seed in range(30):
        state = arena_state(
            {0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]", 2: "U3[-,-] + L3[-,-,-]"}
        )
        state[ROUND] = 0
        fighting.start_arena_round(state, make_rng(seed))
        starts.add(int(state[H_CURRENT]))
    assert starts == {1, 2}
    state = arena_state(
        {0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[HO1,HO2,-] + L2[-,-]", 2: "U3[HO3,-] + L3[-,-,-]"}
    )
    state[ROUND] = 0
    fighting.start_arena_round(state, make_rng(0))
    seats = [int(state[H_CURRENT])]
    for _ in range(2):
        fighting.end_turn(state, make_rng(0))
        seats.append(int(state[H_CURRENT]))
    assert seats == [0, 1, 2]


def test_ar_24_turn_refills_energy_and_can_always_end():
    """AR-24: a turn refills energy to 5; 'pass' (end turn) is always legal on one's turn."""
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, energy={0: 5, 1: 1})
    assert "pass (end turn)" in legal(state)
    act(state, "pass")
    assert state[H_CURRENT] == 1 and state[ENERGY + 1] == 5


def test_ar_25_each_card_acts_once_a_round():
    """AR-25: a card that attacked cannot attack again this round; the next round frees it."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U3[-,-] + L5[-,-]"})
    s = next(s for s, _ in roll_outcomes(state, "target U3", "attack with HO1") if not s[LAST + 3])
    assert s[USED + card("HO1")] == 1
    act(s, "target U3")
    assert reason(s, "attack with HO1") == queries.R_USED
    s[PHASE] = PH_MAIN
    fighting.start_arena_round(s, make_rng(0))
    assert s[USED + card("HO1")] == 0


def test_ar_26_attack_total_against_defense():
    """AR-26: one card: dice + mod >= Defense destroys; less misses. Costs are paid as cards join."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[SA1[-],-,-] + L2[-,-]"})
    act(state, "target SA1", "attack with HO1")
    assert state[ENERGY + 0] == 4 and state[PHASE] == PH_ATTACK
    for s, dice in roll_outcomes(state):
        assert s[LAST + 1] == dice + 3 and s[LAST + 2] == 6
        assert (where(s, "SA1")[0] == L_GRAVE) == (dice + 3 >= 6)


def test_ar_27_reactions_are_the_defenders_decision():
    """AR-27: after the roll is declared, the target's owner is on move with their reactive cards
    and 'pass'; declining leaves the attack as it was."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[BW1,-,-] + L2[-,-]"})
    act(state, "target L2", "attack with HO1", "roll")
    assert state[PHASE] == PH_REACT and state[H_CURRENT] == 1 and state[TURN_SEAT] == 0
    assert legal(state) == ["use BW1", "pass (no reaction)"]
    act(state, "pass")
    assert state[PHASE] == PH_MAIN and state[H_CURRENT] == 0 and state[USED + card("BW1")] == 0


def test_ar_28_dice_are_rolled_only_after_the_commit():
    """AR-28: nothing about the dice is in the state before 'roll'; the roll uses the generator then."""
    state = arena_state({0: "U1[GA1[-],-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"})
    act(state, "target L2", "attack with GA1")
    assert state[LAST] == -1
    totals = {int(s[LAST + 1]) for s, _ in roll_outcomes(state, seeds=range(60))}
    assert len(totals) > 5


def test_ar_29_attaching_in_the_arena_costs_two_energy():
    """AR-29: on one's turn a part from inventory attaches for 2 energy and may still act."""
    state = arena_state(
        {0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, inventory={0: ["HO1"]}, energy={0: 5}
    )
    act(state, "attach HO1", "into U1 slot 1")
    assert state[ENERGY + 0] == 3 and "attack with HO1" not in legal(state)
    act(state, "target L2")
    assert "attack with HO1" in legal(state)
    state = arena_state(
        {0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, inventory={0: ["HO1"]}, energy={0: 1}
    )
    assert reason(state, "attach HO1") == queries.R_NO_ENERGY


# --- abilities ---------------------------------------------------------------------------------
def test_ar_30_insect_thorax_hardens_its_own_parts():
    """AR-30: parts in the Insect Thorax's own slots have +1 Defense; deeper parts do not."""
    state = arena_state({0: "U5[SA1[BC1],HO1,-] + L1[HO2,-,-]", 1: "U2[-,-,-] + L2[-,-]"})
    assert queries.defense(state, card("SA1")) == 7 and queries.defense(state, card("HO1")) == 6
    assert queries.defense(state, card("BC1")) == 4 and queries.defense(state, card("HO2")) == 5


def test_ar_31_spider_abdomen_web_guard():
    """AR-31: the Spider Abdomen's reaction gives the attacked card +2 Defense for this attack."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[SA1[-],-,-] + L3[-,-,-]"})
    act(state, "target SA1", "attack with HO1")
    for s, dice in roll_outcomes(state, react=("use L3",)):
        assert s[LAST + 2] == 8 and s[ENERGY + 1] == 4 and s[USED + card("L3")] == 1
        assert (where(s, "SA1")[0] == L_GRAVE) == (dice + 3 >= 8)


def test_ar_32_refill_to_six_does_not_stack():
    """AR-32: Fish Tail Hips or a Heart Pump refill to 6; both together still 6."""
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[HP1,-,-] + L6[-,-,-]"}, energy={1: 0})
    act(state, "pass")
    assert state[ENERGY + 1] == 6
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L6[-,-,-]"}, energy={1: 0})
    act(state, "pass")
    assert state[ENERGY + 1] == 6
    state = arena_state({0: "U1[-,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, energy={1: 0})
    act(state, "pass")
    assert state[ENERGY + 1] == 5


def test_ar_33_bone_claw_on_an_arm_or_leg():
    """AR-33: +1 mod hanging on an arm or leg, not on a torso half or a tentacle."""
    state = arena_state({0: "U1[SA1[BC1],SL1[BC2],TE1[BC3]] + L1[BC4,-,-]", 1: "U2[-,-,-] + L2[-,-]"})
    assert [queries.attack_mod(state, card(b)) for b in ("BC1", "BC2", "BC3", "BC4")] == [3, 3, 2, 2]


def test_ar_34_pincer_pinches_an_outer_part():
    """AR-34: for 1 energy the Pincer stops an opponent's outer part from acting (attacking or
    reacting) until the end of its owner's next turn."""
    state = arena_state({0: "U1[PI1,HO2,-] + L1[-,-,-]", 1: "U2[BW1,HO1,-] + L2[-,-]"})
    act(state, "use PI1")
    assert reason(state, "target U2") == queries.R_NOT_PINCHABLE  # a torso half is not a part
    act(state, "target BW1")
    assert state[FROZEN + card("BW1")] == 1 and state[ENERGY + 0] == 4 and state[USED + card("PI1")] == 1
    assert reason(state, "use PI1") == queries.R_USED
    act(state, "target L2", "attack with HO2", "roll")  # 1d6+3 cannot reach 12; the wing may not react
    assert state[PHASE] == PH_MAIN and state[H_CURRENT] == 0
    act(state, "pass")
    assert state[H_CURRENT] == 1 and state[FROZEN + card("BW1")] == 1
    assert fighting.reactive_reason(state, 1, card("BW1")) == queries.R_FROZEN
    act(state, "pass")  # the end of player_1's turn lifts the pinch
    assert state[FROZEN + card("BW1")] == 0


def test_ar_35_tentacle_bonus_in_a_combined_attack_only():
    """AR-35: +2 when the Tentacle attacks with at least one other card, nothing alone."""
    state = arena_state({0: "U1[TE1[-],HO1,-] + L1[-,-,-]", 1: "U3[-,-] + L5[-,-]"})
    alone = state.copy()
    act(alone, "target U3", "attack with TE1")
    assert queries.attack_profile(alone)[:2] == (1, 0)
    act(state, "target U3", "attack with TE1", "attack with HO1")
    assert queries.attack_profile(state)[:2] == (2, 0 + 3 + 2)


def test_ar_36_spiked_legs_harden_their_torso_half():
    """AR-36: +1 Defense per Spiked Leg in the half's slots, at most +2."""
    state = arena_state({0: "U1[SL1[-],SL2[-],SL3[-]] + L1[SL4[-],-,-]", 1: "U2[-,-,-] + L2[-,-]"})
    assert queries.defense(state, card("U1")) == 14 and queries.defense(state, card("L1")) == 13


def test_ar_37_scorpion_kill_drains_the_victim():
    """AR-37: a kill by an attack with the Scorpion Tail costs the victim's owner 1 energy."""
    state = arena_state({0: "U1[ST1,-,-] + L1[-,-,-]", 1: "U2[HO1,-,-] + L2[-,-]"}, energy={1: 3})
    act(state, "target HO1", "attack with ST1")
    for s, dice in roll_outcomes(state):
        assert s[ENERGY + 1] == (2 if dice + 3 >= 5 else 3)


def test_ar_38_bat_wings_lower_the_attack():
    """AR-38: each Bat Wing reaction is -2 to the attack; wings add up; each costs 1 energy."""
    state = arena_state({0: "U1[GA1[-],-,-] + L1[-,-,-]", 1: "U2[BW1,BW2,-] + L2[-,-]"})
    act(state, "target L2", "attack with GA1")
    for s, dice in roll_outcomes(state, react=("use BW1", "use BW2"), seeds=range(100)):
        assert s[LAST + 1] == dice + 1 - 4 and s[ENERGY + 1] == 3


def test_ar_39_spare_head_roars():
    """AR-39: every opponent still in the game loses 1 energy (not below 0); the head has acted."""
    state = arena_state(
        {0: "U1[SH1[-],-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]", 2: "U3[-,-] + L3[-,-,-]"},
        energy={1: 3, 2: 0},
    )
    act(state, "use SH1")
    assert [int(state[ENERGY + p]) for p in range(3)] == [4, 2, 0]
    act(state, "target U2")
    assert reason(state, "attack with SH1") == queries.R_USED


def test_ar_40_eye_stalk_aims_the_next_attack():
    """AR-40: +2 to the next attack this turn, then spent."""
    state = arena_state({0: "U1[ES1,HO1,HO2] + L1[-,-,-]", 1: "U3[-,-] + L5[-,-]"})
    act(state, "use ES1", "target U3", "attack with HO1")
    assert queries.attack_profile(state)[:2] == (1, 5)
    s = next(s for s, _ in roll_outcomes(state) if s[ALIVE + 1])
    act(s, "target U3", "attack with HO2")
    assert queries.attack_profile(s)[:2] == (1, 3)


def test_ar_41_saw_arm_cuts_covered_cards_alone():
    """AR-41: only a Saw Arm reaches a covered card, and no other card joins it."""
    state = arena_state({0: "U1[SW1,HO1,-] + L1[-,-,-]", 1: "U3[HO2,HO3] + L5[-,-]"})
    assert reason(state, "target U3") == 0
    act(state, "target U3")
    assert legal(state) == ["attack with SW1"]
    act(state, "attack with SW1")
    assert legal(state) == ["roll"] and state[ENERGY + 0] == 2
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U3[HO2,HO3] + L5[-,-]"})
    assert reason(state, "target U3") == queries.R_COVERED


def test_ar_42_grave_gland_digs_up_the_top_part():
    """AR-42 (ruling AR10): for 3 energy the topmost part of the graveyard goes to the owner's
    inventory; the torso half U4 lying on top of it is passed over, not taken."""
    state = arena_state(
        {0: "U1[GG1,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, graveyard=["HO1", "SA1", "U4"]
    )
    act(state, "use GG1")
    assert where(state, "SA1") == (L_INV, 0) and state[KNOWN + card("SA1")] == 1 and state[ENERGY + 0] == 2
    state = arena_state({0: "U1[GG1,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]"}, graveyard=["U4"])
    assert reason(state, "use GG1") == queries.R_GRAVE_EMPTY


def test_ar_43_cards_without_attack_never_attack():
    """AR-43: Armor Plate, Bat Wing, Eye Stalk, Crab Shell... cannot join an attack."""
    state = arena_state({0: "U3[AP1[-,-],BW1] + L5[ES1,HP1]", 1: "U2[-,-,-] + L2[-,-]"})
    assert reason(state, "target U2") == queries.R_NO_ATTACKER
    assert fighting.active_reason(state, 0, card("AP1")) == queries.R_NO_ABILITY


# --- the end -----------------------------------------------------------------------------------
def test_ar_44_last_monster_standing_wins():
    """AR-44: when one monster is left its player wins alone."""
    state = arena_state({0: "U1[GA1[-],-,-] + L1[-,-,-]", 1: "U4[-,-,-] + L4[-,-,-]"})
    act(state, "target U4", "attack with GA1")
    s = next(s for s, _ in roll_outcomes(state) if s[H_TERMINAL])
    assert s[WINNER + 0] == 1 and s[WINNER + 1] == 0 and s[H_CURRENT] == -1


def test_ar_45_quiet_rounds_never_end_the_game_by_default():
    """AR-45 / ruling AR9: by default rounds without a destroyed card end nothing."""
    state = arena_state({0: "U3[-,-] + L5[-,-]", 1: "U1[-,-,-] + L1[-,-,-]"})
    state[ROUND] = 0
    fighting.start_arena_round(state, make_rng(0))
    for _ in range(50):
        act(state, "pass")
    assert not state[H_TERMINAL] and state[QUIET] == 50 and state[PHASE] == PH_MAIN
    assert state[WINNER + 0] == state[WINNER + 1] == 0


@pytest.mark.parametrize("limit", [1, 10])
def test_ar_45_opt_in_quiet_rounds_end_the_game_shared(limit):
    """AR-45 opt-in: with quiet_ending_rounds=k, k arena rounds in a row without a destroyed card end
    the game; survivors share the win."""
    state = arena_state({0: "U3[-,-] + L5[-,-]", 1: "U1[-,-,-] + L1[-,-,-]"}, quiet_ending_rounds=limit)
    state[ROUND] = 0
    fighting.start_arena_round(state, make_rng(0))
    rounds = 0
    while not state[H_TERMINAL]:
        act(state, "pass")
        rounds += 1
    assert state[QUIET] == limit and state[WINNER + 0] == state[WINNER + 1] == 1
    assert rounds == limit  # player_1 ends each turn; player_0 cannot attack: its turns pass by themselves


def _pass_else_first(env, steps):
    """The audit's player: ``pass`` whenever legal, else the first legal action."""
    pass_action = envs.spec(GAME).str_to_action("pass")
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        mask = env.observe(agent)["action_mask"]
        env.step(pass_action if mask[pass_action] else int(np.flatnonzero(mask)[0]))


def test_ar_45_audit_case_truncates_instead_of_a_shared_win():
    """AR-45 / ruling AR9, the audit's case: 2 players, reset(seed=0), pass whenever legal. It used
    to end after 30 steps with a shared win; now nothing ends it but the step limit."""
    env = envs.make(GAME, num_players=2, max_steps=400)
    env.reset(seed=0)
    _pass_else_first(env, 30)
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    _pass_else_first(env, 1000)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.unwrapped.engine_state[H_STEPS] == 400 and set(env.rewards.values()) == {0}
    # The opt-in ending still gives the old result.
    env = envs.make(GAME, num_players=2, quiet_ending_rounds=10)
    env.reset(seed=0)
    _pass_else_first(env, 1000)
    assert all(env.terminations.values()) and env.unwrapped.engine_state[H_STEPS] == 30
    assert sorted(env.rewards.values()) == [0, 0]


@pytest.mark.parametrize("bad", [-1, 1001, True, 2.5, "10", None])
def test_ar_45_quiet_ending_option_is_validated(bad):
    """AR-45: a bad quiet_ending_rounds is refused with the valid values."""
    with pytest.raises(ValueError, match=r"quiet_ending_rounds=.*integer from 0 \(no quiet ending\) to 1000"):
        envs.make(GAME, quiet_ending_rounds=bad)


def test_ar_46_score_reward_counts_cards_on_the_monster():
    """AR-46: reward='score' pays the cards left on one's monster minus the mean."""
    state = arena_state(
        {0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[-,-,-] + L2[-,-]", 2: "U3[-,-] + L3[-,-,-]"}, reward="score"
    )
    fighting.destroy(state, card("U3"))
    queries.finish_game(state, True)
    out = np.zeros(3, np.float32)
    rules.returns(state, out)
    assert np.allclose(out, np.array([3, 2, 0]) - 5 / 3)


# --- worked examples ---------------------------------------------------------------------------------
def test_ar_47_example_auction_round():
    """AR-47: dealer takes the Horn; bids 2, 3, pass, re-entry 5, pass, pass; player_1 pays 5 for
    the Stitched Arm, the Bat Wing is discarded, player_2 keeps 15 tokens."""
    state = draft_state(3, ["HO1", "BW1", "SA1"])
    act(state, "take HO1")
    assert state[TOKENS + 0] == 14
    act(state, "bid 2", "bid 3", "pass", "bid 5", "pass", "pass")
    assert state[PHASE] == PH_PRIZE and state[H_CURRENT] == 1 and state[BID] == 5 and state[HIGH] == 1
    act(state, "take SA1")
    assert [int(state[TOKENS + p]) for p in range(3)] == [14, 10, 15]
    assert where(state, "SA1") == (L_INV, 1) and where(state, "HO1") == (L_INV, 0)
    assert "BW1" in cards_at(state, L_DISCARD) and state[DEALER] == 1


def test_ar_48_example_two_card_combined_attack():
    """AR-48: Horn (1d6+3) and Tentacle (1d6, +2 combined) against the Ogre Chest (12): the two dice
    plus 5 must reach 12."""
    state = arena_state({0: "U2[HO1,TE1[-],-] + L2[-,-]", 1: "U1[-,-,-] + L1[-,-,-]"})
    act(state, "target U1", "attack with HO1", "attack with TE1")
    assert state[ENERGY + 0] == 3
    seen = set()
    for s, dice in roll_outcomes(state):
        hit = dice + 3 + 0 + 2 >= 12
        seen.add(hit)
        assert s[LAST + 1] == dice + 5 and bool(s[LAST + 3]) == hit
        assert (s[ALIVE + 1] == 0) == hit
    assert seen == {True, False}


def test_ar_49_example_cut_limb():
    """AR-49: the Armor Plate (one slot empty, so outer) falls; the Tentacle and the Bone Claw below
    it go to the inventory as cards; the torso slot it filled is open again."""
    state = arena_state({0: "U1[GA1[-],-,-] + L1[-,-,-]", 1: "U2[AP1[TE1[BC1],-],HO1,HO2] + L2[HO3,HO4]"})
    assert queries.is_covered(state, card("U2")) and reason(state, "target TE1") == queries.R_COVERED
    act(state, "target AP1", "attack with GA1")
    s = next(s for s, dice in roll_outcomes(state) if dice + 1 >= 9)
    assert where(s, "AP1") == (L_GRAVE, -1)
    assert cards_at(s, L_INV, 1) == ["BC1", "TE1"] and cards_at(s, L_TABLE, 1) == [
        "HO1",
        "HO2",
        "HO3",
        "HO4",
        "L2",
        "U2",
    ]
    assert not queries.is_covered(s, card("U2")) and reason(s, "target U2") == 0


def test_ar_50_example_reactive_save():
    """AR-50: a Bat Wing's -2 saves a Stitched Arm from a Horn's 4 (4+3-2 = 5 < 6), not from a 6."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U2[SA1[-],BW1,-] + L2[-,-]"}, energy={1: 1})
    act(state, "target SA1", "attack with HO1")
    outcomes = {}
    for s, dice in roll_outcomes(state, react=("use BW1",)):
        outcomes[dice] = where(s, "SA1")[0] == L_TABLE
        assert s[ENERGY + 1] == 0 and s[USED + card("BW1")] == 1
    assert outcomes[4] is True and outcomes[6] is False and outcomes[5] is False


def test_ar_51_example_elimination():
    """AR-51: a Gorilla Arm's 11 fells the outer Lizard Chest: player_2 is out, skipped, and the
    game goes on until one monster is left."""
    state = arena_state(
        {0: "U1[GA1[-],-,-] + L1[-,-,-]", 1: "U4[-,-,-] + L4[-,-,-]", 2: "U2[HO1,HO2,-] + L2[HO3,HO4]"}
    )
    act(state, "target U2", "attack with GA1")
    s = next(s for s, dice in roll_outcomes(state) if dice + 1 >= 11)
    assert s[ALIVE + 2] == 0 and not s[H_TERMINAL]
    assert cards_at(s, L_GRAVE) == sorted(["U2", "HO1", "HO2", "L2", "HO3", "HO4"])
    assert max(range(NUM_CARDS), key=lambda c: s[GRAVE_ORDER + c]) == card("U2")
    act(s, "pass")
    assert s[H_CURRENT] == 1  # player_2 is skipped
