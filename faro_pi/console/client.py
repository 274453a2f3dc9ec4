"""The command line's clients of the lookout's console: ``faro-pi seat``, ``bet``, ``call``...

Thin, over HTTP, with the standard library only: each command posts one event
(or reads the state) and prints the console's answer; the rules are the
daemon's, and a refusal prints the rule's message and exits 1. The address
and the token come from the table's config (the token file beside the
journal), or from ``--url`` and ``--token``.
"""

from __future__ import annotations

import argparse
import json
import sys

from faro_pi.config import ConsoleConfig, load_config
from faro_pi.console.token import read_token, token_path
from faro_pi.exc import ConfigError
from faro_pi.service.view import describe, journal_id

JOIN_THE_GROUP = (
    "add your login to the daemon's group (on the Pi: sudo usermod -aG faro-pi $USER, "
    "then log in again)"
)
"""How a lookout's login comes to read the installed config and the console's token."""


JOURNAL_HEADER = "Faro-Journal"
"""The journal a change is meant for (:func:`~faro_pi.service.view.journal_id`), sent with it."""


def console_url(settings: ConsoleConfig) -> str:
    """Where the console answers on this machine: a wildcard address is reached on loopback."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(settings.host, settings.host)
    return f"http://{f'[{host}]' if ':' in host else host}:{settings.port}"


def _console_address(
    args: argparse.Namespace, *, writes: bool
) -> tuple[str, str | None, str | None] | None:
    """The console's URL, (for a change) its token, and the journal it must serve (from a
    config), or None after printing why not."""
    if args.url:
        if writes and not args.token:
            print("faro-pi: --url needs --token to change anything", file=sys.stderr)
            return None
        return args.url.rstrip("/"), args.token, None
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return None
    if not config.console.enabled:
        print(f"faro-pi: {args.config}: the console is disabled (console.enabled)", file=sys.stderr)
        return None
    url = console_url(config.console)
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
        except PermissionError:
            print(
                f"faro-pi: cannot read the console's token at {path} (permission denied): "
                f"{JOIN_THE_GROUP}, or give --token",
                file=sys.stderr,
            )
            return None
        except OSError as exc:
            print(f"faro-pi: cannot read the console's token: {exc}", file=sys.stderr)
            return None
    return url, token, journal_id(config.journal.path)


def ask(
    url: str,
    token: str | None = None,
    event: dict | None = None,
    *,
    timeout: float = 10,
    journal: str | None = None,
) -> tuple[int, object]:
    """One request to the console: (HTTP status, decoded JSON answer); OSError if none came.

    ``journal`` is the journal the change is meant for: another table's console refuses it.
    """
    import urllib.error  # with urllib.request: http.client and email, ~15 ms that every
    import urllib.request  # faro-pi command would pay for the few that ask the console

    headers = {"Accept": "application/json"}
    data = None
    if event is not None:
        data = json.dumps(event).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if journal is not None:
        headers[JOURNAL_HEADER] = journal
    import http.client

    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, _object(answer.read())
    except urllib.error.HTTPError as exc:
        with exc:
            body = exc.read()
        try:
            return exc.code, _object(body)
        except OddAnswer:
            return exc.code, {"error": body.decode(errors="replace").strip()[:200]}
    except http.client.HTTPException as exc:  # a body cut off, a status line that is none
        raise OddAnswer(f"a broken answer ({type(exc).__name__})") from None


class OddAnswer(ValueError):
    """What answered on the console's port is not faro-pi's console, or broke off."""


def _object(body: bytes) -> dict:
    """A console's answer: always one JSON object."""
    try:
        found = json.loads(body)
    except ValueError:
        raise OddAnswer("an answer that is not JSON") from None
    except RecursionError:
        raise OddAnswer("JSON nested too deeply to be the console's") from None
    if not isinstance(found, dict):
        raise OddAnswer(f"JSON that is not an object (a {type(found).__name__})")
    return found


def _call_console(args: argparse.Namespace, path: str, event: dict | None = None):
    """The console's answer, or an exit status after printing one line about what went wrong."""
    where = _console_address(args, writes=event is not None)
    if where is None:
        return 2
    url, token, journal = where
    try:
        status, body = ask(url + path, token, event, journal=journal)
    except OddAnswer as exc:
        print(
            f"faro-pi: what answers at {url} is not this table's console ({exc}): is another "
            "program on its port?",
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        print(
            f"faro-pi: no answer from the console at {url} ({reason}): is the daemon running?",
            file=sys.stderr,
        )
        return 2
    if journal is not None and (_serves(body) or journal) != journal:
        print(
            f"faro-pi: the console at {url} serves another table's journal, not "
            f"{load_config(args.config).journal.path}: is another daemon on its port? "
            "(this table's console is then not served: see its log)",
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
    if status == 401:
        print(
            f"faro-pi: the console at {url} refused the token (401): {_TOKEN_FIX}", file=sys.stderr
        )
        return 2
    error = body.get("error") if isinstance(body, dict) else body
    print(f"faro-pi: the console answered {status}: {error}", file=sys.stderr)
    return 2


_TOKEN_FIX = (
    "give the console's token with --token TOKEN, or --config FILE to read it from the token "
    "file the daemon keeps beside its journal (or the config's console.token)"
)
"""What a lookout at the shell does about a 401, where the console's own answer speaks of
the header a program sends."""


def _serves(body) -> str | None:
    """The journal a console's answer says it serves."""
    return body.get("journal") if isinstance(body, dict) else None


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
        table = _call_console(args, "/api/state")  # a post answers what it changed alone
        if not isinstance(table, int):
            print(describe(table)[0])
    return 0


def seat(args: argparse.Namespace) -> int:
    event = {"type": "session", "seats": args.names}
    if args.banker is not None:
        event["banker"] = args.banker
    return _enter(args, event)


def join(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "join", "player": args.player})


def leave(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "leave", "player": args.player})


def bank(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "bank", "player": args.player})


def bet(args: argparse.Namespace) -> int:
    if len(args.named) != (1 if args.ranks or args.high_card else 2):
        print(
            "faro-pi bet: give PLAYER RANK WEIGHT, or PLAYER WEIGHT with --ranks R R [R R] "
            "or --high-card (the weight before --ranks)",
            file=sys.stderr,
        )
        return 2
    *rank, weight = args.named
    weight = _weight("bet", weight)
    if weight is None:
        return 2
    where = _place(args, rank[0] if rank else None)
    event = {"type": "bet", "player": args.player, **where, "weight": weight}
    return _enter(args, {**event, "copper": args.copper})


def remove(args: argparse.Namespace) -> int:
    event = {"type": "remove", "player": args.player, **_place(args, args.rank)}
    if args.copper is not None:
        event["copper"] = args.copper
    return _enter(args, event)


def _place(args: argparse.Namespace, rank: str | None) -> dict:
    """Where a prediction sits, as given: on a rank, on two or four ``ranks``, on the high card.

    Any mix is sent as it is, so that the rules refuse it in their own words.
    """
    where: dict = {} if rank is None else {"rank": rank}
    if args.ranks:
        where["ranks"] = args.ranks
    if args.high_card:
        where["high_card"] = True
    return where


def _weight(command: str, text: str) -> int | None:
    """The weight as a whole number, or None after printing why not."""
    try:
        return int(text)
    except ValueError:
        print(
            f"faro-pi {command}: the weight must be a whole number, not {text!r}", file=sys.stderr
        )
        return None


def call(args: argparse.Namespace) -> int:
    if args.take_back:
        if args.named or args.colours:
            print("faro-pi call: --take-back takes the PLAYER alone", file=sys.stderr)
            return 2
        return _enter(args, {"type": "remove", "player": args.player, "call": True})
    if len(args.named) != (1 if args.colours else 4):
        print(
            "faro-pi call: give PLAYER R R R WEIGHT, PLAYER --colours C C C WEIGHT, "
            "or --take-back PLAYER",
            file=sys.stderr,
        )
        return 2
    *ranks, weight = args.named
    weight = _weight("call", weight)
    if weight is None:
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


def void(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "void"} | ({"card": args.code} if args.code else {}))


def clear(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "clear"} | ({"kind": args.kind} if args.kind else {}))


def shuffle(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "shuffle"})


def close(args: argparse.Namespace) -> int:
    return _enter(args, {"type": "close"})


def subcommand(commands, name: str, help: str, run, **more) -> argparse.ArgumentParser:
    """A subcommand that talks to the running daemon's console."""
    command = commands.add_parser(name, help=help, **more)
    command.add_argument(
        "--config",
        metavar="FILE",
        help="the table's config, for the address and the token "
        "(default: $FARO_PI_CONFIG, then /etc/faro-pi/config.toml)",
    )
    command.add_argument("--url", help="the console's address instead, e.g. http://host:8077")
    command.add_argument("--token", help="the console's token (default: from the config)")
    command.add_argument("--json", action="store_true", help="print the console's answer as JSON")
    command.set_defaults(run=run)
    return command
