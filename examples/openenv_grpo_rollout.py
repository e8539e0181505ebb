"""A GRPO-style rollout loop against a monster-zoo game served as an OpenEnv environment: for each
prompt (a deal), a group of episodes is played by a chat model through the environment's MCP tools,
and each episode's return becomes a group-relative advantage, as TRL's GRPO trainer computes them
(no model is trained here).

The environment is OpenEnv's HTTP server around ``monster_zoo.llm.openenv_server.GameEnvironment``,
started here on 127.0.0.1, and the client is OpenEnv's ``MCPToolClient``: each episode is dealt with
``reset`` and played with OpenSpiel's tool names (``get_observation``, ``play_action``,
``get_return``). Without ``--base-url`` the model is a stand-in that samples a random legal move
(``monster_zoo.llm.scripted_server.sampled``), so the script runs anywhere; with it, any
OpenAI-compatible endpoint plays (an answer that names no legal move forfeits the episode):

    python examples/openenv_grpo_rollout.py --base-url http://127.0.0.1:8000/v1 \\
        --model Qwen/Qwen2.5-7B-Instruct --game monstargh-v0 --prompts 8 --group 8
"""

import argparse
import contextlib
import socket
import statistics
import threading
import time

import uvicorn
from openenv.core.mcp_client import MCPToolClient

import monster_zoo
from monster_zoo.agents.llm import LlmSettings
from monster_zoo.agents.llm.chat import ChatEndpoint, ask
from monster_zoo.agents.llm.moves import read_answer
from monster_zoo.agents.llm.prompts import conversation
from monster_zoo.llm.openenv_server import create_server
from monster_zoo.llm.scripted_server import ScriptedServer, sampled


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: the game, the rollout's size and the model."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="monster_factory-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument("--opponent", default="random", help="the agent in the other seats (default random)")
    parser.add_argument("--prompts", type=int, default=2, help="deals, one group each (default %(default)s)")
    parser.add_argument("--group", type=int, default=3, help="episodes per deal (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first deal and of the stand-in")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: a sampling stand-in)")
    parser.add_argument("--model", default="stand-in", help="the model the endpoint serves")
    args = parser.parse_args(argv)
    if args.prompts < 1 or args.group < 2:
        parser.error("--prompts must be at least 1 and --group at least 2 (advantages compare a group)")
    return args


def group_advantages(returns: list[float]) -> list[float]:
    """GRPO's group-relative advantages: each return less the group's mean, over the group's
    standard deviation (0 for a group whose returns are all equal)."""
    mean = statistics.fmean(returns)
    spread = statistics.pstdev(returns)
    return [(r - mean) / spread if spread > 0 else 0.0 for r in returns]


@contextlib.contextmanager
def serving(app):
    """``app`` served by uvicorn on a free port of 127.0.0.1 in a thread; yields its base URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("the OpenEnv server did not start")
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


def episode(env, endpoint, spec, args, deal: int) -> tuple[float, int, int]:
    """One game from ``deal`` through the environment's tools: (the model's return, its moves, tokens)."""
    seats = ["client"] + [args.opponent] * (args.num_players - 1)
    env.reset(seed=deal, game=args.game, options={"num_players": args.num_players}, seats=seats)
    moves = tokens = 0
    while True:
        view = env.call_tool("get_observation")
        if view["over"]:
            return float(env.call_tool("get_return")["return"]), moves, tokens
        reply = ask(endpoint, conversation(spec, view, True), LlmSettings().backoff())
        tokens += (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
        move = read_answer(reply.text, view["legal_moves"])
        if move is None:  # no legal move named: the episode is forfeited, as the harness scores it
            return -1.0, moves, tokens
        env.call_tool("play_action", action=move)
        moves += 1


def main(argv=None) -> int:
    """Serve the environment, play the groups, print each group's returns and advantages."""
    args = parse_args(argv)
    spec = monster_zoo.spec(args.game)
    with contextlib.ExitStack() as stack:
        base_url = args.base_url or stack.enter_context(ScriptedServer(sampled(args.seed))).base_url
        endpoint = ChatEndpoint(base_url, args.model, temperature=1.0)
        url = stack.enter_context(serving(create_server()))
        env = stack.enter_context(MCPToolClient(base_url=url).sync())
        print(f"OpenEnv environment on 127.0.0.1; tools: {', '.join(t.name for t in env.list_tools())}")
        for prompt in range(args.prompts):
            deal = args.seed + prompt
            played = [episode(env, endpoint, spec, args, deal) for _ in range(args.group)]
            returns = [r for r, _, _ in played]
            advantages = group_advantages(returns)
            print(
                f"prompt {prompt} (deal {deal}): returns {returns}, advantages "
                f"{[round(a, 3) for a in advantages]}, moves {[m for _, m, _ in played]}, "
                f"tokens {sum(t for _, _, t in played)}"
            )
        state = env.state()
        print(f"the environment's state after the last episode: {state.step_count} moves")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
