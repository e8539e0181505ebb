"""``python -m monster_zoo.agents``: the match runner (see ``monster_zoo.evaluation.match``)."""

from monster_zoo.evaluation.match import main

if __name__ == "__main__":
    raise SystemExit(main())
