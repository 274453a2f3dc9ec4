"""The command line's clients of the lookout's console: ``faro-pi seat``, ``bet``, ``call``...

Thin, over HTTP, with the standard library only: each command posts one event
(or reads the state) and prints the console's answer; the rules are the
daemon's. The address and the token come from the table's config (the token
file beside the journal), or from ``--url`` and ``--token``.
"""

from __future__ import annotations

import argparse
import json
import sys

from faro_pi.console.state import describe
from faro_pi.console.token import read_token, token_path
from faro_pi.exc import ConfigError
from faro_pi.service.config import load_config


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
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return None
    if not config.console.enabled:
        print(f"faro-pi: {args.config}: the console is disabled (console.enabled)", file=sys.stderr)
        return None
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(config.console.host, config.console.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{config.console.port}"
    token = args.token or config.console.token
    if writes and token is None:
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
        entered = answer["event"]
        details = " ".join(
            f"{k}={','.join(v) if isinstance(v, list) else v}"
            for k, v in entered.items()
            if k != "type"
        )
        print(f"{entered['type']}{' ' + details if details else ''}")
        print(describe(answer["state"])[0])
    return 0


def seat(args: argparse.Namespace) -> int:
    event = {"type": "session", "seats": args.names}
    if args.banker is not None:
        event["banker"] = args.banker
    return _enter(args, event)


def bet(args: argparse.Namespace) -> int:
    event = {"type": "bet", "player": args.player, "rank": args.rank, "weight": args.weight}
    return _enter(args, {**event, "copper": args.copper})


def call(args: argparse.Namespace) -> int:
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


def status(args: argparse.Namespace) -> int:
    answer = _call_console(args, "/api/state")
    if isinstance(answer, int):
        return answer
    if not args.json:
        print("\n".join(describe(answer)))
    return 0


def lock(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "lock"})


def card(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "card", "card": args.code})


def subcommand(commands, name: str, help: str, run, **more) -> argparse.ArgumentParser:
    """A subcommand that talks to the running daemon's console."""
    command = commands.add_parser(name, help=help, **more)
    command.add_argument("--config", metavar="FILE", help="the table's config (address, token)")
    command.add_argument("--url", help="the console's address instead, e.g. http://host:8077")
    command.add_argument("--token", help="the console's token (default: from the config)")
    command.add_argument("--json", action="store_true", help="print the console's answer as JSON")
    command.set_defaults(run=run)
    return command
