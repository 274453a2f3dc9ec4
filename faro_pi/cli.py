"""The ``faro-pi`` command."""

from __future__ import annotations

import argparse
import json
import sys

from faro_pi.console import client
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES


def _replay(args: argparse.Namespace) -> int:
    from faro_pi.game.replay import replay_lines

    status = 0
    for path in args.files:
        try:
            if path == "-":
                result = replay_lines(sys.stdin)
            else:
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


def _config(args: argparse.Namespace):
    """The validated configuration, or None after printing its one-line error."""
    from faro_pi.exc import ConfigError
    from faro_pi.service.config import load_config

    try:
        return load_config(args.config)
    except ConfigError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return None


def _logging(verbose: bool) -> None:
    """Plain lines on stderr; under systemd a <N> prefix gives journald each line's priority."""
    import logging
    import os

    prefix = "<%(priority)s>" if os.environ.get("JOURNAL_STREAM") else "%(levelname)s "
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(prefix + "%(message)s"))
    handler.addFilter(_priority)
    root = logging.getLogger("faro_pi")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def _priority(record) -> bool:
    record.priority = {50: 2, 40: 3, 30: 4, 20: 6, 10: 7}.get(record.levelno, 6)
    return True


def _run(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 2
    _logging(args.verbose or config.log.verbose)
    from faro_pi.service.daemon import run

    return run(config)


def _export(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 2
    from faro_pi.exc import JournalError
    from faro_pi.service.export import export_lines
    from faro_pi.service.journal import Journal

    try:
        with Journal.open(config.journal.path, readonly=True) as journal:
            for line in export_lines(journal):
                sys.stdout.write(line)
    except JournalError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return 1
    return 0


def _sim(args: argparse.Namespace) -> int:
    from faro_pi.sim.run import main

    return main(args)


def _doctor(args: argparse.Namespace) -> int:
    from faro_pi.doctor import main

    return main(args.config, reader_timeout=args.timeout)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="faro-pi", description="Faro table controller")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay", help="replay files of events and print each one's balances as JSON"
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="a file of events; - reads stdin")
    replay.set_defaults(run=_replay)

    run = commands.add_parser("run", help="run the table daemon")
    run.add_argument("--config", required=True, metavar="FILE", help="the table's TOML config")
    run.add_argument("--verbose", action="store_true", help="log every frame and button too")
    run.set_defaults(run=_run)

    export = commands.add_parser(
        "export", help="print the journal as JSON lines for faro-pi replay (safe while running)"
    )
    export.add_argument("--config", required=True, metavar="FILE")
    export.set_defaults(run=_export)

    sim = commands.add_parser(
        "sim", help="run the daemon on simulated hardware and play a scenario (or the demo)"
    )
    sim.add_argument("--scenario", metavar="FILE", help="JSON lines to play (default: the demo)")
    sim.add_argument("--out", default="sim-out", help="output folder (default sim-out)")
    sim.add_argument(
        "--speed", type=float, default=1.0, help="1 deals at a calm pace, 0 as fast as it can"
    )
    sim.add_argument("--seed", type=int, default=7, help="the demo's shuffle (default 7)")
    sim.add_argument("--packs", type=int, default=1, help="packs the demo deals (default 1)")
    sim.add_argument(
        "--faults", action="store_true", help="the demo's shoe misbehaves now and then"
    )
    sim.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        default=DEFAULT_PROFILE,
        help="the house rules the demo plays (default teaching)",
    )
    sim.set_defaults(run=_sim)

    doctor = commands.add_parser(
        "doctor", help="check this machine for what the table needs: pins, OLED, reader, journal"
    )
    doctor.add_argument("--config", required=True, metavar="FILE", help="the table's TOML config")
    doctor.add_argument(
        "--timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how long to wait for the reader's first frame (default 5)",
    )
    doctor.set_defaults(run=_doctor)

    seat = client.subcommand(
        commands, "seat", "seat the participants in table order (the console)", client.seat
    )
    seat.add_argument("names", nargs="+", metavar="NAME")
    seat.add_argument("--banker", metavar="NAME", help="who banks (default: drawn at random)")

    bet = client.subcommand(
        commands, "bet", "put a player's prediction on a rank (the console)", client.bet
    )
    bet.add_argument("player", metavar="PLAYER")
    bet.add_argument("rank", metavar="RANK", help="A, 2-10, J, Q or K")
    bet.add_argument("weight", metavar="WEIGHT", type=int, help="a positive even number")
    bet.add_argument("--copper", action="store_true", help="play the rank to lose")

    call = client.subcommand(
        commands,
        "call",
        "call the turn with three cards left (the console)",
        client.call,
        usage="faro-pi call PLAYER R R R WEIGHT  |  PLAYER --colours C C C WEIGHT  [options]",
    )
    call.add_argument("player", metavar="PLAYER")
    call.add_argument(
        "named", nargs="+", metavar="R", help="the ranks of loser, winner and hock; the weight"
    )
    call.add_argument(
        "--colours",
        nargs=3,
        metavar="COLOUR",
        help="red or black each, when the three share a rank",
    )

    client.subcommand(
        commands, "lock", "the banker's signal: close entries until the winner", client.lock
    )

    card = client.subcommand(
        commands, "card", "enter a card by hand, e.g. after a no-read", client.card
    )
    card.add_argument("code", metavar="CODE", help="e.g. KD or 10H")

    client.subcommand(
        commands, "status", "print the table's state (from the running daemon)", client.status
    )
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
