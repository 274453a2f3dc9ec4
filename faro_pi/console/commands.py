"""The command line's clients of the console: one ``faro-pi`` subcommand for every entry.

Each sends one event of the vocabulary to the running daemon's console
(:mod:`faro_pi.console.client` does the talking), so the command line and the
lookout's page are held to the same rules.
"""

from __future__ import annotations

import argparse

from faro_pi.console import client
from faro_pi.game.fields import ALARM_KINDS


def add_console_commands(commands) -> None:
    """The lookout's entries and ``status``, each a client of the running daemon's console."""
    seat = client.subcommand(
        commands, "seat", "seat the participants in table order (the console)", client.seat
    )
    seat.add_argument("names", nargs="+", metavar="NAME")
    seat.add_argument("--banker", metavar="NAME", help="who banks (default: drawn at random)")

    for name, help, run in (
        ("join", "seat a participant at the end of the table order", client.join),
        (
            "leave",
            "a player gets up: their bets and calls come off, their result stays",
            client.leave,
        ),
        ("bank", "pass the bank to a seated player between packs", client.bank),
    ):
        client.subcommand(commands, name, help, run).add_argument("player", metavar="NAME")

    bet = client.subcommand(
        commands,
        "bet",
        "put a player's prediction on a rank, two or four ranks, or the high card",
        client.bet,
        usage="faro-pi bet PLAYER RANK WEIGHT  |  PLAYER WEIGHT (--ranks R R [R R] | --high-card)"
        "  [options]",
    )
    bet.add_argument("player", metavar="PLAYER")
    bet.add_argument(
        "named",
        nargs="*",
        metavar="RANK WEIGHT",
        help="the rank (A, 2-10, J, Q or "
        "K) and the weight; the weight alone with --ranks or --high-card",
    )
    _placement(bet)
    bet.add_argument("--copper", action="store_true", help="play it to lose")

    remove = client.subcommand(
        commands,
        "remove",
        "take a player's predictions off a rank, ranks or the high card",
        client.remove,
    )
    remove.add_argument("player", metavar="PLAYER")
    remove.add_argument("rank", nargs="?", metavar="RANK", help="A, 2-10, J, Q or K")
    _placement(remove)
    way = remove.add_mutually_exclusive_group()
    way.add_argument(
        "--copper",
        dest="copper",
        action="store_const",
        const=True,
        help="only the coppered ones (default: both)",
    )
    way.add_argument(
        "--ordinary",
        dest="copper",
        action="store_const",
        const=False,
        help="only the ordinary ones",
    )

    call = client.subcommand(
        commands,
        "call",
        "call the turn with three cards left, or take the calls back (the console)",
        client.call,
        usage="faro-pi call PLAYER R R R WEIGHT  |  PLAYER --colours C C C WEIGHT  "
        "|  --take-back PLAYER  [options]",
    )
    call.add_argument("player", metavar="PLAYER")
    call.add_argument(
        "named", nargs="*", metavar="R", help="the ranks of loser, winner and hock; the weight"
    )
    call.add_argument(
        "--colours",
        nargs=3,
        metavar="COLOUR",
        help="red or black each, when the three share a rank",
    )
    call.add_argument(
        "--take-back", action="store_true", help="take back every call the player has made"
    )

    client.subcommand(
        commands, "lock", "the banker's signal: close entries until the winner", client.lock
    )

    card = client.subcommand(
        commands, "card", "enter a card by hand, e.g. after a no-read", client.card
    )
    card.add_argument("code", metavar="CODE", help="e.g. KD or 10H")

    void = client.subcommand(
        commands, "void", "take back the last card exposed (a misread)", client.void
    )
    void.add_argument(
        "code", nargs="?", metavar="CODE", help="the card it must be, so it never takes two"
    )

    clear = client.subcommand(
        commands, "clear", "the alarms (of one kind) have been dealt with", client.clear
    )
    clear.add_argument("kind", nargs="?", choices=ALARM_KINDS, help="only alarms of this kind")

    for name, help, run in (
        ("shuffle", "a new pack after the hock; the bank passes on", client.shuffle),
        ("close", "end the night between packs; what stands on the layout comes off", client.close),
        ("status", "print the table's state (from the running daemon)", client.status),
    ):
        client.subcommand(commands, name, help, run)


def _placement(command: argparse.ArgumentParser) -> None:
    """Where a prediction sits, besides one rank: two or four ranks, or the high card."""
    command.add_argument(
        "--ranks",
        nargs="+",
        metavar="R",
        help="two neighbouring ranks or a corner of four (house rules)",
    )
    command.add_argument(
        "--high-card", action="store_true", help="the high-card space (house rules)"
    )
