"""Agents of learned search: ``az`` (the network guiding a search) and ``az-net`` (the network alone).

Both play a network file of :mod:`monster_zoo.agents.network` with numba alone (no torch),
and refuse a game, rule option or player count the network was not trained for. An agent is
made for one player count among the network's (the count is one of the network's inputs): its
``made_for`` is the game with that count and the network's rule options, and it refuses any
other game, count or rule option where it acts and where a game starts
(:meth:`~monster_zoo.agents.base.Agent.check_view`, :meth:`~monster_zoo.agents.base.Agent.check_game`).

* :class:`AZAgent` (``"az"``, ``"<game>-az-vK"``) searches every move with
  :func:`monster_zoo.agents.az.search.gumbel_search`: ``simulations`` simulations per move
  (:data:`DEFAULT_SIMULATIONS`; see ``training/AZ.md`` for what a move costs), determinized for
  the seat on move, so its choice does not depend on what that seat cannot see. With
  ``rollout_weight`` above 0 a new leaf's value mixes in a rollout of the game's tuned ``mcts``
  rollout policy (the ``search`` of the game's declaration, :func:`monster_zoo.agents.search.tuned.search_config`). Without ``gumbel_scale``
  its only randomness is the redeal of each simulation (and its rollouts), drawn from its own
  generator: a seed fixes every decision.
* :class:`AZNetAgent` (``"az-net"``) plays the legal action of highest logit from its own
  observation: no state, no search, no randomness.

A network trained by ``python -m monster_zoo.training.az`` (``monster-zoo az``) loads from its
file (:func:`load_az`; ``make_agent("az:<network.npz>", ...)``, ``"az-net:<network.npz>"``); each
version of the network shipped for a game lies at :func:`~monster_zoo.agents.az.shipped.shipped_network_path` and loads only if the
champions' manifest lists it with its SHA-256 digest
(:func:`monster_zoo.agents.shipped_files.verify_shipped`).
"""

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.az.search import AZTree, SearchSettings, belief_gumbel_search
from monster_zoo.agents.az.shipped import (
    belief_versions,
    network_ships,
    network_version,
    newest_version,
    play_settings,
)
from monster_zoo.agents.az.shipped_network import shipped_network
from monster_zoo.agents.base import Agent, state_needed
from monster_zoo.agents.belief.believing import Believing
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.game_rules import GameRules
from monster_zoo.agents.network import AZNetwork, check_fits, evaluate, masked_argmax, read_network
from monster_zoo.agents.search.tree import no_determinize
from monster_zoo.agents.search.tuned import search_config, tuned_rollout

DEFAULT_SIMULATIONS = 200
PROBE_SIMULATIONS = 200  # the timed search that sizes a budget_ms agent's simulations
MAX_BUDGET_MS = 60_000.0  # a budget per move above a minute is a mistake
MAX_SIZED_SIMULATIONS = 1_000_000  # the tree a sized search may allocate


def _network(network: AZNetwork | str | Path, game_id: str | None, options: Mapping | None):
    """``(network, game_id, num_players, made_for)`` for a network or the path of its file, checked
    against ``game_id`` with ``options`` (default: the network's own game)."""
    source = repr(str(network)) if not isinstance(network, AZNetwork) else repr(network.name)
    if not isinstance(network, AZNetwork):
        network = read_network(network)
    game_id = game_id or network.game_id
    num_players = check_fits(network, source, game_id, options)
    made_for = GameRules.from_options(game_id, {**network.options, "num_players": num_players})
    return network, game_id, num_players, made_for


class AZAgent(Believing, Agent):
    """Search guided by ``network``: ``simulations`` per move, settings as
    :class:`~monster_zoo.agents.az.search.SearchSettings`. ``determinize=False`` searches the state
    as given (for tests of perfect-information positions). ``belief`` (as
    :class:`~monster_zoo.agents.search.agent.MCTSAgent` takes it) starts the simulations from the
    seat's belief in a game that hides information, kept from what the game's loop tells
    :meth:`~monster_zoo.agents.belief.believing.Believing.watch`. After each move ``tree`` holds the
    search and ``policy`` its improved policy. ``selection`` and ``exploration`` choose the rule
    that picks the simulations' actions and UCT's constant (:class:`~monster_zoo.agents.az.search.SearchSettings`).

    ``budget_ms`` (default None: ``simulations`` as given) makes the budget a CPU time per move,
    sized on the host: at its first move the agent times a search of :data:`PROBE_SIMULATIONS` on
    that position (``time.process_time``, with a copy of its generator, so its own draws are
    untouched) and plays from then on the simulations that fit the budget. That count,
    ``settings.simulations``, is the budget's seeded, reproducible form: an agent made with it and
    the same seed makes the same moves on any machine."""

    name = "az"
    needs_state = True
    version: int | None = None  # the version of a shipped network (ShippedAZ); None: a network file

    def __init__(
        self,
        seed: int = 0,
        network: AZNetwork | str | Path | None = None,
        game_id: str | None = None,
        options: Mapping | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        considered: int = 16,
        gumbel_scale: float = 0.0,
        c_puct: float = 1.25,
        determinize: bool = True,
        min_spread: float = SearchSettings.min_spread,
        rollout_weight: float = 0.0,
        budget_ms: float | None = None,
        belief: BeliefSettings | dict | bool | None = None,
        selection: str = SearchSettings.selection,
        exploration: float = SearchSettings.exploration,
    ):
        if budget_ms is not None and (
            isinstance(budget_ms, bool)
            or not isinstance(budget_ms, (int, float))
            or not 0 < budget_ms <= MAX_BUDGET_MS
        ):
            raise ValueError(
                f"budget_ms must be a number of CPU milliseconds per move above 0 and at most "
                f"{MAX_BUDGET_MS:,.0f}, or None (the simulations as given); got {budget_ms!r}"
            )
        self.budget_ms = None if budget_ms is None else float(budget_ms)
        if network is None:
            raise ValueError("the az agent needs a network: make_agent('az:<network.npz>', ...) or network=")
        self.network, game_id, self.num_players, self.made_for = _network(network, game_id, options)
        self.spec = envs.spec(game_id)
        self.settings = SearchSettings(
            int(simulations),
            int(considered),
            float(gumbel_scale),
            float(c_puct),
            min_spread=float(min_spread),
            rollout_weight=float(rollout_weight),
            selection=selection,
            exploration=float(exploration),
        )
        self.rollout = tuned_rollout(game_id)
        self.determinize = bool(determinize)
        self.tree = AZTree(self.settings.simulations + 1, self.spec.num_actions)
        self.policy = np.zeros(self.spec.num_actions, np.float32)
        self._settings = self.settings.as_array()
        self.keep_belief(belief, game_id, self.determinize, self.network)
        self._particles = np.empty((0, self.spec.state_size), np.int32)
        self._cumulative = np.empty(0, np.float64)
        super().__init__(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The search's choice for the seat on move in ``state`` (left unmodified); WrongGameError
        for a state, mask or observation of a game it was not made for."""
        if state is None:
            raise state_needed("the az agent", "searches the engine state")
        self.check_view(observation, action_mask, state)
        root = np.array(state, dtype=np.int32)  # a copy: the live state is never touched
        if root.shape != (self.spec.state_size,):  # even made for no game: the kernels index it unchecked
            raise ValueError(
                f"the az agent plays {self.spec.env_id}, whose state has {self.spec.state_size} "
                f"entries; this one has shape {root.shape}"
            )
        if not np.any(action_mask):
            raise ValueError("the action mask allows no action: this agent is not on move")
        self._particles, self._cumulative = self.belief_particles(root)
        if self.budget_ms is not None:
            self._size_to_budget(root)
        return int(self._search(root, self._settings, self.rng))

    def _search(self, root: np.ndarray, settings: np.ndarray, rng: np.ndarray) -> int:
        """One search of ``root`` with the settings vector ``settings`` and generator ``rng``."""
        s = self.spec
        hidden = self.determinize and s.determinize is not None
        return belief_gumbel_search(
            root,
            settings,
            hidden,
            rng,
            self.network.params,
            self.network.shapes,
            self.tree.children,
            self.tree.visits,
            self.tree.values,
            self.tree.priors,
            self.policy,
            s.legal_mask,
            s.apply_action,
            s.returns,
            s.observe_into,
            s.determinize if hidden else no_determinize,
            self.rollout,
            self._particles,
            self._cumulative,
        )

    def _size_to_budget(self, root: np.ndarray) -> None:
        """Set the simulations that make a move cost ``budget_ms`` CPU milliseconds here, timed on
        ``root`` with a copy of the generator (once: the count is then fixed)."""
        probe = dataclasses.replace(self.settings, simulations=PROBE_SIMULATIONS)
        if not self.tree.fits(PROBE_SIMULATIONS, self.spec.num_actions):
            self.tree = AZTree(PROBE_SIMULATIONS + 1, self.spec.num_actions)
        self._search(
            root, dataclasses.replace(probe, simulations=2).as_array(), self.rng.copy()
        )  # loaded, warm
        start = time.process_time()
        self._search(root, probe.as_array(), self.rng.copy())
        per_simulation_ms = 1000 * (time.process_time() - start) / PROBE_SIMULATIONS
        simulations = int(min(MAX_SIZED_SIMULATIONS, max(1, self.budget_ms / max(per_simulation_ms, 1e-6))))
        self.settings = dataclasses.replace(self.settings, simulations=simulations)
        self._settings = self.settings.as_array()
        if not self.tree.fits(simulations, self.spec.num_actions):
            self.tree = AZTree(simulations + 1, self.spec.num_actions)
        self.budget_ms = None

    def __repr__(self) -> str:
        pending = (
            "" if self.budget_ms is None else f", budget_ms={self.budget_ms:g} (sized at its first move)"
        )
        shipped = "" if self.version is None else f"version={self.version}, "
        return (
            f"{type(self).__name__}(seed={self.seed}, {shipped}network={self.network.name!r}, "
            f"{self.settings}{pending})"
        )


class AZNetAgent(Agent):
    """The network alone: the legal action of highest logit (the policy head's argmax)."""

    name = "az-net"
    version: int | None = None  # the version of a shipped network (ShippedAZNet); None: a network file

    def __init__(
        self,
        seed: int = 0,
        network: AZNetwork | str | Path | None = None,
        game_id: str | None = None,
        options: Mapping | None = None,
    ):
        if network is None:
            raise ValueError(
                "the az-net agent needs a network: make_agent('az-net:<network.npz>', ...) or network="
            )
        self.network, game_id, self.num_players, self.made_for = _network(network, game_id, options)
        self.spec = envs.spec(game_id)
        super().__init__(seed)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, states: np.ndarray | None = None
    ) -> np.ndarray:
        """The argmax of the masked logits for every row; WrongGameError for rows of a game it was
        not made for."""
        self.check_view(observations, masks, states)
        masks = np.ascontiguousarray(masks, dtype=np.int8)
        if masks.ndim != 2 or masks.shape[1] != self.spec.num_actions or not masks.any(axis=1).all():
            raise ValueError(f"every row needs a mask of {self.spec.num_actions} entries with a legal action")
        logits, _ = evaluate(self.network, observations, self.num_players)
        return np.array([masked_argmax(logits[r], masks[r]) for r in range(len(masks))], np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The legal action of highest logit."""
        states = None if state is None else np.asarray(state)[None]
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], states)[0])

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy head's softmax over the legal actions of each row, illegal actions at zero
        (rows as inputs; as :meth:`~monster_zoo.agents.ppo.agent.PPOAgent.probabilities`, so either can
        teach); its most probable action is the one :meth:`act_batch` plays."""
        masks = np.asarray(masks)
        if masks.ndim != 2 or masks.shape[1] != self.spec.num_actions or not masks.any(axis=1).all():
            raise ValueError(f"every row needs a mask of {self.spec.num_actions} entries with a legal action")
        logits, _ = evaluate(self.network, observations, self.num_players)
        x = np.where(masks != 0, logits.astype(np.float64), -np.inf)
        x = np.exp(x - x.max(axis=1, keepdims=True))
        return x / x.sum(axis=1, keepdims=True)

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value head for observation rows: ``[rows, 6]``, entry k the seat k after the mover."""
        return evaluate(self.network, observations, self.num_players)[1]

    def __repr__(self) -> str:
        shipped = "" if self.version is None else f"version={self.version}, "
        return f"{type(self).__name__}(seed={self.seed}, {shipped}network={self.network.name!r})"


def load_az(
    path, game_id: str, seed: int = 0, options: Mapping | None = None, alone: bool = False, **settings
) -> Agent:
    """The search (or with ``alone`` the network alone) over the network file ``path``, checked
    against ``game_id`` with ``options``; ``settings`` go to :class:`AZAgent`."""
    network = read_network(path)
    agent = (
        AZNetAgent(seed, network, game_id, options)
        if alone
        else AZAgent(seed, network, game_id, options, **settings)
    )
    agent.name = f"{network.name}-net" if alone else network.name  # tables name a model by its file's name
    return agent


def shipped_player_counts(game_id: str, version: int | None = None) -> list[int]:
    """The player counts version ``version`` (None: the newest) of the network shipped for
    ``game_id`` plays (empty when none ships)."""
    return list(shipped_network(game_id, version).player_counts) if network_ships(game_id) else []


class ShippedAZ(AZAgent):
    """``"az"``: the search over version ``version`` (None: the newest) of the network shipped for
    the game, with that version's budget (:func:`~monster_zoo.agents.az.shipped.play_settings`:
    simulations and rollout weight).

    With ``timed``, ``"az-timed"``: the same search at that version's CPU-time budget per move
    (``budget_ms``, the game's ``mcts`` move's time on the development machine), its simulations
    sized on this host at its first move. Its moves then depend on the host's speed; the count it
    sized (``settings.simulations``, in its ``repr``) replays them on any machine as
    ``AZAgent(seed, network, simulations=that count)``.

    A belief version (:func:`~monster_zoo.agents.az.shipped.belief_versions`) searches its network
    with the seat's belief at the belief settings the game declares with its tuned search."""

    def __init__(
        self,
        seed: int = 0,
        game_id: str | None = None,
        options: Mapping | None = None,
        timed: bool = False,
        version: int | None = None,
    ):
        kind = "az-timed" if timed else "az"
        if game_id is None:
            raise ValueError(f"the shipped {kind} agent plays one game: pass game_id")
        beliefs = belief_versions(game_id)
        self.version = newest_version(game_id) if version is None else version
        network = shipped_network(game_id, None if version is None else network_version(game_id, version))
        budget = play_settings(game_id, self.version)
        if timed and budget.budget_ms is None:
            raise ValueError(
                f"{game_id} declares no CPU-time budget for its az version {self.version} "
                f"(agents={{'az': {{'budget_ms': ...}}}}, or the version's own under 'versions'), so "
                f"az-timed has nothing to size; play az (a fixed simulation count)"
            )
        super().__init__(
            seed,
            network,
            game_id,
            options,
            simulations=budget.simulations,
            rollout_weight=budget.rollout_weight,
            budget_ms=budget.budget_ms if timed else None,
            belief=search_config(game_id).belief if self.version in beliefs else None,
        )
        self.name = f"{self.spec.name}-{kind}-v{self.version}"


class ShippedAZNet(AZNetAgent):
    """``"az-net"``: version ``version`` (None: the newest) of the network shipped for the game, alone."""

    def __init__(
        self,
        seed: int = 0,
        game_id: str | None = None,
        options: Mapping | None = None,
        version: int | None = None,
    ):
        if game_id is None:
            raise ValueError("the shipped az-net agent plays one game: pass game_id")
        network = shipped_network(game_id, version)
        self.version = newest_version(game_id) if version is None else version
        super().__init__(seed, network, game_id, options)
        self.name = f"{self.spec.name}-az-net-v{self.version}"
