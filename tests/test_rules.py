"""The teaching profile's rules, one by one, as a person at the table would check them."""

import pytest

from faro_pi.exc import Refused
from faro_pi.game.cards import DECK, parse_card
from faro_pi.game.codec import EVENTS, event_from_json
from faro_pi.game.events import LOCK, SHUFFLE, Bet, Call, CardDrawn, Clear, Remove, Session, Void
from faro_pi.game.events import Alarm as AlarmEvent
from faro_pi.game.rules import Table


def card(code):
    return CardDrawn(parse_card(code))


def seated(*seats, banker="Bank"):
    table = Table()
    table.apply(Session((*seats, banker), banker))
    return table


def deal(table, *codes):
    for code in codes:
        table.apply(card(code))


def bet(table, player, rank, weight=2, copper=False):
    from faro_pi.game.cards import parse_rank

    table.apply(Bet(player, parse_rank(rank), weight, copper))


def refused(table, event, rule):
    """Asserts the event is refused for ``rule`` and the table did not change."""
    before = snapshot(table)
    with pytest.raises(Refused) as caught:
        table.apply(event)
    assert caught.value.rule == rule, str(caught.value)
    assert snapshot(table) == before
    return str(caught.value)


def snapshot(table):
    return (
        [c.code for c in table.pack.exposed],
        list(table.pack.counts),
        table.pack.number,
        table.locked,
        table.seats,
        table.banker,
        dict(table.balances),
        [(p.player, p.rank, p.weight, p.copper) for p in table.predictions],
        [(c.player, c.weight, c.order, c.colours) for c in table.calls],
        list(table.alarms),
        len(table.pairs),
    )


def rest_of_pack(table, *, keep_last=()):
    """Every card not yet exposed, in case-keeper order, with ``keep_last`` at the end."""
    keep = [parse_card(c) for c in keep_last]
    left = [c.code for c in DECK if c not in table.pack.seen and c not in keep]
    return left + [c.code for c in keep]


# -- the worked example of the rule card (section 09) ---------------------------


def test_worked_example_ordinary_nine_and_coppered_king_both_gain():
    table = seated("Ann", "Bob")
    deal(table, "5H")  # soda
    bet(table, "Ann", "9", 2)
    bet(table, "Bob", "K", 2, copper=True)
    deal(table, "KD", "9C")
    assert table.balances == {"Ann": 2, "Bob": 2, "Bank": -4}


def test_worked_example_split_on_nines_loses_half_while_king_is_unresolved():
    table = seated("Ann", "Bob")
    deal(table, "5H")
    bet(table, "Ann", "9", 2)
    bet(table, "Bob", "K", 2, copper=True)
    deal(table, "9C", "9H")
    assert table.balances == {"Ann": -1, "Bob": 0, "Bank": 1}
    assert table.last_pair.split
    assert [(p.player, p.weight) for p in table.predictions] == [("Bob", 2)]


def test_worked_example_calling_seven_jack_three_earns_eight():
    table = seated("Ann", "Bob")
    deal(table, *rest_of_pack(table, keep_last=("7S", "JH", "3D"))[:49])
    table.apply(Call("Ann", 2, order=(7, 11, 3)))
    deal(table, "7S", "JH", "3D")
    assert table.balances == {"Ann": 8, "Bob": 0, "Bank": -8}
    assert [s.outcome for s in table.call_results] == ["called"]


# -- the pack --------------------------------------------------------------------


def test_soda_settles_nothing_but_counts_in_the_case():
    table = seated("Ann")
    bet(table, "Ann", "5", 4)
    deal(table, "5H")
    assert table.balances["Ann"] == 0
    assert table.pack.counts[5] == 3
    assert table.pack.soda == parse_card("5H")
    assert table.entries_open


def test_a_whole_pack_is_soda_25_pairs_and_hock_with_every_count_at_zero():
    table = seated("Ann")
    deal(table, *[c.code for c in DECK])
    assert len(table.pairs) == 25
    assert [p.turn for p in table.pairs] == list(range(1, 26))
    assert table.pack.hock == DECK[-1]
    assert table.pack.counts[1:] == [0] * 13
    assert table.pack.complete


def test_pair_is_loser_then_winner_by_position_never_by_rank():
    table = seated("Ann")
    deal(table, "2C", "KD", "AS")  # high card first: still the loser
    pair = table.last_pair
    assert (pair.loser.code, pair.winner.code) == ("KD", "AS")


def test_duplicate_card_is_refused_and_names_its_first_position():
    table = seated("Ann")
    deal(table, "5H", "KD")
    message = refused(table, card("KD"), "duplicate")
    assert "card 2" in message


def test_card_after_the_hock_is_refused_until_a_shuffle():
    table = Table()
    deal(table, *[c.code for c in DECK])
    refused(table, card("KD"), "pack-complete")
    table.apply(SHUFFLE)
    deal(table, "KD")
    assert table.pack.number == 2


def test_shuffle_is_refused_before_the_pack_is_complete():
    table = Table()
    refused(table, SHUFFLE, "pack-not-complete")
    deal(table, "5H")
    refused(table, SHUFFLE, "pack-not-complete")


def test_shuffle_passes_the_bank_to_the_next_seat_and_wraps():
    table = Table()
    table.apply(Session(("Ann", "Bob", "Cy"), "Bob"))
    for expected in ("Cy", "Ann", "Bob"):
        deal(table, *[c.code for c in DECK])
        table.apply(SHUFFLE)
        assert table.banker == expected


def test_cards_locks_and_shuffles_need_no_session():
    table = Table()
    table.apply(LOCK)
    deal(table, *[c.code for c in DECK])
    table.apply(SHUFFLE)
    assert table.balances == {}
    assert table.leaders == []


# -- predictions -----------------------------------------------------------------


@pytest.mark.parametrize("weight", [0, -2, 3, 1, True, 2.0, "2"])
def test_weights_must_be_positive_even_whole_numbers(weight):
    table = seated("Ann")
    refused(table, Bet("Ann", 9, weight), "weight")


def test_a_prediction_needs_a_session_a_seat_and_not_the_banker():
    refused(Table(), Bet("Ann", 9, 2), "no-session")
    table = seated("Ann")
    refused(table, Bet("Zed", 9, 2), "not-seated")
    refused(table, Bet("Bank", 9, 2), "banker")


def test_several_predictions_on_one_rank_settle_independently():
    table = seated("Ann", "Bob")
    deal(table, "5H")
    bet(table, "Ann", "9", 2)
    bet(table, "Ann", "9", 4)
    bet(table, "Bob", "9", 6, copper=True)
    deal(table, "9C", "KD")  # nine loses
    assert table.balances == {"Ann": -6, "Bob": 6, "Bank": 0}
    assert [(p.player, p.weight, p.copper) for p in table.predictions] == [("Bob", 6, True)]


def test_a_winning_prediction_stays_with_its_weight_and_plays_on():
    table = seated("Ann")
    deal(table, "5H")
    bet(table, "Ann", "9", 2)
    deal(table, "KD", "9C")  # wins +2, stays
    deal(table, "QD", "9H")  # wins +2 again, weight not re-added
    deal(table, "9S", "JD")  # loses 2, taken off
    assert table.balances["Ann"] == 2
    assert table.predictions == []


def test_copper_reverses_both_outcomes():
    table = seated("Ann")
    deal(table, "5H")
    bet(table, "Ann", "9", 2, copper=True)
    bet(table, "Ann", "K", 4, copper=True)
    deal(table, "9C", "KD")  # copper 9 wins +2 (stays), copper K loses -4
    assert table.balances["Ann"] == -2
    assert [(p.rank, p.copper) for p in table.predictions] == [(9, True)]


def test_other_ranks_are_unresolved_with_no_balance_change():
    table = seated("Ann")
    deal(table, "5H")
    bet(table, "Ann", "Q", 10)
    deal(table, "9C", "KD")
    assert table.balances["Ann"] == 0
    assert len(table.predictions) == 1


def test_split_takes_half_from_ordinary_and_copper_alike_and_clears_the_rank():
    table = seated("Ann", "Bob")
    deal(table, "5H")
    bet(table, "Ann", "9", 10)
    bet(table, "Bob", "9", 6, copper=True)
    bet(table, "Bob", "K", 4)
    deal(table, "9C", "9H")
    assert table.balances == {"Ann": -5, "Bob": -3, "Bank": 8}
    assert [(p.player, p.rank) for p in table.predictions] == [("Bob", 13)]
    assert [s.outcome for s in table.last_pair.settlements] == ["split", "split"]


def test_prediction_on_an_exhausted_rank_is_refused():
    table = seated("Ann")
    deal(table, "9S", "9C", "9H", "2D", "9D")
    assert table.pack.counts[9] == 0
    refused(table, Bet("Ann", 9, 2), "exhausted")


def test_predictions_on_a_rank_exhausted_by_the_pair_come_off_without_result():
    table = seated("Ann")
    deal(table, "9S", "9C", "9H")  # soda 9, split 9-9: three nines out
    bet(table, "Ann", "9", 2, copper=True)
    deal(table, "9D", "KD")  # copper nine wins +2, but no nine is left: off the layout
    assert table.balances["Ann"] == 2
    assert table.predictions == []


def test_predictions_still_standing_at_the_final_winner_end_without_change():
    table = seated("Ann")
    deal(table, *rest_of_pack(table, keep_last=("2C", "3C", "4C"))[:49])
    assert table.pack.counts[4] == 1  # only the hock is a four
    bet(table, "Ann", "4", 2)
    bet(table, "Ann", "4", 2, copper=True)
    deal(table, "2C", "3C")
    assert table.predictions == []
    assert table.balances["Ann"] == 0
    assert not table.entries_open
    deal(table, "4C")  # the hock settles no prediction
    assert table.balances["Ann"] == 0


# -- removing --------------------------------------------------------------------


def test_remove_takes_the_players_predictions_off_without_balance_change():
    table = seated("Ann", "Bob")
    bet(table, "Ann", "9", 2)
    bet(table, "Ann", "9", 4, copper=True)
    bet(table, "Bob", "9", 2)
    table.apply(Remove("Ann", 9, copper=True))
    assert [(p.player, p.copper) for p in table.predictions] == [("Ann", False), ("Bob", False)]
    table.apply(Remove("Ann", 9))
    assert [p.player for p in table.predictions] == ["Bob"]
    assert table.balances == {"Ann": 0, "Bob": 0, "Bank": 0}


def test_remove_with_nothing_to_remove_is_refused():
    table = seated("Ann")
    bet(table, "Ann", "9", 2)
    refused(table, Remove("Ann", 8), "nothing-to-remove")
    refused(table, Remove("Ann", 9, copper=True), "nothing-to-remove")


# -- entries open and closed -----------------------------------------------------


def test_entries_are_closed_between_loser_and_winner():
    table = seated("Ann")
    deal(table, "5H", "KD")
    assert not table.entries_open
    refused(table, Bet("Ann", 9, 2), "entries-closed")
    deal(table, "9C")
    assert table.entries_open


def test_the_banker_lock_closes_entries_until_the_next_winner():
    table = seated("Ann")
    bet(table, "Ann", "9", 2)
    table.apply(LOCK)
    refused(table, Bet("Ann", 8, 2), "entries-closed")
    refused(table, Remove("Ann", 9), "entries-closed")
    refused(table, LOCK, "entries-closed")
    deal(table, "5H")  # soda: still locked for pair 1
    refused(table, Bet("Ann", 8, 2), "entries-closed")
    deal(table, "KD", "QC")
    assert table.entries_open


def test_entries_close_for_good_at_the_final_winner_and_lock_is_refused():
    table = seated("Ann")
    deal(table, *rest_of_pack(table)[:51])
    refused(table, Bet("Ann", 9, 2) if table.pack.counts[9] else Bet("Ann", 1, 2), "entries-closed")
    refused(table, LOCK, "no-pair-left")


def test_entries_are_open_up_to_the_loser_of_the_final_pair():
    table = seated("Ann")
    order = rest_of_pack(table, keep_last=("2C", "3C", "4C"))
    deal(table, *order[:49])
    bet(table, "Ann", "2", 2)
    deal(table, "2C")
    refused(table, Bet("Ann", 3, 2), "entries-closed")


# -- session ---------------------------------------------------------------------


def test_session_seats_two_to_ten_distinct_names_with_a_named_banker():
    refused(Table(), Session(("Ann",), "Ann"), "seats")
    refused(Table(), Session(tuple(f"P{i}" for i in range(11)), "P0"), "seats")
    refused(Table(), Session(("Ann", "Ann"), "Ann"), "seats")
    refused(Table(), Session(("Ann", "Bob"), "Cy"), "banker")
    refused(Table(), Session(("Ann", "Bob"), None), "banker")


def test_only_one_session():
    table = seated("Ann")
    refused(table, Session(("Cy", "Dee"), "Cy"), "one-session")


def test_session_may_start_mid_pack_and_earlier_cards_still_count():
    table = Table()
    deal(table, "5H", "KD", "9C")
    table.apply(Session(("Ann", "Bank"), "Bank"))
    assert table.pack.counts[13] == 3
    assert table.balances == {"Ann": 0, "Bank": 0}
    deal(table, "KH")
    refused(Table(), Session(("Ann",), "Ann"), "seats")
    refused(table, Session(("Ann", "Bank"), "Bank"), "one-session")


def test_session_is_refused_while_entries_are_closed():
    table = Table()
    deal(table, "5H", "KD")
    refused(table, Session(("Ann", "Bank"), "Bank"), "entries-closed")


def test_leaders_share_ties_in_seat_order():
    table = seated("Ann", "Bob")
    deal(table, "5H")
    bet(table, "Ann", "9", 2)
    bet(table, "Bob", "9", 2)
    deal(table, "KD", "9C")
    assert table.leaders == ["Ann", "Bob"]


# -- calling the turn ------------------------------------------------------------


def last_three(table, *codes):
    deal(table, *rest_of_pack(table, keep_last=codes)[:49])


def test_call_is_allowed_only_with_three_cards_left():
    table = seated("Ann")
    deal(table, "5H")
    refused(table, Call("Ann", 2, order=(7, 11, 3)), "not-last-three")


def test_call_must_order_exactly_the_remaining_ranks():
    table = seated("Ann")
    last_three(table, "7S", "JH", "3D")
    refused(table, Call("Ann", 2, order=(7, 11, 4)), "call-ranks")
    refused(table, Call("Ann", 2, order=(7, 7, 3)), "call-ranks")
    refused(table, Call("Ann", 2, colours=("red", "red", "black")), "colours")
    refused(table, Call("Ann", 3, order=(7, 11, 3)), "weight")


def test_a_wrong_call_loses_its_weight_and_calls_settle_apart_from_predictions():
    table = seated("Ann", "Bob")
    last_three(table, "7S", "JH", "3D")
    table.apply(Call("Ann", 2, order=(3, 11, 7)))
    table.apply(Call("Bob", 4, order=(7, 11, 3)))
    table.apply(Call("Bob", 2, order=(11, 7, 3)))
    deal(table, "7S", "JH")
    assert table.balances == {"Ann": 0, "Bob": 0, "Bank": 0}
    deal(table, "3D")
    assert table.balances == {"Ann": -2, "Bob": 16 - 2, "Bank": -12}


def test_cat_hop_pays_two_to_one():
    table = seated("Ann", "Bob")
    last_three(table, "7S", "7H", "3D")
    table.apply(Call("Ann", 2, order=(7, 3, 7)))
    table.apply(Call("Bob", 2, order=(7, 7, 3)))
    deal(table, "7S", "3D", "7H")
    assert table.balances == {"Ann": 4, "Bob": -2, "Bank": -2}


def test_three_of_a_kind_is_called_by_colours_paying_two_to_one():
    table = seated("Ann", "Bob")
    last_three(table, "7S", "7H", "7D")
    refused(table, Call("Ann", 2, order=(7, 7, 7)), "three-of-a-kind")
    refused(table, Call("Ann", 2, colours=("black", "black", "red")), "colours")
    table.apply(Call("Ann", 2, colours=("black", "red", "red")))
    table.apply(Call("Bob", 2, colours=("red", "black", "red")))
    deal(table, "7S", "7H", "7D")
    assert table.balances == {"Ann": 4, "Bob": -2, "Bank": -2}


def test_call_is_refused_when_locked_and_after_the_last_loser():
    table = seated("Ann")
    last_three(table, "7S", "JH", "3D")
    table.apply(LOCK)
    refused(table, Call("Ann", 2, order=(7, 11, 3)), "entries-closed")


def test_banker_cannot_call():
    table = seated("Ann")
    last_three(table, "7S", "JH", "3D")
    refused(table, Call("Bank", 2, order=(7, 11, 3)), "banker")


# -- void (undo the last card) and alarms ----------------------------------------


def test_void_takes_back_the_last_card_and_its_settlement():
    table = seated("Ann")
    deal(table, "5H")
    bet(table, "Ann", "9", 2)
    deal(table, "KD", "9C")
    assert table.balances["Ann"] == 2
    table.apply(Void(parse_card("9C")))
    assert table.balances["Ann"] == 0
    assert [c.code for c in table.pack.exposed] == ["5H", "KD"]
    assert table.pack.counts[9] == 4
    assert len(table.pairs) == 0
    deal(table, "9H")
    assert table.balances["Ann"] == 2


def test_a_repeated_void_naming_the_same_card_is_refused():
    table = seated("Ann")
    deal(table, "5H", "KD")
    table.apply(Void(parse_card("KD")))
    refused(table, Void(parse_card("KD")), "void-card")
    table.apply(Void())
    refused(table, Void(), "nothing-to-void")


def test_entries_made_after_a_voided_winner_that_no_longer_fit_are_dropped():
    table = seated("Ann")
    deal(table, "5H", "KD", "9C")
    bet(table, "Ann", "Q", 2)
    table.apply(AlarmEvent("refused", "second KD"))
    table.apply(Void())  # back to after the loser: entries closed
    assert table.predictions == []
    assert [type(e).__name__ for e in table.dropped] == ["Bet"]
    assert len(table.alarms) == 1  # the alarm still stands


def test_alarms_stand_until_cleared():
    table = Table()
    refused(table, Clear(), "no-alarm")
    table.apply(AlarmEvent("noread", "re-feed the card", None))
    table.apply(AlarmEvent("gap", "2 cards may be missing", None))
    assert [a.kind for a in table.alarms] == ["noread", "gap"]
    table.apply(Clear())
    assert table.alarms == []


def test_clearing_one_kind_of_alarm_leaves_the_others():
    table = Table()
    table.apply(AlarmEvent("noread", "re-feed the card", None))
    table.apply(AlarmEvent("gap", "a card may be missing", None))
    table.apply(Clear("noread"))
    assert [a.kind for a in table.alarms] == ["gap"]
    refused(table, Clear("noread"), "no-alarm")


def test_void_in_a_later_pack_keeps_the_earlier_packs_and_the_bank():
    table = seated("Ann", "Bob")
    deal(table, *[c.code for c in DECK])
    table.apply(SHUFFLE)
    banker = table.banker
    before = dict(table.balances), len(table.pairs)
    deal(table, "5H")
    bet(table, "Bob" if banker == "Ann" else "Ann", "9", 2)
    deal(table, "KD", "9C")
    table.apply(Void())
    assert (dict(table.balances), len(table.pairs)) == before
    assert table.banker == banker
    assert table.pack.number == 2
    assert [c.code for c in table.pack.exposed] == ["5H", "KD"]


def test_alarms_of_one_kind_coalesce_into_a_count_and_the_latest():
    table = seated("Ann")
    for i in range(3000):
        table.apply(AlarmEvent("refused", f"card {i}", parse_card("KD")))
    table.apply(AlarmEvent("noread", "a card passed unread"))
    assert [(a.kind, a.text) for a in table.alarms] == [
        ("refused", "card 2999"),
        ("noread", "a card passed unread"),
    ]
    assert table.state.alarm_counts == {"refused": 3000, "noread": 1}
    table.apply(Clear("refused"))
    assert table.state.alarm_counts == {"noread": 1}
    table.apply(AlarmEvent("refused", "again"))
    assert table.state.alarm_counts == {"noread": 1, "refused": 1}


def test_a_weight_over_the_table_limit_is_refused_and_the_limit_is_the_session_s():
    from faro_pi.game.codec import event_from_json

    table = Table()
    table.apply(event_from_json({"type": "session", "seats": ["Ann", "Bank"], "limit": 100,
                                 "banker": "Bank"}))  # fmt: skip
    bet(table, "Ann", "9", 100)
    refused(table, Bet("Ann", 9, 102), "limit")
    refused(table, Call("Ann", 102, order=(1, 2, 3)), "limit")
    unlimited = seated("Ann")
    bet(unlimited, "Ann", "9", 10**9)
    refused(unlimited, Bet("Ann", 9, 2**70), "limit")
    with pytest.raises(Refused):
        event_from_json({"type": "session", "seats": ["Ann", "Bank"], "limit": 0})
    with pytest.raises(Refused):
        event_from_json({"type": "session", "seats": ["Ann", "Bank"], "limit": 10**10})


def test_no_weight_is_taken_once_a_balance_nears_the_largest_exact_number():
    from faro_pi.game.rules import BALANCE_GUARD

    table = seated("Ann")
    table.state.balances.update(Ann=BALANCE_GUARD - 1, Bank=-(BALANCE_GUARD - 1))
    bet(table, "Ann", "9", 2)
    deal(table, "5H", "KD", "9C")  # Ann wins 2: past the guard
    assert table.balances["Ann"] == BALANCE_GUARD + 1
    refused(table, Bet("Ann", 9, 2), "balance")
    refused(table, Bet("Ann", 4, 2), "balance")


def test_an_integrity_report_belongs_to_the_complete_pack_on_the_table():
    from faro_pi.game.events import Integrity
    from faro_pi.game.integrity import report

    found = report(DECK)  # in the maker's order: a straight of 13
    table = seated("Ann")
    refused(table, Integrity(1, found.flagged, found), "integrity")  # the pack is not complete
    deal(table, *(c.code for c in DECK))
    refused(table, Integrity(2, found.flagged, found), "integrity")
    table.apply(Integrity(1, found.flagged, found))
    assert table.state.integrity.report == found and "straight of 13" in found.flagged[0]
    table.apply(SHUFFLE)
    assert table.state.previous == tuple(DECK)  # the next report compares with it


@pytest.mark.parametrize("kind", EVENTS, ids=lambda kind: kind.__name__)
def test_every_event_type_declared_is_one_the_rules_handle(kind):
    """A type in the vocabulary the engine has no handler for would be refused as no event."""
    assert kind.examples
    for example in kind.examples:
        try:
            Table().apply(event_from_json(example))
        except Refused as exc:
            assert exc.rule != "event", f"{kind.__name__} has no handler in Table: {exc}"
