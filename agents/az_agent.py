"""Agents of learned search: ``az`` (the network guiding a search) and ``az-net`` (the network alone).

Both play a network file of :mod:`monster_zoo.agents.az_network` with numba alone (no torch),
and refuse a game, rule option or player count the network was not trained for.

* :class:`AZAgent` (``"az"``, ``"<game>-az-v1"``) searches every move with
  :func:`monster_zoo.agents.az_search.gumbel_search`: ``simulations`` simulations per move
  (:data:`DEFAULT_SIMULATIONS`; see ``training/AZ.md`` for what a move costs), determinized for
  the seat on move, so its choice does not depend on what that seat cannot see. Without
  ``gumbel_scale`` its only randomness is the redeal of each simulation, drawn from its own
  generator: a seed fixes every decision.
* :class:`AZNetAgent` (``"az-net"``) plays the legal action of highest logit from its own
  observation: no state, no search, no randomness.

A network trained by ``python -m monster_zoo.training.az`` loads from its file
(:func:`load_az`); the shipped network of a game, when there is one, lies at
:func:`shipped_network_path`.
"""
from pathlib import Path
from typing import Mapping, Optional, Union

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_NUM_PLAYERS

from .az_network import AZNetwork, check_fits, evaluate, masked_argmax, read_network
from .az_search import AZTree, SearchSettings, gumbel_search
from .base import Agent
from .mcts_tree import no_determinize

DEFAULT_SIMULATIONS = 200
CHAMPION_DIR = Path(__file__).with_name("champions")
VERSION = 1


def shipped_network_path(game_id: str, version: int = VERSION) -> Path:
    """Where the network shipped for ``game_id`` (version ``version``) lies, whether or not it does."""
    return CHAMPION_DIR / f"{envs.spec(game_id).name}-az-v{version}.npz"


def _network(network: Union[AZNetwork, str, Path], game_id: Optional[str], options: Optional[Mapping]):
    """``(network, game_id, num_players)`` for a network or the path of its file, checked against
    ``game_id`` with ``options`` (default: the network's own game)."""
    source = repr(str(network)) if not isinstance(network, AZNetwork) else repr(network.name)
    if not isinstance(network, AZNetwork):
        network = read_network(network)
    game_id = game_id or network.game_id
    return network, game_id, check_fits(network, source, game_id, options)


class AZAgent(Agent):
    """Search guided by ``network``: ``simulations`` per move, settings as
    :class:`~monster_zoo.agents.az_search.SearchSettings`. ``determinize=False`` searches the state
    as given (for tests of perfect-information positions). After each move ``tree`` holds the
    search and ``policy`` its improved policy."""

    name = "az"
    needs_state = True

    def __init__(self, seed: int = 0, network: Union[AZNetwork, str, Path, None] = None,
                 game_id: Optional[str] = None, options: Optional[Mapping] = None,
                 simulations: int = DEFAULT_SIMULATIONS, considered: int = 16, gumbel_scale: float = 0.0,
                 c_puct: float = 1.25, determinize: bool = True):
        if network is None:
            raise ValueError("the az agent needs a network: make_agent('az:<network.npz>', ...) or network=")
        self.network, game_id, self.num_players = _network(network, game_id, options)
        self.spec = envs.spec(game_id)
        self.settings = SearchSettings(int(simulations), int(considered), float(gumbel_scale), float(c_puct))
        self.determinize = bool(determinize)
        self.tree = AZTree(self.settings.simulations + 1, self.spec.num_actions)
        self.policy = np.zeros(self.spec.num_actions, np.float32)
        self._settings = self.settings.as_array()
        super().__init__(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            state: Optional[np.ndarray] = None) -> int:
        """The search's choice for the seat on move in ``state`` (left unmodified)."""
        if state is None:
            raise ValueError("the az agent searches the engine state (needs_state = True)")
        root = np.array(state, dtype=np.int32)  # a copy: the live state is never touched
        if root.shape != (self.spec.state_size,) or int(root[H_NUM_PLAYERS]) != self.num_players:
            raise ValueError(f"the az agent was made for {self.spec.env_id} with {self.num_players} players; "
                             f"this state has {root.shape[0]} entries and "
                             f"{int(root[H_NUM_PLAYERS]) if root.size else 0} players")
        if not np.any(action_mask):
            raise ValueError("the action mask allows no action: this agent is not on move")
        s = self.spec
        hidden = self.determinize and s.determinize is not None
        return int(gumbel_search(root, self._settings, hidden, self.rng, self.network.params, self.network.shapes,
                                 self.tree.children, self.tree.visits, self.tree.values, self.tree.priors,
                                 self.policy, s.legal_mask, s.apply_action, s.returns, s.observe_into,
                                 s.determinize if hidden else no_determinize))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, network={self.network.name!r}, {self.settings})"


class AZNetAgent(Agent):
    """The network alone: the legal action of highest logit (the policy head's argmax)."""

    name = "az-net"

    def __init__(self, seed: int = 0, network: Union[AZNetwork, str, Path, None] = None,
                 game_id: Optional[str] = None, options: Optional[Mapping] = None):
        if network is None:
            raise ValueError("the az-net agent needs a network: make_agent('az-net:<network.npz>', ...) or network=")
        self.network, game_id, self.num_players = _network(network, game_id, options)
        self.spec = envs.spec(game_id)
        super().__init__(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  states: Optional[np.ndarray] = None) -> np.ndarray:
        """The argmax of the masked logits for every row."""
        masks = np.ascontiguousarray(masks, dtype=np.int8)
        if masks.ndim != 2 or masks.shape[1] != self.spec.num_actions or not masks.any(axis=1).all():
            raise ValueError(f"every row needs a mask of {self.spec.num_actions} entries with a legal action")
        logits, _ = evaluate(self.network, observations, self.num_players)
        return np.array([masked_argmax(logits[r], masks[r]) for r in range(len(masks))], np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            state: Optional[np.ndarray] = None) -> int:
        """The legal action of highest logit."""
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value head for observation rows: ``[rows, 6]``, entry k the seat k after the mover."""
        return evaluate(self.network, observations, self.num_players)[1]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, network={self.network.name!r})"


def load_az(path, game_id: str, seed: int = 0, options: Optional[Mapping] = None, alone: bool = False,
            **settings) -> Agent:
    """The search (or with ``alone`` the network alone) over the network file ``path``, checked
    against ``game_id`` with ``options``; ``settings`` go to :class:`AZAgent`."""
    network = read_network(path)
    agent = AZNetAgent(seed, network, game_id, options) if alone else AZAgent(seed, network, game_id, options,
                                                                             **settings)
    agent.name = f"{network.name}-net" if alone else network.name  # tables name a model by its file's name
    return agent


def _shipped(game_id: str) -> AZNetwork:
    """The network shipped for ``game_id``; ValueError when none ships yet."""
    path = shipped_network_path(game_id)
    if not path.is_file():
        raise ValueError(f"no az network ships for {game_id} yet; train one with "
                         f"'python -m monster_zoo.training.az --game {game_id}' and play its network file")
    return read_network(path)


class ShippedAZ(AZAgent):
    """``"az"``: the search over the network shipped for the game."""

    def __init__(self, seed: int = 0, game_id: Optional[str] = None, options: Optional[Mapping] = None):
        if game_id is None:
            raise ValueError("the shipped az agent plays one game: pass game_id")
        super().__init__(seed, _shipped(game_id), game_id, options)


class ShippedAZNet(AZNetAgent):
    """``"az-net"``: the network shipped for the game, alone."""

    def __init__(self, seed: int = 0, game_id: Optional[str] = None, options: Optional[Mapping] = None):
        if game_id is None:
            raise ValueError("the shipped az-net agent plays one game: pass game_id")
        super().__init__(seed, _shipped(game_id), game_id, options)

