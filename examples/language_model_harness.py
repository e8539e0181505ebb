"""A language model at the table: the llm:<model> harness scores a chat model against the baselines, and the
same model plays one whole game through the MCP server.

Without ``--base-url`` the model is a stand-in: a local OpenAI-compatible server that answers the first legal
move it is shown (``monster_zoo.llm.scripted_server``), so the script runs anywhere in seconds. Point it at a
real model served by vLLM, llama.cpp's server or Ollama (the API key, where one is needed, is read from
MONSTER_ZOO_LLM_API_KEY):

    vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000
    python examples/language_model_harness.py --base-url http://127.0.0.1:8000/v1 \\
        --model Qwen/Qwen2.5-7B-Instruct --game monstargh-v0 --num-players 2 --games 20 --transcript game.txt
"""

import argparse
import contextlib
import random
from pathlib import Path

import anyio

import monster_zoo
from monster_zoo.agents.llm import LlmSettings, make
from monster_zoo.agents.llm.moves import read_answer
from monster_zoo.agents.llm.prompts import conversation
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.llm.scoring import score_model
from monster_zoo.llm.scripted_server import ScriptedServer
from monster_zoo.llm.stdio_client import connected, play_game


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: the endpoint and model, the game, the baselines and the budget."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible endpoint (default: a local scripted stand-in)"
    )
    parser.add_argument(
        "--model", default="stand-in", help="the model the endpoint serves (default %(default)s)"
    )
    parser.add_argument("--game", default="monster_factory-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=2, help="players (default %(default)s)")
    parser.add_argument(
        "--baselines", nargs="+", default=["random", "greedy"], help="(default: random greedy)"
    )
    parser.add_argument("--games", type=int, default=2, help="games per baseline (default %(default)s)")
    parser.add_argument(
        "--retries", type=int, default=2, help="answers asked again per move (default %(default)s)"
    )
    parser.add_argument(
        "--no-legal-moves", action="store_true", help="leave the legal-move list out of the prompt"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the deals, the baselines and the fallbacks"
    )
    parser.add_argument("--transcript", type=Path, help="also write the MCP transcript of one game here")
    return parser.parse_args(argv)


def mcp_game(agent, args) -> list:
    """One game over ``monster-zoo mcp`` (the SDK's stdio client), the model choosing each move; its transcript."""
    transcript, fallback = [], random.Random(args.seed)

    def choose(view):
        answer = agent.endpoint.complete(conversation(agent.spec, view, agent.settings.legal_moves)).text
        move = read_answer(answer, view["legal_moves"])
        return move if move is not None else fallback.choice(view["legal_moves"])["id"]

    async def play():
        async with connected() as client:
            seats = ["client"] + [args.baselines[-1]] * (args.num_players - 1)
            await play_game(
                client, args.game, choose, seats, {"num_players": args.num_players}, args.seed, transcript
            )

    anyio.run(play)
    return transcript


def main(argv=None) -> int:
    """Score the model, print the table, and play the MCP game when asked."""
    args = parse_args(argv)
    with contextlib.ExitStack() as stack:
        base_url = args.base_url or stack.enter_context(ScriptedServer()).base_url
        settings = LlmSettings(base_url=base_url, legal_moves=not args.no_legal_moves, retries=args.retries)
        agent = make(args.game, args.model, args.seed, settings=settings)
        score = score_model(
            args.game, agent, args.baselines, args.games, args.seed, {"num_players": args.num_players}
        )
        print(score.markdown())
        print(f"\nelapsed {score.elapsed_s:.1f} s")
        if args.transcript is not None:
            lines = mcp_game(agent, args)
            write_atomic(args.transcript, "\n".join(lines) + "\n")  # a stopped run leaves no half file
            print(f"wrote the MCP transcript of one game ({len(lines)} lines) to {args.transcript}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
