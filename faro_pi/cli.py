"""The ``faro-pi`` command."""

from __future__ import annotations

import argparse
import json
import sys


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


# -- the console's clients: thin, over HTTP, with the standard library only ----------


def _console_address(args: argparse.Namespace, *, writes: bool) -> tuple[str, str | None] | None:
    """The console's URL and (for a change) its token, or None after printing why not."""
    if args.url:
        if writes and not args.token:
            print("faro-pi: --url needs --token to change anything", file=sys.stderr)
            return None
        return args.url.rstrip("/"), args.token
    if not args.config:
        print("faro-pi: give --config FILE (or --url and --token)", file=sys.stderr)
        return None
    config = _config(args)
    if config is None:
        return None
    if not config.console.enabled:
        print(f"faro-pi: {args.config}: the console is disabled (console.enabled)", file=sys.stderr)
        return None
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(config.console.host, config.console.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{config.console.port}"
    token = args.token or config.console.token
    if writes and token is None:
        from faro_pi.console.server import read_token, token_path

        path = token_path(config)
        try:
            token = read_token(path)
        except FileNotFoundError:
            print(
                f"faro-pi: no console token at {path} yet: has the daemon started?", file=sys.stderr
            )
            return None
        except OSError as exc:
            print(f"faro-pi: cannot read the console's token: {exc}", file=sys.stderr)
            return None
    return url, token


def _ask(url: str, token: str | None = None, event: dict | None = None) -> tuple[int, object]:
    """One request to the console: (HTTP status, decoded JSON answer); OSError if none came."""
    import urllib.error
    import urllib.request

    headers = {"Accept": "application/json"}
    data = None
    if event is not None:
        data = json.dumps(event).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        with exc:
            body = exc.read()
        try:
            return exc.code, json.loads(body)
        except ValueError:
            return exc.code, {"error": body.decode(errors="replace").strip()}


def _call_console(args: argparse.Namespace, path: str, event: dict | None = None):
    """The console's answer, or an exit status after printing one line about what went wrong."""
    where = _console_address(args, writes=event is not None)
    if where is None:
        return 2
    url, token = where
    try:
        status, body = _ask(url + path, token, event)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        print(
            f"faro-pi: no answer from the console at {url} ({reason}): is the daemon running?",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps(body))
    if status == 200:
        return body
    if status in (409, 422) and isinstance(body, dict) and "rule" in body:
        if not args.json:
            print(f"faro-pi: refused: {body['error']} [{body['rule']}]", file=sys.stderr)
        return 1
    error = body.get("error") if isinstance(body, dict) else body
    print(f"faro-pi: the console answered {status}: {error}", file=sys.stderr)
    return 2


def _enter(args: argparse.Namespace, event: dict) -> int:
    answer = _call_console(args, "/api/events", event)
    if isinstance(answer, int):
        return answer
    if not args.json:
        from faro_pi.console.state import describe

        entered = answer["event"]
        details = " ".join(
            f"{k}={','.join(v) if isinstance(v, list) else v}"
            for k, v in entered.items()
            if k != "type"
        )
        print(f"{entered['type']}{' ' + details if details else ''}")
        print(describe(answer["state"])[0])
    return 0


def _seat(args: argparse.Namespace) -> int:
    event = {"type": "session", "seats": args.names}
    if args.banker is not None:
        event["banker"] = args.banker
    return _enter(args, event)


def _bet(args: argparse.Namespace) -> int:
    event = {"type": "bet", "player": args.player, "rank": args.rank, "weight": args.weight}
    return _enter(args, {**event, "copper": args.copper})


def _call(args: argparse.Namespace) -> int:
    *ranks, weight = args.named
    if len(ranks) != (0 if args.colours else 3):
        print(
            "faro-pi call: give PLAYER R R R WEIGHT, or PLAYER --colours C C C WEIGHT",
            file=sys.stderr,
        )
        return 2
    try:
        weight = int(weight)
    except ValueError:
        print(f"faro-pi call: the weight must be a whole number, not {weight!r}", file=sys.stderr)
        return 2
    event = {"type": "call", "player": args.player, "weight": weight}
    if args.colours:
        event["colours"] = args.colours
    else:
        event["order"] = ranks
    return _enter(args, event)


def _status(args: argparse.Namespace) -> int:
    answer = _call_console(args, "/api/state")
    if isinstance(answer, int):
        return answer
    if not args.json:
        from faro_pi.console.state import describe

        print("\n".join(describe(answer)))
    return 0


def _lock(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "lock"})


def _card(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "card", "card": args.code})


def _client(commands, name: str, help: str, run, **more) -> argparse.ArgumentParser:
    """A subcommand that talks to the running daemon's console."""
    command = commands.add_parser(name, help=help, **more)
    command.add_argument("--config", metavar="FILE", help="the table's config (address, token)")
    command.add_argument("--url", help="the console's address instead, e.g. http://host:8077")
    command.add_argument("--token", help="the console's token (default: from the config)")
    command.add_argument("--json", action="store_true", help="print the console's answer as JSON")
    command.set_defaults(run=run)
    return command


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

    seat = _client(commands, "seat", "seat the participants in table order (the console)", _seat)
    seat.add_argument("names", nargs="+", metavar="NAME")
    seat.add_argument("--banker", metavar="NAME", help="who banks (default: drawn at random)")

    bet = _client(commands, "bet", "put a player's prediction on a rank (the console)", _bet)
    bet.add_argument("player", metavar="PLAYER")
    bet.add_argument("rank", metavar="RANK", help="A, 2-10, J, Q or K")
    bet.add_argument("weight", metavar="WEIGHT", type=int, help="a positive even number")
    bet.add_argument("--copper", action="store_true", help="play the rank to lose")

    call = _client(
        commands,
        "call",
        "call the turn with three cards left (the console)",
        _call,
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

    _client(commands, "lock", "the banker's signal: close entries until the winner", _lock)

    card = _client(commands, "card", "enter a card by hand, e.g. after a no-read", _card)
    card.add_argument("code", metavar="CODE", help="e.g. KD or 10H")

    _client(commands, "status", "print the table's state (from the running daemon)", _status)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
