"""The state of a monster-zoo game in OpenSpiel, and its text serialization.

Part of :mod:`monster_zoo.envs.openspiel` (import that module: it checks that OpenSpiel is
installed and registers the games); see its documentation for the choices made here.
"""

import math
import re

import numpy as np
import pyspiel

from .core.contract import C_MAX_STEPS, H_CURRENT, H_TERMINAL
from .core.header import running
from .core.illegal import refusal
from .core.rng import SEED_MASK, make_rng

DEAL = 0  # the one outcome of the chance node that starts every game
# A serialized state is a few characters per action; a game of the longest default length
# (5,000 actions) takes under 30 kB, so this leaves room for games far longer than any played.
MAX_SERIALIZED_CHARS = 1 << 20
SERIAL_FORMAT = "monster-zoo openspiel state 1"
# The seed is empty before the deal, and then so are the actions.
_SERIAL = re.compile(
    r"monster-zoo openspiel state 1\ngame (?P<game>[^\n]*)\nseed (?P<seed>\d{0,19})\n"
    r"actions(?P<actions>(?: \d{1,9})*)\n?"
)
NO_INFORMATION_STATE = (
    "{game}: no information state: the observations summarise the game instead of recalling "
    "its history; use observation_string/observation_tensor (ISMCTSBot: "
    "use_observation_string=True)"
)


class MonsterZooState(pyspiel.State):
    """A monster-zoo game in progress, for OpenSpiel (made by
    :meth:`~monster_zoo.envs.openspiel.MonsterZooGame.new_initial_state`).

    Its attributes are plain data, as OpenSpiel's ``clone`` deep-copies them: the engine state
    (an int32 vector, None before the deal), the game's random generator, the seed of the deal
    (set before the deal only by
    :meth:`~monster_zoo.envs.openspiel.MonsterZooGame.deserialize_state`, to deal that seed), the legal
    actions of the seat on move, and whether the state is a resample
    (:meth:`resample_from_infostate`).
    """

    def __init__(self, game):
        super().__init__(game)
        self._engine: np.ndarray | None = None
        self._rng: np.ndarray | None = None
        self._seed: int | None = None
        self._mask: np.ndarray | None = None
        self._resampled = False

    # --- OpenSpiel's state API ---------------------------------------------------------------
    def current_player(self) -> int:
        """The seat on move; ``pyspiel.PlayerId.CHANCE`` before the deal, ``TERMINAL`` at the end."""
        if self._engine is None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self._engine[H_CURRENT])

    def is_terminal(self) -> bool:
        """Whether the rules ended the game or it reached ``max_steps`` (truncated: 0 to all)."""
        engine = self._engine
        return engine is not None and not running.py_func(engine)

    def _legal_actions(self, player: int) -> list[int]:
        """The legal actions of ``player`` (OpenSpiel asks only for the seat on move), ascending."""
        return np.flatnonzero(self._mask).tolist()

    def chance_outcomes(self):
        """The deal's one outcome, 0, with probability 1 (the engine samples the rest)."""
        return [(DEAL, 1.0)]

    def _apply_action(self, action: int) -> None:
        """Deal (before the game starts) or apply the action of the seat on move.

        An illegal action raises ``ValueError`` with the game's reason and changes nothing.
        """
        game = self.get_game()
        if self._engine is None:
            if action != DEAL:
                raise ValueError(
                    f"{game}: the game starts with the deal, chance outcome {DEAL}; got {action!r}"
                )
            self._deal(game._draw_seed() if self._seed is None else self._seed)
            return
        spec = game.spec
        reason = refusal(spec, self._engine, self._mask, f"player {int(self._engine[H_CURRENT])}", action)
        if reason is not None:
            raise ValueError(f"{game}: {reason}")
        spec.apply_action(self._engine, int(action), self._rng)
        self._refresh_mask(spec)

    def _action_to_string(self, player: int, action: int) -> str:
        """The game's name of ``action`` in this state (``"deal"`` for the chance outcome)."""
        if player == pyspiel.PlayerId.CHANCE:
            return "deal"
        spec = self.get_game().spec
        if not 0 <= action < spec.num_actions:
            raise ValueError(f"{self.get_game()}: action {action} is out of range 0..{spec.num_actions - 1}")
        return spec.action_to_str(int(action), self._engine)

    def returns(self) -> list[float]:
        """Each seat's final reward (ruling C3) once the game is over, else zeros."""
        n = self.num_players()
        if self._engine is None or not self._engine[H_TERMINAL]:
            return [0.0] * n
        out = np.zeros(n, np.float32)
        self.get_game().spec.returns(self._engine, out)
        # The kernel writes float32, which holds 1/3 or a mean of three scores only to 1e-8, and
        # OpenSpiel checks zero-sum games to 1e-9. Every C3 reward is a multiple of 1/lcm(1..n):
        # +1/k and -1/(n-k) with k winners, or an integer score minus the mean of n of them; the
        # nearest such multiple is the exact reward (as long as scores stay below 2**24 / lcm).
        unit = math.lcm(*range(1, n + 1))
        return [round(float(v) * unit) / unit for v in out]

    def rewards(self) -> list[float]:
        """The rewards of the last action: the returns when it ended the game, else zeros."""
        return self.returns() if self.is_terminal() else [0.0] * self.num_players()

    def information_state_string(self, player: int | None = None) -> str:
        """Refused: the games have no information state (see the module doc)."""
        raise ValueError(NO_INFORMATION_STATE.format(game=self.get_game()))

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """Refused: the games have no information state (see the module doc)."""
        raise ValueError(NO_INFORMATION_STATE.format(game=self.get_game()))

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "MonsterZooState":
        """A copy of this state with what ``player_id`` cannot see redealt (see the module doc).

        ``probability_sampler()`` returns floats in [0, 1); two of them seed the copy's generator,
        which both redeals and draws the copy's future. For resamples that repeat, pass a seeded
        sampler (``numpy.random.RandomState(seed).uniform``,
        ``pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)``): OpenSpiel's ``ISMCTSBot`` makes one
        without a seed, which seeds itself from the clock, unless given a resampler
        (``bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))``).
        """
        self._check_player(player_id)
        sample = self.clone()
        if self._engine is None:
            return sample
        seed = int(probability_sampler() * 2**32) << 32 | int(probability_sampler() * 2**32)
        sample._rng = make_rng(seed)
        spec = self.get_game().spec
        if spec.determinize is not None:
            spec.determinize(sample._engine, int(player_id), sample._rng)
        sample._resampled = True
        return sample

    def serialize(self) -> str:
        """The seed and actions of this game as text, for
        :meth:`~monster_zoo.envs.openspiel.MonsterZooGame.deserialize_state`."""
        if self._resampled:
            raise ValueError(
                f"{self.get_game()}: a state from resample_from_infostate has no serialization: what its "
                f"player cannot see was invented, not dealt from a seed"
            )
        seed = "" if self._seed is None else str(self._seed)
        actions = "".join(f" {a}" for a in self.history()[1:])
        return f"{SERIAL_FORMAT}\ngame {self.get_game()}\nseed {seed}\nactions{actions}\n"

    def __str__(self) -> str:
        """The full state, for debugging: the public text and every seat's private text."""
        spec = self.get_game().spec
        if self._engine is None:
            return "before the deal"
        private = [
            f"player_{p}: {spec.private_text(self._engine, p)}"
            for p in range(self.num_players())
            if spec.private_text is not None
        ]
        return "\n".join([spec.to_text(self._engine), *private])

    def engine_state(self) -> np.ndarray:
        """A copy of the full engine state (hidden information included: for search on resampled
        states and for debugging); ValueError before the deal."""
        if self._engine is None:
            raise ValueError(
                f"{self.get_game()}: the game has not been dealt yet (apply chance outcome {DEAL})"
            )
        return self._engine.copy()

    # --- helpers -------------------------------------------------------------------------------
    def _deal(self, seed: int) -> None:
        """Start the game from ``seed``, exactly as the AEC env's ``reset(seed=seed)``."""
        game = self.get_game()
        spec = game.spec
        self._seed = int(seed)
        self._rng = make_rng(self._seed)
        self._engine = np.zeros(spec.state_size, np.int32)
        spec.init_state(self._engine, game.config, self._rng)
        self._mask = np.zeros(spec.num_actions, np.int8)
        self._refresh_mask(spec)

    def _refresh_mask(self, spec) -> None:
        """The legal actions of the seat on move (none once the game is over)."""
        if self.is_terminal():
            self._mask[:] = 0
        else:
            spec.legal_mask(self._engine, self._mask)

    def _check_player(self, player) -> None:
        """ValueError unless ``player`` is a seat of this game."""
        if isinstance(player, bool) or not (
            isinstance(player, (int, np.integer)) and 0 <= player < self.num_players()
        ):
            raise ValueError(
                f"{self.get_game()}: player {player!r} is not a seat; seats are 0..{self.num_players() - 1}"
            )


def deserialize_state(game, text: str) -> MonsterZooState:
    """The state of ``game`` that ``state.serialize()`` wrote as ``text``, replayed from its seed and actions.

    Refused with ``ValueError`` saying why: a text that is not such a state, longer than
    :data:`MAX_SERIALIZED_CHARS`, written for another game or other parameters, with more
    actions than ``max_steps`` or an action the rules do not allow where it stands.
    """
    if not isinstance(text, str):
        raise ValueError(f"{game}: a serialized state is text, got {type(text).__name__}")
    if len(text) > MAX_SERIALIZED_CHARS:
        raise ValueError(
            f"{game}: the serialized state is {len(text):,} characters; the most accepted is "
            f"{MAX_SERIALIZED_CHARS:,}"
        )
    match = _SERIAL.fullmatch(text)
    if match is None:
        raise ValueError(
            f"{game}: not a serialized monster-zoo state (expected the lines "
            f"'{SERIAL_FORMAT}', 'game ...', 'seed N', 'actions a b c ...' as state.serialize() "
            f"writes them; pyspiel.serialize_game_and_state's pickles are not read here)"
        )
    if match["game"] != str(game):
        raise ValueError(f"{game}: the serialized state belongs to the game {match['game']!r}")
    actions = [int(a) for a in match["actions"].split()]
    state = MonsterZooState(game)
    if not match["seed"]:
        if actions:
            raise ValueError(f"{game}: the serialized state has actions but no seed to deal from")
        return state
    seed = int(match["seed"])
    if seed > SEED_MASK:
        raise ValueError(f"{game}: seed {seed} of the serialized state is above 2**63 - 1")
    if len(actions) > int(game.config[C_MAX_STEPS]):
        raise ValueError(
            f"{game}: the serialized state has {len(actions):,} actions; this game ends after "
            f"max_steps={int(game.config[C_MAX_STEPS]):,}"
        )
    state._seed = seed  # dealt from, instead of the game's next seed
    state.apply_action(DEAL)
    for action in actions:
        if state.is_terminal():
            raise ValueError(f"{game}: the serialized state goes on after the game ended")
        state.apply_action(action)
    return state
