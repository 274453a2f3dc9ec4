"""The lookout's night on a phone (390×844): what the thumb and the eye meet at the felt.

The same daemon and Chromium as ``tests/test_page.py`` (its ``table_with_page``), at a
phone's size: copper for one bet, the felt standing still through a night, targets a thumb
can hit, text to read in dim light, the controls within reach, a page that says so
when the table is gone, and phones logged out from the page.
"""

from __future__ import annotations

import io

import httpx
import zxingcpp
from PIL import Image
from playwright.async_api import expect

from faro_pi.console import login
from tests.test_console import IPHONE, console_of, jar, pack_ending_with
from tests.test_page import PHONE, SEATS, TOKEN, run, still_time, table_with_page

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


def test_an_answer_lost_on_the_way_is_sent_again_when_asked_under_its_key_and_entered_once(
    tmp_path,
):
    """The table takes the bet, and its answer never reaches the phone: the page cannot know
    it was entered, says so, and sends nothing until the lookout asks; sent again, the same
    key brings the table's first answer, not a second bet."""

    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(SESSION)
            await table.shown()
            await table.pick("Bob", 2)
            keys: list[str] = []

            async def answer_lost_once(route):
                if route.request.method != "POST":
                    return await route.continue_()
                keys.append(route.request.headers["idempotency-key"])
                if len(keys) > 1:
                    return await route.continue_()
                await route.fetch()  # the table has it and answers...
                await route.abort("connectionreset")  # ...and the answer is lost

            await page.route("**/api/events", answer_lost_once)
            await table.spot("J").locator(".card").tap()
            pending = page.locator("#pending")
            await expect(pending).to_contain_text("No answer from the table to Bob 2 on J")
            await expect(table.chips("J", "Bob")).to_have_count(1)  # the stream shows it

            await table.spot("9").locator(".card").tap()  # anything else waits
            await expect(page.locator("#toast")).to_contain_text("waiting for the table")
            assert len(keys) == 1

            await page.tap("#pending-again")
            await expect(pending).to_be_hidden()
            await expect(page.locator("#undo-text")).to_have_text("Bob 2 on J")
            assert len(keys) == 2 and keys[0] == keys[1]
            assert [(p.player, p.rank) for p in table.daemon.table.predictions] == [("Bob", 11)]
            await expect(table.chips("J", "Bob")).to_have_attribute("data-weight", "2")

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


SMALL_TARGETS = """() => [...document.querySelectorAll('button, input, select, a[href]')]
    .filter(e => e.getClientRects().length && !e.closest('dialog')
                 && getComputedStyle(e).pointerEvents !== 'none'
                 && getComputedStyle(e).visibility !== 'hidden')
    .map(e => [e.id || e.dataset.rank || e.dataset.place || e.textContent.trim(),
               e.getBoundingClientRect()])
    .filter(([, r]) => r.width < 40 || r.height < 40)
    .map(([name, r]) => `${name} ${r.width.toFixed(1)}x${r.height.toFixed(1)}`)"""
"""Every element a tap can hit that is under 40×40 CSS px (the tap targets' floor)."""

MISSES = """() => [...document.querySelectorAll('#layout .card')].flatMap(card => {
    const r = card.getBoundingClientRect();
    const missed = [];
    for (let i = 0; i <= 8; i++) for (let j = 0; j <= 8; j++) {
        const x = r.left + r.width * (0.05 + 0.9 * i / 8);
        const y = r.top + r.height * (0.05 + 0.9 * j / 8);
        const hit = document.elementFromPoint(x, y);
        if (!hit || hit.closest('.card') !== card) missed.push(`${card.dataset.rank} at ${i},${j}`);
    }
    return missed;
})"""
"""The points of each card's middle 90 % where a tap would meet anything but that card."""


def test_every_target_takes_a_thumb_and_a_card_is_a_card_to_its_edges(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(
                {**SESSION, "profile": "house"},
                {
                    "type": "bet",
                    "player": "Bob",
                    "ranks": ["9", "10"],
                    "weight": 5,
                    "copper": False,
                },
                {
                    "type": "bet",
                    "player": "Ann",
                    "ranks": ["4", "5", "10", "9"],
                    "weight": 3,
                    "copper": True,
                },
                {"type": "bet", "player": "Ann", "rank": "4", "weight": 2, "copper": False},
                {"type": "bet", "player": "Bob", "high_card": True, "weight": 1, "copper": False},
            )
            await expect(page.locator("#layout .between")).to_have_count(2)
            await expect(page.locator("#combine")).to_be_visible()
            assert await page.evaluate(SMALL_TARGETS) == []
            assert await page.evaluate(MISSES) == []

            # A tap near any edge of the 4 (inside its middle 90 %) bets on the 4 alone.
            box = await table.spot("4").locator(".card").bounding_box()
            for weight, (fx, fy) in zip(
                (1, 3, 5, 7), ((0.05, 0.05), (0.95, 0.05), (0.05, 0.95), (0.95, 0.95)), strict=True
            ):
                await table.pick("Bob")
                await page.locator("#weight-typed").fill(str(weight))
                await page.touchscreen.tap(
                    box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
                )
                await expect(table.chips("4", "Bob")).to_have_attribute(
                    "data-weight", str(sum(range(1, weight + 1, 2)))
                )
            bets = [(p.player, p.rank, p.ranks) for p in table.daemon.table.predictions]
            assert bets.count(("Bob", 4, None)) == 4
            assert [b for b in bets if b[1] is None and b[2] is not None] == [
                ("Ann", None, (4, 5, 10, 9)),
                ("Bob", None, (9, 10)),
            ]

            # The pips stay in sight: no check covers them.
            covered = await page.evaluate(
                """() => [...document.querySelectorAll('#layout .pips')].filter(p => {
                    const r = p.getBoundingClientRect();
                    const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
                    const hit = document.elementFromPoint(x, y);
                    return !hit || !hit.closest('.card') || hit.closest('.chip');
                }).map(p => p.closest('.card').dataset.rank)"""
            )
            assert covered == []

            # Combine on: the first card, its lit neighbours, and still nothing under 40 px.
            await page.tap("#combine")
            await table.spot("J").locator(".card").tap()
            await expect(page.locator("#layout .spot.partner")).to_have_count(5)
            assert await page.evaluate(SMALL_TARGETS) == []
            await table.spot("4").locator(".card").tap()  # diagonally: the corner 3-4-J-10
            await expect(
                page.locator('#layout .between[data-place="3-4-J-10"] .chip')
            ).to_have_count(1)

    run(scenario)


READING = r"""(scope) => {
    // Each visible piece of text in ``scope``: its size, and its contrast against what lies
    // behind it, worked out from the computed styles as WCAG 2 says (sRGB luminance).
    const rgba = (text) => {
        const m = text.match(/rgba?\(([^)]+)\)/);
        if (!m) return null;
        const [r, g, b, a] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
        return [r, g, b, a === undefined ? 1 : a];
    };
    const over = (top, under) => {
        const a = top[3];
        return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
    };
    const lum = (c) => {
        const [r, g, b] = c.slice(0, 3).map((v) => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => {
        const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
    };
    // The colours that may lie behind an element: its own and its ancestors' backgrounds,
    // each gradient's every stop, laid over the nearest opaque colour below.
    const behind = (el) => {
        const layers = [];
        for (let e = el; e; e = e.parentElement) {
            const style = getComputedStyle(e);
            const stops = (style.backgroundImage.match(/rgba?\([^)]+\)/g) || []).map(rgba);
            const colour = rgba(style.backgroundColor);
            const opaque = stops.length && stops.every((s) => s[3] === 1);
            if (opaque) return stops.map((s) => [s, layers]);
            if (colour && colour[3] === 1) {
                return [colour, ...stops.map((s) => over(s, colour))].map((c) => [c, layers]);
            }
            if (colour && colour[3] > 0) layers.unshift(colour);
            layers.unshift(...stops.filter((s) => s[3] > 0));
        }
        return [[[255, 255, 255, 1], layers]];
    };
    const seen = (el) => {
        const r = el.getBoundingClientRect();
        return r.width > 1 && r.height > 1 && !el.closest('.sr-only, [hidden], dialog')
            && getComputedStyle(el).visibility !== 'hidden';
    };
    const found = [];
    for (const el of document.querySelectorAll(scope)) {
        for (const node of [el, ...el.querySelectorAll('*')]) {
            const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
            if (!own || !seen(node) || node.closest('button:disabled')) continue;
            const style = getComputedStyle(node);
            const fg = rgba(style.color);
            let opacity = 1;
            for (let e = node; e; e = e.parentElement) {
                opacity *= Number(getComputedStyle(e).opacity);
            }
            const size = parseFloat(style.fontSize);
            const bold = Number(style.fontWeight) >= 700;
            const large = size >= 24 || (size >= 18.66 && bold);
            const worst = Math.min(...behind(node).map(([base, layers]) => {
                const bg = layers.reduce((under, top) => over(top, under), base);
                return ratio(over([...fg.slice(0, 3), fg[3] * opacity], bg), bg);
            }));
            found.push({text: node.textContent.trim().slice(0, 30), size, contrast: worst,
                        needs: large ? 3 : 4.5, id: node.id || node.className});
        }
    }
    return found;
}"""
"""Every visible text in a scope with its font size (px) and its worst contrast ratio."""

GLANCED = "header.bar, #felt, #controls, #call, #alarms, #case, #balances, #rules, #toast"
"""What a lookout reads at a glance: the bar, the felt, its controls, the case keeper, the
balances, the house rules, a refusal."""


def test_the_felt_reads_in_dim_light_and_each_check_names_its_player(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            seats = ["Ann", "Abe", "Bob", "Cy"]
            table.enter(
                {"type": "session", "seats": seats, "banker": "Cy"},
                *(
                    {"type": "bet", "player": p, "rank": r, "weight": w, "copper": c}
                    for p, r, w, c in [
                        ("Ann", "9", 100, False),
                        ("Abe", "9", 4, True),
                        ("Bob", "K", 20, False),
                        ("Ann", "4", 2, False),
                    ]
                ),
            )
            table.deal("2H", "4D", "KC")  # a pair settled: the 4 lost, a card out
            table.reader.no_read()
            await table.settled()
            await expect(page.locator("#alarms")).to_be_visible()
            await table.spot("5").locator(".card").tap()  # a check on the 5: Ann's 2
            await expect(table.chips("5")).to_have_count(1)
            await page.locator("#weight-typed").fill("3")
            await table.spot("6").locator(".card").tap()  # refused: a toast with its rule
            await expect(page.locator("#toast")).to_have_attribute("data-rule", "weight")

            texts = await page.evaluate(READING, GLANCED)
            assert len(texts) > 60
            small = [(t["text"], t["size"]) for t in texts if t["size"] < 14]
            assert small == [], small
            dim = [
                (t["text"], round(t["contrast"], 2)) for t in texts if t["contrast"] < t["needs"]
            ]
            assert dim == [], dim
            for what in ("chip", "pips", "rules"):
                assert any(what in t["id"] for t in texts), what
            # A check is a mark a finger can take off: 24 px at the least, either way.
            checks = await page.locator("#layout .chip").evaluate_all(
                "cs => cs.map(c => [c.getBoundingClientRect().width,"
                " c.getBoundingClientRect().height])"
            )
            assert checks and all(w >= 24 and h >= 24 for w, h in checks), checks

            # Each check carries its player's initial beside the colour; two who share a
            # first letter are told apart by two.
            initials = await page.locator("#layout .chip").evaluate_all(
                "cs => cs.map(c => [c.dataset.player, getComputedStyle(c, '::before').content])"
            )
            assert sorted(map(tuple, initials)) == [
                ("Abe", '"Ab"'),
                ("Ann", '"An"'),
                ("Ann", '"An"'),
                ("Bob", '"B"'),
            ]

    run(scenario)


FRAME = """() => {
    const box = (e) => { const r = e.getBoundingClientRect();
                         return [r.x, r.y, r.width, r.height].map(v => Math.round(v * 2) / 2); };
    const out = {scroll: window.scrollY};
    for (const s of ['header.bar', '#felt', '#layout', '#paid', '#weights', '#copper', '#lock']) {
        out[s] = box(document.querySelector(s));
    }
    document.querySelectorAll('#players .player').forEach(p => out[p.dataset.player] = box(p));
    return out;
}"""
"""Where the felt, its parts and the player buttons are on the screen, to the half pixel."""


async def bottom_of(page, selector: str) -> float:
    box = await page.locator(selector).bounding_box()
    return box["y"] + box["height"]


def test_the_felt_never_moves_under_the_thumb_through_a_night(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(
                {"type": "session", "seats": ["Ann", "Bob", "Cy", "Dee", "Eve"], "banker": "Eve"},
                *(
                    {"type": "bet", "player": p, "rank": r, "weight": w, "copper": c}
                    for p, r, w, c in [
                        ("Ann", "9", 4, False),
                        ("Bob", "9", 2, True),
                        ("Cy", "K", 6, False),
                        ("Dee", "K", 2, True),
                        ("Ann", "5", 10, False),
                    ]
                ),
            )
            await table.settled()
            first = await page.evaluate(FRAME)
            frames = {"seated": first}

            async def moment(name: str) -> None:
                frames[name] = await page.evaluate(FRAME)

            table.deal("2H")
            await table.settled()
            await moment("soda")
            await table.pick("Bob", 4)
            await table.spot("Q").locator(".card").tap()
            await expect(page.locator("#undo-offer")).to_be_visible()
            await moment("an entry's undo offered")
            table.deal("9D")
            await table.settled()
            await expect(page.locator("#pair-now")).to_contain_text("the winner is to come")
            await moment("the loser out")
            table.deal("KC")
            await table.settled()
            await expect(page.locator('#paid [data-side="pays"] .move')).to_have_count(2)
            await expect(page.locator('#paid [data-side="paid"] .move')).to_have_count(2)
            await moment("a pair settled, paid and pays")
            await page.tap("#lock")
            await expect(page.locator("#entries")).to_have_text("Locked")
            await table.spot("4").locator(".card").tap()
            toast = page.locator("#toast")
            await expect(toast).to_be_visible()
            await moment("locked, a refusal")
            # The refusal in words; its rule's code is for the tests, not the lookout.
            rule = await toast.get_attribute("data-rule")
            assert rule and rule not in await toast.inner_text()
            assert (
                await bottom_of(page, "#toast")
                <= (await page.locator("#layout").bounding_box())["y"]
            )
            table.deal("4C", "8S", "3C", "6D")  # the last pair settles nothing
            await table.settled()
            await expect(page.locator("#paid")).to_contain_text("No bet on these ranks.")
            await moment("a pair with nothing on it")
            table.reader.no_read()
            await expect(page.locator("#alarms")).to_be_visible()
            await table.settled()
            await moment("an alarm")
            layout_top = (await page.locator("#layout").bounding_box())["y"]
            assert await bottom_of(page, "#alarms") <= layout_top
            # Under the bar: its pill and the link's dot stay in sight.
            assert (await page.locator("#alarms").bounding_box())["y"] >= await bottom_of(
                page, "header.bar"
            )
            await page.tap("#alarm-clear")
            await expect(page.locator("#alarms")).to_be_hidden()
            await moment("the alarm cleared")
            await console_of(table.daemon).close()
            await expect(page.locator("#entries")).to_have_text("Offline")
            await moment("the link lost")
            await page.evaluate("document.querySelector('#status').textContent += ' · 12 · 34'")
            await moment("a long status")
            # Said whole, over two lines: not cut to "0 in the s…".
            whole = await page.locator("#status").evaluate(
                "e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight"
                " && getComputedStyle(e).textOverflow !== 'ellipsis'"
            )
            assert whole

            moved = {
                name: {k: (first[k], v) for k, v in frame.items() if v != first[k]}
                for name, frame in frames.items()
            }
            assert {name: m for name, m in moved.items() if m} == {}
            # The bar stays one line.
            assert first["header.bar"][3] <= 48

    run(scenario)


def test_the_lock_is_in_thumb_reach_and_the_call_in_sight_at_the_last_three(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(SESSION)
            await table.settled()

            async def within_reach() -> None:
                # On the first screen even under a browser's bars (664 of an 844 px phone).
                for height in (PHONE["height"], 664):
                    await page.set_viewport_size({"width": PHONE["width"], "height": height})
                    box = await page.locator("#lock").bounding_box()
                    assert await page.evaluate("window.scrollY") == 0
                    assert height / 2 <= box["y"] and box["y"] + box["height"] <= height, box
                    # Nothing lies over it.
                    hit = await page.evaluate(
                        "([x, y]) => document.elementFromPoint(x, y).id",
                        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
                    )
                    assert hit == "lock"
                await page.set_viewport_size(PHONE)

            await within_reach()
            # Under the house's rules too, with the high card and the combinations' row.
            table.enter({"type": "close"}, {**SESSION, "profile": "house"})
            await expect(page.locator("#layout .edge")).to_be_visible()
            await within_reach()
            table.enter({"type": "close"}, SESSION)
            await expect(page.locator("#layout .edge")).to_have_count(0)
            table.reader.no_read()
            await expect(page.locator("#alarms")).to_be_visible()
            await within_reach()
            table.enter({"type": "clear"})
            await expect(page.locator("#alarms")).to_be_hidden()

            # The last three: the call's panel opens under the controls, and the page waits
            # for the lookout to scroll to it; there it comes whole, and a refusal does not
            # hide it.
            height = PHONE["height"]
            deal = pack_ending_with("7S", "JH", "3D")
            table.deal(*deal[:49])
            await table.settled()
            call = page.locator("#call")
            await expect(page.locator("#call-orders .order")).to_have_count(6)
            assert await page.evaluate("window.scrollY") == 0
            await call.scroll_into_view_if_needed()
            scrolled = await page.evaluate("window.scrollY")
            box = await call.bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, box
            await page.locator("#weight-typed").fill("3")  # odd: the teaching rules refuse it
            await page.tap('#call-orders [data-order="7 J 3"]')
            await expect(page.locator("#toast")).to_have_attribute("data-rule", "weight")
            toast = await page.locator("#toast").bounding_box()
            assert toast["y"] + toast["height"] <= box["y"], (toast, box)
            lock = await page.locator("#lock").bounding_box()
            assert lock["y"] >= 0 and lock["y"] + lock["height"] <= height

            # The hock: what the calls did is on the felt, not "no bet on these ranks"; the
            # last cards leave the page where the lookout had it.
            await table.pick("Ann", 2)
            await page.tap('#call-orders [data-order="7 J 3"]')
            await table.pick("Bob", 4)
            await page.tap('#call-orders [data-order="J 7 3"]')
            await expect(page.locator("#call-list li")).to_have_count(2)
            # (the taps above scroll to what they tap, as a thumb would: back to the call)
            await page.evaluate("(y) => window.scrollTo(0, y)", scrolled)
            for card in deal[49:]:
                table.deal(card)
                await table.settled()
                assert await page.evaluate("window.scrollY") == scrolled, card
            calls = page.locator('#paid [data-side="calls"] .move')
            await expect(calls).to_have_text(["Ann +8 called it", "Bob −4 miscalled"])
            await expect(page.locator("#paid")).not_to_contain_text("No bet")
            results = await page.locator("#call-list").bounding_box()
            assert results["y"] >= 0 and results["y"] + results["height"] <= height

    run(scenario)


PLACES = """() => {
    const box = (e) => { const r = e.getBoundingClientRect();
                         return [r.x, r.y, r.width, r.height].map(v => Math.round(v * 2) / 2); };
    const out = {scroll: window.scrollY};
    for (const id of ['lock', 'undo', 'enter-card']) out[id] = box(document.getElementById(id));
    document.querySelectorAll('#layout .card').forEach(c => out[c.dataset.rank] = box(c));
    return out;
}"""
"""The page's scroll, and where the main controls and the felt's cards are, to the half pixel."""

HITS = """(places) => Object.fromEntries(Object.entries(places)
    .filter(([name]) => name !== 'scroll').map(([name, [x, y, w, h]]) => {
        const hit = document.elementFromPoint(x + w / 2, y + h / 2);
        const control = hit && (hit.closest('button') || hit);
        return [name, control && (control.id || control.dataset.rank || control.className)];
    }))"""
"""What a tap at the middle of each of those places would meet now."""


async def on_screen(page, selector: str) -> bool:
    """Whether ``selector`` lies whole within the window as it is, nothing scrolled."""
    box = await page.locator(selector).bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_through_a_pack_the_page_never_scrolls_and_each_place_keeps_its_control(tmp_path):
    """Before the soda, mid-pack, the last three with the call open, the final pair, the hock:
    the page stays where the lookout left it, and a tap where the lock, the undo, a card by
    hand or a card of the layout was lands on it. Between packs, what comes next is on the
    first screen (even under a browser's bars), and what cannot be done says why."""

    async def scenario():
        async with table_with_page(tmp_path) as table:
            page = table.page
            table.enter(SESSION)
            await table.settled()
            await table.pick("Ann", 2)
            first = await page.evaluate(PLACES)
            assert first["scroll"] == 0

            async def still(stage: str) -> None:
                now = await page.evaluate(PLACES)
                moved = {k: (first[k], v) for k, v in now.items() if v != first[k]}
                assert moved == {}, (stage, moved)
                hits = await page.evaluate(HITS, first)
                assert hits == {name: name for name in first if name != "scroll"}, stage

            async def tap(name: str) -> None:
                """A finger where ``name`` was at first, whatever lies there now."""
                x, y, w, h = first[name]
                await page.touchscreen.tap(x + w / 2, y + h / 2)

            async def taps_the_dialogs() -> None:
                for name, dialog in (("undo", "#void-dialog"), ("enter-card", "#card-dialog")):
                    await tap(name)
                    await expect(page.locator(dialog)).to_be_visible()
                    await page.locator(f"{dialog} button[value=cancel]").tap()
                    await expect(page.locator(dialog)).to_be_hidden()

            await still("before the soda")
            await tap("9")
            await expect(table.chips("9", "Ann")).to_have_count(1)

            deal = pack_ending_with("7S", "JH", "3D")
            table.deal(*deal[:25])
            await table.settled()
            await still("mid-pack")
            await taps_the_dialogs()
            await tap("lock")
            await expect(page.locator("#entries")).to_have_text("Locked")

            table.deal(*deal[25:49])
            await table.settled()
            await expect(page.locator("#call-orders .order")).to_have_count(6)
            await still("the last three, the call open")
            await expect(page.locator("#hint")).to_contain_text("Call the turn under the controls")
            await tap("J")  # one of the three left
            await expect(table.chips("J", "Ann")).to_have_count(1)
            await taps_the_dialogs()
            await tap("lock")
            await expect(page.locator("#entries")).to_have_text("Locked")
            assert table.daemon.table.calls == []  # the lock's place took the lock, no call
            await expect(page.locator("#hint")).to_contain_text("locked")

            for n, stage in ((50, "the final loser"), (51, "the final pair"), (52, "the hock")):
                table.deal(deal[n - 1])
                await table.settled()
                await still(stage)

            # The hock: a tap on a card is refused in words, the rule's code kept out of sight.
            await tap("5")
            toast = page.locator("#toast")
            await expect(toast).to_have_attribute("data-rule", "entries-closed")
            assert "entries-closed" not in await toast.inner_text()
            # The bar says it all, over two lines where it must.
            status = await page.locator("#status").evaluate(
                "e => [e.textContent, e.scrollWidth <= e.clientWidth,"
                " e.scrollHeight <= e.clientHeight]"
            )
            assert status == ["Pack 1 · turn 25 · 0 in the shoe", True, True]

            # Between packs: no bets, and what comes next, on the first screen.
            hint = page.locator("#hint")
            await expect(hint).to_contain_text("No bets until a new pack")
            await expect(hint).not_to_contain_text("Tap a card")
            for height in (PHONE["height"], 664):
                await page.set_viewport_size({"width": PHONE["width"], "height": height})
                assert await page.evaluate("window.scrollY") == 0
                for control in ("#new-pack", "#pass-bank", "#close-night"):
                    await expect(page.locator(control)).to_be_enabled()
                    assert await on_screen(page, control), (height, control)
                assert await on_screen(page, "#hint"), height
            await page.set_viewport_size(PHONE)
            # Join and leave wait for the new pack, and say so beside them.
            await expect(page.locator("#join")).to_be_disabled()
            await expect(page.locator("#leave")).to_be_disabled()
            why = page.locator("#seat-why")
            await expect(why).to_be_visible()
            await expect(why).to_contain_text("Join and leave once a new pack is started")

            await page.tap("#pass-bank")
            await page.tap('#bank-list [data-player="Bob"]')
            await expect(page.locator('#balances [data-player="Bob"] .badge.bank')).to_be_visible()
            await page.tap("#new-pack")
            await expect(page.locator("#status")).to_have_text("Pack 2 · 52 in the shoe")
            await expect(page.locator("#players .player").first).to_be_visible()
            await expect(page.locator("#between")).to_be_hidden()
            await expect(page.locator("#seat-controls #pass-bank")).to_have_count(1)
            await expect(page.locator("#join")).to_be_enabled()
            await expect(hint).to_contain_text("Tap a card")
            await still("a new pack")

    run(scenario)


async def log_in_by_link(table) -> str:
    """Opens the token link in the page's browser, as a phone does once; its cookie's value."""
    await table.page.goto(f"{table.base}/?token={TOKEN}")
    await table.shown()
    [cookie] = [c for c in await table.page.context.cookies() if c["name"] == login.COOKIE]
    return cookie["value"]


async def refused_with(base: str, value: str) -> bool:
    """Whether a change carrying the session cookie ``value`` is refused as unauthorised."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:  # a hang bound
        answer = await http.post("/api/events", json={"type": "lock"}, headers=jar(value))
    return answer.status_code == 401


def test_the_phone_logs_itself_out_from_the_page_and_its_cookie_opens_nothing(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path, token=None) as table:
            page = table.page
            value = await log_in_by_link(table)
            table.enter(SESSION)
            await page.tap("#phones-button")
            dialog = page.locator("#phones-dialog")
            await expect(dialog).to_be_visible()
            await expect(page.locator("#phones-list li")).to_have_count(1)
            mine = page.locator('#phones-list li[data-this="true"]')
            await expect(mine).to_contain_text("this phone")
            await expect(mine).to_contain_text("logged in just now")
            await expect(page.locator("#phones-this")).to_contain_text("logged in")

            await page.tap("#logout")
            await expect(dialog).to_be_hidden()
            await expect(page.locator("#toast")).to_contain_text("This phone is logged out")
            console = console_of(table.daemon)
            assert console.login.sessions.listing() == []
            assert not [c for c in await page.context.cookies() if c["name"] == login.COOKIE]
            assert await refused_with(table.base, value)  # a copy of the cookie too

            await table.pick("Ann", 4)  # a tap on the felt now asks for the token
            await table.spot("9").locator(".card").tap()
            await expect(page.locator("#token-form")).to_be_visible()
            assert table.daemon.table.predictions == []
            await page.tap("#token-cancel")
            await page.tap("#phones-button")
            await expect(page.locator("#phones-this")).to_contain_text("not logged in")
            await expect(page.locator("#logout")).to_be_hidden()

    run(scenario)


def test_the_lookout_ends_another_phones_session_from_the_list(tmp_path):
    async def scenario():
        async with table_with_page(tmp_path, token=None) as table:
            page = table.page
            await log_in_by_link(table)
            async with httpx.AsyncClient(base_url=table.base, timeout=30) as other:
                linked = await other.get(
                    "/", params={"token": TOKEN}, headers={"User-Agent": IPHONE}
                )
                iphone = linked.cookies[login.COOKIE]
            table.enter(SESSION)
            await page.tap("#phones-button")
            rows = page.locator("#phones-list li")
            await expect(rows).to_have_count(2)
            await expect(rows.nth(0)).to_contain_text("Linux · Chrome")  # headless Chromium
            await expect(rows.nth(0)).to_have_attribute("data-this", "true")
            await expect(rows.nth(1)).to_contain_text("iPhone · Safari")
            await expect(rows.nth(0).locator("button")).to_have_count(0)

            await rows.nth(1).get_by_role("button", name="Log out iPhone · Safari").tap()
            await expect(page.locator("#toast")).to_contain_text("Logged out: iPhone · Safari")
            await expect(rows).to_have_count(1)
            await expect(rows.nth(0)).to_have_attribute("data-this", "true")
            assert await refused_with(table.base, iphone)

            await page.tap("#phones-close")  # this phone is still logged in, and bets
            await table.pick("Ann", 4)
            await table.spot("9").locator(".card").tap()
            await expect(table.chips("9", "Ann")).to_have_count(1)

    run(scenario)


def test_a_logged_in_phone_shows_a_pairing_code_that_logs_another_in_once(tmp_path):
    """What the OLED shows while new pack is held, on a page already logged in: in the
    simulator, which has no screen, the only way to pair a second phone by scanning."""

    async def scenario():
        async with table_with_page(tmp_path, token=None) as table:
            page = table.page
            await log_in_by_link(table)
            await page.tap("#phones-button")
            await page.tap("#pair-button")
            code = page.locator("#pair-image")
            await expect(code).to_be_visible()
            assert await code.evaluate("(image) => image.decode().then(() => image.naturalWidth)")
            await expect(page.locator("#pair-says")).to_contain_text("good once")
            shot = Image.open(io.BytesIO(await code.screenshot())).convert("L")
            [found] = zxingcpp.read_barcodes(shot)  # as the other phone's camera reads it
            assert found.text == await page.locator("#pair-link").text_content()
            path = "/" + found.text.split("/", 3)[3]
            async with httpx.AsyncClient(base_url=table.base, timeout=30) as other:
                first = await other.get(path, headers={"User-Agent": IPHONE})
                assert first.status_code == 303 and login.COOKIE in first.cookies
                assert (await other.get(path)).status_code == 403  # good once
            await page.tap("#phones-close")
            await page.tap("#phones-button")
            await expect(page.locator("#phones-list li")).to_have_count(2)
            await expect(page.locator("#pair-code")).to_be_hidden()

    run(scenario)
