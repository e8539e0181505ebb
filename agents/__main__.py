"""``python -m monster_zoo.agents``: the match runner (see ``monster_zoo.agents.match``)."""
from .match import main

if __name__ == "__main__":
    raise SystemExit(main())
