"""``python -m agents``: the match runner (see ``agents.match``)."""
from .match import main

if __name__ == "__main__":
    raise SystemExit(main())
