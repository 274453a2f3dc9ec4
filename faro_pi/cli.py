"""The ``faro-pi`` command."""

from __future__ import annotations

import argparse
import json
import sys


def _replay(args: argparse.Namespace) -> int:
    from faro_pi.replay import replay_lines

    status = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as lines:
                result = replay_lines(lines)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"faro-pi replay: cannot read {path}: {exc}", file=sys.stderr)
            status = 1
            continue
        for line, message in result.refused:
            print(f"{path}:{line}: refused: {message}", file=sys.stderr)
        print(json.dumps({"file": path, **result.summary()}))
    return status


def _sim(args: argparse.Namespace) -> int:
    from faro_pi.sim import main

    return main(args)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="faro-pi", description="Faro table controller")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay", help="replay files of events and print each one's balances as JSON"
    )
    replay.add_argument("files", nargs="+", metavar="FILE")
    replay.set_defaults(run=_replay)

    sim = commands.add_parser("sim", help="deal a demo pack on the simulated table")
    sim.add_argument("--seed", type=int, default=7, help="shuffle seed (default 7)")
    sim.add_argument("--out", default="sim-out", help="output folder (default sim-out)")
    sim.set_defaults(run=_sim)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
