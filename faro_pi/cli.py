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


def _config(args: argparse.Namespace):
    """The validated configuration, or None after printing its one-line error."""
    from faro_pi.config import load_config
    from faro_pi.exc import ConfigError

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
    from faro_pi.daemon import run

    return run(config)


def _export(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 2
    from faro_pi.exc import JournalError
    from faro_pi.journal import Journal

    try:
        with Journal.open(config.journal.path, readonly=True) as journal:
            for entry in journal.rows():
                event = {"type": entry.event["type"], **entry.event}
                if entry.refused is not None:
                    event = {**event, "refused": entry.refused}
                sys.stdout.write(json.dumps(event) + "\n")
    except JournalError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return 1
    return 0


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

    run = commands.add_parser("run", help="run the table daemon")
    run.add_argument("--config", required=True, metavar="FILE", help="the table's TOML config")
    run.add_argument("--verbose", action="store_true", help="log every frame and button too")
    run.set_defaults(run=_run)

    export = commands.add_parser(
        "export", help="print the journal as JSON lines for faro-pi replay (safe while running)"
    )
    export.add_argument("--config", required=True, metavar="FILE")
    export.set_defaults(run=_export)

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
