"""A language model at the table: the llm:<model> harness scores a chat model against the baselines, and the
same model plays one whole game through the MCP server.

Without ``--base-url`` the model is a stand-in: a local OpenAI-compatible server that answers the first legal
move it is shown (``monster_zoo.llm.scripted_server``), so the script runs anywhere in seconds. Point it at a
real model served by vLLM, llama.cpp's server or Ollama (the API key, where one is needed, is read from
MONSTER_ZOO_LLM_API_KEY):

    vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000
    python examples/language_model_harness.py --base-url http://127.0.0.1:8000/v1 \\
        --model Qwen/Qwen2.5-7B-Instruct --game monstargh-v0 --num-players 2 --games 20 \\
        --results qwen.jsonl --out qwen --transcript game.txt

Every finished game is kept in the ``--results`` file as it ends; a run stopped by its endpoint (or by
Ctrl-C) continues with the same command and ``--resume``. The stand-in can play a flaky endpoint:
``--stand-in-fail-every 3`` fails every third request (HTTP 500 and 503, a body that is not JSON, an
oversized body, a dropped connection, in turn) and ``--stand-in-down-after N`` fails every request
after the N-th, which stops the run: resume it without that option to finish.
"""

import argparse
import contextlib
import random
import sys
from pathlib import Path

import anyio

import monster_zoo
from monster_zoo.agents.llm import make
from monster_zoo.agents.llm.chat import ChatError, ask
from monster_zoo.agents.llm.moves import read_answer
from monster_zoo.agents.llm.prompts import conversation
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.llm.arguments import add_llm_arguments, llm_settings, open_results
from monster_zoo.llm.scoring import SCORES_NAME, run_settings, score_model, write_scores
from monster_zoo.llm.scripted_server import FAULTS, ScriptedServer
from monster_zoo.llm.stdio_client import connected, play_game

STAND_IN_FAULTS = [f for f in FAULTS if f != "stall"]  # a stall lasts the whole --timeout


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
        "--seed", type=int, default=0, help="seed of the deals, the baselines and the fallbacks"
    )
    add_llm_arguments(parser)
    parser.add_argument("--out", type=Path, metavar="DIR", help=f"write {SCORES_NAME}.md and .json here")
    parser.add_argument("--overwrite", action="store_true", help="replace existing output files")
    parser.add_argument("--no-progress", action="store_true", help="do not show the progress line")
    parser.add_argument("--transcript", type=Path, help="also write the MCP transcript of one game here")
    parser.add_argument(
        "--stand-in-fail-every", type=int, metavar="N", help="the stand-in fails every N-th request"
    )
    parser.add_argument(
        "--stand-in-down-after", type=int, metavar="N", help="the stand-in fails every request after the N-th"
    )
    args = parser.parse_args(argv)
    stand_in = args.stand_in_fail_every is not None or args.stand_in_down_after is not None
    if stand_in and args.base_url:
        parser.error("--stand-in-fail-every and --stand-in-down-after are for the stand-in, not --base-url")
    if args.stand_in_fail_every is not None and args.stand_in_fail_every < 2:
        parser.error("--stand-in-fail-every must be at least 2 (1 would fail every request)")
    if args.stand_in_down_after is not None and args.stand_in_down_after < 0:
        parser.error("--stand-in-down-after must be 0 or more")
    return args


def mcp_game(agent, args) -> list:
    """One game over ``monster-zoo mcp`` (the SDK's stdio client), the model choosing each move; its transcript."""
    transcript, fallback = [], random.Random(args.seed)

    def choose(view):
        messages = conversation(agent.spec, view, agent.settings.legal_moves)
        answer = ask(agent.endpoint, messages, agent.backoff).text
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


def stand_in_faults(args):
    """The stand-in's failures the options ask for (None: it never fails)."""
    every, down = args.stand_in_fail_every, args.stand_in_down_after
    if every is None and down is None:
        return None

    def fault(number: int):
        if down is not None and number > down:
            return "500"
        if every and number % every == 0:
            return STAND_IN_FAULTS[(number // every - 1) % len(STAND_IN_FAULTS)]
        return None

    return fault


def main(argv=None) -> int:
    """Score the model, print the table (and write it with --out), and play the MCP game when asked."""
    args = parse_args(argv)
    for path in [args.out / f"{SCORES_NAME}.{ext}" for ext in ("md", "json")] if args.out else []:
        problem = output_problem("--out", path, [args.results] if args.results else [], args.overwrite)
        if problem:
            raise SystemExit(f"language_model_harness: {problem}")
    with contextlib.ExitStack() as stack:
        base_url = args.base_url or stack.enter_context(ScriptedServer(faults=stand_in_faults(args))).base_url
        try:
            settings = llm_settings(args, base_url)
            options = {"num_players": args.num_players}
            results = open_results(
                args,
                run_settings(
                    args.game, [f"llm:{args.model}"], args.baselines, args.games, args.seed, options, settings
                ),
            )
        except ValueError as err:  # a bad option, a results file that exists or differs (ResultsError)
            raise SystemExit(f"language_model_harness: {err}") from None
        agent = make(args.game, args.model, args.seed, settings=settings)
        try:
            score = score_model(
                args.game,
                agent,
                args.baselines,
                args.games,
                args.seed,
                options,
                results,
                not args.no_progress,
            )
        except ChatError as err:  # the endpoint failed for good: the finished games are in the file
            kept = f"; finished games kept in {args.results}: {len(results.games)}" if results else ""
            print(f"the run stopped: {err}{kept}", file=sys.stderr)
            if results:
                print("continue it with the same command and --resume", file=sys.stderr)
            return 1
        print(score.markdown())
        print(f"\nelapsed {score.elapsed_s:.1f} s")
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            print("wrote " + ", ".join(str(p) for p in write_scores([score], args.out)))
        if args.transcript is not None:
            lines = mcp_game(agent, args)
            write_atomic(args.transcript, "\n".join(lines) + "\n")  # a stopped run leaves no half file
            print(f"wrote the MCP transcript of one game ({len(lines)} lines) to {args.transcript}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
