"""Properties over random decks and random (often illegal) entries."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faro_pi.exc import Refused
from faro_pi.game.cards import DECK, RANKS
from faro_pi.game.decode import event_from_json
from faro_pi.game.demo import play
from faro_pi.game.events import (
    CLEAR,
    LOCK,
    SHUFFLE,
    Alarm,
    Bet,
    Call,
    CardDrawn,
    Remove,
    Session,
    Void,
    event_to_json,
)
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
        else:
            events.append(Session(("Dee", "Eve"), "Dee"))
    return events


def full_games(seed, packs=2):
    return list(play(random.Random(seed), ("Ann", "Bob", "Cy", "Dee"), packs=packs))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


@settings(max_examples=40, deadline=None)
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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_events())
def test_replaying_a_journal_twice_gives_the_same_result(events):
    lines = [json.dumps(event_to_json(e)) for e in events]
    first, second = replay_lines(lines), replay_lines(lines)
    assert first.summary() == second.summary()
    assert first.refused == second.refused
    assert snapshot(first.table) == snapshot(second.table)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_events())
def test_events_survive_the_json_round_trip(events):
    for event in events:
        assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_events())
def test_voiding_a_card_at_once_gives_back_the_table_as_it_was_before_it(events):
    table = Table()
    for event in events:
        before = snapshot(table)
        try:
            table.apply(event)
        except Refused:
            continue
        if type(event) is CardDrawn:
            table.apply(Void(event.card))
            assert snapshot(table) == before
            assert table.dropped == []
            table.apply(event)


def test_every_rank_name_parses_in_either_case():
    for name in RANKS:
        event = event_from_json({"type": "bet", "player": "A", "rank": name.lower(), "weight": 2})
        assert event.rank == RANKS.index(name) + 1
