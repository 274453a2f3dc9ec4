"""The lookout's night on a phone (390×844): what the thumb and the eye meet at the felt.

The same daemon and Chromium as ``tests/test_page.py`` (its ``table_with_page``), at a
phone's size: copper for one bet, the felt standing still through a night, targets a thumb
can hit, text to read in dim light, the controls within reach, and a page that says so
when the table is gone.
"""

from __future__ import annotations

from playwright.async_api import expect

from tests.test_console import console_of, pack_ending_with
from tests.test_page import SEATS, TOKEN, run, still_time, table_with_page

SESSION = {"type": "session", "seats": SEATS, "banker": "Cy"}


def test_copper_plays_one_bet_and_goes_off_even_across_a_new_pack(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            copper = page.locator("#copper")
            table.enter(SESSION)
            await table.pick("Ann", 4)
            await page.tap("#copper")
            await expect(copper).to_have_attribute("aria-pressed", "true")
            await table.spot("9").locator(".card").tap()
            await expect(table.chips("9", "Ann", copper=True)).to_have_count(1)
            await expect(copper).to_have_attribute("aria-pressed", "false")
            await table.spot("5").locator(".card").tap()
            await expect(table.chips("5", "Ann", copper=False)).to_have_count(1)
            assert [(p.rank, p.copper) for p in table.daemon.table.predictions] == [
                (5, False),
                (9, True),
            ]

            # Not kept across a reload: a phone picked up again bets to win.
            await page.tap("#copper")
            await page.reload()
            await table.shown()
            await expect(copper).to_have_attribute("aria-pressed", "false")

            # Nor into a new pack.
            await page.tap("#copper")
            table.deal(*pack_ending_with())
            await table.shown()
            await expect(copper).to_have_attribute("aria-pressed", "true")
            table.enter({"type": "shuffle"})
            await table.shown()
            await expect(page.locator("#status")).to_contain_text("Pack 2")
            await expect(copper).to_have_attribute("aria-pressed", "false")
            await table.pick("Bob")  # Ann banks this pack: the bank rotates
            await table.spot("K").locator(".card").tap()
            await expect(table.chips("K", "Bob", copper=False)).to_have_count(1)

    run(scenario)


def test_the_page_says_offline_at_once_greys_the_felt_and_posts_nothing(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(SESSION)
            await table.shown()
            entries = page.locator("#entries")
            await expect(entries).to_have_text("Entries open")
            await expect(page.locator("#offline")).to_be_hidden()
            posted: list[str] = []
            page.on("request", lambda r: r.method == "POST" and posted.append(r.url))

            await console_of(table.daemon).close()  # as a daemon gone: its streams end
            await expect(entries).to_have_text("Offline", timeout=2_000)
            await expect(page.locator("#link")).to_have_attribute("data-link", "lost")
            await expect(page.locator("#offline")).to_be_visible()
            await expect(page.locator("#offline")).to_contain_text("Taps are refused")
            felt = await page.locator("#layout").evaluate("e => getComputedStyle(e).filter")
            assert "grayscale(1)" in felt
            assert await page.locator("#lock").is_disabled()

            # A tap on the felt meets the notice; one that gets through posts nothing.
            await table.spot("9").locator(".card").tap(force=True)
            await table.spot("9").locator(".card").dispatch_event("click")
            await expect(page.locator("#toast")).to_contain_text("Offline")
            assert posted == []
            assert table.daemon.table.predictions == []

    run(scenario)


def test_a_browser_with_the_session_cookie_makes_changes_without_a_token(tmp_path):
    """The console's pairing link leaves a session cookie, not a token, in the browser."""

    async def scenario():
        async with table_with_page(tmp_path, token=None) as table:
            page = table.page
            context = page.context
            # Stands for the console's cookie check: a request with the cookie is authorised.
            seen: list[dict] = []

            async def with_cookie(route):
                headers = route.request.headers
                seen.append(headers)
                if "faro-pi-session=paired" in headers.get("cookie", ""):
                    headers = {**headers, "authorization": f"Bearer {TOKEN}"}
                await route.continue_(headers=headers)

            await page.route("**/api/events", with_cookie)
            await expect(page.locator("#token-form")).to_be_visible()  # no token, no cookie
            await context.add_cookies(
                [{"name": "faro-pi-session", "value": "paired", "url": table.base}]
            )
            await page.reload()
            await table.shown()
            assert await page.evaluate("localStorage.getItem('faro-pi.token')") is None
            await expect(page.locator("#token-form")).to_be_hidden()
            table.enter(SESSION)
            await table.pick("Ann", 4)
            await table.spot("9").locator(".card").tap()
            await expect(table.chips("9", "Ann")).to_have_count(1)
            assert all("authorization" not in h for h in seen if "cookie" in h)

            # The cookie gone (expired, or the console restarted): a tap asks for the token.
            await context.clear_cookies()
            await table.spot("5").locator(".card").tap()
            await expect(page.locator("#token-form")).to_be_visible()
            await expect(page.locator("#token-error")).to_contain_text("Enter the console's token")
            assert [p.rank for p in table.daemon.table.predictions] == [9]

    run(scenario)


def test_a_weight_typed_in_the_turn_said_once_and_the_undo_ends_at_the_hock(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(SESSION)
            await table.pick("Ann")
            # Any weight, typed: 8 and 500 are one entry each, not several checks.
            typed = page.locator("#weight-typed")
            for weight, rank in ((8, "9"), (500, "5")):
                await typed.fill(str(weight))
                await expect(typed).to_have_attribute("data-picked", "true")
                await table.spot(rank).locator(".card").tap()
                await expect(table.chips(rank, "Ann")).to_have_attribute("data-weight", str(weight))
            await table.pick(weight=4)
            await expect(typed).to_have_value("")
            await expect(typed).to_have_attribute("data-picked", "false")
            assert [(p.rank, p.weight) for p in table.daemon.table.predictions] == [
                (5, 500),
                (9, 8),
            ]

            # The header and the felt name the same turn: the pair under way, then settled.
            status, now = page.locator("#status"), page.locator("#pair-now")
            table.deal("2H")
            await table.shown()
            await expect(status).to_have_text("Pack 1 · 51 in the shoe")
            table.deal("4D")
            await table.shown()
            await expect(now).to_contain_text("Turn 1")
            await expect(status).to_have_text("Pack 1 · turn 1 · 50 in the shoe")
            table.deal("KC")  # nothing on the 4 or the K
            await table.shown()
            await expect(now).to_contain_text("Turn 1")
            await expect(status).to_contain_text("turn 1 ·")
            # No line of the paid box begins with a stray colon.
            lines = await page.locator("#paid").inner_text()
            assert "No bet on these ranks." in lines
            assert not any(line.strip().startswith(":") for line in lines.splitlines()), lines

            # An entry's undo is offered for five seconds, but not past the hock (the clock
            # stands still: the hock ends it, not the five seconds). The last offer's own
            # timer runs on the real clock: it is over first.
            offer = page.locator("#undo-offer")
            await expect(offer).to_be_hidden(timeout=6_000)
            async with still_time(page):
                await table.spot("Q").locator(".card").tap()
                await expect(offer).to_be_visible()
                table.deal(*[c for c in pack_ending_with() if c not in ("2H", "4D", "KC")])
                await table.shown()
                await expect(page.locator("#pair-now")).to_contain_text("complete")
                await expect(offer).to_be_hidden()

    run(scenario)
