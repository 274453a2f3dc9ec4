"""The camera's stills on a phone (390×844): ``faro-pi sim --camera`` deals a few cards of a
design the model never saw through the virtual camera, then a card goes past unread; the
lookout settles the no-read with one tap on its likeliest card, and taps a card of the
history to see the camera's still of it.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys

from playwright.async_api import async_playwright, expect

from tests import decks
from tests.ports import free_port
from tests.test_page import ARGS, PHONE, TIMEOUT, chromium

SCENARIO = [
    {"type": "session", "seats": ["Ann", "Bob"], "banker": "Bob"},
    {"type": "card", "card": "9S"},
    {"type": "card", "card": "QH"},
    {"type": "card", "card": "4D"},
    {"type": "noread", "card": "KC"},
]


def test_a_no_read_is_settled_with_one_tap_and_a_cards_still_shows_from_the_history(tmp_path):
    executable = chromium()
    scenario = tmp_path / "scenario.jsonl"
    scenario.write_text("".join(json.dumps(step) + "\n" for step in SCENARIO))
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
        asyncio.run(on_the_phone(executable, link.split(": ", 1)[1].strip()))
        sim.send_signal(signal.SIGTERM)
        _, errors = sim.communicate(timeout=30)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.communicate()
    assert sim.returncode == 0, errors
    rows = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    (noread,) = [row for row in rows if row["type"] == "alarm"]
    entered = rows[-2]  # the card, and the no-read it cleared
    assert entered == {"type": "card", "card": "KC", "picture": noread["picture"], "source": "hand"}
    assert rows[-1] == {"type": "clear", "kind": "noread"}


async def on_the_phone(executable: str, link: str) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=ARGS)
        try:
            context = await browser.new_context(viewport=PHONE, has_touch=True)
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(link)  # the pairing link: a session cookie, no token kept

            # The no-read: its still, and its likeliest cards as buttons.
            settle = page.locator("#alarm-settle .noread")
            await expect(settle).to_be_visible(timeout=30_000)
            still = settle.locator("img.noread-still")
            await expect(still).to_have_js_property("complete", True)
            assert await still.evaluate("img => img.naturalWidth") > 0
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
            assert errors == []
        finally:
            await browser.close()
