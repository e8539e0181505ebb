"""Random play through the PettingZoo AEC loop: every seat picks a random legal action.

The loop every PettingZoo user knows (``env.agent_iter()``, ``env.last()``, ``env.step``) on any
monster-zoo game. It prints each game's length and every seat's return, and the table of the last
game as text; ``--render`` prints the table after every action instead. Same seed, same games.

    python examples/random_play.py --game monstargh-v0 --num-players 3 --games 5
"""

import argparse
import time

import monster_zoo


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, players, games, seed, rendering."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=None, help="players (default: the game's default)")
    parser.add_argument("--games", type=int, default=3, help="games to play (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game; game i plays seed + i")
    parser.add_argument("--render", action="store_true", help="print the table after every action")
    return parser.parse_args(argv)


def play_one(env, seed: int, render: bool) -> tuple:
    """One game of random legal moves; returns ``(actions taken, {agent: return})``."""
    env.reset(seed=seed)
    for agent in env.possible_agents:  # the action spaces sample with their own generators: seed them too
        env.action_space(agent).seed(seed)
    returns = {agent: 0.0 for agent in env.possible_agents}
    actions = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        returns[agent] += reward
        if termination or truncation:
            action = None  # a finished agent steps None to leave the game
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
            actions += 1
        env.step(action)
        if render and action is not None:
            print(env.render())
    return actions, returns


def main(argv=None) -> int:
    """Play ``--games`` games and print what happened."""
    args = parse_args(argv)
    options = {} if args.num_players is None else {"num_players": args.num_players}
    env = monster_zoo.make(args.game, render_mode="ansi", **options)
    start = time.perf_counter()
    for game in range(args.games):
        actions, returns = play_one(env, args.seed + game, args.render)
        shown = ", ".join(f"{agent} {value:+.2f}" for agent, value in returns.items())
        print(f"game {game} (seed {args.seed + game}): {actions} actions; returns {shown}")
    print(f"{args.games} games in {time.perf_counter() - start:.2f} s")
    if not args.render:
        print(env.render())
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
