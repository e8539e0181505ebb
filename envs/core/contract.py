"""The kernel contract every game implements, and the header all game states share.

A game's state is one flat ``int32`` vector. Its first ``HEADER_SIZE`` slots are
common to every game so that the generic drivers (AEC adapter, batched engine)
can read who is on move, whether the game is over and how many actions were
taken without knowing the game. The rest of the vector is the game's own layout.

The kernels are compiled with the explicit signatures below. The batched drivers
receive them as first-class numba functions, so one driver serves every game and
its machine code stays in numba's on-disk cache (a driver specialised on a
dispatcher object would be recompiled in every process).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from numba import types

# --- shared state header -------------------------------------------------------
H_NUM_PLAYERS = 0
H_CURRENT = 1  # seat on move; -1 once the game is over
H_TERMINAL = 2  # 1 when the rules ended the game
H_STEPS = 3  # actions applied since reset
H_MAX_STEPS = 4  # truncation limit (ruling C4)
H_REWARD_MODE = 5  # REWARD_WIN or REWARD_SCORE (ruling C3)
HEADER_SIZE = 6

REWARD_WIN = 0
REWARD_SCORE = 1

# --- config vector handed to init_state ----------------------------------------
C_NUM_PLAYERS = 0
C_MAX_STEPS = 1
C_REWARD_MODE = 2
CONFIG_COMMON = 3  # games append their own config entries after these

# --- kernel signatures -----------------------------------------------------------
STATE = types.int32[::1]
CONFIG = types.int64[::1]
RNG = types.uint64[::1]
MASK = types.int8[::1]
FLOATS = types.float32[::1]

INIT_STATE_SIG = types.void(STATE, CONFIG, RNG)
LEGAL_MASK_SIG = types.int64(STATE, MASK)
APPLY_ACTION_SIG = types.void(STATE, types.int64, RNG)
RETURNS_SIG = types.void(STATE, FLOATS)
OBSERVE_SIG = types.void(STATE, types.int64, FLOATS)
DETERMINIZE_SIG = types.void(STATE, types.int64, RNG)
# (target, source, seat) -> 1 where source's guess at what the seat cannot see of the other seats'
# own cards fits target's view and was copied into it, else 0 (a belief's particles keep it).
GRAFT_HIDDEN_SIG = types.int64(STATE, STATE, types.int64)
# A policy compiled for numba: (state, mask of the seat on move, the policy's own
# generator) -> action. Embedded opponents that provide one are stepped inside numba.
POLICY_SIG = types.int64(STATE, MASK, RNG)

INIT_STATE_T = types.FunctionType(INIT_STATE_SIG)
LEGAL_MASK_T = types.FunctionType(LEGAL_MASK_SIG)
APPLY_ACTION_T = types.FunctionType(APPLY_ACTION_SIG)
RETURNS_T = types.FunctionType(RETURNS_SIG)
OBSERVE_T = types.FunctionType(OBSERVE_SIG)
DETERMINIZE_T = types.FunctionType(DETERMINIZE_SIG)
GRAFT_HIDDEN_T = types.FunctionType(GRAFT_HIDDEN_SIG)
POLICY_T = types.FunctionType(POLICY_SIG)


@dataclass(frozen=True)
class GameSpec:
    """Static description of one game: sizes, kernels, options and text helpers.

    The contract generic code (AEC adapter, batched engine, tests, benchmarks) reads. A declared
    game's :class:`~monster_zoo.envs.core.game.Game` answers to the same names straight from the
    modules it declares (``envs.spec(game_id)`` is the declaration itself); this class is for a
    game registered by a module of its own, and for tests' toy games.
    """

    name: str  # e.g. "marry_the_monster"
    version: int  # the module suffix: monster_zoo.envs.<name>_v<version>
    title: str  # human name for tables and renders
    min_players: int
    max_players: int
    state_size: int
    obs_size: int
    num_actions: int
    max_game_length: int  # default truncation limit in actions (C4)
    init_state: Callable
    legal_mask: Callable
    apply_action: Callable
    returns: Callable
    observe_into: Callable  # (state, seat, out): writes every entry of out, whatever it held
    illegal_reason: Callable  # 0 when legal, else a key of ``reasons``
    determinize: Callable  # resample what ``player`` cannot see (None: nothing is hidden)
    reasons: dict[int, str]
    options: Sequence  # monster_zoo.envs.core.options.Option entries
    make_config: Callable  # validated options dict -> int64 config vector
    to_text: Callable  # state -> str (public view)
    action_to_str: Callable  # (action, state=None) -> str
    str_to_action: Callable  # text -> action index
    private_text: Callable = None  # (state, player) -> str: what only that player sees
    legend: str = ""  # what the symbols of ``to_text`` mean, for people at a terminal
    card_text: Callable = None  # card name -> its text, for games whose cards have names and texts
    # The picture (envs/<game>/picture.py): SVG of the state as a seat (or the public) sees it,
    # an action's name as a seat may know it, and the public score per seat.
    draw: Callable = None  # (state, viewer=None, last=None) -> SVG text
    describe_action: Callable = None  # (state before, action, viewer=None) -> str
    public_scores: Callable = None  # state -> list of int, one per seat
    # (target, source, seat) -> 1/0 (GRAFT_HIDDEN_SIG): where the state keeps what no seat has seen
    # (a guard deck's order), a belief takes everything but the other seats' own cards from a
    # redeal of the seat's view (None: the belief replays moves in its particles whole).
    graft_hidden: Callable = None
    score_label: str = "score"  # what public_scores counts (points, gold, stars...)
    # Bumped whenever the observation's meaning changes, even at the same size, so that a policy
    # file trained on an older observation is refused instead of playing on misread inputs.
    observation_version: int = 1
    # The observation's entry of each relative seat that reads 1 while that seat is at the table and
    # 0 beyond the player count (None: the view does not say its player count).
    seated_slots: Sequence[int] | None = None

    @property
    def env_id(self) -> str:
        """The registry id, e.g. ``marry_the_monster-v0``."""
        return f"{self.name}-v{self.version}"
