"""How much one player may have standing: a bound no real table reaches, so the layout cannot
grow without end (5,000 bets made every answer of the console 271 KB)."""

from __future__ import annotations

from faro_pi.game.events import Bet, Remove, Session
from faro_pi.game.rules import Table
from faro_pi.game.state import MAX_HELD
from tests.test_rules import refused

KING, QUEEN, ACE, TWO = 13, 12, 1, 2


def table() -> Table:
    table = Table()
    table.apply(Session(("Ann", "Bob", "Bank"), "Bank", "house"))  # combinations, high card
    return table


def test_a_player_may_hold_a_prediction_each_way_on_every_place_and_more():
    assert MAX_HELD > 2 * (13 + 23 + 1)


def test_past_the_bound_a_players_new_prediction_is_refused_and_others_play_on():
    t = table()
    for i in range(MAX_HELD - 2):
        t.apply(Bet("Ann", KING, 2, copper=bool(i & 1)))
    t.apply(Bet("Ann", None, 2, ranks=(QUEEN, KING)))  # a combination counts once
    t.apply(Bet("Ann", None, 2, high_card=True))
    message = refused(t, Bet("Ann", ACE, 2), "held")
    assert "Ann" in message and str(MAX_HELD) in message
    refused(t, Bet("Ann", None, 2, ranks=(ACE, TWO)), "held")
    t.apply(Bet("Bob", ACE, 2))  # the bound is each player's
    t.apply(Remove("Ann", KING, copper=True))  # taking some back makes room
    t.apply(Bet("Ann", ACE, 2))
