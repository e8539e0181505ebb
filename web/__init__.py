"""Play and watch every game in the browser: ``monster-zoo serve`` (needs the ``web`` extra).

A local web app on Starlette and uvicorn: choose a game, its options and who sits where
(people at this screen or any registered agent), play by clicking on the game's own picture
or on a move's name (said in words where names use codes), watch agents play with pause, step
and speed, and open any match record in the replay viewer. The rules stay in the kernels:
moves are checked and applied by the AEC env, named by the game, and each seat is sent only
what that seat may see.

- :mod:`~monster_zoo.web.app`: the Starlette application and its JSON API;
- :mod:`~monster_zoo.web.game_session`: one game in memory, its agents thinking off the request path;
- :mod:`~monster_zoo.web.views`: what one viewer is sent; :mod:`~monster_zoo.web.catalogue` and
  :mod:`~monster_zoo.web.new_game`: what a new game may be;
- :mod:`~monster_zoo.web.help`: each game's rules and what to click;
- :mod:`~monster_zoo.web.server`: running it with uvicorn, its connections bounded by
  :mod:`~monster_zoo.web.connections`.
"""

WEB_EXTRA = "pip install 'monster-zoo[web]'"
