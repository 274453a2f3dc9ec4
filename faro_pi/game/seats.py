"""Who sits at the table: seating a session, joining and leaving between turns, closing the night.

A session is a night at the table. It is seated while entries are open; a
participant may join at the end of the table order, or leave (what they have
on the layout is withdrawn, their result stays), only between turns. The night
is closed between packs, and its results are kept; the next may then be seated
in the same journal. Each function checks everything before it changes
anything, as the engine's handlers do.
"""

from __future__ import annotations

from faro_pi.game.events import Bank, Close, Join, Leave, Session
from faro_pi.game.exc import Refused
from faro_pi.game.fields import MAX_SEATS, MIN_SEATS
from faro_pi.game.names import resembles, seat_name
from faro_pi.game.pack import Stage
from faro_pi.game.profile import DEFAULT_PROFILE, MAX_WEIGHT, PROFILES
from faro_pi.game.state import TableState, require_open


def seat(state: TableState, session: Session) -> None:
    """Seats a session: 2 to 10 different names, one of them the banker."""
    names = session.seats
    if state.seats:
        raise Refused("one-session", "a session is already seated at this table: close it first")
    if not MIN_SEATS <= len(names) <= MAX_SEATS:
        raise Refused(
            "seats", f"a session seats {MIN_SEATS} to {MAX_SEATS} participants, not {len(names)}"
        )
    if len(set(names)) != len(names):
        raise Refused("seats", "each participant is seated once: the names must differ")
    for i, name in enumerate(names):
        seat_name(name, "seats")  # an event made in code, not read from JSON, is checked too
        _unlike(name, names[:i])
    if session.banker is None:
        raise Refused("banker", "name the banker (one of the seats)")
    if session.banker not in names:
        raise Refused("banker", f"the banker {session.banker} is not one of the seats")
    require_open(state)
    state.seats = names
    state.banker = session.banker
    state.balances = dict.fromkeys(names, 0)
    state.profile = session.profile or DEFAULT_PROFILE
    state.options = session.options or PROFILES[state.profile]
    state.limit = session.limit or MAX_WEIGHT


def _seated(state: TableState) -> None:
    if not state.seats:
        raise Refused("no-session", "no session: seat the participants first")


def join(state: TableState, event: Join) -> None:
    """Seats one more at the end of the table order; one who left keeps the result they had."""
    _seated(state)
    if event.player in state.seats:
        raise Refused("seats", f"{event.player} is seated already")
    seat_name(event.player)
    _unlike(event.player, (*state.seats, *state.balances))  # one who left may come back
    if len(state.seats) >= MAX_SEATS:
        raise Refused("seats", f"the table is full: {MAX_SEATS} are seated")
    require_open(state)
    state.seats = (*state.seats, event.player)
    state.balances.setdefault(event.player, 0)


def _unlike(name: str, others) -> None:
    """Refuses a name that looks like another one of the night's (a Cyrillic А, a fullwidth Ａ)."""
    like = resembles(name, others)
    if like is not None:
        raise Refused(
            "look-alike",
            f"{name!r} looks like {like!r}, already at this table tonight: "
            "choose a name that reads differently",
        )


def _seated_player(state: TableState, player: str) -> str:
    """``player``, refused unless a session stands and they are seated at it."""
    _seated(state)
    if player not in state.seats:
        raise Refused("not-seated", f"{player} is not seated at this table")
    return player


def leave(state: TableState, event: Leave) -> None:
    """Gets a player up: their predictions and calls are withdrawn, no money moves."""
    player = _seated_player(state, event.player)
    if player == state.banker:
        raise Refused("banker", f"{player} is the banker: pass the bank first")
    if len(state.seats) <= MIN_SEATS:
        raise Refused("seats", f"at least {MIN_SEATS} must stay seated: close the session instead")
    require_open(state)
    state.layout = [[p for p in stack if p.player != player] for stack in state.layout]
    state.high = [p for p in state.high if p.player != player]
    state.calls = [c for c in state.calls if c.player != player]
    state.seats = tuple(name for name in state.seats if name != player)


def _between_packs(state: TableState, what: str) -> None:
    """Refuses, as the rule says, anything but before the soda or after the hock."""
    at = state.pack.stage
    if at is not Stage.SHUFFLED and at is not Stage.HOCK:
        raise Refused(
            "mid-pack",
            f"{what} between packs: before the soda or after the hock "
            f"({state.pack.left} cards left in the shoe)",
        )


def pass_bank(state: TableState, event: Bank) -> None:
    """Hands the bank to a seated player between packs, when no bet of theirs stands.

    Bets stand against the bank that took them, so it changes hands only when
    none can: before the soda (the new banker's own bets must be off) or after
    the hock, when the layout is empty.
    """
    player = _seated_player(state, event.player)
    if player == state.banker:
        raise Refused("banker", f"{player} has the bank already")
    _between_packs(state, "the bank passes")
    if any(p.player == player for stack in state.layout for p in stack) or any(
        p.player == player for p in state.high
    ):
        raise Refused(
            "banker", f"{player} has bets on the layout: take them off before taking the bank"
        )
    if state.pack.stage is Stage.HOCK and state.passed_by is None:
        state.passed_by = state.banker
    state.banker = player


def close(state: TableState, _: Close) -> None:
    """Ends the night between packs: what stands is withdrawn and the results are kept."""
    _seated(state)
    _between_packs(state, "a session is closed")
    state.nights = (*state.nights, tuple(state.balances.items()))
    state.layout = [[] for _ in range(14)]
    state.high = []
    state.calls = []
    state.seats = ()
    state.banker = state.passed_by = None
    state.balances = {}


def leaders(balances: dict[str, int]) -> list[str]:
    """The names with the highest balance, in the order given; ties share."""
    if not balances:
        return []
    best = max(balances.values())
    return [name for name, balance in balances.items() if balance == best]
