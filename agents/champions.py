"""``python -m monster_zoo.agents.champions [--write-manifest]``: check the shipped model files against
their manifest, or regenerate it (the command lives in :mod:`monster_zoo.agents.shipped_files`; this
name is the one the champions' README and the trainers' notes give)."""

from monster_zoo.agents.shipped_files import main

if __name__ == "__main__":
    raise SystemExit(main())
