"""Every monster-zoo game as an OpenSpiel game.

Importing this module registers each game of :func:`monster_zoo.envs.available` with OpenSpiel
as a Python game named ``python_monster_zoo_<game>`` (:func:`openspiel_name`), so OpenSpiel's
algorithms, bots and tools load it by name::

    import pyspiel
    import monster_zoo.envs.openspiel  # registers the games

    game = pyspiel.load_game("python_monster_zoo_marry_the_monster", {"num_players": 2, "seed": 7})
    state = game.new_initial_state()
    state.apply_action(0)                  # the deal, the one chance node
    state.legal_actions()                  # the game's action numbers
    state.action_to_string(98)             # their names: 'end'
    state.observation_tensor(0)            # what seat 0 sees, as the AEC env's observation

Needs the ``openspiel`` extra (``pip install 'monster-zoo[openspiel]'``); this module imports
``pyspiel``, so ``monster_zoo`` and ``monster_zoo.envs`` never do. The rules are the games' numba
kernels (the :class:`~monster_zoo.envs.core.contract.GameSpec` of each game), stepped exactly as
the AEC env steps them: the same seed and actions give the same game in both.

Game parameters
    The game's own options (``num_players``, ``max_steps``, ``reward`` and the game's
    variants; see each game's module, e.g. :mod:`monster_zoo.envs.marry_the_monster_v0`),
    validated by the game with the valid values listed, plus ``seed`` (default 0, an integer
    from 0 to 2**31 - 1). The options that only concern the AEC env (``illegal_action``,
    ``observation``, ``render_mode``) are not parameters: OpenSpiel refuses illegal actions
    itself, and observations are OpenSpiel's.

Game type
    Sequential: one seat on move at a time, and a player whose turn has several decisions
    is on move several times in a row. Zero-sum (``utility_sum`` 0) with terminal rewards,
    in every game and both reward modes, because every game scores its end with ruling C3,
    whose rewards sum to zero: ``reward="win"`` pays +1/k to the k winners and -1/(n-k) to
    the others (utilities from -1 to 1); ``reward="score"`` pays each seat's final score
    minus the mean score, bounded only by the int32 score slots, so the declared utility
    range is +-(2**31 - 1). A game cut off at ``max_steps`` ends with 0 for everyone, as in
    the AEC env. Imperfect information wherever the game's spec has a ``determinize``
    kernel (all five games: even Monster Factory, whose ``determinize`` resamples nothing),
    perfect information where its ``determinize`` is None.

Chance
    OpenSpiel's sampled-stochastic mode. A new state is a chance node with one outcome,
    ``0`` (the deal): applying it starts the game from a seed and puts the game's random
    generator in the state. Every later draw (cards, tiles, reshuffles) happens inside the
    action that causes it, from that generator, as in the engine; ``clone`` copies the
    generator, so a clone given the same actions plays the same game. A game loaded with
    ``seed=S`` deals its k-th game (counting every deal applied to a state of that game
    object) from seed ``S + k``: exactly the game of ``env.reset(seed=S + k)`` in the AEC
    env and of slot k in ``make_batch(game_id, num_envs, seed=S)``. There are no explicit
    chance nodes for the draws: the kernels draw inside ``apply_action`` (a Marry the
    Monster draw picks a card type with the probability of the cards left, a Monster Arena
    attack may reshuffle the deck in the middle of an action), so exposing each draw as a
    node would mean splitting the kernels at every draw and writing the rules twice.

Observations
    One observation per seat, of OpenSpiel's default type (public information and the
    seat's private information, without perfect recall). The tensor is the seat's
    observation from the game's ``observe_into``: the AEC env's ``observation``, of shape
    ``(obs_size,)``, named ``"observation"``. The string is the game's text for that seat:
    the public text of ``to_text``, the seat's ``private_text``, and a last line with a
    digest of the tensor, because the text leaves out a few things the seat knows (a
    turn's counters, cards it saw earlier) and two states must share a string only when
    the seat observes them alike. Both hold what the seat may know and nothing else. The
    observations summarise the game instead of recalling its history, so there is no
    information state: ``information_state_string`` and ``information_state_tensor`` raise
    ``ValueError``, and IS-MCTS keys its nodes on the observation string
    (``ISMCTSBot(..., use_observation_string=True)``). Observers of the public information
    alone or of the seat's private information alone give strings only
    (:class:`MonsterZooObserver`). ``str(state)`` is the full state, for debugging: the
    public text and every seat's private text.

Actions
    The game's ``Discrete(num_actions)`` numbers: ``legal_actions()`` from the game's
    ``legal_mask``, ``action_to_string`` the game's action names (``"house D4"``,
    ``"end"``). An illegal action raises ``ValueError`` with the game's reason and changes
    nothing.

Resampling
    ``resample_from_infostate(player, sampler)`` copies the state, reseeds its generator
    from ``sampler`` and redeals with the game's ``determinize`` kernel what ``player``
    cannot see (other seats' hands, face-down cards), consistently with what it can: the
    player's observation, and its legal actions when on move, are unchanged. The future
    draws are new too, so a search on a resampled state cannot read the real game's future.
    A search that only clones the state (OpenSpiel's ``MCTSBot``) plays on the true state
    instead: it sees every hidden card and, since a clone keeps the generator, every future
    draw. It is a perfect-information search with the truth revealed; IS-MCTS is the fair one.

Serialization
    ``state.serialize()`` is a short text: the game (its name and parameters), the seed of
    the deal and the actions since, one number each, which is all it takes to replay a
    game, since the engine is deterministic. ``game.deserialize_state(text)`` reads it back
    within bounds (:data:`MAX_SERIALIZED_CHARS`), checking the game and every action; the
    text never runs code. A resampled state has no such text (its hidden part was invented,
    not dealt) and is refused.

OpenSpiel's tools (OpenSpiel 2.0.2)
    These run on every game (``tests/test_openspiel.py``): ``pyspiel.random_sim_test`` with
    ``serialize=False``; the playthrough generator
    (``open_spiel.python.algorithms.generate_playthrough``); the Python bots
    ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` and ``mcts.MCTSBot``, and the C++
    ``pyspiel.MCTSBot``, played by ``pyspiel.evaluate_bots``;
    ``rl_environment.Environment`` with its agents (the observation tensors are its info
    states). What OpenSpiel cannot do with Python games, ours or its own: its C++ code never
    reaches ``resample_from_infostate``, so ``pyspiel.ISMCTSBot`` stops with
    "ResampleFromInfostate() not implemented"; ``pyspiel.MCTSBot.step`` releases the GIL and
    then clones the Python state, which crashes the process (``pyspiel.evaluate_bots`` holds
    the GIL and is safe); the Python ``evaluate_bots`` asks each bot to ``restart_at`` the
    state, which the Python ``ISMCTSBot`` does not implement; ``pyspiel.serialize_game_and_state``
    (and so ``random_sim_test(serialize=True)`` and ``rl_environment``'s
    ``include_full_state``) asks a sampled-stochastic game for its ``GetRNGState``, which
    Python games cannot provide. ``pyspiel.deserialize_game_and_state`` reads the state of any
    Python game as a ``pickle``, which runs code: never give it text you did not write.
"""

import numbers

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the module is useless without it
    raise ImportError(
        "monster_zoo.envs.openspiel needs OpenSpiel: pip install 'monster-zoo[openspiel]'"
    ) from error

from . import registry
from .core.contract import C_MAX_STEPS, C_NUM_PLAYERS
from .core.options import resolve_options
from .core.rng import SEED_MASK
from .openspiel_observer import MonsterZooObserver
from .openspiel_state import DEAL, MAX_SERIALIZED_CHARS, SERIAL_FORMAT, MonsterZooState, deserialize_state

__all__ = [
    "AEC_ONLY_OPTIONS",
    "DEAL",
    "GAME_CLASSES",
    "GAME_NAMES",
    "MAX_SEED",
    "MAX_SERIALIZED_CHARS",
    "MonsterZooGame",
    "MonsterZooObserver",
    "MonsterZooState",
    "NAME_PREFIX",
    "SCORE_UTILITY_BOUND",
    "SERIAL_FORMAT",
    "game_parameters",
    "game_type",
    "openspiel_name",
    "register_games",
]

NAME_PREFIX = "python_monster_zoo_"
# Options of the AEC env alone: OpenSpiel refuses illegal actions and observes in its own way.
AEC_ONLY_OPTIONS = ("illegal_action", "observation", "render_mode")
# OpenSpiel keeps integer parameters in a C++ int.
MAX_SEED = 2**31 - 1
# reward="score" pays a score minus the mean score; scores live in int32 state slots.
SCORE_UTILITY_BOUND = float(2**31 - 1)


def openspiel_name(game_id: str) -> str:
    """OpenSpiel's name of the game ``game_id``: ``marry_the_monster-v0`` ->
    ``python_monster_zoo_marry_the_monster`` (a later version ``-vN`` gets the suffix ``_vN``)."""
    spec = registry.spec(game_id)
    return NAME_PREFIX + spec.name + (f"_v{spec.version}" if spec.version else "")


def game_parameters(game_id: str) -> dict[str, object]:
    """The OpenSpiel parameters of ``game_id`` with their defaults: the game's options except
    :data:`AEC_ONLY_OPTIONS`, and ``seed``."""
    spec = registry.spec(game_id)
    params = {o.name: o.default for o in spec.options if o.name not in AEC_ONLY_OPTIONS}
    params["seed"] = 0
    return params


def game_type(game_id: str) -> "pyspiel.GameType":
    """The ``pyspiel.GameType`` of ``game_id`` (see the module doc for each choice)."""
    spec = registry.spec(game_id)
    information = (
        pyspiel.GameType.Information.PERFECT_INFORMATION
        if spec.determinize is None
        else pyspiel.GameType.Information.IMPERFECT_INFORMATION
    )
    return pyspiel.GameType(
        short_name=openspiel_name(game_id),
        long_name=f"monster-zoo {spec.title} ({game_id})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=game_parameters(game_id),
    )


class MonsterZooGame(pyspiel.Game):
    """One monster-zoo game with fixed options, as an OpenSpiel game.

    Each game has its subclass (:data:`GAME_CLASSES`, e.g. ``GAME_CLASSES["marry_the_monster-v0"]``)
    that sets :attr:`game_id`; ``pyspiel.load_game(openspiel_name(game_id), params)`` makes one,
    as does ``GAME_CLASSES[game_id](params)``. ``params`` maps parameter names to values
    (missing ones take their defaults, :func:`game_parameters`); a bad value raises
    ``ValueError`` listing the valid ones, an unknown name ``TypeError``.
    """

    game_id: str = ""  # the registry id, set by each game's subclass

    def __init__(self, params: dict | None = None):
        game_id = self.game_id
        defaults = game_parameters(game_id)
        params = {**defaults, **dict(params or {})}
        spec = registry.spec(game_id)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(
                f"{openspiel_name(game_id)}: unknown parameter(s) {', '.join(unknown)}; "
                f"valid parameters: {', '.join(defaults)}"
            )
        seed = params["seed"]
        if (
            isinstance(seed, (bool, np.bool_))
            or not isinstance(seed, numbers.Integral)
            or not 0 <= seed <= MAX_SEED
        ):
            raise ValueError(
                f"{openspiel_name(game_id)}: parameter seed={seed!r} is not valid; expected an "
                f"integer from 0 to {MAX_SEED} (OpenSpiel keeps parameters in a C++ int)"
            )
        options = {k: v for k, v in params.items() if k != "seed"}
        config = spec.make_config(resolve_options(game_id, spec.options, options))
        # A game without the win mode's +-1 is bounded only by its score slots.
        bound = 1.0 if options.get("reward") == "win" else SCORE_UTILITY_BOUND
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=1,
            num_players=int(config[C_NUM_PLAYERS]),
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=int(config[C_MAX_STEPS]),
        )
        super().__init__(game_type(game_id), info, params)
        self.spec = spec
        self.config = config
        self._next_seed = int(seed)

    def new_initial_state(self) -> MonsterZooState:
        """A state before the deal: a chance node whose one outcome, 0, starts the game."""
        return MonsterZooState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> MonsterZooObserver | None:
        """The observer of ``iig_obs_type`` (None: OpenSpiel's default observation), or None for a
        type the games do not serve (OpenSpiel's convention; see :class:`MonsterZooObserver`).
        Observers take no ``params``: any raise ``ValueError``."""
        if params:
            raise ValueError(f"{self}: observers take no parameters; got {params!r}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return MonsterZooObserver(self, kind) if MonsterZooObserver.serves(kind) else None

    def max_chance_nodes_in_history(self) -> int:
        """One: the deal. Every later draw happens inside an action (sampled chance)."""
        return 1

    def deserialize_state(self, text: str) -> MonsterZooState:
        """The state that ``state.serialize()`` wrote as ``text``, replayed from its seed and actions.

        Refused with ``ValueError`` saying why: a text that is not such a state, longer than
        :data:`MAX_SERIALIZED_CHARS`, written for another game or other parameters, with more
        actions than ``max_steps`` or an action the rules do not allow where it stands. The
        text never runs code.
        """
        return deserialize_state(self, text)

    def _draw_seed(self) -> int:
        """The seed of the next deal: the ``seed`` parameter, then one more per deal."""
        seed = self._next_seed
        self._next_seed = (seed + 1) & SEED_MASK
        return seed


def _game_class(game_id: str) -> type:
    """The :class:`MonsterZooGame` subclass of ``game_id`` (``MarryTheMonsterGame``)."""
    spec = registry.spec(game_id)
    name = "".join(part.title() for part in spec.name.split("_")) + "Game"
    return type(
        name,
        (MonsterZooGame,),
        {
            "game_id": game_id,
            "__module__": __name__,
            "__doc__": f"{spec.title} ({game_id}) as an OpenSpiel game.",
        },
    )


# game id -> its MonsterZooGame subclass, the creator OpenSpiel calls with the parameters. A class
# rather than a closure: OpenSpiel's C++ registry holds its creators until the process exits,
# after Python has finalised, and releasing a closure's last reference then aborts the process;
# a class stays referenced by its own method resolution order.
GAME_CLASSES: dict[str, type] = {}


def register_games() -> list[str]:
    """Register every game of the registry with OpenSpiel (done on import; games already
    registered are left alone) and return their OpenSpiel names. A game of your own, added with
    :func:`monster_zoo.envs.register`, joins OpenSpiel when this is called again."""
    names = []
    registered = set(pyspiel.registered_names())
    for game_id in registry.available():
        name = openspiel_name(game_id)
        if name not in registered:
            GAME_CLASSES[game_id] = _game_class(game_id)
            pyspiel.register_game(game_type(game_id), GAME_CLASSES[game_id])
        names.append(name)
    return names


GAME_NAMES = register_games()
