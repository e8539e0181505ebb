"""``python -m training``: the monster-zoo command line (see ``training.cli``)."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
