"""
# MONSTArgh!

(docs page: written below once the numbers are measured)
"""
from .monstargh.env import SPEC, env, raw_env

__all__ = ["SPEC", "env", "raw_env"]
