"""The house profile and its options, each alone and mixed, settled by hand."""

from __future__ import annotations

import pytest

from faro_pi.exc import Refused
from faro_pi.game.cards import DECK
from faro_pi.game.codec import event_from_json, event_to_json
from faro_pi.game.felt import ADJACENT, SQUARES
from faro_pi.game.rules import Table

SEATS = ["Ann", "Bob", "House"]


def table(profile: str = "house", **options) -> Table:
    t = Table()
    session = {"type": "session", "seats": SEATS, "banker": "House", "profile": profile}
    if options:
        session["options"] = options
    t.apply(event_from_json(session))
    return t


def deal(t: Table, *codes: str) -> None:
    for code in codes:
        t.apply(event_from_json({"type": "card", "card": code}))


def bet(t: Table, player: str = "Ann", weight: int = 3, **where) -> None:
    t.apply(event_from_json({"type": "bet", "player": player, "weight": weight, **where}))


def refused(t: Table, obj: dict) -> str:
    """The rule that refuses ``obj``; the table is left exactly as it was."""
    before = (dict(t.balances), list(t.predictions), len(t.pack.exposed))
    with pytest.raises(Refused) as caught:
        t.apply(event_from_json(obj))
    assert (dict(t.balances), list(t.predictions), len(t.pack.exposed)) == before
    return caught.value.rule


def test_the_felt_has_18_neighbouring_pairs_and_5_corners():
    assert len(ADJACENT) == 18 and len(SQUARES) == 5
    assert frozenset({6, 7}) in ADJACENT and frozenset({7, 8}) in ADJACENT
    assert frozenset({1, 13}) in ADJACENT and frozenset({6, 8}) in ADJACENT
    assert frozenset({1, 2, 13, 12}) in SQUARES and frozenset({5, 6, 9, 8}) in SQUARES
    assert frozenset({1, 3}) not in ADJACENT and frozenset({7, 9}) not in ADJACENT


def test_an_odd_split_loses_the_odd_unit_to_the_bank():
    t = table()
    bet(t, rank="9", weight=3)
    bet(t, "Bob", rank="9", weight=5, copper=True)
    deal(t, "2C", "9H", "9D")
    assert t.balances == {"Ann": -2, "Bob": -3, "House": 5}
    assert t.predictions == []


def test_odd_weights_are_refused_under_even_weights():
    assert refused(table("teaching"), {"type": "bet", "player": "Ann", "rank": "9", "weight": 3})
    t = table("teaching", even_weights=False)
    bet(t, rank="9", weight=3)
    deal(t, "2C", "4H", "9D")
    assert t.balances["Ann"] == 3


def test_a_two_card_bet_is_settled_by_the_first_pair_showing_either_rank():
    t = table()
    bet(t, ranks=["10", "9"], weight=3)  # any order
    bet(t, "Bob", ranks=["9", "10"], weight=4, copper=True)
    deal(t, "2C", "4H", "10D")  # 10 wins: ordinary wins and stays, coppered loses
    assert t.balances == {"Ann": 3, "Bob": -4, "House": 1}
    assert [(p.player, p.ranks) for p in t.predictions] == [("Ann", (10, 9))]
    deal(t, "9S", "KD")  # 9 loses: Ann's bet loses and comes off
    assert t.balances == {"Ann": 0, "Bob": -4, "House": 4}
    assert t.predictions == []


def test_two_covered_ranks_in_one_pair_are_a_split():
    t = table()
    bet(t, ranks=["A", "2", "K", "Q"], weight=5)
    deal(t, "7C", "KH", "2D")
    assert t.balances["Ann"] == -3
    assert t.last_pair.settlements[0].outcome == "split"
    assert t.predictions == []


def test_combinations_must_be_neighbours_or_a_corner_and_be_on():
    assert refused(table(), {"type": "bet", "player": "Ann", "ranks": ["A", "3"], "weight": 3}) == (
        "layout"
    )
    assert (
        refused(
            table(combinations=False),
            {"type": "bet", "player": "Ann", "ranks": ["9", "10"], "weight": 3},
        )
        == "combinations"
    )


def test_high_card_wins_loses_and_stands_off():
    t = table()
    bet(t, high_card=True, weight=3)
    bet(t, "Bob", high_card=True, weight=2, copper=True)
    deal(t, "2C", "4H", "9D")  # higher winner: ordinary wins, copper loses
    assert t.balances == {"Ann": 3, "Bob": -2, "House": -1}
    deal(t, "5S", "5D")  # a split: a standoff, the bet stays
    assert t.balances == {"Ann": 3, "Bob": -2, "House": -1}
    deal(t, "KS", "3D")  # lower winner: ordinary loses and comes off
    assert t.balances == {"Ann": 0, "Bob": -2, "House": 2}
    assert t.predictions == []
    assert (
        refused(table("teaching"), {"type": "bet", "player": "Ann", "high_card": True, "weight": 2})
        == "high-card"
    )


def rest_of_pack(first: list[str], last_three: list[str]) -> list[str]:
    used = set(first) | set(last_three)
    return first + [c.code for c in DECK if c.code not in used] + last_three


def test_leftovers_are_collected_at_the_final_winner_after_the_pair_is_settled():
    cards = rest_of_pack(["7C"], ["KS", "QH", "2D"])  # final pair K loses, Q wins; hock 2
    t = table()
    deal(t, *cards[:49])
    bet(t, rank="2", weight=3)  # left standing: the hock's rank
    bet(t, "Bob", rank="Q", weight=4)  # wins the final pair, then is collected
    bet(t, high_card=True, weight=1, copper=True)  # K then Q: lower winner, copper wins
    deal(t, *cards[49:51])
    final = t.last_pair.settlements
    assert [(s.player, s.outcome, s.delta) for s in final] == [
        ("Bob", "won", 4),
        ("Ann", "won", 1),
        ("Ann", "collected", -3),
        ("Bob", "collected", -4),
        ("Ann", "collected", -1),
    ]
    assert t.balances == {"Ann": -3, "Bob": 0, "House": 3}
    assert t.predictions == []


def test_at_the_final_winner_teaching_ends_what_stands_without_change():
    cards = rest_of_pack(["7C"], ["KS", "QH", "2D"])
    t = table("teaching")
    deal(t, *cards[:49])
    bet(t, rank="2", weight=2)
    deal(t, *cards[49:51])
    assert t.balances["Ann"] == 0 and t.predictions == []


# A coppered bet on Q-K that wins at every pair until no Q or K is left.
DEAD = ["2C", "KH", "3D", "KD", "4C", "KS", "5C", "KC", "6C", "QH", "8C", "QD", "9C", "QS"]
DEAD += ["10C", "QC", "JC"]


def test_dead_bets_stay_without_remove_dead_and_come_off_with_it():
    for remove_dead, left in ((False, 1), (True, 0)):
        t = table(remove_dead=remove_dead)
        deal(t, DEAD[0])
        bet(t, ranks=["Q", "K"], weight=3, copper=True)
        deal(t, *DEAD[1:])
        assert t.balances["Ann"] == 8 * 3
        assert len(t.predictions) == left


def test_a_bet_on_dead_ranks_is_refused_and_one_left_standing_can_be_removed():
    t = table()
    deal(t, DEAD[0])
    bet(t, ranks=["Q", "K"], weight=3, copper=True)
    deal(t, *DEAD[1:])
    assert refused(t, {"type": "bet", "player": "Bob", "ranks": ["Q", "K"], "weight": 3}) == (
        "exhausted"
    )
    assert refused(t, {"type": "bet", "player": "Bob", "rank": "K", "weight": 3}) == "exhausted"
    t.apply(
        event_from_json({"type": "remove", "player": "Ann", "ranks": ["K", "Q"], "copper": True})
    )
    assert t.predictions == []
    assert refused(t, {"type": "remove", "player": "Ann", "ranks": ["K", "Q"]}) == (
        "nothing-to-remove"
    )


def test_a_combination_with_some_ranks_out_still_plays():
    t = table()
    deal(t, "2C", "KH", "3D", "KD", "4C", "KS", "5C", "KC", "6C")
    bet(t, ranks=["Q", "K"], weight=3)
    deal(t, "8C", "QD")
    assert t.balances["Ann"] == 3


def test_three_of_a_kind_may_not_be_called_in_the_house():
    cards = rest_of_pack(["2C"], ["7S", "7H", "7D"])
    t = table()
    deal(t, *cards[:49])
    rule = refused(
        t, {"type": "call", "player": "Ann", "colours": ["black", "red", "red"], "weight": 2}
    )
    assert rule == "three-of-a-kind"
    trips = table(call_trips=True)
    deal(trips, *cards[:49])
    trips.apply(
        event_from_json(
            {"type": "call", "player": "Ann", "colours": ["black", "red", "red"], "weight": 2}
        )
    )


@pytest.mark.parametrize("pays", [1, 2])
def test_a_cat_hop_pays_as_the_option_says(pays):
    cards = rest_of_pack(["2C"], ["7S", "7H", "9D"])
    t = table(cat_hop_pays=pays)
    deal(t, *cards[:49])
    t.apply(
        event_from_json({"type": "call", "player": "Ann", "order": ["7", "7", "9"], "weight": 3})
    )
    deal(t, *cards[49:])
    assert t.call_results[0].delta == 3 * pays


def test_the_house_keeps_the_bank_at_a_shuffle_and_teaching_rotates_it():
    for profile, banker in (("house", "House"), ("teaching", "Ann")):
        t = table(profile)
        deal(t, *(c.code for c in DECK))
        t.apply(event_from_json({"type": "shuffle"}))
        assert t.banker == banker


def test_the_house_hands_its_bank_on_only_between_packs():
    t = table()
    deal(t, "2C")
    assert refused(t, {"type": "bank", "player": "Ann"}) == "mid-pack"  # nor between turns
    deal(t, *(c.code for c in DECK if c.code != "2C"))
    t.apply(event_from_json({"type": "bank", "player": "Ann"}))
    t.apply(event_from_json({"type": "shuffle"}))
    assert t.banker == "Ann" and [r.banker for r in t.pack_records] == ["House", "Ann"]
    assert refused(t, {"type": "bet", "player": "Ann", "rank": "9", "weight": 3}) == "banker"
    bet(t, "House", 3, rank="9")  # the house's seat is a punter's now


@pytest.mark.parametrize(
    "session",
    [
        {"profile": "casino"},
        {"options": {"nope": True}},
        {"options": {"high_card": 1}},
        {"options": {"cat_hop_pays": 3}},
        {"options": {"cat_hop_pays": True}},
        {"options": []},
    ],
)
def test_a_session_with_bad_rules_is_refused(session):
    with pytest.raises(Refused):
        event_from_json({"type": "session", "seats": SEATS, **session})


@pytest.mark.parametrize(
    "where",
    [
        {"ranks": ["9"]},
        {"ranks": ["9", "9"]},
        {"ranks": ["9", "10", "J"]},
        {"rank": "9", "ranks": ["9", "10"]},
        {"rank": "9", "high_card": True},
        {"high_card": 1},
        {"high_card": False},
    ],
)
def test_a_bet_sits_in_exactly_one_place(where):
    with pytest.raises(Refused):
        event_from_json({"type": "bet", "player": "Ann", "weight": 3, **where})


def test_the_session_event_round_trips_with_its_rules():
    obj = {
        "type": "session",
        "seats": SEATS,
        "banker": "House",
        "profile": "house",
        "options": {"cat_hop_pays": 1},
    }
    event = event_from_json(obj)
    again = event_from_json(event_to_json(event))
    assert again == event and again.options.cat_hop_pays == 1 and not again.options.even_weights
