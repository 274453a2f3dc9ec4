"""The table simulator: deals a seeded demo pack and shows every pair.

For now the demo runs through the rules engine alone; the simulated shoe,
case keeper and display plug in here as the daemon gains them.
"""

from __future__ import annotations

import argparse
import json
import os
import random

from faro_pi.cards import SUIT_SYMBOLS, rank_name
from faro_pi.demo import play
from faro_pi.events import CardDrawn, event_to_json
from faro_pi.rules import Table

DEMO_SEATS = ("Ann", "Bob", "Cy", "Dee")


def _card(card) -> str:
    return f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit]}"


def main(args: argparse.Namespace) -> int:
    table = Table()
    events = list(play(random.Random(args.seed), DEMO_SEATS))
    os.makedirs(args.out, exist_ok=True)
    journal = os.path.join(args.out, "events.jsonl")
    with open(journal, "w", encoding="utf-8") as out:
        for event in events:
            out.write(json.dumps(event_to_json(event)) + "\n")
            pairs_before = len(table.pairs)
            table.apply(event)
            if type(event) is not CardDrawn:
                continue
            n = len(table.pack.exposed)
            if n == 1:
                print(f"soda {_card(event.card)}   banker {table.banker}")
            elif len(table.pairs) > pairs_before:
                pair = table.pairs[-1]
                moves = ", ".join(f"{s.player} {s.delta:+d}" for s in pair.settlements) or "-"
                split = "  SPLIT" if pair.split else ""
                print(
                    f"turn {pair.turn:2}: {_card(pair.loser):>4} loses, "
                    f"{_card(pair.winner):>4} wins{split}  {moves}  (bank {pair.banker_delta:+d})"
                )
            elif n == 52:
                calls = ", ".join(f"{s.player} {s.delta:+d}" for s in table.call_results) or "-"
                print(f"hock {_card(event.card)}   calls: {calls}")
    balances = "  ".join(f"{name} {amount:+d}" for name, amount in table.balances.items())
    print(f"balances: {balances}   leaders: {', '.join(table.leaders)}")
    print(f"events written to {journal} (try: faro-pi replay {journal})")
    return 0
