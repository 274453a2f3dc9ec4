"""The teaching rules written the plain way, on dicts straight from ``json.loads``.

No event classes, no checks beyond what settles a legal game: the yardstick the
engine's replay from JSON lines is measured against in ``bench_rules``.
"""

from __future__ import annotations

import json

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK = {name: i + 1 for i, name in enumerate(RANKS)}
ODDS = {3: 4, 2: 2, 1: 2}
COLOUR = {"H": "red", "D": "red", "S": "black", "C": "black"}


def replay(lines: list[str]) -> dict[str, int]:
    """Balances after the lines (all legal), as a dict by name."""
    balances: dict[str, int] = {}
    banker = None
    layout: dict[int, list[dict]] = {}
    exposed: list[str] = []
    calls: list[dict] = []
    counts = dict.fromkeys(range(1, 14), 4)
    for line in lines:
        e = json.loads(line)
        kind = e["type"]
        if kind == "bet":
            layout.setdefault(RANK[e["rank"]], []).append(e)
        elif kind == "card":
            exposed.append(e["card"])
            rank = RANK[e["card"][:-1]]
            counts[rank] -= 1
            n = len(exposed)
            if n > 1 and n % 2 == 1:
                loser = RANK[exposed[-2][:-1]]
                for r, lose in ((loser, True), (rank, False)):
                    kept = []
                    for b in layout.pop(r, []):
                        if loser == rank:
                            delta = -(b["weight"] // 2)
                        else:
                            won = b.get("copper", False) == lose
                            delta = b["weight"] if won else -b["weight"]
                            if won:
                                kept.append(b)
                        balances[b["player"]] += delta
                        balances[banker] -= delta
                    if kept and counts[r]:
                        layout[r] = kept
                if n == 51:
                    layout.clear()
            elif n == 52:
                last = [RANK[c[:-1]] for c in exposed[-3:]]
                for c in calls:
                    if "order" in c:
                        right = [RANK[r] for r in c["order"]] == last
                    else:
                        right = c["colours"] == [COLOUR[x[-1]] for x in exposed[-3:]]
                    delta = ODDS[len(set(last))] * c["weight"] if right else -c["weight"]
                    balances[c["player"]] += delta
                    balances[banker] -= delta
                calls = []
        elif kind == "remove":
            r = RANK[e["rank"]]
            layout[r] = [
                b
                for b in layout.get(r, [])
                if b["player"] != e["player"]
                or ("copper" in e and b.get("copper", False) != e["copper"])
            ]
        elif kind == "call":
            calls.append(e)
        elif kind == "session":
            balances = dict.fromkeys(e["seats"], 0)
            banker = e["banker"]
        elif kind == "shuffle":
            exposed, counts = [], dict.fromkeys(range(1, 14), 4)
    return balances
