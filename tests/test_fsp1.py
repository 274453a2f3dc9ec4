"""The card reader's line protocol: framing, checksums, sequencing and recovery from loss."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faro_pi.exc import Refused
from faro_pi.game.cards import DECK, parse_card
from faro_pi.shoe.fsp1 import (
    MAX_FRAME,
    Ack,
    Action,
    CardFrame,
    Decision,
    Fault,
    FrameParser,
    Heartbeat,
    Hello,
    NoRead,
    PlainParser,
    Receiver,
    ack,
    crc,
    encode,
)
from faro_pi.shoe.fsp1_reader import Sender, ack_seq, crc16, frame

KD = parse_card("KD")
TEN_H = parse_card("10H")
KD_FRAME = CardFrame(1, KD).to_bytes()
NR_FRAME = NoRead(2).to_bytes()

# The frames worked through in hardware/PROTOCOL.md; firmware can test against them too.
VECTORS = {
    b"$C,17,10H*74A0\r\n": CardFrame(17, TEN_H),
    b"$H,0,faro-reader 1.2*0042\r\n": Hello(0, "faro-reader 1.2"),
    b"$N,4*FF6C\r\n": NoRead(4),
    b"$P,4*A70E\r\n": Heartbeat(4),
    b"$F,4,flicker: light the box steadily*A15A\r\n": Fault(4, "flicker: light the box steadily"),
}


def with_crc(body: bytes, hex_format: bytes = b"%04X", end: bytes = b"\r\n") -> bytes:
    """A frame around any body, right or wrong, for feeding the parser what encode refuses."""
    return b"$" + body + b"*" + hex_format % crc(body) + end


def parse_all(data: bytes, **kwargs) -> tuple[list, FrameParser]:
    parser = FrameParser(**kwargs)
    return parser.feed(data), parser


def held(parser: FrameParser) -> int:
    """Bytes the parser holds of a frame not yet ended: its buffer, looked at from outside."""
    return len(parser._buf)


# --- checksum and encoding -------------------------------------------------------------


def test_crc_matches_the_published_check_value():
    assert crc(b"123456789") == 0x29B1
    assert crc16(b"123456789") == 0x29B1
    assert crc(b"") == crc16(b"") == 0xFFFF


@settings(max_examples=200)
@given(st.binary(max_size=80))
def test_the_readers_bitwise_crc_agrees_with_the_hosts(data):
    assert crc16(data) == crc(data)


def test_documented_frames_encode_and_parse_both_ways():
    for wire, value in VECTORS.items():
        assert value.to_bytes() == wire
        assert parse_all(wire)[0] == [value]
    assert ack(17) == Ack(17).to_bytes() == b"$A,17*1F5F\r\n"
    assert encode("C", 17, "10H") == b"$C,17,10H*74A0\r\n"


def test_the_reader_module_builds_the_same_bytes_as_the_host():
    for wire in VECTORS:
        assert frame(wire[1:-7].decode()) == wire


@pytest.mark.parametrize(
    "fields",
    [
        ("H", 0, "a*b"),
        ("H", 0, "a$b"),
        ("H", 0, "line\r\nbreak"),
        ("H", 0, "café"),
        ("H", 0, "x" * 69),
    ],
)
def test_encode_refuses_what_could_not_cross_the_line_intact(fields):
    with pytest.raises(Refused):
        encode(*fields)


def test_sequence_numbers_outside_sixteen_bits_are_refused():
    for seq in (-1, 65536, True):
        with pytest.raises(Refused):
            CardFrame(seq, KD)
    with pytest.raises(Refused):
        Hello(1, "")
    CardFrame(65535, KD)


# --- the frame parser ------------------------------------------------------------------


def test_a_stream_split_at_every_byte_boundary_gives_the_same_frames():
    stream = b"".join(VECTORS)
    expected = list(VECTORS.values())
    for cut in range(len(stream) + 1):
        parser = FrameParser()
        assert parser.feed(stream[:cut]) + parser.feed(stream[cut:]) == expected
    parser = FrameParser()
    assert [f for i in range(len(stream)) for f in parser.feed(stream[i : i + 1])] == expected
    assert sum(parser.discarded.values()) == 0


def test_garbage_between_frames_is_counted_as_noise_and_skipped():
    frames, parser = parse_all(b"\x00\xffboot\r\n" + KD_FRAME + b"junk" + NR_FRAME + b"\n")
    assert frames == [CardFrame(1, KD), NoRead(2)]
    assert parser.discarded == {"noise": 13, "crc": 0, "field": 0, "long": 0, "cut": 0}


def test_a_bare_newline_and_lower_case_hex_are_accepted():
    body = b"C,1,KD"
    for wire in (
        with_crc(body, end=b"\n"),
        with_crc(body, b"%04x"),
        with_crc(body, b"%04x", b"\n"),
    ):
        assert parse_all(wire)[0] == [CardFrame(1, KD)]


def test_a_corrupted_frame_is_dropped_as_a_crc_failure_and_the_next_one_still_arrives():
    bad = KD_FRAME.replace(b"KD", b"KH")
    no_crc = b"$C,1,KD\r\n"
    not_hex = b"$C,1,KD*0x12\r\n"
    frames, parser = parse_all(bad + no_crc + not_hex + NR_FRAME)
    assert frames == [NoRead(2)]
    assert parser.discarded["crc"] == 3


@pytest.mark.parametrize(
    "body",
    [
        b"C,1,ZZ",  # not a card
        b"C,1",  # card missing
        b"C,1,KD,QS",  # one field too many
        b"C,,KD",  # no sequence number
        b"C,123456,KD",  # six digits
        b"C,65536,KD",  # beyond sixteen bits
        b"C,+1,KD",  # not just digits
        b"N,1,KD",
        b"H,1,fw",  # a hello is always number 0
        b"P,",
        b"X,1",  # unknown kind
        b"A,1",  # an acknowledgement does not come from the reader
        b"c,1,KD",
        b"C,1,K\xc4",  # not ASCII
        b"C,1,K\tD",  # control character
        b"",
    ],
)
def test_a_frame_with_a_good_crc_but_a_bad_field_is_dropped_and_counted(body):
    frames, parser = parse_all(with_crc(body) + NR_FRAME)
    assert frames == [NoRead(2)]
    assert parser.discarded == {"noise": 0, "crc": 0, "field": 1, "long": 0, "cut": 0}


def test_leading_zeros_lower_case_cards_and_commas_in_hello_text_are_accepted():
    frames, _ = parse_all(with_crc(b"C,00017,th") + with_crc(b"H,0") + with_crc(b"H,0,a,b=c"))
    assert frames == [CardFrame(17, TEN_H), Hello(0, ""), Hello(0, "a,b=c")]


def test_a_frame_of_exactly_eighty_bytes_passes_and_one_byte_more_is_too_long():
    fits = with_crc(b"H,0," + b"x" * 68)
    too_long = with_crc(b"H,0," + b"x" * 69)
    assert len(fits) == MAX_FRAME and len(too_long) == MAX_FRAME + 1
    frames, parser = parse_all(fits + too_long + NR_FRAME)
    assert frames == [Hello(0, "x" * 68), NoRead(2)]
    assert parser.discarded == {"noise": 0, "crc": 0, "field": 0, "long": 1, "cut": 0}


def test_an_endless_frame_is_dropped_once_and_its_tail_is_not_noise():
    parser = FrameParser()
    assert parser.feed(b"$H,0,") == []
    for _ in range(100):
        assert parser.feed(b"x" * 50) == []
        assert held(parser) <= MAX_FRAME
    assert parser.feed(b"\r\n" + NR_FRAME) == [NoRead(2)]
    assert parser.discarded == {"noise": 0, "crc": 0, "field": 0, "long": 1, "cut": 0}


def test_a_dollar_inside_a_frame_abandons_it_and_starts_the_next():
    frames, parser = parse_all(KD_FRAME[:6] + NR_FRAME)
    assert frames == [NoRead(2)]
    assert parser.discarded["cut"] == 1


def test_the_reader_side_parser_reads_acks_only():
    frames, parser = parse_all(ack(7) + KD_FRAME, to_reader=True)
    assert frames == [Ack(7)]
    assert parser.discarded["field"] == 1


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=120), max_size=8), st.booleans())
def test_any_bytes_at_all_never_raise_and_never_pile_up(chunks, to_reader):
    parser = FrameParser(to_reader=to_reader)
    for chunk in chunks:
        parser.feed(chunk)
        assert held(parser) <= MAX_FRAME


FRAMES = st.one_of(
    st.builds(CardFrame, st.integers(0, 65535), st.sampled_from(DECK)),
    st.builds(NoRead, st.integers(0, 65535)),
    st.builds(Heartbeat, st.integers(0, 65535)),
    st.builds(
        Hello,
        st.just(0),
        st.text(
            st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*"),
            max_size=68,
        ),
    ),
)


@st.composite
def noisy_streams(draw):
    """Good frames, damaged frames and raw noise, cut into arbitrary reads."""
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["frame", "damaged", "noise"]))
        if kind == "noise":
            parts.append(draw(st.binary(max_size=30)))
            continue
        wire = draw(FRAMES).to_bytes()
        if draw(st.booleans()):
            wire = wire[:-6] + wire[-6:].lower()
        if draw(st.booleans()):
            wire = wire[:-2] + b"\n"
        if kind == "damaged":
            i = draw(st.integers(0, len(wire) - 1))
            wire = wire[:i] + bytes([wire[i] ^ draw(st.integers(1, 255))]) + wire[i + 1 :]
            if draw(st.booleans()):
                wire = wire[: draw(st.integers(0, len(wire)))]
        parts.append(wire)
    stream = b"".join(parts)
    cuts = sorted(draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    reads = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    return stream, reads


@settings(max_examples=300)
@given(noisy_streams())
def test_every_frame_accepted_from_noise_was_sent_whole_with_a_good_crc(sample):
    stream, reads = sample
    parser = FrameParser()
    accepted = [f for read in reads for f in parser.feed(read)]
    position = 0
    for value in accepted:
        wire = value.to_bytes()
        pattern = re.escape(wire[:-6]) + b"(?i:" + wire[-6:-2] + b")\r?\n"
        found = re.compile(pattern).search(stream, position)
        assert found, f"{value} was accepted but never sent"
        position = found.end()


NO_DOLLAR_NOISE = st.binary(max_size=20).map(lambda b: b.replace(b"$", b""))


@settings(max_examples=200)
@given(st.lists(st.tuples(NO_DOLLAR_NOISE, FRAMES), max_size=10), NO_DOLLAR_NOISE, st.data())
def test_frames_among_noise_without_dollars_all_arrive_in_order(pairs, tail, data):
    stream = b"".join(noise + value.to_bytes() for noise, value in pairs) + tail
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    parser = FrameParser()
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        got += parser.feed(stream[a:b])
    assert got == [value for _, value in pairs]
    assert parser.discarded["noise"] == sum(len(noise) for noise, _ in pairs) + len(tail)
    assert parser.discarded["crc"] == parser.discarded["field"] == 0


# --- the host's stop-and-wait decisions -------------------------------------------------


APPLY = Decision(Action.APPLY)
REPEAT = Decision(Action.REPEAT)
STALE = Decision(Action.STALE)


def test_the_next_frame_is_applied_and_its_repeat_is_only_acknowledged():
    link = Receiver(16)
    assert link.decide(CardFrame(17, KD)) == APPLY
    link.committed(CardFrame(17, KD))
    assert link.decide(CardFrame(17, KD)) == REPEAT
    assert link.decide(NoRead(18)) == APPLY


def test_nothing_moves_until_the_frame_is_committed():
    link = Receiver(16)
    frame17 = CardFrame(17, KD)
    assert link.decide(frame17) == APPLY
    assert link.decide(frame17) == APPLY  # a crash before commit must bring it back
    assert link.last == 16
    link.committed(frame17)
    assert link.last == 17


def test_a_gap_is_applied_and_says_how_many_numbers_were_missed():
    link = Receiver(16)
    assert link.decide(CardFrame(20, KD)) == Decision(Action.APPLY, missed=3)
    assert link.decide(CardFrame(16 + 32767, KD)) == Decision(Action.APPLY, missed=32766)


def test_a_frame_from_behind_the_journal_is_stale_and_changes_nothing():
    link = Receiver(16)
    assert link.decide(CardFrame(10, KD)) == STALE
    assert link.decide(CardFrame(16 + 32768, KD)) == STALE
    link.committed(CardFrame(10, KD))
    assert link.last == 16


def test_numbers_wrap_from_65535_to_0():
    link = Receiver(65535)
    assert link.decide(CardFrame(0, KD)) == APPLY
    link.committed(CardFrame(0, KD))
    assert link.decide(CardFrame(65535, KD)) == STALE
    assert Receiver(65534).decide(CardFrame(1, KD)) == Decision(Action.APPLY, missed=2)
    assert Receiver(0).decide(CardFrame(65535, KD)) == STALE


def test_a_fresh_journal_applies_whatever_comes_first_without_a_gap_alarm():
    link = Receiver(None)
    assert link.decide(CardFrame(500, KD)) == APPLY
    assert link.decide(CardFrame(3, KD)) == APPLY
    link.committed(CardFrame(500, KD))
    assert link.last == 500
    assert link.decide(CardFrame(501, KD)) == APPLY


def test_a_hello_restarts_the_count_and_its_repeat_is_only_acknowledged():
    link = Receiver(500)
    hello = Hello(0, "fw 2")
    assert link.decide(hello) == Decision(Action.HELLO)
    assert link.last == 500
    link.committed(hello)
    assert link.last == 0
    assert link.decide(hello) == REPEAT
    assert link.decide(CardFrame(1, KD)) == APPLY
    link.committed(CardFrame(1, KD))
    assert link.decide(hello) == Decision(Action.HELLO)


def test_a_card_journaled_just_before_a_restart_is_not_journaled_again():
    link = Receiver(7)  # restored from the journal; the ack for 7 never went out
    assert link.decide(CardFrame(7, KD)) == REPEAT


def test_a_heartbeat_says_how_many_frames_sent_never_reached_the_journal():
    assert Receiver(None).unheard(6) == 0  # a fresh journal knows of none
    assert Receiver(3).unheard(3) == 0
    assert Receiver(3).unheard(6) == 3
    assert Receiver(3).unheard(1) == 0  # behind: a stale reader, alarmed at its next frame
    assert Receiver(65535).unheard(1) == 2


def test_only_sequenced_frames_are_decided_and_stored_numbers_must_fit():
    with pytest.raises(TypeError):
        Receiver(1).decide(Heartbeat(1))
    with pytest.raises(Refused):
        Receiver(65536)


# --- the reader's sender ----------------------------------------------------------------


def test_the_reader_says_hello_first_and_repeats_it_every_200ms_until_acknowledged():
    sender = Sender("fw 1")
    hello = sender.poll(0.0)
    assert parse_all(hello)[0] == [Hello(0, "fw 1")]
    assert sender.next_due(0.0) == pytest.approx(0.2)
    assert sender.poll(0.15) is None
    assert sender.poll(0.2) == hello
    assert sender.feed(ack(0)) == [0]
    assert sender.card("KD") == 1
    assert sender.next_due(0.25) == 0.25
    assert parse_all(sender.poll(0.25))[0] == [CardFrame(1, KD)]


def test_the_reader_ignores_acks_for_other_frames_and_damaged_acks():
    sender = Sender()
    sender.poll(0.0)
    broken = ack(0).replace(b"A,0", b"A,8")
    assert sender.feed(ack(5) + broken + b"noise\n") == []
    assert sender.pending() == 1
    assert sender.rejected == 1
    assert sender.feed(ack(0)[:5]) == []
    assert sender.feed(ack(0)[5:]) == [0]
    assert sender.pending() == 0


def test_ack_seq_reads_only_good_acknowledgements():
    assert ack_seq(ack(65535)[:-1]) == 65535
    assert ack_seq(ack(12)[:-2]) == 12
    assert ack_seq(with_crc(b"A,12", b"%04x")[:-1]) == 12
    for body in (b"A,65536", b"A,", b"A,1x", b"C,1", b"A,123456", b"A,\xff"):
        assert ack_seq(with_crc(body)[:-1]) is None


def test_an_idle_reader_sends_heartbeats_with_its_last_number():
    sender = Sender(heartbeat=1.0)
    sender.poll(0.0)
    sender.feed(ack(0))
    sender.card("KD")
    sender.poll(0.1)
    sender.feed(ack(1))
    assert sender.poll(0.5) is None
    assert sender.next_due(0.5) == pytest.approx(1.1)
    assert parse_all(sender.poll(1.1))[0] == [Heartbeat(1)]
    assert sender.poll(1.5) is None


def test_a_reader_that_cannot_read_says_why_in_place_of_its_heartbeats_until_it_can():
    sender = Sender(heartbeat=1.0)
    sender.poll(0.0)
    sender.feed(ack(0))
    assert parse_all(sender.poll(1.0))[0] == [Heartbeat(0)]
    sender.fault("flicker: light the box with lamps on a steady supply")
    fault = Fault(0, "flicker: light the box with lamps on a steady supply")
    assert parse_all(sender.poll(1.2))[0] == [fault]  # at once, not a heartbeat later
    assert sender.poll(1.5) is None
    assert parse_all(sender.poll(2.2))[0] == [fault]
    sender.fault("x" * 100)  # cut to fit a frame's 80 bytes, whatever the number
    assert parse_all(sender.poll(3.2))[0] == [Fault(0, "x" * 64)]
    assert len(Fault(65535, "x" * 64).to_bytes()) == 80
    sender.fault(None)
    assert parse_all(sender.poll(3.4))[0] == [Heartbeat(0)]


@pytest.mark.parametrize("body", [b"F,1", b"F,1,", b"F,1, ", b"F,,flicker", b"F,99999,flicker"])
def test_a_fault_must_say_why(body):
    frames, parser = parse_all(with_crc(body) + NR_FRAME)
    assert frames == [NoRead(2)]
    assert parser.discarded["field"] == 1


def test_no_heartbeat_while_a_frame_is_being_repeated():
    sender = Sender()
    sent = [sender.poll(t / 10) for t in range(30)]
    assert {s for s in sent if s} == {Hello(0, "").to_bytes()}


def test_a_full_reader_queue_drops_the_card_but_the_host_sees_the_gap():
    sender = Sender(capacity=2)
    assert [sender.card(c) for c in ("KD", "QS", "2H")] == [1, 2, 3]
    assert sender.dropped == 2
    link = Receiver(None)
    link.committed(Hello())
    sender.poll(0.0)
    sender.feed(ack(0))
    card_frame = parse_all(sender.poll(0.0))[0][0]
    assert card_frame == CardFrame(1, KD)
    link.committed(card_frame)
    sender.feed(ack(1))
    sender.card("JC")
    assert link.decide(parse_all(sender.poll(0.0))[0][0]) == Decision(Action.APPLY, missed=2)


def test_the_reader_numbers_wrap_from_65535_to_0():
    sender = Sender(capacity=1, heartbeat=None)
    for _ in range(65534):
        sender.no_read()
    assert sender.card("KD") == 65535
    assert sender.card("QD") == 0
    assert sender.card("JD") == 1


def run_table(seed: int, codes: list[str], loss: float, damage: float) -> tuple[list, Counter]:
    """Deals ``codes`` through a lossy line; returns what the host journaled, and what it saw."""
    rng = random.Random(seed)
    sender = Sender("sim")
    parser = FrameParser()
    link = Receiver(None)
    journal = []
    seen: Counter = Counter()
    to_deal = list(codes)
    t = 0.0
    next_card = 0.0

    def line(data: bytes | None) -> bytes:
        if data is None or rng.random() < loss:
            return b""
        if rng.random() < damage:
            i = rng.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
        return data

    for _ in range(100_000):
        if to_deal and t >= next_card:
            sender.card(to_deal.pop(0))
            next_card = t + rng.uniform(0.1, 1.5)
        for value in parser.feed(line(sender.poll(t))):
            if isinstance(value, Heartbeat):
                continue
            decision = link.decide(value)
            seen[decision.action] += 1
            assert decision.action is not Action.STALE and decision.missed == 0
            if decision.action is Action.APPLY:
                journal.append(value.card)
            if decision.action in (Action.APPLY, Action.HELLO):
                link.committed(value)
            sender.feed(line(ack(value.seq)))
        if not to_deal and sender.pending() == 0:
            break
        t += rng.choice((0.01, 0.05, 0.1))
    seen.update(parser.discarded)
    seen["dropped"] = sender.dropped
    return journal, seen


@settings(max_examples=25)
@given(
    st.integers(0, 2**32),
    st.lists(st.sampled_from(DECK), min_size=1, max_size=30, unique=True),
    st.floats(0.0, 0.5),
    st.floats(0.0, 0.3),
)
def test_through_lost_and_damaged_frames_and_acks_every_card_arrives_once_in_order(
    seed, cards, loss, damage
):
    journal, seen = run_table(seed, [c.code for c in cards], loss, damage)
    assert journal == cards
    assert seen["dropped"] == 0


def test_a_whole_pack_through_a_bad_line_is_journaled_exactly_once_in_order():
    journal, seen = run_table(1, [c.code for c in DECK], loss=0.3, damage=0.2)
    assert journal == list(DECK)
    assert seen[Action.REPEAT] > 5 and seen["crc"] > 5  # the line really was bad


def test_a_card_whose_ack_was_lost_is_sent_again_and_journaled_once():
    sender = Sender()
    link = Receiver(None)
    parser = FrameParser()
    journal = []

    def host(data):
        acks = b""
        for value in parser.feed(data):
            if link.decide(value).action is Action.APPLY:
                journal.append(value)
            link.committed(value)
            acks += ack(value.seq)
        return acks

    sender.feed(host(sender.poll(0.0)))
    sender.card("KD")
    host(sender.poll(0.1))  # the ack is lost on the way back
    assert sender.poll(0.2) is None
    sender.feed(host(sender.poll(0.35)))
    assert journal == [CardFrame(1, KD)]
    assert sender.pending() == 0


# --- the plain protocol -------------------------------------------------------------------


def test_a_scanner_line_may_end_in_cr_lf_or_both():
    parser = PlainParser()
    assert parser.feed(b"KD\r10h\nqs\r\n", now=0.0) == [KD, TEN_H, parse_card("QS")]
    assert parser.feed(b"2", now=1.0) == []
    assert parser.feed(b"C\r", now=1.0) == [parse_card("2C")]


def test_a_scanner_reading_the_same_card_twice_within_half_a_second_is_one_read():
    parser = PlainParser()
    assert parser.feed(b"KD\r", now=10.0) == [KD]
    assert parser.feed(b"KD\r", now=10.3) == []
    assert parser.feed(b"KD\r", now=10.7) == []  # still under the scanner: 0.4 s since the last
    assert parser.feed(b"QS\rKD\r", now=10.8) == [parse_card("QS"), KD]
    assert parser.feed(b"KD\r", now=11.4) == [KD]
    assert parser.discarded["repeat"] == 2


def test_scanner_lines_that_are_not_cards_are_counted_and_dropped():
    parser = PlainParser()
    data = b"hello\r\xff\xfe\r" + b"9" * 40 + b"\r\n\r\nAS\r"
    assert parser.feed(data, now=0.0) == [parse_card("AS")]
    assert parser.discarded == {"bad": 2, "long": 1, "repeat": 0}


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=40), max_size=6))
def test_any_scanner_bytes_never_raise(chunks):
    parser = PlainParser()
    for i, chunk in enumerate(chunks):
        assert all(card in DECK for card in parser.feed(chunk, now=i * 0.1))


def test_a_reader_restarting_mid_deal_resets_the_count_without_a_gap_alarm():
    link = Receiver(40)  # restored: the old reader had reached 40
    sender = Sender("fw 2", heartbeat=None)
    parser = FrameParser()
    decisions = []
    for code in ("KD", "QS"):
        sender.card(code)
    for t in range(10):
        for value in parser.feed(sender.poll(t * 0.2) or b""):
            decisions.append((value, link.decide(value)))
            link.committed(value)
            sender.feed(ack(value.seq))
    assert decisions == [
        (Hello(0, "fw 2"), Decision(Action.HELLO)),
        (CardFrame(1, KD), APPLY),
        (CardFrame(2, parse_card("QS")), APPLY),
    ]


def test_every_frame_written_in_the_protocol_document_has_the_right_crc():
    doc = (Path(__file__).parent.parent / "hardware" / "PROTOCOL.md").read_text()
    shown = re.findall(r"\$([^$*\n`]+)\*([0-9A-Fa-f]{4})", doc)
    assert len(shown) > 20
    for body, trailer in shown:
        if body != "C,17,10D":  # the document's example of a frame to drop
            assert crc(body.encode()) == int(trailer, 16), body
