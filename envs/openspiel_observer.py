"""What one seat observes of a monster-zoo game in OpenSpiel: OpenSpiel's Python observer.

Part of :mod:`monster_zoo.envs.openspiel` (import that module: it checks that OpenSpiel is
installed and registers the games); see its documentation for the observation types served.
"""

import hashlib

import numpy as np
import pyspiel


class MonsterZooObserver:
    """OpenSpiel's Python observer interface (``tensor``, ``dict``, ``set_from``, ``string_from``).

    Serves the observation types without perfect recall (:meth:`serves`):

    - public and the seat's private information (OpenSpiel's default): the tensor from the
      game's ``observe_into`` and the string ``to_text``, ``private_text`` and the tensor's digest;
    - public information alone: the string ``to_text``, no tensor;
    - the seat's private information alone: the string ``private_text``, no tensor.

    Perfect recall (an information state) and every seat's private information at once are
    not served: :meth:`~monster_zoo.envs.openspiel.MonsterZooGame.make_py_observer` gives None for them.
    """

    def __init__(self, game, kind):
        self._spec = game.spec
        self._public = kind.public_info
        self._private = kind.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        whole = self._public and self._private
        self.tensor = np.zeros(game.spec.obs_size, np.float32) if whole else None
        self.dict = {"observation": self.tensor} if whole else {}
        self._scratch = np.zeros(
            game.spec.obs_size, np.float32
        )  # string_from's copy: tensor stays set_from's

    def set_from(self, state, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor`` (zeros before the deal)."""
        state._check_player(player)
        if self.tensor is None:
            return
        self.tensor[:] = 0.0
        if state._engine is not None:
            self._spec.observe_into(state._engine, int(player), self.tensor)

    def string_from(self, state, player: int) -> str:
        """``player``'s observation of ``state`` as text."""
        state._check_player(player)
        if state._engine is None:
            return "before the deal"
        parts = []
        if self._public:
            parts.append(self._spec.to_text(state._engine))
        if self._private and self._spec.private_text is not None:
            parts.append(self._spec.private_text(state._engine, int(player)))
        if self.tensor is not None:
            # The text leaves out some of what the seat knows (a turn's counters, cards it saw
            # before), and IS-MCTS keys its nodes on this string: two states must share it only
            # when the seat observes them alike, or a node built with one set of legal actions is
            # reached with another. The observation's digest makes the string that exact.
            self._spec.observe_into(state._engine, int(player), self._scratch)
            parts.append(f"observation {hashlib.blake2b(self._scratch.tobytes(), digest_size=8).hexdigest()}")
        return "\n".join(parts)

    @staticmethod
    def serves(kind) -> bool:
        """Whether ``kind`` (a ``pyspiel.IIGObservationType``) is one of the types served."""
        own = kind.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        public_only = kind.public_info and kind.private_info == pyspiel.PrivateInfoType.NONE
        return not kind.perfect_recall and (own or public_only)
