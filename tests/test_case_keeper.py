"""The case keeper's LEDs, read back from the pins by a virtual chain of 74HC595s."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import heapq
import itertools
import logging
import random

import pytest
from gpiozero import Button, DigitalOutputDevice
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from faro_pi.board import (
    ALL_LIT,
    CASE_KEEPER,
    CHAIN,
    OUTPUTS,
    PLACES,
    REGISTERS,
    ROLES,
    SHIFT_ORDER,
    SPARE,
    bytes_frame,
    frame_bytes,
    grid,
    outputs_frame,
)
from faro_pi.config import LedsConfig
from faro_pi.devices import Output
from faro_pi.devices.case_keeper import (
    STILL,
    TICK,
    CaseKeeper,
    Signal,
    cells,
    column,
    frame_at,
    last_three_blink,
    pair_blink,
    signal_for,
    steady_frame,
)
from faro_pi.devices.pins import opens_spi
from faro_pi.devices.shift_registers import SPI_HZ, ShiftRegisters
from faro_pi.exc import FaroError
from faro_pi.game.cards import DECK, RANKS, SUITS, parse_card
from faro_pi.game.demo import play
from faro_pi.game.events import (
    Alarm,
    Bank,
    Bet,
    Call,
    CardDrawn,
    Clear,
    Close,
    Integrity,
    Join,
    Leave,
    Lock,
    Remove,
    Session,
    Shuffle,
    Void,
)
from faro_pi.game.rules import Table
from faro_pi.virtual.chain import VirtualChain, watched_factory
from tests.fake_lgpio import Lgpio, pi_factory

LEDS = LedsConfig(driver="74hc595", data=10, clock=11, latch=8, enable=18, brightness=1.0)
SPI = dataclasses.replace(LEDS, driver="74hc595-spi")
BOTH = pytest.mark.parametrize("leds", [LEDS, SPI], ids=["bit-banged", "spi"])
"""Run on either driver: the chain decodes both from the pins."""
TINY = 0.002
"""Seconds per phase in the tests that let the timers run."""
LONG = 60.0
"""Seconds per phase in the tests that must see phase 0 only."""


def deal(seed: int = 7) -> list:
    pack = list(DECK)
    random.Random(seed).shuffle(pack)
    return pack


def expected(exposed) -> int:
    """The case worked out here, from the cards dealt: lit = not yet exposed."""
    return sum(1 << i for i, card in enumerate(DECK) if card not in exposed)


@contextlib.contextmanager
def keeper_on(config: LedsConfig = LEDS, tick: float = TINY):
    factory, chain = watched_factory(config)
    keeper = CaseKeeper(config, factory, tick=tick)
    try:
        yield keeper, chain, factory
    finally:
        keeper.close()
        factory.close()


async def latched(chain: VirtualChain, frame: int, timeout: float = 5.0) -> list[str]:
    """Waits for the chain to latch ``frame``; returns the grid it showed at that edge."""
    if chain.latched and chain.latched[-1].frame == frame and chain.brightness > 0:
        return chain.grid()
    seen: asyncio.Future = asyncio.get_running_loop().create_future()

    def check(latch):
        if latch.frame == frame and not seen.done():
            seen.set_result(chain.grid())

    chain.when_latched = check
    try:
        async with asyncio.timeout(timeout):
            return await seen
    finally:
        chain.when_latched = None


async def latches(chain: VirtualChain, count: int, timeout: float = 5.0) -> list[int]:
    """Waits for ``count`` more latches; returns their frames."""
    frames: list[int] = []
    enough: asyncio.Future = asyncio.get_running_loop().create_future()

    def add(latch):
        frames.append(latch.frame)
        if len(frames) == count and not enough.done():
            enough.set_result(None)

    chain.when_latched = add
    try:
        async with asyncio.timeout(timeout):
            await enough
    finally:
        chain.when_latched = None
    return frames[:count]


async def quiet(keeper: CaseKeeper, timeout: float = 5.0) -> None:
    """Waits until no signal is stepping."""
    async with asyncio.timeout(timeout):
        await keeper.still()
    assert not keeper.blinking


def card_event(table: Table, card) -> CardDrawn:
    event = CardDrawn(card)
    table.apply(event)
    return event


# -- the wiring table -----------------------------------------------------------


def test_the_wiring_is_a_bijection_between_cards_and_register_outputs():
    assert list(CASE_KEEPER) == list(RANKS)
    assert all(len(places) == len(SUITS) for places in CASE_KEEPER.values())
    assert len(PLACES) == len(DECK) == 52
    assert len(set(PLACES)) == 52
    every = {(register, q) for register in range(REGISTERS) for q in range(OUTPUTS)}
    assert set(PLACES) | set(SPARE) == every
    assert not set(PLACES) & set(SPARE)
    assert len(every) == CHAIN == 56


def test_each_register_drives_two_neighbouring_columns():
    for rank in range(1, 14):
        registers = {PLACES[DECK.index(card)][0] for card in DECK if card.rank == rank}
        assert registers == {(rank - 1) // 2}


def test_the_shift_order_starts_at_the_far_end_of_the_chain():
    assert SHIFT_ORDER[0] == (6, 7)
    assert SHIFT_ORDER[-1] == (0, 0)
    assert sorted(SHIFT_ORDER) == sorted(PLACES + SPARE)
    ace, king = parse_card("AS"), parse_card("KC")
    assert frame_bytes(1 << ace.index) == bytes([0, 0, 0, 0, 0, 0, 0b0000_0001])
    assert frame_bytes(1 << king.index) == bytes([0b0000_1000, 0, 0, 0, 0, 0, 0])


def test_the_roles_name_the_config_keys():
    assert [role.key for role in ROLES] == ["data", "clock", "latch", "enable"]
    assert all(role.key in LedsConfig.__dataclass_fields__ for role in ROLES)
    assert [role.signal for role in ROLES] == ["SER", "SRCLK", "RCLK", "OE"]


@given(st.integers(min_value=0, max_value=ALL_LIT))
def test_a_frame_survives_the_bytes(frame):
    data = frame_bytes(frame)
    assert len(data) == REGISTERS
    assert bytes_frame(data) == frame
    lit = [bool(frame >> i & 1) for i in range(52)]
    assert frame_bytes(lit) == data


def test_the_spare_outputs_light_nothing():
    assert frame_bytes(ALL_LIT)[0] == 0b0000_1111  # register 6: Q0..Q3 only
    assert bytes_frame(bytes([0xFF] * 7)) == ALL_LIT
    assert outputs_frame(sum(1 << (r * 8 + q) for r, q in SPARE)) == 0


def test_a_frame_reads_as_the_grid():
    assert grid(ALL_LIT) == ["1" * 13] * 4
    assert (
        grid(1 << parse_card("10H").index) == ["0" * 13, "0" * 9 + "1" + "0" * 3] + ["0" * 13] * 2
    )
    with pytest.raises(ValueError):
        frame_bytes([True] * 51)


# -- the virtual chain against the datasheet -----------------------------------------


def test_the_chain_shifts_on_srclk_and_shows_on_rclk():
    factory, chain = watched_factory(LEDS)
    ser = DigitalOutputDevice(10, pin_factory=factory)
    srclk = DigitalOutputDevice(11, pin_factory=factory)
    rclk = DigitalOutputDevice(8, initial_value=True, pin_factory=factory)

    def shift(bits):
        for bit in bits:
            ser.value = bit
            srclk.on()
            srclk.off()

    rclk.off()
    shift([1])
    assert chain.outputs is None  # shifted, not latched
    rclk.on()
    assert chain.outputs == 1  # register 0, Q0
    rclk.off()
    shift([0] * 55)
    rclk.on()
    assert chain.outputs == 1 << 55  # pushed along to register 6, Q7
    assert [latch.bits for latch in chain.latched] == [1, 55]
    factory.close()


def test_the_chain_is_blank_until_oe_goes_low():
    factory, chain = watched_factory(LEDS)
    assert chain.brightness == 0  # OE pulled up on the board
    assert chain.grid() == ["0" * 13] * 4
    enable = DigitalOutputDevice(18, active_high=False, pin_factory=factory)
    assert chain.brightness == 0
    enable.on()
    assert chain.brightness == 1
    assert chain.lit_unlatched  # power-up garbage would show: nothing latched yet
    factory.close()


def test_buttons_still_press_on_a_watched_factory():
    factory, _ = watched_factory(LEDS)
    button = Button(17, pin_factory=factory)
    factory.pin(17).drive_low()
    assert button.is_pressed
    factory.pin(17).drive_high()
    assert not button.is_pressed
    factory.close()


# -- the steady frame and the signals, without time ------------------------------------


def test_the_steady_frame_is_the_case():
    table = Table()
    assert steady_frame(table) == ALL_LIT
    pack = deal()
    for n, card in enumerate(pack, 1):
        table.apply(CardDrawn(card))
        assert steady_frame(table) == expected(pack[:n])
    for rank in range(1, 14):
        assert bin(steady_frame(table) & column(rank)).count("1") == 0
    table.apply(Shuffle())
    assert steady_frame(table) == ALL_LIT


def test_a_columns_lit_leds_are_its_case_count():
    table = Table()
    for card in deal(3)[:30]:
        table.apply(CardDrawn(card))
        frame = steady_frame(table)
        for rank in range(1, 14):
            assert bin(frame & column(rank)).count("1") == table.pack.counts[rank]


def test_no_signal_shows_the_steady_frame():
    assert frame_at(0b1011, STILL, 0) == 0b1011
    assert frame_at(0b1011, STILL, 99) == 0b1011
    assert not STILL.running(0)


def test_a_pair_blinks_three_times_then_rests():
    table = Table()
    pack = deal()
    table.apply(CardDrawn(pack[0]))
    assert signal_for(table, CardDrawn(pack[0])) == STILL  # the soda settles nothing
    table.apply(CardDrawn(pack[1]))
    assert signal_for(table, CardDrawn(pack[1])) == STILL  # a loser alone
    table.apply(CardDrawn(pack[2]))
    signal = signal_for(table, CardDrawn(pack[2]))
    steady = steady_frame(table)
    pair = cells(pack[1:3])
    shown = [frame_at(steady, signal, phase) for phase in range(14)]
    lit = [frame == steady | pair for frame in shown]
    assert lit == [False, False, True, True] * 3 + [False, False]  # the case shows first
    assert all(frame in (steady, steady | pair) for frame in shown)
    assert signal.running(11) and not signal.running(12)
    assert not pair & steady  # the pair is dark in the case: a blink lights it


def test_an_alarm_blinks_its_cards_column_until_cleared():
    table = Table()
    pack = deal()
    for card in pack[:5]:
        table.apply(CardDrawn(card))
    refused = Alarm("refused", "duplicate", pack[0])
    table.apply(refused)
    signal = signal_for(table, refused)
    steady = steady_frame(table)
    assert signal.once == ()
    assert {signal.mask(phase) for phase in range(100)} == {0, column(pack[0].rank)}
    assert all(signal.running(phase) for phase in range(100))
    assert frame_at(steady, signal, 0) == steady  # the case shows first
    assert frame_at(steady, signal, 2) == steady ^ column(pack[0].rank)
    table.apply(Clear())
    assert signal_for(table, Clear()) == STILL


def test_an_alarm_without_a_card_blinks_the_last_cards_column():
    table = Table()
    table.apply(Alarm("lost", "silent"))
    assert signal_for(table, None).loop[2] == ALL_LIT  # before the soda: the whole grid
    table.apply(Clear())
    pack = deal()
    for card in pack[:4]:
        table.apply(CardDrawn(card))
    table.apply(Alarm("noread", "passed unread"))
    assert set(signal_for(table, None).loop) == {0, column(pack[3].rank)}


def test_the_last_three_blink_slowly():
    table = Table()
    pack = deal()
    for card in pack[:49]:
        table.apply(CardDrawn(card))
    signal = signal_for(table, CardDrawn(pack[48]))
    assert signal.once  # card 49 is a pair's winner: its blink comes first
    left = cells(pack[49:])
    assert bin(left).count("1") == 3
    assert set(signal.loop) == {0, left}
    assert len(signal.loop) > len(signal_for(_alarmed(), None).loop)  # slower than an alarm
    steady = steady_frame(table)
    assert steady == left
    start = len(signal.once)
    assert frame_at(steady, signal, start) == left  # the three stay lit a while...
    assert frame_at(steady, signal, start + len(signal.loop) - 1) == 0  # ...then go dark


def _alarmed() -> Table:
    table = Table()
    table.apply(Alarm("gap", "missing"))
    return table


def test_an_alarm_outranks_the_last_three():
    table = Table()
    pack = deal()
    for card in pack[:49]:
        table.apply(CardDrawn(card))
    table.apply(Alarm("refused", "dup", pack[0]))
    assert set(signal_for(table, None).loop) == {0, column(pack[0].rank)}


def test_the_hock_sweeps_the_grid_column_by_column():
    table = Table()
    for card in deal():
        table.apply(CardDrawn(card))
    signal = signal_for(table, CardDrawn(table.pack.exposed[-1]))
    assert steady_frame(table) == 0
    shown = [frame_at(0, signal, phase) for phase in range(15)]
    assert shown == [0] + [column(rank) for rank in range(1, 14)] + [0]
    assert sum(shown) == ALL_LIT
    assert not signal.running(14)


def test_a_signal_is_data():
    signal = Signal((1, 2), (4,))
    assert [signal.mask(p) for p in range(5)] == [1, 2, 4, 4, 4]
    assert Signal((1,)).mask(1) == 0


def a_night_of_every_kind() -> list:
    """Two house packs of the demo, with a player who comes and goes, a no-read alarm under
    the bets, a void, the daemon's report at the first hock, the bank passed and the close."""
    dealt = list(play(random.Random(4), ("Ann", "Bob", "Cy"), packs=2, profile="house"))
    cards = [at for at, event in enumerate(dealt) if isinstance(event, CardDrawn)]
    more = {
        0: [Join("Dee"), Leave("Dee")],
        cards[10]: [Alarm("noread", "passed unread")],
        cards[12]: [Clear()],
        cards[20]: [Void(dealt[cards[20]].card), dealt[cards[20]]],
        cards[51]: [Integrity(1, (), {})],
        len(dealt) - 1: [Bank("Bob"), Close()],
    }
    return [each for at, event in enumerate(dealt) for each in (event, *more.get(at, ()))]


def test_what_the_keeper_passes_over_would_show_nothing_new():
    """The keeper redraws only after an event whose ``changes_case`` says so. After any
    other, the case and the blink that stands are the ones it shows already: the LEDs are
    never left behind the table."""
    table, passed_over = Table(), set()
    shown = steady_frame(table), STILL.loop
    for event in a_night_of_every_kind():
        table.apply(event)
        now = steady_frame(table), signal_for(table, event).loop
        if event.changes_case:
            shown = now
        else:
            assert now == shown, event
            passed_over.add(type(event))
    assert passed_over == {Session, Join, Leave, Bet, Remove, Lock, Call, Integrity, Bank, Close}


# -- the keeper on mock pins, read back by the chain ----------------------------------------


@BOTH
async def test_the_leds_stay_blank_until_the_first_latch(leds):
    with keeper_on(leds) as (keeper, chain, factory):
        assert chain.latches == 0
        assert chain.brightness == 0
        assert factory.pin(18).state  # OE high
        await _show_once(keeper, Table())
        assert chain.latches == 1
        assert chain.brightness == 1
        assert not chain.lit_unlatched
        assert chain.grid() == ["1" * 13] * 4


async def _show_once(keeper, table, event=None):
    keeper.show(table, event)


@BOTH
async def test_every_card_of_a_pack_latches_one_whole_frame(leds):
    """Phase 0 only (the timers never fire): one latch per card, each a whole frame."""

    with keeper_on(leds, tick=LONG) as (keeper, chain, _):
        table = Table()
        keeper.show(table)
        pack = deal(11)
        for n, card in enumerate(pack, 1):
            before = chain.latches
            event = card_event(table, card)
            keeper.show(table, event)
            assert chain.latches == before + 1
            case = expected(pack[:n])
            assert keeper.steady == case
            assert chain.latched[-1].frame == frame_at(case, keeper.signal, 0)
            if keeper.signal.mask(0) == 0:
                assert chain.frame == case
        assert all(latch.bits == CHAIN for latch in chain.latched)


@BOTH
async def test_a_whole_pack_shows_its_case_after_every_card(leds):
    """The timers run: after each card the chain latches the case worked out here."""

    with keeper_on(leds) as (keeper, chain, _):
        table = Table()
        keeper.show(table)
        for pack_number, seed in enumerate((1, 2), 1):
            pack = deal(seed)
            for n, card in enumerate(pack, 1):
                keeper.show(table, card_event(table, card))
                shown = await latched(chain, expected(pack[:n]))
                assert shown == grid(expected(pack[:n]))
            await quiet(keeper)
            assert chain.grid() == ["0" * 13] * 4
            table.apply(Shuffle())
            keeper.show(table, Shuffle())
            assert chain.grid() == ["1" * 13] * 4
            assert table.pack.number == pack_number + 1
        frames = [latch.frame for latch in chain.latched]
        assert all(a != b for a, b in itertools.pairwise(frames))  # a latch is a change
        assert all(latch.bits == CHAIN for latch in chain.latched)  # each one a write


@BOTH
async def test_a_pair_flashes_three_times_on_the_pins(leds):
    with keeper_on(leds) as (keeper, chain, _):
        table = Table()
        pack = deal()
        for card in pack[:2]:
            keeper.show(table, card_event(table, card))
        before = chain.latches
        keeper.show(table, card_event(table, pack[2]))
        await quiet(keeper)
        case, pair = expected(pack[:3]), cells(pack[1:3])
        frames = [latch.frame for latch in chain.latched[before:]]
        assert frames == [case, case | pair] * 3 + [case]  # only the changes are latched
        assert chain.frame == case


async def test_an_alarm_blinks_on_the_pins_until_cleared():
    with keeper_on() as (keeper, chain, _):
        table = Table()
        pack = deal()
        for card in pack[:6]:
            keeper.show(table, card_event(table, card))
        alarm = Alarm("refused", "KD was already exposed", pack[1])
        table.apply(alarm)
        keeper.show(table, alarm)
        case = expected(pack[:6])
        frames = [chain.latched[-1].frame, *await latches(chain, 6)]
        blink = case ^ column(pack[1].rank)
        assert frames == [case, blink] * 3 + [case]
        assert keeper.blinking
        table.apply(Clear())
        keeper.show(table, Clear())
        await latched(chain, case)
        await quiet(keeper)
        assert chain.frame == case


async def test_the_last_three_blink_on_the_pins_and_the_hock_sweeps():
    with keeper_on() as (keeper, chain, _):
        table = Table()
        pack = deal(5)
        for card in pack[:49]:
            keeper.show(table, card_event(table, card))
        left = cells(pack[49:])
        await latched(chain, 0)  # the three go dark...
        await latched(chain, left)  # ...and come back, again and again
        await latched(chain, 0)
        await latched(chain, left)
        assert keeper.blinking
        for card in pack[49:51]:
            keeper.show(table, card_event(table, card))
        before = chain.latches
        keeper.show(table, card_event(table, pack[51]))
        await quiet(keeper)
        frames = [latch.frame for latch in chain.latched[before:]]
        assert frames == [0] + [column(rank) for rank in range(1, 14)] + [0]


async def test_bets_and_locks_leave_the_leds_alone():
    with keeper_on(tick=LONG) as (keeper, chain, _):
        table = Table()
        keeper.show(table)
        for event in (Session(("Ann", "Bob"), "Bob"), Bet("Ann", 9, 2), Lock()):
            table.apply(event)
            keeper.show(table, event)
        assert chain.latches == 1
        keeper.show(table)  # nothing has changed: nothing to latch
        assert chain.latches == 1


async def test_the_keeper_is_an_output_settled_once_the_case_is_latched():
    """An alarm blinks until it is cleared; the case under it is shown at once."""

    with keeper_on(tick=LONG) as (keeper, chain, _):
        assert isinstance(keeper, Output)
        table = Table()
        keeper.show(table)
        card = card_event(table, deal()[0])
        keeper.show(table, card)
        alarm = Alarm("noread", "passed unread")
        table.apply(alarm)
        keeper.show(table, alarm)
        async with asyncio.timeout(30):  # a hang bound: settled as soon as the case is latched
            await keeper.settled()
        assert keeper.blinking
        assert chain.latched[-1].frame == steady_frame(table)


async def test_a_void_relights_the_card():
    with keeper_on(tick=LONG) as (keeper, chain, _):
        table = Table()
        pack = deal()
        for card in pack[:4]:
            keeper.show(table, card_event(table, card))
        void = Void(pack[3])
        table.apply(void)
        keeper.show(table, void)
        assert chain.frame == expected(pack[:3])
        assert not keeper.blinking


async def test_a_restarted_keeper_shows_the_table_as_it_stands():
    table = Table()
    pack = deal()
    for card in pack[:20]:
        table.apply(CardDrawn(card))
    with keeper_on() as (keeper, chain, _):
        keeper.show(table)
        assert chain.grid() == grid(expected(pack[:20]))
        assert not keeper.blinking


@BOTH
async def test_brightness_is_oes_duty_cycle(leds):
    dim = dataclasses.replace(leds, brightness=0.25)
    with keeper_on(dim) as (keeper, chain, factory):
        assert chain.brightness == 0
        await _show_once(keeper, Table())
        assert chain.brightness == pytest.approx(0.25)
        assert factory.pin(18).state == pytest.approx(0.75)  # active low
        assert factory.pin(18).frequency > 0
    assert chain.brightness == 0  # closed: OE back to its pull-up


async def test_a_pin_without_pwm_lights_at_full_brightness(caplog):
    dim = LedsConfig("74hc595", 10, 11, 8, 18, 0.5)
    factory = MockFactory()
    with caplog.at_level(logging.WARNING, logger="faro_pi"):
        keeper = CaseKeeper(dim, factory, tick=LONG)
    assert "no PWM" in caplog.text
    assert factory.pin(18).state  # blank
    await _show_once(keeper, Table())
    assert not factory.pin(18).state
    keeper.close()
    factory.close()


@BOTH
async def test_without_an_enable_pin_the_frames_still_arrive(leds):
    tied = dataclasses.replace(leds, enable=None)
    with keeper_on(tied, tick=LONG) as (keeper, chain, _):
        await _show_once(keeper, Table())
        assert chain.brightness == 1
        assert chain.grid() == ["1" * 13] * 4


async def test_other_pins_follow_the_config():
    moved = LedsConfig("74hc595", 5, 6, 13, 19, 1.0)
    with keeper_on(moved, tick=LONG) as (keeper, chain, _):
        table = Table()
        table.apply(CardDrawn(parse_card("QH")))
        await _show_once(keeper, table)
        assert chain.grid()[1] == "111111111110" + "1"


@BOTH
async def test_close_stops_the_blinking(leds):
    with keeper_on(leds) as (keeper, chain, _):
        table = Table()
        table.apply(Alarm("lost", "silent"))
        keeper.show(table, table.alarms[0])
        assert keeper.blinking
        keeper.close()
        assert not keeper.blinking
        count = chain.latches
        keeper.show(table, Clear())  # a closed keeper ignores the table
        assert chain.latches == count


# -- on a Pi: gpiozero's lgpio backend, over a counting stand-in for lgpio ---------------


@contextlib.contextmanager
def keeper_on_a_pi(config: LedsConfig, lgpio: Lgpio | None = None):
    lgpio = lgpio or Lgpio()
    factory = pi_factory(lgpio)
    keeper = None
    try:
        keeper = CaseKeeper(config, factory, tick=LONG)
        yield keeper, lgpio
    finally:
        if keeper is not None:
            keeper.close()
        factory.close()


async def test_on_a_pi_a_frame_is_one_spi_write_to_spidev0_0_in_mode_0():
    with keeper_on_a_pi(SPI) as (keeper, lgpio):
        assert lgpio.spi_opened == [(0, 0, 500_000, 0)]  # /dev/spidev0.0, mode 0
        assert 500_000 <= SPI_HZ <= 1_000_000
        table = Table()
        keeper.show(table)
        pack = deal(3)
        for card in pack[:10]:
            lgpio.calls.clear()
            keeper.show(table, card_event(table, card))
            assert dict(lgpio.calls) == {"spi_write": 1}  # the whole frame, and the latch
            assert bytes_frame(lgpio.sent[-1][1]) == keeper.shown
            assert len(lgpio.sent[-1][1]) == REGISTERS
        assert keeper.steady == expected(pack[:10])
        assert not {10, 11, 8} & set(lgpio.modes)  # the kernel's pins: never claimed


async def test_on_a_pi_bit_banging_is_170_writes_a_frame_each_asking_the_mode():
    """Why the SPI driver exists: gpiozero checks a pin's mode before every write."""

    with keeper_on_a_pi(LEDS) as (keeper, lgpio):
        keeper.show(Table())
        lgpio.calls.clear()
        keeper.latch(0)
        assert dict(lgpio.calls) == {"gpio_write": 170, "gpio_get_mode": 170}


def test_spi0_that_does_not_open_says_how_to_turn_it_on():
    lgpio = Lgpio()

    def no_spi(*args):
        raise lgpio.error("'SPI open failed'")

    lgpio.spi_open = no_spi
    with pytest.raises(FaroError) as caught, keeper_on_a_pi(SPI, lgpio):
        pass
    message = str(caught.value)
    assert "SPI open failed" in message and "raspi-config nonint do_spi 0" in message
    assert "group spi" in message and 'leds.driver = "74hc595"' in message


def test_the_spi_driver_wants_spi0s_pins():
    moved = dataclasses.replace(SPI, data=5, clock=6, latch=13)
    with pytest.raises(FaroError, match=r"^leds.data: must be GPIO 10 \(SPI0 MOSI\)"):
        CaseKeeper(moved, MockFactory())


async def test_gpiozeros_own_mock_pins_take_the_spi_driver_in_software():
    """gpiozero's plain mock factory has no SPI that opens: the table hands the case keeper
    the bit-banged chain, whose edges on the pins are the ones SPI0 makes."""
    factory = MockFactory()
    assert not opens_spi(factory) and opens_spi(watched_factory(SPI)[0])
    keeper = CaseKeeper(SPI, factory, tick=LONG, chain=ShiftRegisters)
    try:
        await _show_once(keeper, Table())
        assert keeper.shown == ALL_LIT and not factory.pin(18).state
    finally:
        keeper.close()
        factory.close()


# -- waking the loop only when the LEDs change -----------------------------------------


class FakeClock:
    """Table time that moves only when the test says so: the case keeper's timers run in
    :meth:`advance`, none of them slept through, and each one that fires is counted."""

    def __init__(self):
        self.now = 0.0
        self.woke = 0
        """Timers fired: each one a wake-up of the loop at the table."""
        self._timers: list = []
        self._made = itertools.count()

    def call_later(self, delay: float, callback, *args) -> Timer:
        timer = Timer(self.now + delay, next(self._made), callback, args)
        heapq.heappush(self._timers, timer)
        return timer

    def advance(self, seconds: float) -> None:
        until = self.now + seconds
        while self._timers and self._timers[0].when <= until:
            timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self.now = timer.when
            self.woke += 1
            timer.callback(*timer.args)
        self.now = until


@dataclasses.dataclass(order=True)
class Timer:
    when: float
    made: int
    callback: object = dataclasses.field(compare=False)
    args: tuple = dataclasses.field(compare=False)
    cancelled: bool = dataclasses.field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


@pytest.mark.parametrize(
    ("cards", "wakes"),
    [
        (1, 0),  # the soda: nothing to show but the case, no timer at all
        (3, 6),  # a pair's three flashes: six changes, not 12 phases
        (49, 8),  # the last three's slow blink, 4 s of it: twice a second, not 8 times
    ],
)
def test_the_loop_wakes_only_when_the_leds_change(cards, wakes):
    clock = FakeClock()
    factory, chain = watched_factory(LEDS)
    keeper = CaseKeeper(LEDS, factory, clock=clock)
    try:
        table = Table()
        for card in deal(5)[:cards]:
            keeper.show(table, card_event(table, card))
        if cards == 49:
            clock.advance(len(keeper.signal.once) * TICK)  # the pair's flashes
        before, latches = clock.woke, chain.latches
        clock.advance(4.0)  # 4 s of table time
        woke = clock.woke - before
        assert woke == wakes
        assert chain.latches - latches == woke  # each wake-up latched a change
    finally:
        keeper.close()
        factory.close()


def test_a_signal_steps_to_the_next_change_only():
    blink = Signal(loop=last_three_blink(0b111))
    assert [blink.next_change(p) for p in range(8)] == [4, 4, 4, 4, 8, 8, 8, 8]
    pair = Signal(once=pair_blink(DECK[0], DECK[1]))
    assert [pair.next_change(p) for p in (0, 2, 10, 11, 12)] == [2, 4, 12, 12, None]
    assert STILL.next_change(0) is None
    assert Signal(loop=(5, 5)).next_change(3) is None  # a loop that never changes rests
