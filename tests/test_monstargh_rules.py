"""MONSTArgh! rules, one test (or more) per rule id of ``seeds/monstargh/rules.md``, and every
worked example of the rulebook, built from table diagrams (see ``monstargh_diagram.py``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from monstargh_diagram import GAME, SPEC, card, diagram, legal, play, position, same_table

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng, rng_pick_counted
from monster_zoo.envs.monstargh import observation, rules
from monster_zoo.envs.monstargh.actions import (
    FOCUS0,
    NUM_ACTIONS,
    PLACE0,
    STEAL0,
    TARGET0,
    action_to_str,
    str_to_action,
)
from monster_zoo.envs.monstargh.components import (
    CARD_NAMES,
    CARD_SPECIES,
    CARD_VALUE,
    NUM_CARDS,
    SPECIES,
    SPECIES_IN_PLAY,
)
from monster_zoo.envs.monstargh.state_layout import (
    FOCUS,
    FOCUS_AMOUNT,
    IN_PLAY,
    LAST_STARS,
    LAST_TOKEN,
    PH_CHOOSE,
    PH_PLACE,
    PH_STEAL,
    PH_TARGET,
    PHASE,
    PROT_VALUE,
    PROTAGONIST,
    SCENE,
    STARS,
    STARTER,
    TOKEN,
    W_DECK,
    W_OUT,
    WHERE,
    WINNER,
)

FIVE = "green,blue,yellow,red,pink,orange"


def new_game(seed=0, **options):
    """A fresh state from ``reset(seed)`` with ``options``."""
    state = np.zeros(SPEC.state_size, np.int32)
    rules.init_state(state, envs.config(GAME, options), make_rng(seed))
    return state


def hand(state, seat):
    """Monster card labels in ``seat``'s hand."""
    return sorted(CARD_NAMES[c] for c in range(NUM_CARDS) if state[WHERE + c] == seat)


# --- the rulebook's worked examples -----------------------------------------------------------
def test_example_green_5_steals_blue_4():
    """MA-11, rulebook example 1: Green 5 placed next to Blue 4 moves on top of it."""
    state = position("B4 Y1", {0: ["G5", "R3", "R1"]}, ["green", "blue"])
    play(state, "play green 5", "place south of blue 4")
    assert diagram(state) == same_table("G5/B4 Y1")


def test_example_blue_5_eclipses_blue_4_with_its_under_stack():
    """MA-10, rulebook example 2: Blue 5 eclipses Blue 4, which drags the cards under it along."""
    state = position("B4/R3/G1 .", {0: ["B5", "R6", "G6"]}, ["blue", "red"])
    play(state, "play blue 5", "place east of blue 4")
    assert diagram(state) == same_table(". B5/B4/R3/G1")
    assert rules.table_empty(state) is False and rules.cell_at(state, 0, 0) == -1


def test_example_yellow_3_eclipses_yellow_2_before_stealing_red_2():
    """MA-10, MA-11, rulebook example 3: same species first, then the steal."""
    state = position("Y2 . R2", {0: ["Y3", "G6", "G5"]}, ["yellow", "red"])
    play(state, "play yellow 3", "place east of yellow 2")
    assert diagram(state) == same_table(". . Y3/Y2/R2")


def test_example_yellow_3_chooses_pink_2_then_steals_orange_2():
    """MA-11, MA-12, rulebook example 4: the active player picks which of two other-species
    neighbours to steal from; from the new cell the protagonist steals once more."""
    state = position("O2 P2 . G2", {0: ["Y3", "R6", "R5"]}, ["yellow", "red"], species=FIVE, num_players=5)
    play(state, "play yellow 3", "place west of green 2")
    assert state[PHASE] == PH_STEAL and state[H_CURRENT] == 0
    assert legal(state) == ["steal east (green 2)", "steal west (pink 2)"]
    play(state, "steal west")
    assert diagram(state) == same_table("Y3/P2/O2 . . G2")
    assert state[PHASE] == PH_CHOOSE and state[H_CURRENT] == 1


def test_example_red_5_focused_plus_2():
    """MA-7, MA-8, MA-10, MA-11, MA-13, rulebook example 5: Red 5 focused +2 acts as 7, eclipses
    Red 6, steals Yellow 6's shot and ignores Yellow 4; afterwards it is a 5 again."""
    state = position(". Y4 .\nR6 R5 Y6", {0: ["G1", "G2"]}, ["red", "yellow"])
    play(state, "focus +2", "target red 5")
    assert diagram(state) == same_table(". Y4 .\n. . R5/R6/Y6")
    assert state[PROTAGONIST] == -1 and state[PROT_VALUE] == 0 and state[FOCUS_AMOUNT] == 0
    assert list(state[FOCUS : FOCUS + 2]) == [1, 0]


# --- setup ------------------------------------------------------------------------------------
def test_ma1_card_set():
    """MA-1: 36 monster cards, one of each value 1-6 per species; one focus card of each amount."""
    assert NUM_CARDS == 36 and len(SPECIES) == 6
    for s in range(6):
        assert sorted(CARD_VALUE[CARD_SPECIES == s]) == [1, 2, 3, 4, 5, 6]
    state = new_game(num_players=3)
    assert all(state[FOCUS + i] == 1 for i in range(6))


def test_ma1_stars_have_no_supply_limit():
    """MA-1: stars are counters; a scene may hand out more than the 30 stars of the printed tokens."""
    table = "G1 G2 G3 G4 G5 G6\nB1 B2 B3 B4 B5 B6"
    scored = position(
        table,
        {},
        ["green", "blue", "yellow", "red", "pink", "orange"],
        num_players=6,
        species=FIVE,
        tiebreak="share",
    )
    scored[STARS : STARS + 6] = [4, 4, 4, 4, 4, 4]  # 24 stars already handed out
    rules.end_scene(scored, make_rng(0))
    assert list(scored[STARS : STARS + 6]) == [10, 10, 4, 4, 4, 4]


@pytest.mark.parametrize("n", range(2, 7))
def test_ma2_species_in_play_follow_the_player_count(n):
    """MA-2: 2->4, 3->4, 4->5, 5->6, 6->6 species; the species vary from game to game."""
    chosen = set()
    for seed in range(30):
        state = new_game(seed, num_players=n)
        in_play = tuple(int(state[IN_PLAY + s]) for s in range(6))
        assert sum(in_play) == SPECIES_IN_PLAY[n] == {2: 4, 3: 4, 4: 5, 5: 6, 6: 6}[n]
        for c in range(NUM_CARDS):
            assert (state[WHERE + c] == W_OUT) == (not in_play[CARD_SPECIES[c]])
        chosen.add(in_play)
    assert len(chosen) > 1 or SPECIES_IN_PLAY[n] == 6


def test_ma2_named_species_and_refused_names():
    """MA-2: the option ``species`` names the species; wrong counts and names are refused."""
    state = new_game(num_players=2, species="red, pink,orange,blue")
    assert [SPECIES[s] for s in range(6) if state[IN_PLAY + s]] == ["blue", "red", "pink", "orange"]
    state = new_game(num_players=2, species=["green", "blue", "yellow", "red"])
    assert [SPECIES[s] for s in range(6) if state[IN_PLAY + s]] == ["green", "blue", "yellow", "red"]
    with pytest.raises(ValueError, match="2 players play with 4"):
        envs.make(GAME, num_players=2, species="red,pink,orange")
    with pytest.raises(ValueError, match="green, blue, yellow, red, pink, orange"):
        envs.make(GAME, species="red,purple,orange,blue")
    with pytest.raises(ValueError, match="distinct"):
        envs.make(GAME, num_players=2, species="red,red,orange,blue")


@pytest.mark.parametrize("n", range(2, 7))
def test_ma3_scene_setup(n):
    """MA-3: distinct secret species in play per seat, 3 monsters and both focus cards each,
    the other monsters of the species in play in the deck, an empty table."""
    state = new_game(n, num_players=n)
    tokens = [int(state[TOKEN + p]) for p in range(n)]
    assert len(set(tokens)) == n and all(state[IN_PLAY + s] for s in tokens)
    for p in range(n):
        assert len(hand(state, p)) == 3 and rules.hand_size(state, p) == 5
    in_play = 6 * SPECIES_IN_PLAY[n]
    assert rules.deck_size(state) == in_play - 3 * n
    assert rules.table_empty(state) and state[SCENE] == 1


def test_ma3_tokens_are_dealt_at_random():
    """MA-3: which species a seat gets changes with the seed, and each in-play species comes up."""
    seen = {int(new_game(seed, num_players=2, species="green,blue,yellow,red")[TOKEN]) for seed in range(40)}
    assert seen == {0, 1, 2, 3}


def test_ma4_first_starting_player_is_random():
    """MA-4, MA-22: the first scene's starter is drawn by the seeded generator; every seat comes up."""
    starters = [int(new_game(seed, num_players=4)[STARTER]) for seed in range(80)]
    assert set(starters) == {0, 1, 2, 3}
    assert starters == [int(new_game(seed, num_players=4)[STARTER]) for seed in range(80)]


def test_ma4_later_scenes_start_with_the_fewest_stars():
    """MA-4: the next scene starts with the seat with the fewest stars; ties at random."""
    state = position("G1 B1", {}, ["green", "blue", "yellow"], num_players=3)
    state[STARS : STARS + 3] = [2, 0, 1]
    rules.end_scene(state, make_rng(0))  # green +1, blue +1: stars 3, 1, 1 -> seats 1 and 2 tie
    assert list(state[STARS : STARS + 3]) == [3, 1, 1] and state[SCENE] == 2
    starters = set()
    for seed in range(30):
        tied = position("G1 B1", {}, ["green", "blue", "yellow"], num_players=3)
        tied[STARS : STARS + 3] = [2, 0, 1]
        rules.end_scene(tied, make_rng(seed))
        starters.add(int(tied[STARTER]))
        assert tied[H_CURRENT] == tied[STARTER]
    assert starters == {1, 2}


# --- a turn -------------------------------------------------------------------------------------
def test_ma5_empty_hands_are_skipped_and_the_scene_ends_when_all_are_empty():
    """MA-5: the turn passes over empty hands; when the last card is played the scene ends."""
    state = position(
        "G1",
        {0: ["B6"], 2: ["R6"]},
        ["green", "blue", "red"],
        num_players=3,
        focus={0: [0, 0], 1: [0, 0], 2: [0, 0]},
    )
    for c in range(NUM_CARDS):  # an empty deck: nobody draws
        if state[WHERE + c] == W_DECK:
            state[WHERE + c] = W_OUT
    rules.recount(state)
    play(state, "play blue 6", "place east of green 1")
    assert state[H_CURRENT] == 2  # seat 1 holds nothing
    play(state, "play red 6", "place west of green 1")
    assert state[SCENE] == 2  # every hand empty: the scene was scored and a new one dealt
    assert list(state[LAST_STARS : LAST_STARS + 3]) == [1, 1, 1]


def test_ma6_first_card_goes_to_the_origin_without_asking():
    """MA-6, MA-19: the scene's first monster card has one place to go and is put there at once."""
    state = new_game(3, num_players=2)
    p = int(state[H_CURRENT])
    first = hand(state, p)[0]
    play(state, f"play {first}")
    assert diagram(state) == same_table(card_short(first))
    assert state[H_CURRENT] == 1 - p


def card_short(name):
    """``"red 5"`` -> ``"R5"``."""
    species, value = name.split()
    return f"{species[0].upper()}{value}"


def test_ma6_placements_are_the_empty_orthogonal_neighbours():
    """MA-6: every empty cell orthogonally next to a card is offered once; diagonals and taken cells
    are not."""
    state = position("G1 .\n. B3", {0: ["R6", "R5", "R4"]}, ["green", "blue"])
    play(state, "play red 6")
    assert state[PHASE] == PH_PLACE
    offered = legal(state)
    # green 1 at (0,0), blue 3 at (1,1): empty neighbours (0,-1) (-1,0) (1,0) (0,1) (1,2) (2,1)
    assert len(offered) == 6
    assert "place east of green 1" in offered and "place north of blue 3" not in offered
    assert rules.illegal_reason(state, str_to_action("place north of blue 3")) == rules.R_OTHER_NAME


def test_ma6_placing_far_from_the_origin_stays_representable():
    """MA-6, MA-19: the table may spread any distance; placements are named relative to cards."""
    row = " ".join(f"{s}{v}" for s in "GBYR" for v in (1, 3, 5))
    state = position(row, {0: ["G2", "B6", "Y6"]}, ["green", "blue"])
    play(state, "play green 2", "place east of red 5")
    assert diagram(state).split()[-1] == "G2"
    assert rules.cell_at(state, 12, 0) >= 0


def test_ma7_focus_targets_any_visible_monster_with_either_sign():
    """MA-7: a focus card may target every visible card, raising or lowering it; covered cards not."""
    state = position("G5/B4 Y2", {0: ["R1"]}, ["green", "blue"])
    assert {"focus +1", "focus -1", "focus +2", "focus -2"} <= set(legal(state))
    play(state, "focus -2")
    assert state[PHASE] == PH_TARGET
    assert legal(state) == ["target green 5", "target yellow 2"]
    assert rules.illegal_reason(state, str_to_action("target blue 4")) == rules.R_NOT_VISIBLE


def test_ma7_values_may_leave_1_to_6_and_the_first_play_is_a_monster():
    """MA-7: a 1 lowered by 2 acts as -1; a scene's first play cannot be a focus card."""
    state = position("G1 B2", {0: ["R1"]}, ["green", "blue"])
    play(state, "focus -2", "target green 1")
    assert diagram(state) == same_table("G1 B2")
    fresh = new_game(5)
    assert not _focus_mask(fresh).any()
    assert rules.illegal_reason(fresh, FOCUS0) == rules.R_FIRST_PLAY


def _focus_mask(state):
    """The focus-card part of the legal mask."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return mask[FOCUS0:PLACE0]


def test_ma8_protagonist_acts_with_its_printed_value_plus_the_focus():
    """MA-8: a focused 4 raised by 1 acts as 5 (steals a 4); lowered by 1 acts as 3 (steals a 2)."""
    up = position("B4 G4", {0: ["R1"]}, ["green", "blue"])
    play(up, "focus +1", "target green 4")
    assert diagram(up) == same_table(". G4/B4")
    down = position("B2 G4", {0: ["R1"]}, ["green", "blue"])
    play(down, "focus -1", "target green 4")
    assert diagram(down) == same_table("G4/B2 .")


def test_ma9_only_neighbours_exactly_one_lower_interact():
    """MA-9: a 5 ignores neighbours worth 3, 5 and 6 and diagonal 4s."""
    state = position("B4 B3 .\nY6 . R5\n. G5 .", {0: ["Y5"]}, ["green", "blue"])
    play(state, "play yellow 5", "place north of green 5")
    assert diagram(state) == same_table("B4 B3 .\nY6 Y5 R5\n. G5 .")


def test_ma10_eclipse_comes_before_the_steal_after_a_focus():
    """MA-10: a focused protagonist first eclipses its own species' card one lower (each species has
    one card per value, so at most one per step), then steals; the eclipsed cell empties."""
    state = position(". Y2 .\nB2 Y4 .\n. G1 .", {0: ["R1"]}, ["yellow", "blue"])
    play(state, "focus -1", "target yellow 4")  # acts as 3: eclipses yellow 2, steals blue 2
    assert diagram(state) == same_table("Y4/Y2/B2 .\n. G1")


def test_ma11_single_candidate_is_stolen_without_asking_and_choice_is_the_players():
    """MA-11: one candidate is stolen from at once; two or more make the active player choose, and
    only those candidates are offered."""
    one = position("B4", {0: ["G5"]}, ["green", "blue"])
    play(one, "play green 5", "place west of blue 4")
    assert one[PHASE] == PH_CHOOSE
    two = position("B4 . Y4", {0: ["G5"]}, ["green", "blue"])
    play(two, "play green 5", "place east of blue 4")
    assert two[PHASE] == PH_STEAL and legal(two) == ["steal east (yellow 4)", "steal west (blue 4)"]
    assert rules.illegal_reason(two, STEAL0 + 0) == rules.R_NO_STEAL
    play(two, "steal east")
    assert diagram(two) == same_table("B4 . G5/Y4")


def test_ma12_the_loop_repeats_from_the_new_cell_until_nothing_qualifies():
    """MA-12: a chain of steals walks the protagonist across the table."""
    state = position(
        "B4 R4 Y4 G4",
        {0: ["O5"]},
        ["orange", "blue", "green", "red"],
        species="green,blue,yellow,red,orange",
        num_players=4,
    )
    play(state, "play orange 5", "place north of blue 4")
    assert diagram(state) == same_table("O5/B4/R4/Y4/G4")
    assert rules.cell_at(state, 3, 0) >= 0 and rules.cell_at(state, 0, 0) == -1


def test_ma13_focus_card_is_spent_and_value_restored():
    """MA-13: after the loop the focus card is gone for the scene and the protagonist is printed again."""
    state = position("B4 G4 .", {0: ["R1"]}, ["green", "blue"])
    play(state, "focus +1", "target green 4")
    assert state[FOCUS] == 0 and state[FOCUS + 1] == 1
    assert state[PROT_VALUE] == 0 and state[PROTAGONIST] == -1


def test_ma14_draw_after_playing_while_the_deck_lasts():
    """MA-14: the active player draws one card after the play; none when the deck is empty."""
    state = position("G1", {0: ["B6"], 1: ["R6"]}, ["green", "blue"])
    deck = rules.deck_size(state)
    play(state, "play blue 6", "place east of green 1")
    assert len(hand(state, 0)) == 1 and rules.deck_size(state) == deck - 1
    for c in range(NUM_CARDS):
        if state[WHERE + c] == W_DECK:
            state[WHERE + c] = W_OUT
    rules.recount(state)
    play(state, "play red 6", "place west of green 1")
    assert len(hand(state, 1)) == 0


# --- scene end and game end -------------------------------------------------------------------------
def test_ma15_one_star_per_visible_monster_of_the_seats_species():
    """MA-15: covered cards and unassigned species score nothing; values do not matter."""
    state = position("G1/R2 G6 B3\nY5 Y4/B5 R1", {}, ["green", "blue"])
    rules.end_scene(state, make_rng(0))
    # visible: green 1, green 6, blue 3, yellow 5, yellow 4, red 1; yellow and red are unassigned
    assert list(state[LAST_STARS : LAST_STARS + 2]) == [2, 1]
    assert list(state[STARS : STARS + 2]) == [2, 1]


def test_ma16_revealed_species_become_public_history():
    """MA-16: after a scene every seat's species is in every observation; during a scene only one's own."""
    state = position("G1", {}, ["green", "blue", "red"], num_players=3)
    obs = np.zeros(SPEC.obs_size, np.float32)
    before = [int(state[TOKEN + p]) for p in range(3)]
    rules.end_scene(state, make_rng(0))
    assert [int(state[LAST_TOKEN + p]) for p in range(3)] == before
    from monster_zoo.envs.monstargh.observation import OBS_SEATS, SEAT_FEATURES

    observation.observe_into(state, 0, obs)
    for rel in range(3):
        row = obs[OBS_SEATS + rel * SEAT_FEATURES + 8 : OBS_SEATS + rel * SEAT_FEATURES + 14]
        assert np.flatnonzero(row).tolist() == [before[rel]]


def test_ma17_game_ends_at_five_stars_and_ties_share():
    """MA-17, MA-20: 5+ stars end the game after the scene; the most stars win, ties share."""
    state = position("G1 G2 G3 B1 B2 B3", {}, ["green", "blue", "red"], num_players=3)
    state[STARS : STARS + 3] = [2, 2, 0]
    rules.end_scene(state, make_rng(0))
    assert state[H_TERMINAL] == 1 and state[H_CURRENT] == -1
    assert list(state[WINNER : WINNER + 3]) == [1, 1, 0]
    out = np.zeros(3, np.float32)
    rules.returns(state, out)
    assert out.tolist() == [0.5, 0.5, -1.0]


def test_ma17_below_five_stars_another_scene_follows():
    """MA-17: with nobody at 5 stars the next scene is dealt."""
    state = position("G1 B1", {}, ["green", "blue"])
    rules.end_scene(state, make_rng(0))
    assert state[H_TERMINAL] == 0 and state[SCENE] == 2 and rules.table_empty(state)
    assert all(len(hand(state, p)) == 3 for p in range(2))


def test_ma17_extra_scene_breaks_ties():
    """MA-17: with ``tiebreak="extra_scene"`` a shared lead plays another scene; a clear lead ends it."""
    state = position("G1 G2 G3 B1 B2 B3", {}, ["green", "blue"], tiebreak="extra_scene")
    state[STARS : STARS + 2] = [2, 2]
    rules.end_scene(state, make_rng(0))
    assert state[H_TERMINAL] == 0 and state[SCENE] == 2
    clear = position("G1 G2 G3 B1 B2", {}, ["green", "blue"], tiebreak="extra_scene")
    clear[STARS : STARS + 2] = [2, 2]
    rules.end_scene(clear, make_rng(0))
    assert clear[H_TERMINAL] == 1 and list(clear[WINNER : WINNER + 2]) == [1, 0]


def _observed_stars(state, observer, n):
    """Per relative seat: (stars / 20 capped, behind the leader, above the fewest)."""
    from monster_zoo.envs.monstargh.observation import OBS_SEATS, SEAT_FEATURES

    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(state, observer, obs)
    rows = [obs[OBS_SEATS + rel * SEAT_FEATURES : OBS_SEATS + (rel + 1) * SEAT_FEATURES] for rel in range(n)]
    return [(row[6], row[SEAT_FEATURES - 2], row[SEAT_FEATURES - 1]) for row in rows]


def test_ma17_ma18_stars_past_twenty_stay_decisive_in_the_observation():
    """MA-17, MA-18, MA-4: with extra scenes totals pass 20 (the audit saw 48); the capped total
    can no longer tell 21 from 27, but the leaders (who win) and the fewest (who start next)
    still read exactly 0 in the gap features, and the gaps are exact up to 20."""
    state = position("G1 G2", {}, ["green", "blue", "red"], num_players=3, tiebreak="extra_scene")
    state[STARS : STARS + 3] = [21, 27, 27]
    seen = _observed_stars(state, 1, 3)  # relative to player_1: seats 1, 2, 0
    assert [total for total, _, _ in seen] == [1.0, 1.0, 1.0]
    assert [round(behind * 20) for _, behind, _ in seen] == [0, 0, 6]
    assert [round(above * 20) for _, _, above in seen] == [6, 6, 0]
    state[STARS : STARS + 3] = [48, 20, 47]
    seen = _observed_stars(state, 0, 3)
    assert [round(behind * 20) for _, behind, _ in seen] == [0, 20, 1]
    assert [round(above * 20) for _, _, above in seen] == [20, 0, 20]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 200), min_size=2, max_size=6))
def test_ma17_leaders_and_fewest_are_read_back_from_any_star_totals(stars):
    """MA-17, MA-4, property: for any totals the observation names exactly the seats with the most
    stars (the winners, or the tie an extra scene breaks) and those with the fewest (the next starter)."""
    n = len(stars)
    in_play = list(SPECIES[: SPECIES_IN_PLAY[n]])
    state = position("G1", {}, in_play[:n], num_players=n, species=",".join(in_play), tiebreak="extra_scene")
    state[STARS : STARS + n] = stars
    for observer in range(n):
        seen = _observed_stars(state, observer, n)
        seats = [(observer + rel) % n for rel in range(n)]
        assert {p for p, (_, behind, _) in zip(seats, seen) if behind == 0} == {
            p for p in range(n) if stars[p] == max(stars)
        }
        assert {p for p, (_, _, above) in zip(seats, seen) if above == 0} == {
            p for p in range(n) if stars[p] == min(stars)
        }


def test_ma20_rewards_win_and_score_modes():
    """MA-20: +1/-1 with two players; ``reward="score"`` gives stars minus the mean."""
    state = position("G1 G2 G3 G4 G5 B1", {}, ["green", "blue"])
    rules.end_scene(state, make_rng(0))
    out = np.zeros(2, np.float32)
    rules.returns(state, out)
    assert out.tolist() == [1.0, -1.0]
    scored = position("G1 G2 G3 G4 G5 B1", {}, ["green", "blue"], reward="score")
    rules.end_scene(scored, make_rng(0))
    rules.returns(scored, out)
    assert out.tolist() == [2.0, -2.0]


def test_ma21_truncation_at_max_steps():
    """MA-21: the AEC env truncates everyone with reward 0 at ``max_steps``."""
    env = envs.make(GAME, max_steps=5)
    env.reset(seed=0)
    for _ in range(5):
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())


def test_ma22_same_seed_same_game():
    """MA-22: reset(seed) plus the same actions repeats the game exactly."""
    a, b = new_game(11, num_players=5), new_game(11, num_players=5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, new_game(12, num_players=5))


# --- engine conventions ----------------------------------------------------------------------------
def test_ma19_choosing_a_card_is_final_and_actions_round_trip():
    """MA-19: after a card is chosen only its placements are legal; every action name reads back."""
    state = position("G1", {0: ["B6", "R6"]}, ["green", "blue"])
    play(state, "play blue 6")
    offered = legal(state)
    assert offered and all(name.startswith("place") for name in offered)
    for a in range(NUM_ACTIONS):
        assert str_to_action(action_to_str(a)) == a
    assert PLACE0 + 4 * card("G1") + 1 == str_to_action("place east of green 1")
    assert TARGET0 + card("R5") == str_to_action("target red 5")


def test_ma19_every_empty_neighbour_has_exactly_one_action():
    """MA-19: over random positions, legal placements and empty neighbouring cells correspond 1:1."""
    rng = make_rng(3)
    for seed in range(40):
        state = new_game(seed, num_players=4)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        while not state[H_TERMINAL]:
            count = rules.legal_mask(state, mask)
            if state[PHASE] == PH_PLACE:
                cells = set()
                for a in np.flatnonzero(mask):
                    t, d = divmod(int(a) - PLACE0, 4)
                    cells.add(_target_cell(state, t, d))
                assert len(cells) == count == len(_empty_neighbours(state))
            rules.apply_action(state, rng_pick_counted(mask, count, rng), rng)
            if state[SCENE] > 1:
                break


def _cells(state):
    """Coordinates of the occupied cells."""
    from monster_zoo.envs.monstargh.state_layout import CELL_TOP, CELL_X, CELL_Y

    return {
        (int(state[CELL_X + k]), int(state[CELL_Y + k])) for k in range(NUM_CARDS) if state[CELL_TOP + k] >= 0
    }


def _target_cell(state, t, d):
    """The cell on side ``d`` of card ``t``."""
    from monster_zoo.envs.monstargh.components import DX, DY
    from monster_zoo.envs.monstargh.state_layout import CARD_CELL, CELL_X, CELL_Y

    k = int(state[CARD_CELL + t])
    return int(state[CELL_X + k] + DX[d]), int(state[CELL_Y + k] + DY[d])


def _empty_neighbours(state):
    """Empty cells orthogonally next to an occupied one."""
    occupied = _cells(state)
    return {(x + dx, y + dy) for x, y in occupied for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))} - occupied


def test_ma18_observation_shows_own_species_and_hand_only():
    """MA-18: the observer's own species and hand are in its observation; another seat's are not."""
    state = position("G1", {0: ["B6"], 1: ["R6"]}, ["green", "blue"])
    from monster_zoo.envs.monstargh.observation import CARD_FEATURES, F_MINE, F_OWN_HAND, OBS_SPECIES

    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(state, 0, obs)
    assert (
        obs[OBS_SPECIES + 6 + SPECIES.index("green")] == 1
        and obs[OBS_SPECIES + 6 : OBS_SPECIES + 12].sum() == 1
    )
    assert obs[card("B6") * CARD_FEATURES + F_OWN_HAND] == 1
    assert obs[card("R6") * CARD_FEATURES + F_OWN_HAND] == 0
    mine = [c for c in range(NUM_CARDS) if obs[c * CARD_FEATURES + F_MINE]]
    assert mine == [c for c in range(NUM_CARDS) if CARD_SPECIES[c] == SPECIES.index("green")]
