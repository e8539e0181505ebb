"""TorchRL's and tensordict's parts that the array-side trainer takes, imported without changing the
program's multiprocessing start method.

Importing ``torchrl`` sets the process-wide start method to "spawn" where that is its preferred one
(its ``__init__``). That silently changes every process pool the rest of the program opens: the
leaderboard's and the tournaments' workers would then start from a fresh interpreter instead of a
fork, recompiling their kernels and losing what the parent set up. The trainer starts no processes
of TorchRL's, so the start method is put back as it was.
"""

import multiprocessing

_start_method = multiprocessing.get_start_method(allow_none=True)
try:
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value.functional import generalized_advantage_estimate
finally:
    if multiprocessing.get_start_method(allow_none=True) != _start_method:
        multiprocessing.set_start_method(_start_method, force=True)

__all__ = [
    "TensorDict",
    "TensorDictModule",
    "MaskedCategorical",
    "ProbabilisticActor",
    "ValueOperator",
    "ClipPPOLoss",
    "generalized_advantage_estimate",
]
