"""Each game's tuned search baseline (``make_agent("mcts", game)``) on constructed positions.

In every position one move is clearly best: it wins the game at once or by force within
the turn, while the alternatives checked through the engine lose or at best share the win.
Each test first shows the position is not trivial (the best move is one of several legal
actions, and applying an alternative ends without a win for the seat on move), then asks
the full-budget search, for several seeds, to find the move. The search plays through the
real kernels and determinizes what the seat on move cannot see, so a position is only
"clear" if the best move stays best whatever the hidden cards are; each docstring says
why it does.
"""

import marry_the_monster_diagram
import mighty_monsters_diagram
import monstargh_diagram
import monster_arena_diagram
import monster_factory_diagram
import numpy as np
import pytest
from test_mcts import HOUSES_ONLY, THIRD_TOWER
from test_monster_factory_agents import COMB_11, THEIR_PAIR

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.search.tuned import TunedMCTS
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monstargh.state_layout import STARS

SEEDS = (0, 1, 2)


# --- helpers shared by every game ------------------------------------------------------------
def legal(game_id: str, state: np.ndarray) -> np.ndarray:
    """The engine's legal mask of the seat on move."""
    spec = envs.spec(game_id)
    mask = np.zeros(spec.num_actions, np.int8)
    spec.legal_mask(state, mask)
    return mask


def names(game_id: str, state: np.ndarray) -> list[str]:
    """The legal actions of the seat on move, by name."""
    spec = envs.spec(game_id)
    return [spec.action_to_str(int(a), state) for a in np.flatnonzero(legal(game_id, state))]


def step(game_id: str, state: np.ndarray, name: str, rng) -> None:
    """Apply the legal action ``name`` to ``state`` in place."""
    spec = envs.spec(game_id)
    action = spec.str_to_action(name)
    assert legal(game_id, state)[action], f"{name!r} is not legal; legal: {names(game_id, state)}"
    spec.apply_action(state, action, rng)


def returns(game_id: str, state: np.ndarray) -> np.ndarray:
    """Each seat's return of a finished game (ruling C3)."""
    out = np.zeros(int(state[0]), np.float32)
    envs.spec(game_id).returns(state, out)
    return out


def finish_turn(game_id: str, state: np.ndarray, first: str, then=(), seed: int = 0) -> np.ndarray:
    """A copy of ``state`` after ``first`` and ``then`` by the seat on move."""
    state = state.copy()
    rng = make_rng(seed)
    for name in (first, *then):
        step(game_id, state, name, rng)
    return state


def search(game_id: str, state: np.ndarray, seed: int, options: dict | None = None):
    """The tuned search's choice in ``state`` by name, and the agent (its tree holds the search)."""
    agent = make_agent("mcts", game_id, seed=seed, options=options)
    assert isinstance(agent, TunedMCTS) and type(agent).fraction == 1  # the full budget
    action = agent.act(None, legal(game_id, state), state)
    return envs.spec(game_id).action_to_str(action, state), agent


def visits_by_name(game_id: str, state: np.ndarray, agent) -> dict[str, int]:
    """The root visit count of every legal action (what to report when the search misses)."""
    visits = agent.tree.root_visits()
    spec = envs.spec(game_id)
    return {spec.action_to_str(int(a), state): int(visits[a]) for a in np.flatnonzero(legal(game_id, state))}


def assert_search_picks(game_id: str, state: np.ndarray, best: str, options: dict | None = None):
    """The full-budget search chooses ``best`` for every seed of SEEDS (and leaves the state alone)."""
    before = state.copy()
    for seed in SEEDS:
        chosen, agent = search(game_id, state, seed, options)
        assert chosen == best, (
            f"seed {seed}: the search chose {chosen!r}, not {best!r}; "
            f"root visits {visits_by_name(game_id, state, agent)}"
        )
    assert np.array_equal(state, before)


def play_own_turn(game_id: str, state: np.ndarray, seed: int, options: dict | None = None) -> np.ndarray:
    """The search (seeded ``seed``) plays the seat on move until its turn or the game ends."""
    state = state.copy()
    seat = int(state[H_CURRENT])
    agent = make_agent("mcts", game_id, seed=seed, options=options)
    rng = make_rng(seed)
    spec = envs.spec(game_id)
    while not state[H_TERMINAL] and int(state[H_CURRENT]) == seat:
        spec.apply_action(state, agent.act(None, legal(game_id, state), state), rng)
    return state


def assert_no_win(game_id: str, state: np.ndarray, seat: int):
    """``seat`` has not won alone: the game goes on, or it ended with a loss or a shared win."""
    assert not state[H_TERMINAL] or returns(game_id, state)[seat] < 1  # a sole winner gets +1 (ruling C3)


# --- Marry the Monster -----------------------------------------------------------------------
MTM = "marry_the_monster-v0"


def third_tower(
    num_players: int, phase: str = "main", hand=(0, 1, 1), board: str = THIRD_TOWER, **kwargs
) -> np.ndarray:
    """The position of tests/test_mcts.py: seat 0 (45 points, towers on A1 and A2, a manor on A3)
    to act; seat 1 (89 points) wins when it scores at the start of its turn; the fachan is walled in."""
    hands = [hand, (1, 1, 1)] + [(0, 0, 0)] * (num_players - 2)
    return marry_the_monster_diagram.state_from_diagram(
        board,
        num_players=num_players,
        scores=[45, 89] + [0] * (num_players - 2),
        phase=phase,
        hands=hands,
        **kwargs,
    )


@pytest.mark.parametrize("num_players", [2, 4])
def test_mtm_18_search_fortifies_the_manor_into_the_third_tower(num_players):
    """MTM-18: with two towers, fortifying the manor on A3 into a third tower wins at once; any
    other Fortify target leaves seat 1 to reach 90 points at its next scoring. The hidden
    cards do not matter: the Fortify card is already played."""
    state = third_tower(num_players, phase="fortify", hand=(0, 1, 0), cards_played=1)
    options = {"num_players": num_players}
    choices = names(MTM, state)
    assert "fortify A3" in choices and len(choices) > 3
    won = finish_turn(MTM, state, "fortify A3")
    assert won[H_TERMINAL] and returns(MTM, won)[0] > 0
    assert_no_win(MTM, finish_turn(MTM, state, "fortify B1"), 0)
    assert_search_picks(MTM, state, "fortify A3", options)


@pytest.mark.parametrize("num_players", [2, 4])
def test_mtm_11_search_plays_fortify_and_wins_within_the_turn(num_players):
    """MTM-11, MTM-18: playing the Fortify card and then raising the manor wins within the turn;
    a Build play or ending the turn hands seat 1 its winning score (MTM scoring at turn start)."""
    state = third_tower(num_players)
    options = {"num_players": num_players}
    assert set(names(MTM, state)) == {"play build", "play fortify", "end"}
    assert_no_win(MTM, finish_turn(MTM, state, "end"), 0)
    assert_search_picks(MTM, state, "play fortify", options)
    for seed in SEEDS:
        final = play_own_turn(MTM, state, seed, options)
        assert final[H_TERMINAL] and returns(MTM, final)[0] > 0


@pytest.mark.parametrize("num_players", [2, 4])
def test_mtm_11_search_raises_a_house_twice_for_the_winning_tower(num_players):
    """MTM-11, MTM-18: with only houses beside its towers, seat 0 needs four actions (Fortify, a
    house, Fortify, the same building) for the third tower; ending the turn, the only other
    choice, lets seat 1 score its 90th point."""
    state = third_tower(num_players, hand=(0, 0, 2), board=HOUSES_ONLY)
    options = {"num_players": num_players}
    assert set(names(MTM, state)) == {"play fortify", "end"}
    assert_no_win(MTM, finish_turn(MTM, state, "end"), 0)
    assert_search_picks(MTM, state, "play fortify", options)
    for seed in SEEDS:
        final = play_own_turn(MTM, state, seed, options)
        assert final[H_TERMINAL] and returns(MTM, final)[0] > 0


# --- Mighty Monsters -------------------------------------------------------------------------
MM = "mighty_monsters-v0"
# The last round (6 of 6); only G1a is empty and only seat 0 still plays (MM-9). Seat 1's 5 and
# 4 sit at a level-1 guard they beat whatever its value (9 > 6); the level-3 guard at G3 beats
# any pair of 5 or less.
LAST_ROUND = """
G1  *    --    p2:1
G2  *    p1:5  p1:4
G3  ***  p2:3  p0:2
"""


def last_round(num_players: int) -> np.ndarray:
    """Seat 0 (8 gold, holding a 1 and a 5) places the last monster of the game; seat 1 has 10."""
    castle, gold = LAST_ROUND, [8, 10, 5]
    if num_players == 4:
        castle, gold = castle + "G4  ***  p3:1  p3:2\n", gold + [3]
    return mighty_monsters_diagram.state_from_castle(castle, hands={0: [1, 5]}, gold=gold, round_=6)


@pytest.mark.parametrize("num_players", [3, 4])
def test_mm_11_12_search_loses_the_first_fight_on_purpose(num_players):
    """MM-11, MM-12, MM-14: the 1 beside seat 2's 1 at the main gate loses the first fight
    whatever the face-down guard is (2 < 3), so every guard behind stays face down and seat 1
    pays 5 to heal its 5 and 4: seat 0 ends with 6 gold against 5 and wins. The 5 there wins
    the first fight (6 >= 6), so seat 1 beats its guard too and takes at least 3 loot: seat 0
    loses whatever the hidden guards are. The replacements cost gold and only delay that."""
    state = last_round(num_players)
    options = {"num_players": num_players}
    choices = names(MM, state)
    assert "play 1 at G1a" in choices and len(choices) >= 4
    won = finish_turn(MM, state, "play 1 at G1a")
    assert won[H_TERMINAL] and returns(MM, won)[0] > 0 and mighty_monsters_diagram.golds(won)[:2] == [6, 5]
    lost = finish_turn(MM, state, "play 5 at G1a")
    assert lost[H_TERMINAL] and returns(MM, lost)[0] < 0
    assert_search_picks(MM, state, "play 1 at G1a", options)


# --- MONSTArgh! ------------------------------------------------------------------------------
MA = "monstargh-v0"
# The last card of the scene: seat 0 (green) holds only its green 3; nobody else holds a card
# or a focus card and the deck is empty (every other card lies on the table, the ones under
# a stack unseen but known). The 2s of the other species form a chain that only the cell west
# of the blue 2 reaches; the visible cards around it are green or one 5 of every other species.
CHAIN = {
    2: """
.  G4/B1/B3/B4/B6  B5  G5/Y1/Y3/Y4/Y6  .
.  B2              Y2  R2              Y5
.  G6/R1/R3/R4/R6  R5  G1/G2           .
""",
    # the same idea with a square of four 2s (five species in play, MA-2)
    4: """
.                G4/B1/B3/B4/B6  G5/Y1/Y3/Y4/Y6  .
.                B2              Y2              B5/R1/R3/R4/R6
P5/P1/P3/P4/P6   P2              R2              Y5/G1/G2
.                G6              R5              .
""",
}
SPECIES = {2: "green,blue,yellow,red", 4: "green,blue,yellow,red,pink"}
# stars before the scene ends, so that green's 4 or 5 visible cards just win and one more
# visible card of any other species (tokens MA-3) ties
STARS_BEFORE = {2: [0, 3], 4: [1, 3, 0, 0]}


def last_card(num_players: int) -> np.ndarray:
    """Seat 0 has chosen its green 3 (MA-19) and picks its cell."""
    tokens = ["green", "blue", "yellow", "red"][:num_players]
    state = monstargh_diagram.position(
        CHAIN[num_players],
        {0: ["G3"]},
        tokens,
        num_players=num_players,
        species=SPECIES[num_players],
        focus={p: [0, 0] for p in range(num_players)},
    )
    state[STARS : STARS + num_players] = STARS_BEFORE[num_players]
    assert names(MA, state) == ["play green 3"]
    return monstargh_diagram.play(state, "play green 3")


@pytest.mark.parametrize("num_players", [2, 4])
def test_ma_11_12_search_steals_along_the_chain_of_twos(num_players):
    """MA-9, MA-11, MA-12, MA-15, MA-17: the green 3 west of the blue 2 steals it, then every
    other 2 in turn (each is one below the protagonist), covering one visible card of every
    other species, and the scene's scoring ends the game with green alone on top. Any other
    cell meets no 2: every seat keeps one more visible card, which ties green whoever holds
    which token, so no other cell wins."""
    state = last_card(num_players)
    best = "place west of blue 2"
    choices = names(MA, state)
    assert best in choices and len(choices) > 8
    after = finish_turn(MA, state, best)
    # with the square of 2s the protagonist stops at a steal choice (MA-11): both ways win
    ends = [after] if after[H_TERMINAL] else [finish_turn(MA, after, c) for c in names(MA, after)]
    assert all(end[H_TERMINAL] and returns(MA, end)[0] > 0 for end in ends)
    for other in choices:
        if other != best:
            assert_no_win(MA, finish_turn(MA, state, other), 0)
    options = {"num_players": num_players}
    assert_search_picks(MA, state, best, options)
    final = play_own_turn(MA, state, 0, options)
    assert final[H_TERMINAL] and returns(MA, final)[0] > 0


# --- Monster Factory -------------------------------------------------------------------------
MF = "monster_factory-v0"


def last_tile(num_players: int) -> np.ndarray:
    """Seat 0 holds the last tile of the game, a 2000, and the supply is empty (MF-14): its
    11-tile first monster (the comb of tests/test_monster_factory_agents.py) lacks one leg; every other
    first monster is complete with 2 tiles (2 points), and seat 1's minion is open under both
    its tiles."""
    monsters = [(0, COMB_11, False), (1, "0200 0002", True), (1, THEIR_PAIR, False)]
    others = [(2, "0100 0001", True), (3, "0010\n1000", True)][: num_players - 2]
    return monster_factory_diagram.state_from_monsters(
        monsters + others,
        num_players=num_players,
        hand="2000",
        supply={},
        scores={p: 2 for p in range(1, num_players)},
    )


@pytest.mark.parametrize("num_players", [2, 4])
def test_mf_14_search_completes_its_first_monster_with_the_last_tile(num_players):
    """MF-11, MF-14, MF-15, MF-16: whatever seat 0 does with the last tile, the game ends after
    it. Laid thick-north under the comb's tile 7 it completes seat 0's first monster, 12 points
    against 2; laid on seat 1's minion (MF-9) it leaves seat 0's monster in progress, worth
    nothing, and seat 0 loses. Nothing is hidden: the supply is empty."""
    state = last_tile(num_players)
    best = envs.spec(MF).action_to_str(monster_factory_diagram.place(0, 7, "S", state, "2000"), state)
    choices = names(MF, state)
    assert best in choices and len(choices) == 3
    won = finish_turn(MF, state, best)
    assert won[H_TERMINAL] and returns(MF, won)[0] > 0
    for other in choices:
        if other != best:
            lost = finish_turn(MF, state, other)
            assert lost[H_TERMINAL] and returns(MF, lost)[0] < 0
    assert_search_picks(MF, state, best, {"num_players": num_players})


# --- Monster Arena ---------------------------------------------------------------------------
AR = "monster_arena-v0"
# Seat 0 has 3 energy left this turn and three Horns (1 die + 3 each); seat 1's Wolf Chest has
# Defense 10, its Rock Pelvis is covered by two Spiked Legs (AR-11) and it has no reaction.
LAST_BLOW = {0: "U1[HO1,HO2,HO3] + L1[-,-,-]", 1: "U4[-,-,-] + L5[SL1[-],SL2[-]]"}


def last_blow(num_players: int) -> np.ndarray:
    """Seat 0 on move against seat 1's monster, the last other one standing (with 4 players
    seats 2 and 3 are already out, AR-21)."""
    return monster_arena_diagram.arena_state(LAST_BLOW, num_players=num_players, energy={0: 3})


@pytest.mark.parametrize("num_players", [2, 4])
def test_ar_44_search_fells_the_last_opponent_with_three_horns(num_players):
    """AR-24, AR-26, AR-21, AR-44: three Horns against the Wolf Chest roll at least 3 + 9 = 12
    against Defense 10, so targeting it and attacking with all three (or two and the Ogre
    Chest, at least 10) fells the monster and wins whatever the dice. Targeting a Spiked Leg
    spends energy the sure kill needs, and ending the turn wins nothing."""
    state = last_blow(num_players)
    options = {"num_players": num_players}
    choices = names(AR, state)
    assert set(choices) == {"target U4", "target SL1", "target SL2", "pass (end turn)"}
    blow = ["attack with HO1", "attack with HO2", "attack with HO3", "roll"]
    for seed in range(20):  # any dice
        won = finish_turn(AR, state, "target U4", blow, seed=seed)
        assert won[H_TERMINAL] and returns(AR, won)[0] > 0
    assert_no_win(AR, finish_turn(AR, state, "pass (end turn)"), 0)
    assert_search_picks(AR, state, "target U4", options)
    for seed in SEEDS:
        final = play_own_turn(AR, state, seed, options)
        assert final[H_TERMINAL] and returns(AR, final)[0] > 0
