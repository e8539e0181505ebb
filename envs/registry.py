"""Registry of games by id (``<game>-v<version>``): ``make`` (AEC env), ``make_batch`` (batched
engine), ``make_vec_env`` (SB3 self-play VecEnv), ``make_learner_env`` (gymnasium),
``make_vector_env`` (gymnasium VectorEnv), ``make_torchrl_env`` (TorchRL) and ``available``.

Every game is also registered with gymnasium as ``monster_zoo/<game>-learner-v<version>``
(the single-agent learner env), so ``gymnasium.make("monster_zoo/marry_the_monster-learner-v0",
num_players=2)`` works once ``monster_zoo`` is imported, with gymnasium's usual wrappers
(``max_episode_steps``, the passive env checker, order enforcing), and
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` gives :func:`make_vector_env`.
"""

import importlib
import importlib.util
import os
import pkgutil
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np

# id -> the module of its page (``SPEC``, ``env``, ``raw_env`` and, for declared games, ``GAME``),
# or, for a game registered by its declaration, a namespace holding the same names
_GAMES: dict[str, str | SimpleNamespace] = {}
_UNLISTED: set = set()
# A game's page module is named after its id: envs/<name>_v<version>.py.
_PAGE = re.compile(r"(?P<name>[a-z][a-z0-9_]*)_v(?P<version>\d+)")


def register(game, module: str | None = None, *, listed: bool = True) -> None:
    """Register a game, and its learner env with gymnasium as :func:`gymnasium_id` ``(game_id)``.

    ``register(game_id, module)`` registers the id (e.g. ``"marry_the_monster-v0"``) served by the
    module named ``module`` (holding ``SPEC``, ``env`` and ``raw_env``); ``register(GAME)`` registers
    a declaration (:class:`monster_zoo.envs.core.game.Game`) directly. ``listed=False`` keeps the
    game out of :func:`available` (every other function serves it), for games used only by tests.
    The shipped games need no call: they are found by their page modules' file names.
    """
    entry: str | SimpleNamespace
    if isinstance(game, str):
        if not isinstance(module, str):
            raise TypeError(f"register({game!r}, module): module must name the module that serves the game")
        game_id, entry = game, module
    else:
        if module is not None:
            raise TypeError("register(GAME) takes no module: the declaration is the whole game")
        game_id = game.id
        entry = SimpleNamespace(GAME=game, SPEC=game.spec, env=game.env, raw_env=game.raw_env)
    _GAMES[game_id] = entry
    if listed:
        _UNLISTED.discard(game_id)
    else:
        _UNLISTED.add(game_id)
    _register_with_gymnasium(game_id)


def available() -> list[str]:
    """Ids of every registered game (those registered with ``listed=False`` left out)."""
    return sorted(set(_GAMES) - _UNLISTED)


def registered(game_id: str) -> bool:
    """Whether ``game_id`` is registered, listed in :func:`available` or not."""
    return game_id in _GAMES


def _module(game_id: str):
    if game_id not in _GAMES:
        raise ValueError(f"unknown game {game_id!r}; available: {', '.join(available())}")
    entry = _GAMES[game_id]
    return importlib.import_module(entry) if isinstance(entry, str) else entry


def declaration(game_id: str):
    """The declaration (:class:`monster_zoo.envs.core.game.Game`) of ``game_id``; None for a game
    registered by a module without one."""
    return getattr(_module(game_id), "GAME", None)


def _discover() -> dict[str, str]:
    """Game id -> page module of every game page in this package, found by file name alone (no
    game is imported: ``import monster_zoo`` stays light)."""
    found = {}
    for info in pkgutil.iter_modules([str(Path(__file__).resolve().parent)]):
        match = _PAGE.fullmatch(info.name)
        if match and not info.ispkg:
            found[f"{match['name']}-v{match['version']}"] = f"{__package__}.{info.name}"
    return found


def kernels_cached(game_id: str) -> bool:
    """Whether numba's on-disk cache beside ``game_id``'s package holds compiled kernels, checked
    without importing the game (the import is what compiles a cold cache). A guess for progress
    messages only: True where the cache lives elsewhere (``NUMBA_CACHE_DIR``)."""
    if game_id not in _GAMES:
        raise ValueError(f"unknown game {game_id!r}; available: {', '.join(available())}")
    if os.environ.get("NUMBA_CACHE_DIR"):
        return True
    entry = _GAMES[game_id]
    if not isinstance(entry, str):  # registered by its declaration: its kernels are loaded already
        return True
    package = importlib.util.find_spec(entry.rsplit("_v", 1)[0])
    if package is None or not package.submodule_search_locations:
        return True
    return any((Path(package.submodule_search_locations[0]) / "__pycache__").glob("*.nbi"))


def spec(game_id: str):
    """What generic code reads of ``game_id``: its declaration (:class:`~monster_zoo.envs.core.game.Game`),
    or the :class:`~monster_zoo.envs.core.contract.GameSpec` of a game registered by a module."""
    return _module(game_id).SPEC


def make(game_id: str, wrapped: bool = True, **options):
    """A PettingZoo AEC env; ``wrapped=False`` gives the raw env without wrappers."""
    module = _module(game_id)
    return module.env(**options) if wrapped else module.raw_env(**options)


def config(game_id: str, options: dict) -> np.ndarray:
    """Validate ``options`` for ``game_id`` and return its kernel config vector."""
    from .core.options import resolve_options

    s = spec(game_id)
    return s.make_config(resolve_options(game_id, s.options, options))


DEVICES = ("cpu", "cuda")


def make_batch(game_id: str, num_envs: int, seed: int = 0, device: str = "cpu", **options):
    """A :class:`~monster_zoo.envs.core.batch.BatchEngine` of ``num_envs`` games (slot i seeded
    ``(seed + i) mod 2**63``); ``num_envs`` an integer >= 1 and ``seed`` a non-negative integer,
    else ValueError (see :mod:`monster_zoo.envs.core.inputs`). ``device="cuda"``: the same games on
    an NVIDIA GPU (:class:`~monster_zoo.envs.gpu.engine.GpuBatchEngine`, the ``gpu`` extra), refused
    with RuntimeError saying what to install or check where numba-cuda or a GPU is missing."""
    if device not in DEVICES:
        raise ValueError(f"{game_id}: device must be one of {', '.join(map(repr, DEVICES))}, got {device!r}")
    config_vector = _engine_options(game_id, options)
    if device == "cuda":
        from .gpu import require_gpu

        require_gpu()
        from .gpu.engine import GpuBatchEngine

        return GpuBatchEngine(spec(game_id), config_vector, num_envs, seed)
    from .core.batch import BatchEngine

    return BatchEngine(spec(game_id), config_vector, num_envs, seed)


def _engine_options(game_id: str, options: dict) -> np.ndarray:
    """The config of ``options`` for engines that have no AEC-only options."""
    for ignored in ("render_mode", "illegal_action", "observation"):
        if ignored in options:
            raise TypeError(f"{game_id}: option {ignored!r} applies to the AEC env, not the batched engine")
    return config(game_id, options)


def make_vec_env(
    game_id: str,
    num_envs: int,
    opponents=None,
    weights=None,
    seed: int = 0,
    illegal_action: str = "raise",
    **options,
):
    """An SB3 :class:`~monster_zoo.envs.core.sb3_vec_env.SelfPlayVecEnv` for ``sb3_contrib.MaskablePPO``.

    Each of the ``num_envs`` games gives the learner a random seat; the other
    seats are played by an opponent drawn from ``opponents`` (objects with
    ``act_batch``, e.g. ``monster_zoo.agents.make_agent(...)``) with ``weights``; with
    ``opponents=None`` every other seat plays uniformly random legal actions
    (``RandomOpponent``, stepped inside numba). ``illegal_action``: ``"raise"`` (ValueError, nothing changes) or
    ``"penalize"`` (the learner loses that game). Needs the ``train`` extra.
    """
    from .core.sb3_vec_env import SelfPlayVecEnv

    return SelfPlayVecEnv(
        spec(game_id), _engine_options(game_id, options), num_envs, opponents, weights, seed, illegal_action
    )


def make_learner_env(
    game_id: str, opponents=None, weights=None, render_mode=None, illegal_action: str = "raise", **options
):
    """A gymnasium single-agent :class:`~monster_zoo.envs.core.gym_env.LearnerEnv`: one learner seat, the
    other seats played by ``opponents`` (``None``, as through ``gymnasium.make``: every other seat
    plays uniformly random legal actions, ``RandomOpponent``, inside numba); ``illegal_action`` as
    in :func:`make_vec_env`."""
    from .core.gym_env import LearnerEnv

    return LearnerEnv(
        spec(game_id), _engine_options(game_id, options), opponents, weights, render_mode, illegal_action
    )


def make_vector_env(
    game_id: str,
    num_envs: int,
    opponents=None,
    weights=None,
    seed: int | None = None,
    device: str = "cpu",
    illegal_action: str = "raise",
    observation: str = "flat",
    autoreset_mode: str = "SameStep",
    render_mode: str | None = None,
    render_slot: int = 0,
    **options,
):
    """A gymnasium ``VectorEnv`` (:class:`~monster_zoo.envs.gym_vector_env.LearnerVectorEnv`) of
    ``num_envs`` learner-seat games, also ``gymnasium.make_vec(gymnasium_id(game_id), num_envs,
    vectorization_mode="vector_entry_point")``. Opponents, ``weights`` and ``illegal_action`` as in
    :func:`make_vec_env`; ``seed`` None (fresh entropy) or a non-negative integer; ``device`` ``"cpu"``
    (numpy arrays) or ``"cuda"`` (torch tensors on the GPU, the ``gpu`` extra and torch);
    ``observation`` ``"flat"`` (a Box, masks in ``info["action_mask"]``) or ``"dict"``
    (``{"observation", "action_mask"}``); ``autoreset_mode`` ``"SameStep"`` or ``"NextStep"`` (CPU);
    ``render_mode`` None, ``"ansi"`` or ``"human"`` (the table of game ``render_slot``). The rest are the
    game's options."""
    from .gym_vector_env import LearnerVectorEnv

    return LearnerVectorEnv(
        spec(game_id),
        _engine_options(game_id, options),
        num_envs,
        opponents,
        weights,
        seed,
        device,
        illegal_action,
        observation,
        autoreset_mode,
        render_mode,
        render_slot,
    )


def make_torchrl_env(
    game_id: str,
    num_envs: int,
    form: str = "learner",
    device: str = "cpu",
    seed: int | None = None,
    opponents=None,
    weights=None,
    illegal_action: str = "raise",
    **options,
):
    """A TorchRL ``EnvBase`` of ``num_envs`` games, ``batch_size=[num_envs]`` (the ``torchrl`` extra):
    ``form="learner"`` (one seat learns against ``opponents``, as :func:`make_vector_env`, on
    ``device`` ``"cpu"`` or ``"cuda"``) or ``form="selfplay"`` (every seat learns, TorchRL's
    multi-agent keys under ``"agents"``; CPU). See :mod:`monster_zoo.envs.torchrl_env`."""
    where = f"{game_id} TorchRL env"
    forms = ("learner", "selfplay")
    if form not in forms:
        raise ValueError(f"{where}: form={form!r} is not valid; valid values: {', '.join(map(repr, forms))}")
    if device not in DEVICES:
        raise ValueError(
            f"{where}: device={device!r} is not valid; valid values: {', '.join(map(repr, DEVICES))}"
        )
    if form == "selfplay":
        if device != "cpu":
            raise ValueError(f"{where}: form='selfplay' runs on the CPU; pass device='cpu' or form='learner'")
        if opponents is not None or weights is not None or illegal_action != "raise":
            raise ValueError(
                f"{where}: form='selfplay' plays every seat itself and refuses illegal actions; "
                f"leave opponents, weights and illegal_action out or pass form='learner'"
            )
    config_vector = _engine_options(game_id, options)
    if form == "selfplay":
        from .core.inputs import check_num_envs, check_seed
        from .core.rng import entropy_seed

        check_num_envs(num_envs, where)
        seed = entropy_seed() if seed is None else check_seed(seed, where, allow_none=False)
        from .torchrl_env import SelfPlayTorchRLEnv

        return SelfPlayTorchRLEnv(spec(game_id), config_vector, num_envs, seed)
    from .gym_vector_env import LearnerVectorEnv
    from .torchrl_env import LearnerTorchRLEnv

    vector_env = LearnerVectorEnv(
        spec(game_id), config_vector, num_envs, opponents, weights, seed, device, illegal_action
    )
    return LearnerTorchRLEnv(vector_env)


GYMNASIUM_NAMESPACE = "monster_zoo"


def gymnasium_id(game_id: str) -> str:
    """The gymnasium id of ``game_id``'s learner env: ``marry_the_monster-v0`` ->
    ``monster_zoo/marry_the_monster-learner-v0``."""
    name, version = game_id.rsplit("-", 1)
    return f"{GYMNASIUM_NAMESPACE}/{name}-learner-{version}"


def _register_with_gymnasium(game_id: str) -> None:
    """Register ``game_id``'s learner env with gymnasium (once).

    No ``max_episode_steps`` by default: the game truncates itself after its ``max_steps``
    option (reported as ``truncated``); ``gymnasium.make(..., max_episode_steps=N)`` adds
    gymnasium's own limit on the learner's actions.
    """
    import gymnasium

    if gymnasium_id(game_id) not in gymnasium.registry:
        gymnasium.register(  # the entry points by name, gymnasium's convention
            id=gymnasium_id(game_id),
            entry_point="monster_zoo.envs.registry:make_learner_env",
            vector_entry_point="monster_zoo.envs.registry:make_vector_env",
            kwargs={"game_id": game_id},
        )


def single_state_random_steps(game_id: str, num_steps: int, seed: int = 0, **options) -> int:
    """Play one ``game_id`` state through ``num_steps`` random legal actions; return games finished."""
    from .core.batch import random_playout

    return random_playout(spec(game_id), config(game_id, options), num_steps, seed)[2]


for _id, _page in _discover().items():
    register(_id, _page)
