"""The table as JSON: what the lookout's console shows and ``faro-pi status`` prints.

Pure functions of a :class:`~faro_pi.game.rules.Table` (or of a run of events), so
the console, the command line and the tests all read the table the same way.
Cards are codes (``"KD"``, ``"10H"``), ranks are names (``"A"`` .. ``"K"``);
anything whose order matters is a list, since a browser reorders the keys of
an object that look like numbers.
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

from faro_pi.game.cards import RANKS, rank_name
from faro_pi.game.events import Bet
from faro_pi.game.felt import LOWER, SEVEN, UPPER
from faro_pi.game.odds import last_three, next_pair
from faro_pi.game.pack import Stage
from faro_pi.game.profile import PROFILES, options_json
from faro_pi.game.rules import Table
from faro_pi.game.state import Pair, Settlement

FELT: dict[str, Any] = {
    "lower": [rank_name(r) for r in LOWER],
    "upper": [rank_name(r) for r in UPPER],
    "seven": rank_name(SEVEN),
}
"""Where each rank lies, left to right as the dealer sees it, so the page draws the one layout."""


def journal_id(path: Path) -> str:
    """The table's name for the journal at ``path``, as the console's state carries it: the
    command line compares it with the journal its config names, so that it never prints
    (or changes) another table that took the port. A digest, so that the state does not
    tell the machine's folders."""
    return hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:16]


def entries(table: Table) -> str:
    """``open``, ``locked`` (the banker's signal) or ``closed`` (a loser is out; the pack ends)."""
    return table.entries.value


def can_lock(table: Table) -> bool:
    """Whether the banker's lock would be taken now. The rules take it exactly while entries
    are open: from the final pair on they are closed for good, so no count of cards is
    needed here, nor on the page."""
    return table.entries_open


PROFILE_OPTIONS = {name: options_json(options) for name, options in PROFILES.items()}
"""Each profile's options, for the page to seat a session under either with its own."""


def state(table: Table, version: int) -> dict[str, Any]:
    """Everything the table shows now; ``version`` rises with every change."""
    pack = table.pack
    current = None
    if pack.loser is not None:
        current = {"turn": pack.turn + 1, "loser": pack.loser.code}
    return {
        "version": version,
        "profile": table.state.profile,
        "options": options_json(table.options),
        "profiles": PROFILE_OPTIONS,
        "felt": FELT,
        "pack": {
            "number": pack.number,
            "exposed": [card.code for card in pack.exposed],
            "left": pack.left,
            "turn": pack.turn,
            "soda": pack.soda.code if pack.soda else None,
            "hock": pack.hock.code if pack.hock else None,
            "complete": pack.complete,
            "stage": table.stage.value,
        },
        "case": [{"rank": name, "count": pack.counts[i + 1]} for i, name in enumerate(RANKS)],
        "pair": current,
        "last_pair": pair(table.last_pair) if table.last_pair else None,
        "entries": entries(table),
        "can_lock": can_lock(table),
        "predictions": [prediction(p) for p in table.predictions],
        "calls": [_call(c.player, c.weight, c.order, c.colours) for c in table.calls],
        "call_results": [settlement(s) for s in table.call_results],
        "seats": list(table.seats),
        "banker": table.banker,
        "balances": dict(table.balances),
        "leaders": table.leaders,
        "last_night": last_night(table),
        "alarms": [
            {
                "kind": a.kind,
                "text": a.text,
                "card": a.card.code if a.card else None,
                "count": table.state.alarm_counts.get(a.kind, 1),
                "picture": a.picture,
                "likely": [card.code for card in a.likely or ()],
            }
            for a in table.alarms
        ],
    }


def last_night(table: Table) -> dict[str, Any] | None:
    """The night closed last: its number in the journal and each participant's result.

    Only the last, so that a year of nights does not ride along with every card.
    """
    nights = table.state.nights
    if not nights:
        return None
    results = [{"player": name, "balance": balance} for name, balance in nights[-1]]
    return {"number": len(nights), "results": results}


def pair(p: Pair) -> dict[str, Any]:
    return {
        "pack": p.pack,
        "turn": p.turn,
        "loser": p.loser.code,
        "winner": p.winner.code,
        "split": p.split,
        "settlements": [settlement(s) for s in p.settlements],
        "banker": p.banker_delta,
    }


def _place(obj: dict[str, Any], ranks, high_card: bool) -> dict[str, Any]:
    """Adds where a two- or four-card bet or a high-card bet sat (single bets need no more)."""
    if ranks is not None:
        obj["ranks"] = [rank_name(r) for r in ranks]
    if high_card:
        obj["high_card"] = True
    return obj


def prediction(p: Bet) -> dict[str, Any]:
    rank = rank_name(p.rank) if p.rank is not None else None
    obj = {"player": p.player, "rank": rank, "weight": p.weight, "copper": p.copper}
    return _place(obj, p.ranks, p.high_card)


def settlement(s: Settlement) -> dict[str, Any]:
    obj = {
        "player": s.player,
        "delta": s.delta,
        "outcome": s.outcome,
        "rank": rank_name(s.rank) if s.rank is not None else None,
        "copper": s.copper,
        "weight": s.weight,
    }
    return _place(obj, s.ranks, s.high_card)


def _call(player: str, weight: int, order, colours) -> dict[str, Any]:
    call: dict[str, Any] = {"player": player, "weight": weight}
    if order is not None:
        call["order"] = [rank_name(r) for r in order]
    else:
        call["colours"] = list(colours)
    return call


def history(table: Table) -> dict[str, Any]:
    """Every pair of the session and each of its packs' banker and calls, from the table."""
    return {
        "pairs": [pair(p) for p in table.pairs],
        "packs": [
            {"number": r.number, "banker": r.banker, "calls": [settlement(s) for s in r.calls]}
            for r in table.pack_records
        ],
        "balances": dict(table.balances),
    }


_COMING = {
    Stage.SHUFFLED: "soda",
    Stage.LOSER: "winner",
    Stage.FINAL: "none",
    Stage.HOCK: "none",
}
"""What the next card completes, for the odds: the soda, a pair's winner, a whole pair, none."""


def odds(table: Table, version: int) -> dict[str, Any]:
    """The exact odds of :mod:`faro_pi.game.odds` for the table now (``GET /api/odds``).

    Each chance comes twice: a float, and the exact fraction as ``"n/d"``.
    """
    coming = _COMING.get(table.pack.stage, "pair")
    ranks = []
    for rank, chances in next_pair(table).items():
        three = {"lose": chances.lose, "win": chances.win, "split": chances.split}
        ranks.append(
            {
                "rank": RANKS[rank - 1],
                "count": table.pack.counts[rank],
                **{k: float(v) for k, v in three.items()},
                "fractions": {k: _fraction(v) for k, v in three.items()},
            }
        )
    orders = last_three(table)
    called = None
    if orders:
        by_colour = isinstance(orders[0][0][0], str)
        called = {
            "by": "colour" if by_colour else "rank",
            "orders": [
                {
                    ("colours" if by_colour else "order"): (
                        list(order) if by_colour else [RANKS[r - 1] for r in order]
                    ),
                    "chance": float(chance),
                    "fraction": _fraction(chance),
                }
                for order, chance in orders
            ],
        }
    return {
        "version": version,
        "left": table.pack.left,
        "next": coming,
        "ranks": ranks,
        "last_three": called,
    }


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def describe(state: dict[str, Any]) -> list[str]:
    """The state as a few lines for people (``faro-pi status``)."""
    pack = state["pack"]
    out = len(pack["exposed"])
    lines = [
        f"pack {pack['number']}: {out} card{'' if out == 1 else 's'} out, {pack['left']} left, "
        f"turn {pack['turn']}; entries {state['entries']}"
    ]
    if pack["exposed"]:
        lines.append("exposed: " + " ".join(pack["exposed"]))
    lines.append("case: " + " ".join(f"{c['rank']}:{c['count']}" for c in state["case"]))
    last = state["last_pair"]
    if last:
        moves = ", ".join(f"{s['player']} {s['delta']:+d}" for s in last["settlements"])
        lines.append(
            f"last pair: turn {last['turn']} {last['loser']} loses, {last['winner']} wins"
            + (" (split)" if last["split"] else "")
            + (f"; {moves}; bank {last['banker']:+d}" if moves else "")
        )
    lines += _night(state)
    for p in state["predictions"]:
        lines.append(
            f"on {_where(p)}: {p['player']} {p['weight']}" + (" coppered" if p["copper"] else "")
        )
    for c in state["calls"]:
        named = " ".join(c.get("order") or c.get("colours"))
        lines.append(f"call: {c['player']} {named} for {c['weight']}")
    for a in state["alarms"]:
        lines.append(f"alarm ({a['kind']}): {a['text']}")
    return lines


def _night(state: dict[str, Any]) -> list[str]:
    """The open night's results, those who left too (so they sum to zero, as on the page);
    between nights, the results of the one closed last."""
    balances, seats = state["balances"], state["seats"]
    if seats:
        seated = ", ".join(
            f"{name}{' (banker)' if name == state['banker'] else ''} {balances[name]:+d}"
            for name in seats
        )
        gone = ", ".join(f"{name} {b:+d}" for name, b in balances.items() if name not in seats)
        left = f"; left: {gone}" if gone else ""
        return [f"balances: {seated}{left}; leaders: {', '.join(state['leaders'])}"]
    lines = ["no session: nobody is seated"]
    night = state.get("last_night")
    if night:
        results = ", ".join(f"{r['player']} {r['balance']:+d}" for r in night["results"])
        lines.append(f"night {night['number']} closed: {results}")
    return lines


def _where(p: dict[str, Any]) -> str:
    if p.get("high_card"):
        return "high card"
    return "-".join(p["ranks"]) if "ranks" in p else p["rank"]
