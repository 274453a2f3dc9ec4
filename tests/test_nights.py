"""A real night: players join and leave between turns, the night closes, calls are taken back."""

from __future__ import annotations

import json
import random

import pytest

from faro_pi.exc import Refused
from faro_pi.game import resume
from faro_pi.game.cards import DECK
from faro_pi.game.codec import event_from_json
from faro_pi.game.demo import play as demo
from faro_pi.game.events import CLOSE, SHUFFLE
from faro_pi.game.replay import replay_lines
from faro_pi.game.rules import Table

PACK = [c.code for c in DECK]


def play(t: Table, *objs: dict) -> None:
    for obj in objs:
        t.apply(event_from_json(obj))


def cards(*codes: str) -> list[dict]:
    return [{"type": "card", "card": code} for code in codes]


def refused(t: Table, obj: dict) -> str:
    before = (t.seats, dict(t.balances), list(t.predictions), list(t.calls), t.state.nights)
    with pytest.raises(Refused) as caught:
        t.apply(event_from_json(obj))
    assert (t.seats, dict(t.balances), list(t.predictions), list(t.calls), t.state.nights) == (
        before
    )
    return caught.value.rule


def seated(*seats: str, banker: str = "Cy") -> Table:
    t = Table()
    play(t, {"type": "session", "seats": list(seats), "banker": banker})
    return t


def test_a_player_joins_at_the_end_and_a_rejoining_one_keeps_the_balance():
    t = seated("Ann", "Bob", "Cy")
    play(t, {"type": "bet", "player": "Ann", "rank": "5", "weight": 2}, *cards("2C", "3H", "5D"))
    play(t, {"type": "join", "player": "Dee"})
    assert t.seats == ("Ann", "Bob", "Cy", "Dee") and t.balances["Dee"] == 0
    play(t, {"type": "leave", "player": "Ann"})
    assert t.seats == ("Bob", "Cy", "Dee") and t.balances["Ann"] == 2
    play(t, {"type": "join", "player": "Ann"})
    assert t.seats == ("Bob", "Cy", "Dee", "Ann") and t.balances["Ann"] == 2


def test_joining_is_refused_when_seated_full_closed_or_without_a_session():
    assert refused(Table(), {"type": "join", "player": "Dee"}) == "no-session"
    t = seated("Ann", "Bob", "Cy")
    assert refused(t, {"type": "join", "player": "Ann"}) == "seats"
    play(t, *({"type": "join", "player": f"P{i}"} for i in range(7)))
    assert refused(t, {"type": "join", "player": "Zed"}) == "seats"
    t = seated("Ann", "Bob", "Cy")
    play(t, *cards("2C", "3H"))
    assert refused(t, {"type": "join", "player": "Dee"}) == "entries-closed"


def test_leaving_withdraws_predictions_and_calls_with_no_money_moving():
    t = seated("Ann", "Bob", "Cy")
    play(
        t,
        {"type": "bet", "player": "Ann", "rank": "5", "weight": 2},
        {"type": "bet", "player": "Bob", "rank": "5", "weight": 2},
        {"type": "leave", "player": "Ann"},
    )
    assert [p.player for p in t.predictions] == ["Bob"]
    assert t.balances == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert refused(t, {"type": "leave", "player": "Cy"}) == "banker"
    assert refused(t, {"type": "leave", "player": "Bob"}) == "seats"  # two must stay
    assert refused(t, {"type": "leave", "player": "Ann"}) == "not-seated"
    assert refused(t, {"type": "bet", "player": "Ann", "rank": "5", "weight": 2}) == "not-seated"


def test_a_night_closes_only_between_packs_and_the_next_is_seated_after_the_shuffle():
    t = seated("Ann", "Bob", "Cy")
    play(t, {"type": "lock"}, {"type": "close"})  # before the soda, even while locked
    assert t.seats == () and t.sessions == [{"Ann": 0, "Bob": 0, "Cy": 0}]
    assert refused(t, {"type": "close"}) == "no-session"
    t = seated("Ann", "Bob", "Cy")
    play(t, {"type": "bet", "player": "Ann", "rank": "5", "weight": 2}, *cards("2C"))
    assert refused(t, {"type": "close"}) == "mid-pack"
    play(t, *cards(*[c for c in PACK if c != "2C"]))
    play(t, {"type": "close"})
    again = {"type": "session", "seats": ["Dee", "Eve"], "banker": "Eve"}
    assert refused(t, again) == "entries-closed"  # a complete pack waits for the shuffle
    play(t, {"type": "shuffle"}, again)
    assert t.seats == ("Dee", "Eve") and len(t.sessions) == 2
    assert refused(t, {**again, "seats": ["X", "Y"], "banker": "X"}) == "one-session"


def test_the_bank_passes_between_packs_and_the_old_banker_may_then_leave():
    t = seated("Ann", "Bob", "Cy")
    play(t, {"type": "bank", "player": "Ann"})  # before the soda
    assert t.banker == "Ann"
    play(t, {"type": "bet", "player": "Cy", "rank": "5", "weight": 2}, *cards("2C", "3H", "5D"))
    assert t.balances == {"Ann": -2, "Bob": 0, "Cy": 2}  # Ann's bank paid Cy
    assert refused(t, {"type": "bank", "player": "Bob"}) == "mid-pack"
    play(t, {"type": "leave", "player": "Cy"})  # no longer the banker: Cy may get up
    assert t.seats == ("Ann", "Bob") and sum(t.balances.values()) == 0


def test_passing_the_bank_is_refused_to_whom_the_rules_do_not_allow():
    assert refused(Table(), {"type": "bank", "player": "Ann"}) == "no-session"
    t = seated("Ann", "Bob", "Cy")
    assert refused(t, {"type": "bank", "player": "Zed"}) == "not-seated"
    assert refused(t, {"type": "bank", "player": "Cy"}) == "banker"  # has it already
    play(t, {"type": "bet", "player": "Ann", "rank": "5", "weight": 2})
    with pytest.raises(Refused, match="Ann has bets on the layout: take them off"):
        t.apply(event_from_json({"type": "bank", "player": "Ann"}))
    play(t, *cards(*PACK[:3]))
    with pytest.raises(Refused, match="the bank passes between packs: before the soda or after"):
        t.apply(event_from_json({"type": "bank", "player": "Bob"}))


@pytest.mark.parametrize("profile", ["teaching", "house"])
def test_a_bank_passed_after_the_hock_banks_the_next_pack_and_the_last_keeps_its_banker(profile):
    t = Table()
    session = {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"}
    play(t, {**session, "profile": profile}, *cards(*PACK), {"type": "bank", "player": "Bob"})
    assert t.banker == "Bob" and t.pack_records[-1].banker == "Cy"
    play(t, {"type": "shuffle"})  # the teaching rotation does not pass it on again
    assert t.banker == "Bob" and [r.banker for r in t.pack_records] == ["Cy", "Bob"]
    play(t, *cards(*PACK), {"type": "shuffle"})
    rotated = "Cy" if profile == "teaching" else "Bob"
    assert t.banker == rotated and [r.banker for r in t.pack_records] == ["Cy", "Bob", rotated]


def test_a_void_of_the_hock_takes_back_the_bank_passed_after_it():
    t = seated("Ann", "Bob", "Cy")
    play(t, *cards(*PACK), {"type": "bank", "player": "Ann"})
    play(t, {"type": "void", "card": PACK[-1]})
    assert t.banker == "Cy" and [type(e).__name__ for e in t.dropped] == ["Bank"]
    again = resume.load(resume.save(t))
    assert again.state == t.state


def test_closing_before_the_soda_withdraws_what_stands():
    t = seated("Ann", "Bob", "Cy")
    play(t, {"type": "bet", "player": "Ann", "rank": "5", "weight": 2}, {"type": "close"})
    assert t.predictions == [] and t.sessions == [{"Ann": 0, "Bob": 0, "Cy": 0}]


def last_three_table() -> Table:
    t = seated("Ann", "Bob", "Cy")
    play(t, *cards(*PACK[:49]))
    return t


def test_calls_can_be_taken_back_while_calls_are_taken():
    t = last_three_table()
    ranks = sorted({c[:-1] for c in PACK[49:]})
    order = [PACK[49][:-1], PACK[50][:-1], PACK[51][:-1]]
    play(t, {"type": "call", "player": "Ann", "order": order, "weight": 2})
    play(t, {"type": "call", "player": "Ann", "order": order[::-1], "weight": 2})
    play(t, {"type": "remove", "player": "Ann", "call": True})
    assert t.calls == [] and ranks
    assert refused(t, {"type": "remove", "player": "Ann", "call": True}) == "nothing-to-remove"
    play(t, {"type": "call", "player": "Bob", "order": order, "weight": 2}, {"type": "lock"})
    assert refused(t, {"type": "remove", "player": "Bob", "call": True}) == "entries-closed"


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "remove", "player": "Ann", "call": 1},
        {"type": "remove", "player": "Ann", "call": True, "rank": "5"},
        {"type": "remove", "player": "Ann", "call": True, "ranks": ["9", "10"]},
        {"type": "remove", "player": "Ann", "call": True, "high_card": True},
    ],
)
def test_a_take_back_of_calls_is_only_that(obj):
    with pytest.raises(Refused):
        event_from_json(obj)


@pytest.mark.parametrize("name", ["", "   ", "a" * 25, "Ann\nBob", "Ann\x1b[31m", "N\x00"])
def test_names_that_cannot_be_seated_are_refused(name):
    with pytest.raises(Refused):
        event_from_json({"type": "session", "seats": [name, "Bob"], "banker": "Bob"})
    with pytest.raises(Refused):
        event_from_json({"type": "join", "player": name})


def test_names_are_trimmed_and_composed_so_one_name_is_one_seat():
    composed, decomposed = "Ren\u00e9", "Rene\u0301"
    banker = event_from_json({"type": "session", "seats": [composed, "Bob"], "banker": decomposed})
    assert banker.banker == composed
    session = event_from_json(
        {"type": "session", "seats": [f"  {composed} ", "Bob"], "banker": "Bob"}
    )
    assert session.seats == (composed, "Bob")
    t = Table()
    with pytest.raises(Refused) as caught:
        t.apply(
            event_from_json({"type": "session", "seats": [composed, decomposed], "banker": "x"})
        )
    assert caught.value.rule == "seats"
    t.apply(session)
    t.apply(event_from_json({"type": "bet", "player": decomposed, "rank": "5", "weight": 2}))
    assert [p.player for p in t.predictions] == [composed]
    assert event_from_json({"type": "join", "player": "a" * 24}).player == "a" * 24


def test_replay_sums_every_session_by_name_and_lists_each():
    lines = [
        {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"},
        {"type": "bet", "player": "Ann", "rank": "5", "weight": 2},
        *cards("2C", "3H", "5D"),
        {"type": "remove", "player": "Ann", "rank": "5"},
        *cards(*[c for c in PACK if c not in ("2C", "3H", "5D")]),
        {"type": "close"},
        {"type": "shuffle"},
        {"type": "session", "seats": ["Ann", "Dee"], "banker": "Dee"},
        {"type": "bet", "player": "Ann", "rank": "9", "weight": 4},
        *cards("2C", "9H", "3D"),
    ]
    summary = replay_lines([json.dumps(obj) for obj in lines]).summary()
    assert summary["sessions"] == [{"Ann": 2, "Bob": 0, "Cy": -2}, {"Ann": -4, "Dee": 4}]
    assert summary["balances"] == {"Ann": -2, "Bob": 0, "Cy": -2, "Dee": 4}
    assert summary["leaders"] == ["Dee"]


def test_a_void_after_a_close_puts_the_night_back():
    t = seated("Ann", "Bob", "Cy")
    play(t, *cards(*PACK), {"type": "close"}, {"type": "void", "card": PACK[-1]})
    assert t.seats == ("Ann", "Bob", "Cy") and t.state.nights == ()
    assert [type(e).__name__ for e in t.dropped] == ["Close"]


def test_a_resume_point_anywhere_then_the_rest_equals_replaying_everything():
    rng = random.Random(5)
    events = []
    for _ in range(3):
        events += [*demo(rng, ("Ann", "Bob", "Cy"), packs=2, profile="house"), CLOSE, SHUFFLE]
    whole = Table()
    whole.replay(events)
    for cut in rng.sample(range(len(events)), 25):
        first = Table()
        first.replay(events[:cut])
        again = resume.load(resume.save(first))
        again.replay(events[cut:])
        assert again.state == whole.state and again.pairs == whole.pairs
        assert again.pack_records == whole.pack_records
    assert resume.load(b"not a resume point") is None
