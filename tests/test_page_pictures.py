"""The camera's stills on a phone (390×844): ``faro-pi sim --camera`` deals a few cards of a
design the model never saw through the virtual camera, then a card goes past unread; the
lookout settles the no-read with one tap on its likeliest card, and taps a card of the
history to see the camera's still of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from playwright.async_api import async_playwright, expect

from faro_pi.pictures import Folder
from tests import decks
from tests.ports import free_port
from tests.test_page import ARGS, GOLDEN, PHONE, TIMEOUT, chromium

SCENARIO = [
    {"type": "session", "seats": ["Ann", "Bob"], "banker": "Bob"},
    {"type": "card", "card": "9S"},
    {"type": "card", "card": "QH"},
    {"type": "card", "card": "4D"},
    {"type": "noread", "card": "KC"},
]


@contextlib.contextmanager
def sim_served(tmp_path: Path, steps: list[dict]):
    """``faro-pi sim --camera`` (the held-out design bellot) playing ``steps`` with its page
    served: the page's link and the out folder; stopped with SIGTERM after, and exits 0."""
    scenario = tmp_path / "scenario.jsonl"
    scenario.write_text("".join(json.dumps(step) + "\n" for step in steps))
    port, out = free_port(), tmp_path / "out"
    command = [
        "sim", "--camera", str(decks.folder("bellot")), "--scenario", str(scenario),
        "--console", "--port", str(port), "--speed", "0", "--out", str(out),
    ]  # fmt: skip
    sim = subprocess.Popen(
        [sys.executable, "-m", "faro_pi.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        link = sim.stdout.readline()
        assert link.startswith("the lookout's page: "), link
        yield link.split(": ", 1)[1].strip(), out
        sim.send_signal(signal.SIGTERM)
        _, errors = sim.communicate(timeout=30)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.communicate()
    assert sim.returncode == 0, errors


def test_a_no_read_is_settled_with_one_tap_and_a_cards_still_shows_from_the_history(tmp_path):
    executable = chromium()
    with sim_served(tmp_path, SCENARIO) as (link, out):
        asyncio.run(on_the_phone(executable, link))
    rows = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    (noread,) = [row for row in rows if row["type"] == "alarm"]
    entered = rows[-2]  # the card, and the no-read it cleared
    assert entered == {"type": "card", "card": "KC", "picture": noread["picture"], "source": "hand"}
    assert rows[-1] == {"type": "clear", "kind": "noread"}


@contextlib.asynccontextmanager
async def phone(executable: str):
    """A page in Chromium at a phone's size, touch on; no script error on it by the end."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=ARGS)
        try:
            context = await browser.new_context(viewport=PHONE, has_touch=True)
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page
            assert errors == []
        finally:
            await browser.close()


async def on_the_phone(executable: str, link: str) -> None:
    async with phone(executable) as page:
        await page.goto(link)  # the pairing link: a session cookie, no token kept

        # The no-read: its still, and its likeliest cards as buttons.
        settle = page.locator("#alarm-settle .noread")
        await expect(settle).to_be_visible(timeout=30_000)
        still = settle.locator("img.noread-still")
        await expect(still).to_have_js_property("complete", True)
        assert await still.evaluate("img => img.naturalWidth") > 0
        if os.environ.get("FARO_GOLDEN") == "update":  # for the README
            await page.screenshot(path=GOLDEN / "noread.png")
        likely = settle.locator("button.likely-card")
        assert 1 <= await likely.count() <= 3
        king = settle.locator('button.likely-card[data-card="KC"]')
        await expect(king).to_be_enabled()
        box = await king.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44  # a thumb's target
        await king.tap()
        await expect(page.locator("#alarms")).to_be_hidden(timeout=TIMEOUT)
        await expect(page.locator('.pile[data-pile="losers"]')).to_contain_text("king of clubs")

        # The history: the pair's cards carry their stills; a tap shows one.
        loser = page.locator('#settlements button.pictured[data-card="QH"]')
        await expect(loser).to_be_visible(timeout=TIMEOUT)
        await loser.tap()
        shown = page.locator("#picture-dialog img.still")
        await expect(page.locator("#picture-dialog")).to_be_visible()
        await expect(page.locator("#picture-title")).to_contain_text("queen of hearts")
        await page.wait_for_function(
            "() => document.querySelector('#picture-image').naturalWidth > 0",
            timeout=TIMEOUT,
        )
        width = await shown.evaluate("img => img.getBoundingClientRect().right")
        assert width <= PHONE["width"]
        await page.locator("#picture-dialog button[value=close]").tap()
        soda = page.locator('.pile[data-pile="soda"] button.pictured[data-card="9S"]')
        await expect(soda).to_be_visible()

        # The camera's view, to aim it: the simulator's box, with the light's verdict.
        await page.locator("#camera-view").tap()
        await expect(page.locator("#camera-image")).to_be_visible(timeout=TIMEOUT)
        await page.wait_for_function(
            "() => document.querySelector('#camera-image').naturalWidth > 0",
            timeout=TIMEOUT,
        )
        await expect(page.locator("#camera-light")).to_contain_text("Light: ")
        if os.environ.get("FARO_GOLDEN") == "update":
            await page.screenshot(path=GOLDEN / "camera-view.png")


def test_a_new_deck_is_taught_from_the_camera_dialog_on_a_phone(tmp_path):
    """The lookout names a deck in the camera's dialog and taps Teach: the ask reaches the
    pictures' folder, and each word the camera reader writes back shows on the phone, card by
    card, then the cards it could not take and where the deck went. The simulator deals the
    deck to the camera reader's lesson (cancelled here: teaching itself is
    ``tests/test_camera_lesson.py``'s); the words of a refusal and of a deck taught are
    then written as the camera would."""
    executable = chromium()
    with sim_served(tmp_path, SCENARIO[:1]) as (link, out):
        asyncio.run(teaching(executable, link, Folder(out / "pictures")))


async def teaching(executable: str, link: str, folder: Folder) -> None:
    async with phone(executable) as page:
        await page.goto(link)
        await page.locator("#camera-view").tap()
        await expect(page.locator("#camera-dialog")).to_be_visible()
        await page.locator("#teach-name").fill("red-bicycle")
        start = page.locator("#teach-start")
        box = await start.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44 and box["x"] + box["width"] <= 390
        await start.tap()
        said = page.locator("#teach-said")
        # The simulator's dealer deals the deck through the virtual box, in its order,
        # and the camera reader's lesson says each card as it takes it.
        await expect(said).to_contain_text(" of 52: ", timeout=TIMEOUT)
        await expect(said).to_contain_text("taken; next", timeout=TIMEOUT)
        await expect(page.locator("#teach-cancel")).to_be_visible()
        await page.locator("#teach-cancel").tap()
        await expect(said).to_contain_text("cancelled", timeout=TIMEOUT)
        assert not (folder.path.parent / "decks" / "in-use").exists()

        # What the camera says, as it may say it, shows so: a refusal, then the result.
        words = "12 of 52: QS taken; next KS"
        refused = {"7D": "7D: no card found in the still: the box's view, well lit"}
        progress = {"state": "dealing", "deck": "red-bicycle", "refused": refused}
        folder.put_teaching({**progress, "said": words})
        await expect(said).to_have_text(words, timeout=TIMEOUT)
        await expect(page.locator("#teach-refused li")).to_have_text(
            [f"7D not taught: {refused['7D']}"]
        )
        where = "taught 51 of 52 cards into /var/lib/faro-pi/decks/red-bicycle"
        folder.put_teaching({**progress, "state": "taught", "said": where})
        await expect(said).to_have_text(f"Taught: {where}", timeout=TIMEOUT)
        await expect(page.locator("#teach-cancel")).to_be_hidden()
        await expect(start).to_be_enabled()
