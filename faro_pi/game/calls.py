"""Calling the turn: which calls the last three cards allow.

With three cards left a player names their order: loser, winner, hock. The
ranks named must be exactly the ranks left; when all three share a rank the
call names their colours instead (teaching), or the turn may not be called at
all (the house, ``call_trips`` off). :mod:`faro_pi.game.settle` pays them at
the hock.
"""

from __future__ import annotations

from faro_pi.game.cards import Card, rank_name
from faro_pi.game.events import Call
from faro_pi.game.exc import Refused
from faro_pi.game.pack import Stage
from faro_pi.game.state import TableState


def check_call(state: TableState, call: Call) -> None:
    """Refuses a call the last three do not allow; the caller has checked player and weight."""
    pack = state.pack
    if pack.stage is not Stage.LAST_THREE:
        raise Refused(
            "not-last-three",
            f"the turn is called only when three cards remain ({pack.left} left now)",
        )
    left = pack.remaining()
    ranks = sorted(c.rank for c in left)
    if ranks[0] == ranks[2]:
        if not state.options.call_trips:
            raise Refused(
                "three-of-a-kind",
                f"the last three are all {rank_name(ranks[0])}s: the turn may not be called",
            )
        _check_colours(call, left, ranks[0])
    else:
        _check_order(call, ranks)


def _check_colours(call: Call, left: list[Card], rank: int) -> None:
    """The last three share ``rank``: the call must order exactly their colours."""
    if call.colours is None:
        raise Refused(
            "three-of-a-kind",
            f"the last three are all {rank_name(rank)}s: call their colours instead",
        )
    have = sorted(c.colour for c in left)
    if sorted(call.colours) != have:
        raise Refused(
            "colours",
            f"the last three are {', '.join(have)}: a call must use exactly those colours",
        )


def _check_order(call: Call, ranks: list[int]) -> None:
    """The last three are of two or three ranks: the call must order exactly those."""
    if call.order is None:
        raise Refused("colours", "colours are called only when the last three share one rank")
    if sorted(call.order) != ranks:
        names = " ".join(rank_name(r) for r in ranks)
        raise Refused("call-ranks", f"the last three are {names}: a call must order exactly those")
