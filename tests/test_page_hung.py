"""The lookout's page against a hung table: ``faro-pi run`` in its own process, stopped.

SIGSTOP is a Pi that hangs: its connections stay open and nothing comes on
them, neither a state nor an answer, nor a refusal. The page must say so
within a few beats of the stream, and a tap made meanwhile must show as
waiting, keep any other tap from being sent, and be entered once when the
table wakes (SIGCONT).

The page's clock is Playwright's: once the table is stopped it stands still
and is moved on by hand, so the test waits for no beat and no timer of the
page's in real time, and every step is awaited on what the page shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path

import httpx
from playwright.async_api import async_playwright, expect

from faro_pi.virtual.reader import VirtualReader
from tests.conftest import NotifySocket
from tests.test_console import console_config
from tests.test_daemon_process import environ
from tests.test_page import ARGS, PHONE, SEATS, TIMEOUT, TOKEN, Table, chromium, run

PENDING_AFTER = 2_000
"""``page/pending.js``: ms before an unanswered entry shows as pending."""
MISSED_BEATS = 3 * 2_000
"""``page/store.js``: three beats of the stream, each 2 s (``console/stream.py``), in ms."""


@contextlib.asynccontextmanager
async def hung_table(folder: Path):
    """``faro-pi run`` with its console and a virtual reader; yields the process and the
    console's address, and wakes the process (SIGCONT) before it ends it."""
    port = console_config(folder, token=TOKEN)
    reader = VirtualReader(folder / "reader", retry=0.05)
    reader.plug()
    notify = NotifySocket(folder)
    log = (folder / "daemon.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "faro_pi.cli", "run", "--config", str(folder / "config.toml"),
        env=environ(notify, PYTHONPATH=str(Path(__file__).parents[1])),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=log,
    )  # fmt: skip
    try:
        await notify.awaited("READY=1", timeout=30)
        yield process, f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGCONT)
            process.terminate()
        await process.wait()
        log.close()
        notify.close()
        reader.close()


def test_a_hung_table_goes_offline_and_a_tap_made_meanwhile_is_pending_then_entered_once(
    tmp_path,
):
    async def scenario():
        async with (
            hung_table(tmp_path) as (daemon, base),
            httpx.AsyncClient(base_url=base, timeout=30) as http,
            async_playwright() as playwright,
        ):
            auth = {"Authorization": f"Bearer {TOKEN}"}
            session = {"type": "session", "seats": SEATS, "banker": "Cy"}
            assert (await http.post("/api/events", json=session, headers=auth)).status_code == 200
            browser = await playwright.chromium.launch(executable_path=chromium(), args=ARGS)
            context = await browser.new_context(viewport=PHONE, has_touch=True)
            await context.add_init_script(f"localStorage.setItem('faro-pi.token', {TOKEN!r})")
            page = await context.new_page()
            await page.clock.install()  # flowing as the real one, until the table hangs
            await page.goto(base + "/")
            table = Table(None, None, page, base)
            link = page.locator("#link")
            await expect(link).to_have_attribute("data-link", "live", timeout=TIMEOUT)
            await table.pick("Bob", 2)
            posts = []
            page.on("request", lambda r: r.method == "POST" and posts.append(r))

            daemon.send_signal(signal.SIGSTOP)
            await page.clock.pause_at(time.time() + 0.1)  # in seconds
            await table.spot("J").locator(".card").tap()
            pending = page.locator("#pending")
            await expect(page.locator("body")).to_have_attribute("data-pending", "sending")
            await page.clock.run_for(PENDING_AFTER)
            await expect(pending).to_be_visible()
            await expect(pending).to_contain_text("Bob 2 on J")
            await expect(link).to_have_attribute("data-link", "live")  # not a beat missed yet

            # Nothing came back, so the lookout taps again: refused, not sent.
            await table.spot("J").locator(".card").tap()
            await expect(page.locator("#toast")).to_contain_text("waiting for the table")
            assert len(posts) == 1
            assert len(posts[0].headers["idempotency-key"]) == 32

            await page.clock.run_for(MISSED_BEATS)
            await expect(link).to_have_attribute("data-link", "lost")
            await expect(page.locator("#entries")).to_have_text("Offline")
            assert await page.locator("#lock").is_disabled()
            await expect(pending).to_be_visible()  # still waiting, over the offline notice

            daemon.send_signal(signal.SIGCONT)
            await expect(link).to_have_attribute("data-link", "live", timeout=TIMEOUT)
            await expect(pending).to_be_hidden(timeout=TIMEOUT)
            await expect(table.chips("J", "Bob")).to_have_count(1)
            await expect(table.chips("J", "Bob")).to_have_attribute("data-weight", "2")
            await page.clock.resume()
            state = (await http.get("/api/state")).json()
            assert state["predictions"] == [
                {"player": "Bob", "rank": "J", "weight": 2, "copper": False}
            ]
            assert state["version"] == 2  # the seats, then the one bet
            assert len(posts) == 1
            await browser.close()

    run(scenario)
