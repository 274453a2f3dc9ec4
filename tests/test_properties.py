"""Properties over random decks and random (often illegal) entries."""

import contextlib
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from faro_pi.exc import Refused
from faro_pi.game.cards import DECK, RANKS
from faro_pi.game.codec import decode_event, event_from_json, event_to_json
from faro_pi.game.demo import play
from faro_pi.game.events import (
    CLEAR,
    LOCK,
    SHUFFLE,
    Alarm,
    Bank,
    Bet,
    Call,
    CardDrawn,
    Remove,
    Session,
    Void,
)
from faro_pi.game.felt import ADJACENT, SQUARES
from faro_pi.game.profile import Options, options_json
from faro_pi.game.replay import replay_lines
from faro_pi.game.rules import Table
from tests.test_rules import snapshot

PLAYERS = ("Ann", "Bob", "Cy", "Stranger")


@st.composite
def table_events(draw):
    """A long stream of events, mostly sensible, some breaking rules on purpose."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = list(draw(st.permutations(DECK)))
    events = []
    if rng.random() < 0.9:
        events.append(Session(("Ann", "Bob", "Cy"), rng.choice(("Ann", "Bob", "Cy"))))
    dealt = 0
    for _ in range(draw(st.integers(20, 160))):
        roll = rng.random()
        if roll < 0.4:
            if dealt < len(deck):
                events.append(CardDrawn(deck[dealt]))
                dealt += 1
            else:
                events.append(SHUFFLE)
                deck, dealt = list(DECK), 0
                rng.shuffle(deck)
        elif roll < 0.65:
            weight = rng.choice((2, 4, 6, 10, 2, 0, -2, 3))
            events.append(Bet(rng.choice(PLAYERS), rng.randint(1, 13), weight, rng.random() < 0.3))
        elif roll < 0.72:
            events.append(Remove(rng.choice(PLAYERS), rng.randint(1, 13), rng.choice((None, True))))
        elif roll < 0.80:
            events.append(LOCK)
        elif roll < 0.85:
            order = tuple(rng.randint(1, 13) for _ in range(3))
            events.append(Call(rng.choice(PLAYERS), 2, order=order))
        elif roll < 0.88:
            events.append(CardDrawn(rng.choice(DECK)))  # likely a duplicate
        elif roll < 0.91:
            events.append(Void())
            dealt = max(0, dealt - 1) if rng.random() < 0.5 else dealt
        elif roll < 0.94:
            events.append(Alarm("noread", "re-feed"))
        elif roll < 0.96:
            events.append(CLEAR)
        elif roll < 0.98:
            events.append(Bank(rng.choice(PLAYERS)))
        else:
            events.append(Session(("Dee", "Eve"), "Dee"))
    return events


def full_games(seed, packs=2):
    return list(play(random.Random(seed), ("Ann", "Bob", "Cy", "Dee"), packs=packs))


@settings(max_examples=150)
@given(table_events())
def test_a_refused_event_changes_nothing_and_balances_always_sum_to_zero(events):
    table = Table()
    for event in events:
        before = snapshot(table)
        try:
            table.apply(event)
        except Refused:
            assert snapshot(table) == before
        assert sum(table.balances.values()) == 0
        counts = table.pack.counts
        assert sum(counts[1:]) == 52 - len(table.pack.exposed)
        assert all(0 <= c <= 4 for c in counts[1:])
        if len(table.pack.exposed) & 1:  # between pairs
            for p in table.predictions:
                assert counts[p.rank] > 0, "no prediction stands on an exhausted rank"


@settings(max_examples=40)
@given(st.integers(0, 2**32))
def test_whole_packs_end_with_every_case_count_at_zero_and_balances_summing_to_zero(seed):
    events = full_games(seed)
    table = Table()
    assert table.replay(events) == []
    assert table.pack.complete
    assert table.pack.counts[1:] == [0] * 13
    assert sum(table.balances.values()) == 0
    assert table.predictions == [] and table.calls == []
    assert len(table.pairs) == 50


@settings(max_examples=60)
@given(table_events())
def test_replaying_a_journal_twice_gives_the_same_result(events):
    lines = [json.dumps(event_to_json(e)) for e in events]
    first, second = replay_lines(lines), replay_lines(lines)
    assert first.summary() == second.summary()
    assert first.refused == second.refused
    assert snapshot(first.table) == snapshot(second.table)


@settings(max_examples=60)
@given(table_events())
def test_events_survive_the_json_round_trip(events):
    for event in events:
        assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event


@settings(max_examples=80)
@given(table_events())
def test_voiding_a_card_at_once_gives_back_the_table_as_it_was_before_it(events):
    void_each_card_at_once(events, snapshot)


def void_each_card_at_once(events, state_of) -> None:
    """Applies ``events``, voiding each card as it comes and dealing it again: the table
    after each void is as it was before the card, by ``state_of``."""
    table = Table()
    for event in events:
        before = state_of(table)
        try:
            table.apply(event)
        except Refused:
            continue
        if type(event) is CardDrawn:
            table.apply(Void(event.card))
            assert state_of(table) == before
            assert table.dropped == []
            table.apply(event)


def test_every_rank_name_parses_in_either_case():
    for name in RANKS:
        event = event_from_json({"type": "bet", "player": "A", "rank": name.lower(), "weight": 2})
        assert event.rank == RANKS.index(name) + 1


# -- the house profile ---------------------------------------------------------

SEATS = ("Ann", "Bob", "Cy", "Dee")

house_options = st.builds(
    Options,
    even_weights=st.booleans(),
    remove_dead=st.booleans(),
    collect_leftovers=st.booleans(),
    high_card=st.booleans(),
    combinations=st.booleans(),
    call_trips=st.booleans(),
    cat_hop_pays=st.sampled_from((1, 2)),
    rotate_bank=st.booleans(),
)


def house_games(seed, packs=2, options=None):
    return list(play(random.Random(seed), SEATS, packs=packs, profile="house", options=options))


def whole_state(table):
    """Everything the players can see, down to where each bet sits and what each pair paid."""
    return (
        snapshot(table),
        table.predictions,
        table.pairs,
        table.call_results,
        table.options,
        table.state.profile,
    )


def live_and_replayed(events):
    """The table applying ``events`` live, and the two replays of their journal form."""
    live, from_objects, from_lines = Table(), Table(), Table()
    for event in events:
        obj = event_to_json(event)
        for table, again in (
            (live, event),
            (from_objects, event_from_json(json.loads(json.dumps(obj)))),
            (from_lines, decode_event(json.dumps(obj))),
        ):
            with contextlib.suppress(Refused):
                table.apply(again)
        assert sum(live.balances.values()) == 0, f"money made or lost at {obj}"
    return live, from_objects, from_lines


@settings(max_examples=40)
@given(st.integers(0, 2**32))
def test_house_packs_conserve_money_and_replay_from_their_journal_form(seed):
    events = house_games(seed)
    assert Table().replay(events) == []  # the house demo plays only what the house allows
    live, from_objects, from_lines = live_and_replayed(events)
    assert live.pack.complete and live.pack.number == 2
    assert live.banker == "Dee"  # the house bank does not rotate
    assert whole_state(from_objects) == whole_state(live)
    assert whole_state(from_lines) == whole_state(live)
    settled = [s for pair in live.pairs for s in pair.settlements]
    assert any(s.outcome == "collected" for s in settled)
    assert live.predictions == [] and live.calls == []


@settings(max_examples=60)
@given(st.integers(0, 2**32), house_options)
def test_any_mix_of_options_travels_in_the_session_and_replays_the_same(seed, options):
    events = house_games(seed, options=options)
    session = event_to_json(events[0])
    assert session["options"] == options_json(options)
    assert Table().replay(events) == []  # the players keep to the options at the table
    live, from_objects, from_lines = live_and_replayed(events)
    assert live.options == options
    assert whole_state(from_objects) == whole_state(live)
    assert whole_state(from_lines) == whole_state(live)
    expected_banker = "Ann" if options.rotate_bank else "Dee"
    assert live.banker == expected_banker
    bets = [e for e in events if type(e) is Bet]
    if options.even_weights:
        assert all(b.weight % 2 == 0 for b in bets)
    if not options.combinations:
        assert all(b.ranks is None for b in bets)
    if not options.high_card:
        assert not any(b.high_card for b in bets)
    if not options.call_trips:
        assert not any(type(e) is Call and e.colours for e in events)


@st.composite
def house_table_events(draw):
    """Random entries of every house shape, many illegal, at a table of random options."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = list(draw(st.permutations(DECK)))
    options = draw(house_options)
    shapes = [tuple(r) for r in (*ADJACENT, *SQUARES)] + [(1, 8), (2, 9), (1, 2, 3, 4)]
    events = [Session(("Ann", "Bob", "Cy"), "Cy", "house", options)]
    dealt = 0
    for _ in range(draw(st.integers(20, 320))):
        roll = rng.random()
        player = rng.choice(("Ann", "Bob", "Ann", "Bob", "Cy", "Stranger"))
        weight = rng.choice((1, 2, 3, 4, 5, 0, -1))
        copper = rng.random() < 0.3
        if roll < 0.45:
            if dealt < len(deck):
                events.append(CardDrawn(deck[dealt]))
                dealt += 1
            else:
                events.append(SHUFFLE)
                deck, dealt = list(DECK), 0
                rng.shuffle(deck)
        elif roll < 0.6:
            events.append(Bet(player, rng.randint(1, 13), weight, copper))
        elif roll < 0.72:
            events.append(Bet(player, None, weight, copper, ranks=rng.choice(shapes)))
        elif roll < 0.78:
            events.append(Bet(player, None, weight, copper, high_card=True))
        elif roll < 0.84:
            where = rng.choice(({"rank": rng.randint(1, 13)}, {"ranks": rng.choice(shapes)}))
            events.append(Remove(player, where.get("rank"), ranks=where.get("ranks")))
        elif roll < 0.87:
            events.append(Remove(player, None, high_card=True))
        elif roll < 0.9:
            events.append(LOCK)
        elif roll < 0.96:
            left = [c.rank for c in deck[dealt:]]
            order = tuple(rng.sample(left, 3) if len(left) >= 3 else (1, 2, 3))
            events.append(Call(player, weight, order=order))
        elif roll < 0.98:
            events.append(Void())
            dealt = max(0, dealt - 1)  # the card voided is dealt again
        else:
            events.append(Bank(player))
    return events


@settings(max_examples=100)
@given(house_table_events())
def test_at_a_house_table_a_refused_entry_changes_nothing_and_money_is_conserved(events):
    table = Table()
    for event in events:
        before = whole_state(table)
        try:
            table.apply(event)
        except Refused:
            assert whole_state(table) == before
        assert sum(table.balances.values()) == 0
        for pair in table.pairs:
            assert sum(s.delta for s in pair.settlements) == -pair.banker_delta
    live, from_objects, from_lines = live_and_replayed(events)
    assert whole_state(from_objects) == whole_state(live)
    assert whole_state(from_lines) == whole_state(live)


@settings(max_examples=60)
@given(house_table_events())
def test_at_a_house_table_voiding_a_card_at_once_gives_back_the_table_before_it(events):
    void_each_card_at_once(events, whole_state)


def test_the_house_does_not_call_the_turn_on_three_of_a_kind():
    events = house_games(1125, packs=1)  # this shuffle leaves three tens at the end
    table = Table()
    assert table.replay(events) == []
    assert len({c.rank for c in table.pack.exposed[-3:]}) == 1
    assert not any(type(e) is Call for e in events)
