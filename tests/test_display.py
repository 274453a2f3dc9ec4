"""The OLED by the shoe: what it shows, the bytes that carry it, and a display that fails.

Every screen here comes from a real table, built from events. The bytes go
through luma's own device classes into :class:`VirtualOled`, which decodes
them as the controller would, so "the screen shows X" means the bytes said X.

The golden pictures live in ``tests/golden/``; after an intended change of a
screen, ``FARO_GOLDEN=update`` writes them again (``make golden``, which then compares
against them in a second run, as ``make test`` does).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import random
import threading
from pathlib import Path
from unittest import mock

import luma.core.error
import PIL
import pytest
import zxingcpp
from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from faro_pi.config import DisplayConfig
from faro_pi.devices import Output
from faro_pi.devices.oled import aileron, pairing
from faro_pi.devices.oled.display import TableDisplay
from faro_pi.devices.oled.flush import SH1106, SSD1306, changed_runs, frame_pages, windows
from faro_pi.devices.oled.glyphs import HEIGHT, PIPS, SUITS, WIDTH, small, text_width, wrap
from faro_pi.devices.oled.screens import ScreenView, render, view
from faro_pi.game.cards import DECK, parse_card, parse_rank
from faro_pi.game.demo import play
from faro_pi.game.events import LOCK, SHUFFLE, Alarm, Bet, Call, CardDrawn, Clear, Session
from faro_pi.game.rules import Table
from faro_pi.virtual.oled import VirtualOled
from tests import oled_face
from tests.conftest import until

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
pytestmark = pytest.mark.filterwarnings(
    # luma's own full-frame drivers, pushed through the bus here to compare, use it
    "ignore:Image.Image.getdata is deprecated:DeprecationWarning"
)
SEATS = ("Ann", "Bob", "Cy", "Dee", "Eve")


def pack(first: str, last: str) -> list:
    """A whole pack: the cards named in ``first`` and ``last`` where they say, the
    others between them in case-keeper order."""
    head = [parse_card(c) for c in first.split()]
    tail = [parse_card(c) for c in last.split()]
    middle = [c for c in DECK if c not in head and c not in tail]
    return head + middle + tail


class Game:
    """A table at which the cards come from ``deck`` in order."""

    def __init__(self, deck: list, seats=SEATS):
        self.table = Table()
        self.deck = iter(deck)
        self.table.apply(Session(seats, seats[-1]))

    def deal(self, count: int = 1) -> Game:
        for _ in range(count):
            self.table.apply(CardDrawn(next(self.deck)))
        return self

    def until(self, exposed: int) -> Game:
        return self.deal(exposed - len(self.table.pack.exposed))

    def bet(self, player: str, rank: str, weight: int, copper: bool = False) -> Game:
        self.table.apply(Bet(player, parse_rank(rank), weight, copper))
        return self

    def apply(self, *events) -> Game:
        for event in events:
            self.table.apply(event)
        return self


CAT_HOP = pack("5C 7H KS 10D 10C", "9S 4H 9D")
"""Soda 5♣; turn 1 is 7♥ then K♠, turn 2 a split of tens; the last three 9 4 9."""


def first_turn() -> Game:
    game = Game(CAT_HOP).deal()
    game.bet("Ann", "K", 4).bet("Bob", "7", 2).bet("Cy", "7", 6, copper=True)
    game.bet("Dee", "K", 2, copper=True)
    return game.deal(2)


def split_turn() -> Game:
    game = first_turn().bet("Bob", "10", 4).bet("Dee", "10", 2, copper=True)
    return game.apply(LOCK).deal(2)


def last_three() -> Game:
    game = split_turn().until(49)
    game.apply(Call("Ann", 2, order=(9, 4, 9)), Call("Cy", 2, order=(4, 9, 9)))
    return game


def three_of_a_kind() -> Game:
    game = Game(pack("2S", "8S 8H 8D")).until(49)
    return game.apply(Call("Bob", 2, colours=("black", "red", "red")))


def demo(seed: int = 7, seats=("Ann", "Bob", "Cy", "Dolores", "Eve", "Frank"), packs: int = 1):
    return play(random.Random(seed), seats, packs=packs)


def screens() -> dict[str, tuple[ScreenView, int]]:
    """The main screens, by name: a view and its page."""
    shots = {}
    game = Game(CAT_HOP)
    shots["new-pack"] = (view(game.table), 0)
    house = Table()
    house.apply(Session(SEATS, SEATS[-1], profile="house"))
    shots["new-pack-house"] = (view(house), 0)
    shots["soda"] = (view(game.deal().table), 0)
    shots["turn"] = (view(first_turn().table), 0)
    shots["balances"] = (view(first_turn().table), 1)
    shots["waiting"] = (view(first_turn().apply(LOCK).deal().table), 0)
    shots["split"] = (view(split_turn().table), 0)
    shots["call-cat-hop"] = (view(last_three().table), 0)
    shots["call-three-of-a-kind"] = (view(three_of_a_kind().table), 0)
    done = last_three().deal(3)
    shots["hock"] = (view(done.table), 0)
    shots["standings"] = (view(done.table), 1)
    refused = first_turn().apply(
        Alarm(
            "refused",
            "KD was already exposed (card 12 of this pack): misread or foreign",
            parse_card("KD"),
        )
    )
    shots["alarm"] = (view(refused.table), 0)
    return shots


@pytest.mark.parametrize("name", list(screens()))
def test_golden(name):
    image = render(*screens()[name])
    path = GOLDEN / f"{name}.png"
    if os.environ.get("FARO_GOLDEN") == "update":
        GOLDEN.mkdir(exist_ok=True)
        (GOLDEN / "readme").mkdir(exist_ok=True)
        image.save(path)
        big = image.resize((WIDTH * 4, HEIGHT * 4), Image.Resampling.NEAREST)
        big.save(GOLDEN / "readme" / f"{name}.png")
    assert path.exists(), f"no golden picture {path}: make it with FARO_GOLDEN=update"
    golden = Image.open(path).convert("1")
    changed = ImageChops.difference(golden, image).getbbox()
    assert changed is None, (
        f"{name} differs from {path} in the box {changed}; "
        "if the change is intended, FARO_GOLDEN=update writes the new picture"
    )


def test_readme_pictures_are_the_goldens_four_times_larger():
    for path in sorted(GOLDEN.glob("*.png")):
        big = Image.open(GOLDEN / "readme" / path.name).convert("1")
        golden = Image.open(path).convert("1")
        assert big.size == (WIDTH * 4, HEIGHT * 4)
        expected = golden.resize(big.size, Image.Resampling.NEAREST)
        assert ImageChops.difference(big, expected).getbbox() is None, path.name


def test_the_screens_ask_pillow_for_no_font(monkeypatch):
    # Pillow's fonts differ by version (load_default(size) needs 10.1, FreeType moves
    # pixels), so the screens draw their type from kept pixels alone.
    def refused(*args, **kwargs):
        raise AssertionError("the OLED's screens must not draw through a Pillow font")

    for name in ("truetype", "load_default", "load", "load_path", "FreeTypeFont"):
        monkeypatch.setattr(ImageFont, name, refused)
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", refused)
    for name, shot in screens().items():
        golden = Image.open(GOLDEN / f"{name}.png").convert("1")
        assert ImageChops.difference(golden, render(*shot)).getbbox() is None, name


def test_the_kept_glyphs_are_what_freetype_drew():
    """Made again from Pillow's Aileron, where the virtualenv has the Pillow that made them."""
    here = f"Pillow {PIL.__version__}, FreeType {features.version('freetype2')}"
    if here != aileron.MADE_WITH:
        pytest.skip(f"made with {aileron.MADE_WITH}; here {here} may draw other pixels")
    assert oled_face.module() == Path(aileron.__file__).read_text(encoding="utf-8")


def test_the_turn_shows_each_players_net_biggest_first_and_the_bank():
    v = view(first_turn().table)
    assert (v.screen, v.turn, v.loser.code, v.winner.code) == ("turn", 1, "7H", "KS")
    assert v.settled == (("Cy", 6), ("Ann", 4), ("Bob", -2), ("Dee", -2))
    assert v.bank == -6 and not v.split
    assert v.entries == "open" and v.left == 49


def test_the_split_is_marked_and_halves():
    v = view(split_turn().table)
    assert v.split and v.settled == (("Bob", -2), ("Dee", -1)) and v.bank == 3


def test_waiting_for_the_winner_has_one_page_and_no_winner():
    v = view(first_turn().apply(LOCK).deal().table)
    assert (v.turn, v.loser.code, v.winner, v.entries, v.pages) == (2, "10D", None, "locked", 1)


def test_the_last_three_are_offered_for_calling():
    v = view(last_three().table)
    assert v.screen == "call" and [c.code for c in v.three] == ["4H", "9S", "9D"]
    assert v.calls == 2
    assert v.pages == 2 + v.balance_pages  # the call, the last pair, the balances


def test_the_hock_settles_the_calls():
    v = view(last_three().deal(3).table)
    assert v.screen == "hock" and [c.code for c in v.three] == ["9S", "4H", "9D"]
    assert v.call_results == (("Ann", 4), ("Cy", -2)) and v.bank == -2


def test_a_bet_changes_nothing_on_the_screen():
    game = first_turn()
    before = view(game.table)
    game.bet("Bob", "Q", 2)
    assert view(game.table) == before


def test_an_alarm_takes_the_screen_until_cleared():
    game = first_turn()
    before = view(game.table)
    game.apply(Alarm("noread", "a card passed unread: feed it again"))
    v = view(game.table)
    assert v.alarm == ("noread", "a card passed unread: feed it again") and v.pages == 1
    game.apply(Clear())
    assert view(game.table) == before


def test_balances_need_something_to_show():
    assert view(Game(CAT_HOP).deal().table).balance_pages == 0
    v = view(first_turn().table)
    assert v.balance_pages == 2  # five seats, four a page
    names = [s.name for s in v.balances]
    assert names == ["Cy", "Ann", "Bob", "Dee", "Eve"]  # the best first
    assert [s.name for s in v.balances if s.leader] == ["Cy"]
    assert [s.name for s in v.balances if s.banker] == ["Eve"]


def test_every_screen_and_page_is_a_128_by_64_one_bit_picture():
    for game in (first_turn(), last_three(), last_three().deal(3), Game(CAT_HOP)):
        v = view(game.table)
        for page in range(v.pages + 1):  # pages wrap round
            image = render(v, page)
            assert (image.mode, image.size) == ("1", (WIDTH, HEIGHT))
            assert set(image.getextrema()) <= {0, 255}


def test_the_suits_are_square_bitmaps():
    for glyphs, size in ((SUITS, 15), (PIPS, 9)):
        assert set(glyphs) == {"S", "H", "D", "C"}
        for rows in glyphs.values():
            assert len(rows) == size and all(len(r) == size and set(r) <= {".", "#"} for r in rows)


def test_long_alarm_text_is_wrapped_and_cut():
    lines = wrap("word " * 80, small(), WIDTH, 4)
    assert len(lines) == 4 and lines[-1].endswith("…")
    assert all(text_width(line) <= WIDTH for line in lines)


def decoded(controller: str, device_class, images, bus: VirtualOled | None = None):
    """Pushes ``images`` through ``device_class`` on a virtual bus, yielding (image, bus)."""
    bus = bus or VirtualOled(controller)
    device = device_class(i2c(bus=bus))
    for image in images:
        device.display(image)
        yield image, bus


def test_frame_pages_are_the_controllers_bytes():
    image = Image.new("1", (WIDTH, HEIGHT))
    image.putpixel((0, 0), 255)  # page 0, column 0, bit 0
    image.putpixel((5, 15), 255)  # page 1, column 5, bit 7
    image.putpixel((127, 63), 255)
    pages = frame_pages(image)
    assert len(pages) == 1024
    assert pages[0] == 0x01 and pages[WIDTH + 5] == 0x80 and pages[-1] == 0x80
    assert sum(1 for b in pages if b) == 3


@pytest.mark.parametrize(
    ("controller", "device_class"),
    [("ssd1306", ssd1306), ("sh1106", sh1106), ("ssd1306", SSD1306), ("sh1106", SH1106)],
)
def test_the_bus_shows_what_was_rendered(controller, device_class):
    images = [render(v, page) for v, page in screens().values()]
    frames = 0
    for image, bus in decoded(controller, device_class, images):
        assert ImageChops.difference(bus.image(), image).getbbox() is None
        assert bus.frames > frames
        frames = bus.frames
    assert bus.on and bus.contrast in (0x7F, 0xCF)


@pytest.mark.parametrize(("controller", "device_class"), [("ssd1306", SSD1306), ("sh1106", SH1106)])
def test_a_whole_pack_in_changed_windows_stays_exact(controller, device_class):
    """After every event of a demo pack, the glass shows the render, though mostly
    only a part of the frame was sent."""
    bus = VirtualOled(controller)
    device = device_class(i2c(bus=bus))
    full = len(frame_pages(Image.new("1", (WIDTH, HEIGHT))))
    table, sent = Table(), []
    for event in demo():
        table.apply(event)
        image = render(view(table))
        before = bus.bytes_sent
        device.display(image)
        sent.append(bus.bytes_sent - before)
        assert ImageChops.difference(bus.image(), image).getbbox() is None, event
    assert max(sent) < full  # even the first: luma's start-up blanked the screen
    assert sum(sent) / len(sent) < full / 4
    assert sent.count(0) > 50  # bets change nothing on the screen, and send nothing


def test_luma_s_own_smbus2_path_decodes_the_same():
    """With no bus handed in, luma opens smbus2 itself and writes with i2c_rdwr:
    a window's data goes in one message instead of 32-byte blocks."""
    images = [render(v, page) for v, page in screens().values()]
    handed = VirtualOled()
    for _ in decoded("ssd1306", SSD1306, images, bus=handed):
        pass
    bus = VirtualOled()
    with mock.patch("smbus2.SMBus", lambda port: bus):
        serial = i2c(port=1, address=0x3C)
    device = SSD1306(serial)
    for image in images:
        device.display(image)
        assert ImageChops.difference(bus.image(), image).getbbox() is None
    assert bus.transactions < handed.transactions and bus.bytes_sent < handed.bytes_sent


def test_windows_cover_every_changed_column_once_enough():
    rng = random.Random(5)
    old = bytes(rng.randrange(256) for _ in range(1024))
    for _ in range(50):
        new = bytearray(old)
        for _ in range(rng.randrange(1, 40)):
            new[rng.randrange(1024)] ^= 0xFF
        new = bytes(new)
        runs = changed_runs(old, new, 6)
        covered = {
            p * WIDTH + x
            for first, last, s, e in windows(runs)
            for p in range(first, last + 1)
            for x in range(s, e)
        }
        assert {i for i in range(1024) if old[i] != new[i]} <= covered
        assert windows(runs)[-1][1] == max(p for p, _, _ in runs)


def test_the_virtual_oled_decodes_the_glass_not_the_memory():
    bus = VirtualOled()
    device = ssd1306(i2c(bus=bus))
    image = render(*screens()["turn"])
    device.display(image)
    device.command(0xA7)  # inverse
    assert ImageChops.invert(image.convert("L")).convert("1") == bus.image()
    device.command(0xA6, 0xAE)  # normal, then off
    assert bus.image().getbbox() is None
    device.command(0xAF, 0xA0)  # on, segments not remapped: mirrored
    assert bus.image() == image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def test_the_virtual_oled_keeps_each_new_picture_for_a_gif(tmp_path):
    bus = VirtualOled()
    device = SSD1306(i2c(bus=bus))
    shots = [render(v, page) for v, page in screens().values()]
    for image in [*shots, shots[-1]]:  # the last twice: no new picture
        device.display(image)
    pictures = [picture for _, picture in bus.pictures]
    assert pictures[-len(shots) :] == shots
    bus.save_gif(tmp_path / "oled.gif")
    gif = Image.open(tmp_path / "oled.gif")
    assert gif.n_frames == len(pictures) and gif.size == (WIDTH * 2, HEIGHT * 2)
    gif.seek(gif.n_frames - 1)
    expected = shots[-1].resize(gif.size, Image.Resampling.NEAREST)
    assert ImageChops.difference(gif.convert("1"), expected).getbbox() is None


def test_the_virtual_oled_answers_only_at_its_address():
    bus = VirtualOled(address=0x3D)
    with pytest.raises(luma.core.error.DeviceNotFoundError):
        ssd1306(i2c(bus=bus, address=0x3C))
    assert bus.bytes_sent == 0


def test_sh1106_columns_start_two_in():
    bus = VirtualOled("sh1106")
    device = SH1106(i2c(bus=bus))
    image = Image.new("1", (WIDTH, HEIGHT))
    image.putpixel((0, 0), 255)
    device.display(image)
    assert bus.ram[2] == 0x01 and bus.ram[0] == 0 and bus.ram[1] == 0
    assert bus.image() == image


def config(driver: str = "ssd1306", rotate: int = 0) -> DisplayConfig:
    return DisplayConfig(driver=driver, i2c_port=1, i2c_address=0x3C, rotate=rotate)


@pytest.fixture
def closing():
    displays = []
    yield displays.append
    for d in displays:
        d.close()


def shows(bus: VirtualOled, table: Table, page: int = 0) -> bool:
    return ImageChops.difference(bus.image(), render(view(table), page)).getbbox() is None


def settle(oled: TableDisplay, timeout: float = 5.0) -> None:
    """From outside a loop, what the daemon awaits: the latest view on the glass, or a failure."""
    asyncio.run(oled.settled(timeout))


def returns(call, within: float = 30.0) -> None:
    """Runs ``call`` on a thread of its own and fails if it has not returned ``within``
    seconds: a hang detector, no figure. How long the loop spends in the watcher (median,
    p99) is ``make bench``'s (tests/benchmarks/bench_display.py)."""
    done = threading.Event()
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            raised.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="returns", daemon=True).start()
    assert done.wait(within), f"{call.__name__} did not return: it waits on the display"
    if raised:
        raise raised[0]


def recovers(oled: TableDisplay, timeout: float = 10.0) -> bool:
    """Waits until a failing display has drawn again; False if ``timeout`` came first."""
    with oled._changed:  # the worker notifies it as it draws
        return oled._changed.wait_for(lambda: not oled.failing, timeout)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_the_watcher_puts_the_table_on_the_glass(driver, closing):
    bus = VirtualOled(driver)
    oled = TableDisplay(config(driver), bus=bus)
    closing(oled)
    game = first_turn()
    oled.show(game.table, None)
    settle(oled)
    assert shows(bus, game.table)
    frames, sent = oled.frames, bus.bytes_sent
    game.bet("Ann", "Q", 2)  # nothing visible: nothing drawn, nothing sent
    oled.show(game.table, None)
    settle(oled)
    assert oled.frames == frames and bus.bytes_sent == sent
    game.apply(LOCK).deal()
    oled.show(game.table, None)
    settle(oled)
    assert shows(bus, game.table)
    assert bus.bytes_sent - sent < 0.6 * 1024  # the cards, the header, the settlements gone


def test_rotated_half_a_turn(closing):
    bus = VirtualOled()
    oled = TableDisplay(config(rotate=2), bus=bus)
    closing(oled)
    game = first_turn()
    oled.show(game.table, None)
    settle(oled)
    assert bus.image() == render(view(game.table)).rotate(180)


def test_none_draws_nothing_and_dummy_keeps_the_picture(closing):
    nothing = TableDisplay(config("none"))
    closing(nothing)
    nothing.show(first_turn().table, None)
    settle(nothing)
    assert nothing.device is None
    dummy = TableDisplay(config("dummy"))
    closing(dummy)
    table = first_turn().table
    dummy.show(table, None)
    settle(dummy)
    assert ImageChops.difference(dummy.device.image, render(view(table))).getbbox() is None


def test_close_switches_the_display_off_and_stops_the_worker():
    bus = VirtualOled()
    oled = TableDisplay(config(), bus=bus)
    oled.show(first_turn().table, None)
    settle(oled)
    assert bus.on
    oled.close()
    assert not bus.on and not any(bus.ram)
    assert not any(t.name == "oled" and t.is_alive() for t in threading.enumerate())


class GatedBus(VirtualOled):
    """A bus whose writes wait at a gate: the worker is stuck on I²C until it opens (for
    longer than :func:`returns` gives a call, so a watcher that waited on it cannot pass)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def write_i2c_block_data(self, address, register, data):
        self.waiting.set()
        assert self.gate.wait(120)
        super().write_i2c_block_data(address, register, data)


def test_the_loop_never_waits_and_stale_views_are_dropped(closing):
    bus = GatedBus()
    oled = TableDisplay(config(), bus=bus)
    closing(oled)
    game = first_turn()
    oled.show(game.table, None)
    assert bus.waiting.wait(30)  # the worker is on the bus, and stays there

    def six_cards() -> None:  # six more cards while the first picture is still going out
        for _ in range(6):
            game.deal()
            oled.show(game.table, None)

    returns(six_cards)  # with the gate still shut
    assert oled.frames == 0
    bus.gate.set()
    settle(oled)
    assert oled.frames == 2  # the first and the latest; the five between were never drawn
    assert shows(bus, game.table)


class FailingBus(VirtualOled):
    """Nobody answers (or the bus errors) until ``plugged``; counts the tries."""

    def __init__(self, *args, error=errno.EREMOTEIO, **kwargs):
        super().__init__(*args, **kwargs)
        self.plugged = False
        self.error = error
        self.tries = 0
        self.tried = threading.Condition()

    def write_i2c_block_data(self, address, register, data):
        if not self.plugged:
            with self.tried:
                self.tries += 1
                self.tried.notify_all()
            raise OSError(self.error, os.strerror(self.error))
        super().write_i2c_block_data(address, register, data)

    def wait_tries(self, count: int) -> bool:
        with self.tried:
            return self.tried.wait_for(lambda: self.tries >= count, 10)


@pytest.mark.parametrize("error", [errno.EREMOTEIO, errno.ETIMEDOUT])
def test_a_failing_display_is_logged_once_and_tried_again(error, caplog, closing):
    bus = FailingBus(error=error)
    oled = TableDisplay(config(), bus=bus, retry=0.01)
    closing(oled)
    device = oled.device
    game = first_turn()

    def three_cards() -> None:
        for _ in range(3):
            oled.show(game.deal().table, None)

    with caplog.at_level(logging.INFO, logger="faro_pi.devices.oled.display"):
        returns(three_cards)
        assert bus.wait_tries(4)
        assert oled.failing and oled.frames == 0
        bus.plugged = True
        assert recovers(oled)
    assert shows(bus, game.table)
    assert oled.device is device  # built once, however many tries
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "0x3C" in warnings[0].getMessage()
    assert any("is back" in r.getMessage() for r in caplog.records)
    assert not oled.failing


def test_a_display_that_comes_back_gets_its_start_up_and_a_whole_frame(closing):
    bus = FailingBus()
    bus.plugged = True
    oled = TableDisplay(config(), bus=bus, retry=0.01)
    closing(oled)
    game = first_turn()
    oled.show(game.table, None)
    settle(oled)
    bus.plugged = False  # the cable is pulled; the panel loses power and its memory
    game.apply(LOCK).deal()
    oled.show(game.table, None)
    assert bus.wait_tries(2)
    bus.ram[:] = bytes(len(bus.ram))
    bus.on = False
    bus.plugged = True
    assert recovers(oled)
    assert bus.on and shows(bus, game.table)


def test_backoff_doubles_and_stops_at_the_most():
    bus = FailingBus()
    oled = TableDisplay(config(), bus=bus, retry=0.01, retry_max=0.08)
    try:
        oled.show(first_turn().table, None)
        assert bus.wait_tries(6)
        assert oled._delay == 0.08
    finally:
        oled.close()


async def test_pages_turn_to_the_balances_and_back():
    bus = VirtualOled()
    oled = TableDisplay(config(), bus=bus, pages=(0.05, 0.05))
    try:
        game = first_turn()
        v = view(game.table)
        assert v.pages == 3
        oled.show(game.table, None)
        for page in (1, 2, 0, 1):
            await until(bus, lambda page=page: shows(bus, game.table, page))
        game.apply(LOCK)  # a change brings the main page back at once
        oled.show(game.table, None)
        await until(bus, lambda: shows(bus, game.table, 0))
    finally:
        oled.close()


async def test_settled_waits_on_the_loop_for_the_glass_or_a_failure():
    bus = GatedBus()
    oled = TableDisplay(config(), bus=bus, retry=10)
    assert isinstance(oled, Output)
    try:
        game = first_turn()
        oled.show(game.table, None)
        waiting = asyncio.create_task(oled.settled())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the loop runs on while the bus is held
        bus.gate.set()
        await asyncio.wait_for(waiting, 5)
        assert shows(bus, game.table)
        bus.plugged = False
        oled.show(game.deal().table, None)
        await asyncio.wait_for(oled.settled(), 5)  # a failing display settles at once
        assert oled.failing
    finally:
        oled.close()


def test_a_new_pack_screen_after_the_shuffle():
    game = last_three().deal(3).apply(SHUFFLE)
    v = view(game.table)
    assert (v.screen, v.pack, v.banker) == ("shuffle", 2, "Ann")
    assert v.pages == 1 + v.balance_pages


PAIRING_LINK = "HTTP://192.168.1.23:8077/P/7Q2KX9M4WZ3B"
"""A pairing link as the console makes it (an address of the table's network)."""


def test_the_pairing_screen_is_its_golden_and_its_whole_link_reads_back_at_128x64():
    image = pairing.render(pairing.PairingView(PAIRING_LINK))
    path = GOLDEN / "pairing.png"
    if os.environ.get("FARO_GOLDEN") == "update":
        image.save(path)
        big = image.resize((WIDTH * 4, HEIGHT * 4), Image.Resampling.NEAREST)
        big.save(GOLDEN / "readme" / path.name)
    assert ImageChops.difference(Image.open(path).convert("1"), image).getbbox() is None
    longest = "HTTP://255.255.255.255:65535/P/ZZZZZZZZZZZZ"
    for link in (PAIRING_LINK, longest, "HTTP://[FE80::1234:5678:9ABC:DEF0]:8077/P/ZZZZZZZZZZZZ"):
        picture = pairing.render(pairing.PairingView(link))
        assert picture.size == (WIDTH, HEIGHT)
        [found] = zxingcpp.read_barcodes(picture.convert("L"))  # the OLED's pixels, unscaled
        assert found.format == zxingcpp.BarcodeFormat.QRCode
        assert found.text == link


def test_the_pairing_code_shows_over_the_table_until_it_is_used_or_out_of_time(closing):
    bus = VirtualOled()

    async def scenario():
        oled = TableDisplay(config(), bus=bus)
        closing(oled)
        game = first_turn()
        oled.show(game.table, None)
        await oled.settled()
        oled.pair(PAIRING_LINK, 60)
        await oled.settled()
        [found] = zxingcpp.read_barcodes(bus.image().convert("L"))
        assert found.text == PAIRING_LINK
        table = game.deal(2).table
        oled.show(table, None)  # the table moves on beneath it
        await oled.settled()
        assert zxingcpp.read_barcodes(bus.image().convert("L"))[0].text == PAIRING_LINK
        oled.unpair()  # used
        await oled.settled()
        assert shows(bus, table)
        oled.pair(PAIRING_LINK, 0.05)
        await oled.settled()
        assert not shows(bus, table)
        await asyncio.sleep(0.1)  # nothing to await but its time running out
        await oled.settled()
        assert shows(bus, table)

    asyncio.run(scenario())
