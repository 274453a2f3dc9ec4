// The lookout's console: the table's state from /api/events, entries posted to /api/events.

import {
  $,
  RANKS,
  RANK_NAME,
  SUITS,
  SUIT_NAME,
  SUIT_SYMBOL,
  byRankOrder,
  cardRank,
  cardSpoken,
  cardText,
  h,
  miniCard,
  placeFields,
  placeKey,
  placeName,
  signed,
} from "./dom.js";
import { drawCase, drawPiles } from "./case-keeper.js";
import { drawChart } from "./chart.js";
import { download, nightCsv, nightTable, openNight } from "./night.js";
import { packSummary } from "./summary.js";
import { AGAIN_WITHIN, UNDO_FOR, inverse, said, same } from "./undo.js";

(() => {
  // The felt (which rank lies where) comes with the state, from the rules engine's one layout.

  // The weights offered: even ones for the teaching rules, odd ones too when the house allows.
  const EVEN_WEIGHTS = [2, 4, 6, 10, 20, 50, 100];
  const ANY_WEIGHTS = [1, 2, 3, 4, 5, 6, 10, 25, 50, 100];
  // One colour a seat, light enough for dark text on the chip and for a line on the chart.
  // None is near the copper marker's orange-brown, so a coppered check reads as coppered.
  const PALETTE = [
    "#42a5f5", "#fdd835", "#ff4f8b", "#9ccc65", "#ce93d8",
    "#4dd0e1", "#f5f5f5", "#7986cb", "#f8bbd0", "#90a4ae",
  ];
  const TOKEN_KEY = "faro-pi.token";
  const PICKS_KEY = "faro-pi.picks";
  const LAST_THREE = 49;

  // -- what the page holds -----------------------------------------------------------

  let state = null;
  let odds = null;
  let history = null;
  const picks = { player: null, weight: 2, copper: false, takeOff: false, percent: false };
  try {
    const kept = JSON.parse(localStorage.getItem(PICKS_KEY) || "{}");
    for (const key of ["player", "weight", "copper", "percent"]) {
      if (key in kept) picks[key] = kept[key];
    }
  } catch (err) {
    localStorage.removeItem(PICKS_KEY);
  }
  const savePicks = () => localStorage.setItem(PICKS_KEY, JSON.stringify(picks));

  /** For whoever watches the page: when each state arrived and was drawn (epoch ms). */
  const faro = (window.faro = { received: [], rendered: [] });
  const now = () => performance.timeOrigin + performance.now();
  const remember = (list, entry) => {
    list.push(entry);
    if (list.length > 200) list.shift();
  };

  // A colour keeps to its participant all night: by the order they first sat, so that one
  // getting up does not hand their colour to the next seat.
  const colourOf = (name) => {
    const sat = state ? Object.keys(state.balances).indexOf(name) : -1;
    return sat < 0 ? "#8a8a8a" : PALETTE[sat % PALETTE.length];
  };

  // -- talking to the table --------------------------------------------------------------

  function token() {
    return localStorage.getItem(TOKEN_KEY);
  }

  async function post(event) {
    if (!token()) {
      askToken("Enter the console's token to make changes.");
      return null;
    }
    let answer;
    try {
      answer = await fetch("/api/events", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token()}` },
        body: JSON.stringify(event),
      });
    } catch (err) {
      toast("The table cannot be reached: " + err.message);
      return null;
    }
    let body = {};
    try {
      body = await answer.json();
    } catch (err) {
      body = { error: `the table answered ${answer.status}` };
    }
    if (answer.ok) {
      show(body.state);
      return body;
    }
    if (answer.status === 401) {
      localStorage.removeItem(TOKEN_KEY);
      askToken("The table refused that token: enter the right one.");
      return null;
    }
    toast(body.error || `refused (${answer.status})`, body.rule);
    return null;
  }

  // -- entries the lookout can take back ---------------------------------------------------

  let offered = null;
  let offerTimer = null;
  let lastTap = { event: null, at: 0 };
  let again = null;

  /** Posts an entry; once the table takes it, offers its undo for a few seconds in ``slot``. */
  async function enter(event, slot = "felt-note") {
    const before = state;
    const body = await post(event);
    if (body) offerUndo(event, inverse(event, before), slot);
  }

  function offerUndo(event, events, slot) {
    const offer = $("undo-offer");
    offered = events;
    $("undo-text").textContent = said(event);
    $(slot).append(offer);
    offer.hidden = false;
    $("hint").hidden = slot === "felt-note";
    clearTimeout(offerTimer);
    offerTimer = setTimeout(dropOffer, UNDO_FOR);
  }

  function dropOffer() {
    clearTimeout(offerTimer);
    offered = null;
    $("undo-offer").hidden = true;
    $("hint").hidden = false;
  }

  async function takeBack() {
    const events = offered;
    dropOffer();
    lastTap = { event: null, at: 0 }; // entering it again after taking it back is no slip
    for (const event of events || []) {
      if (!(await post(event))) break;
    }
  }


  /** A tap that enters ``event``; the same tap again at once is asked about, not doubled. */
  function tapped(event, slot) {
    const at = Date.now();
    const twice = same(event, lastTap.event) && at - lastTap.at < AGAIN_WITHIN;
    lastTap = { event: twice ? null : event, at };
    if (!twice) return enter(event, slot);
    again = { event, slot };
    $("again-text").textContent = `${said(event)}: tapped twice. Enter it a second time?`;
    $("again-dialog").returnValue = "";
    $("again-dialog").showModal();
  }

  function listen() {
    const stream = new EventSource("/api/events");
    let reconnected = false;
    stream.addEventListener("state", (message) => {
      const at = now();
      const next = JSON.parse(message.data);
      remember(faro.received, { version: next.version, at });
      // A stream's first state is the table as it is now, even if the table was reset.
      if (reconnected) state = null;
      reconnected = false;
      show(next);
    });
    stream.addEventListener("open", () => {
      reconnected = state !== null;
      link("live", "live");
    });
    stream.addEventListener("error", () => link("lost", "reconnecting"));
  }

  function link(how, text) {
    $("link").dataset.link = how;
    $("link-text").textContent = text;
  }

  const loaded = {
    odds: (body, key) => {
      odds = body;
      odds.key = key;
      drawOdds();
      document.body.dataset.odds = key;
    },
    history: (body, key) => {
      history = body;
      drawHistory();
      document.body.dataset.history = key;
    },
  };
  const fetching = { odds: null, history: null };
  const wanted = { odds: null, history: null };

  /** Fetches /api/odds or /api/history when what they depend on has changed; one at a time. */
  async function refresh(what, key) {
    wanted[what] = key;
    if (fetching[what] !== null) return;
    while (wanted[what] !== fetching[what]) {
      const asked = (fetching[what] = wanted[what]);
      try {
        const answer = await fetch(`/api/${what}`);
        if (answer.ok) {
          const body = await answer.json();
          if (asked === wanted[what]) loaded[what](body, asked);
        }
      } catch (err) {
        // the event stream reconnects; the next state asks again
      }
    }
    fetching[what] = null;
  }

  /** What the odds depend on: the cards out. */
  const cardsKey = (st) => `${st.pack.number}:${st.pack.exposed.length}:${st.pack.exposed.at(-1)}`;
  /** What the history depends on: the pairs, the calls settled, the seats. */
  const pairsKey = (st) =>
    `${st.pack.number}:${st.pack.turn}:${st.call_results.length}:${st.seats.length}`;

  // -- the state, drawn -------------------------------------------------------------------

  /** A selector for the focused control, to focus its successor once the state is redrawn. */
  function focused() {
    const el = document.activeElement;
    if (!el || el === document.body || !el.matches("button")) return null;
    if (el.id) return `#${el.id}`;
    const host = el.closest("[id]");
    if (!host) return null;
    const data = Object.entries(el.dataset)
      .map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}="${CSS.escape(v)}"]`)
      .join("");
    return `#${host.id} button.${[...el.classList].map(CSS.escape).join(".")}${data}`;
  }

  function show(next) {
    if (!next || (state && next.version <= state.version)) return;
    const focus = focused();
    draw(next);
    if (focus && document.activeElement !== document.querySelector(focus)) {
      const again = document.querySelector(focus);
      if (again) again.focus({ preventScroll: true });
    }
  }

  function draw(next) {
    state = next;
    const seated = state.seats.length > 0;
    const players = state.seats.filter((name) => name !== state.banker);
    if (!players.includes(picks.player)) picks.player = players[0] || null;
    drawStatus();
    drawAlarms();
    $("seating").hidden = seated;
    $("seating-wait").hidden = !state.pack.complete;
    if (!seated && !$("seat-list").children.length) seatRows(3);
    drawPairNow();
    drawLayout();
    drawPaid();
    drawChecks();
    drawRules();
    drawPickers();
    drawControls();
    drawCase(state);
    drawPiles(state);
    drawBalances();
    drawSeatControls();
    drawNight();
    drawCall();
    document.body.dataset.version = state.version;
    document.body.dataset.cards = cardsKey(state);
    document.body.dataset.pairs = pairsKey(state);
    remember(faro.rendered, { version: state.version, at: now() });
    refresh("odds", cardsKey(state));
    refresh("history", pairsKey(state));
  }

  function drawStatus() {
    const pack = state.pack;
    const out = pack.exposed.length;
    $("status").textContent = out
      ? `Pack ${pack.number} · turn ${pack.turn} · ${pack.left} in the shoe`
      : `Pack ${pack.number} · ${pack.left} in the shoe`;
    const entries = $("entries");
    entries.dataset.entries = state.entries;
    entries.textContent = {
      open: "Entries open",
      locked: "Locked",
      closed: "Entries closed",
    }[state.entries];
  }

  function drawAlarms() {
    const alarms = state.alarms;
    $("alarms").hidden = alarms.length === 0;
    $("alarm-card").hidden = !alarms.some((a) => a.kind === "noread") || state.pack.complete;
    $("alarm-list").replaceChildren(
      ...alarms.map((a) => h("li", { dataset: { kind: a.kind } }, a.text)),
    );
  }

  function drawPairNow() {
    const pack = state.pack;
    const box = $("pair-now");
    const last = state.last_pair;
    const parts = [];
    if (state.pair) {
      parts.push(
        h("figure", {}, miniCard(state.pair.loser, "big"), h("figcaption", {}, "loser")),
        h("figure", { class: "pending" }, h("span", { class: "mini big blank" }, "?"),
          h("figcaption", {}, "winner")),
        h("p", { class: "pair-caption" }, `Turn ${state.pair.turn}: the winner is to come`),
      );
    } else if (pack.complete) {
      parts.push(
        h("figure", {}, miniCard(pack.hock, "big"), h("figcaption", {}, "hock")),
        h("p", { class: "pair-caption" }, "The pack is complete: new pack when ready"),
      );
    } else if (last && last.pack === pack.number) {
      parts.push(
        h("figure", {}, miniCard(last.loser, "big"), h("figcaption", {}, "loser")),
        h("figure", {}, miniCard(last.winner, "big"), h("figcaption", {}, "winner")),
        h(
          "p",
          { class: "pair-caption" },
          `Turn ${last.turn}`,
          last.split ? h("span", { class: "badge split" }, "split") : null,
        ),
      );
    } else if (pack.soda) {
      parts.push(
        h("figure", {}, miniCard(pack.soda, "big"), h("figcaption", {}, "soda")),
        h("p", { class: "pair-caption" }, "The soda settles nothing"),
      );
    } else {
      parts.push(h("p", { class: "pair-caption" }, "Waiting for the soda"));
    }
    box.replaceChildren(...parts);
    $("shoe").replaceChildren(
      h("span", { class: "shoe-count" }, String(pack.left)),
      h("span", { class: "shoe-label" }, "in the shoe"),
    );
  }

  /** The last pair's settlements, right under the layout: who is paid, who pays. */
  function drawPaid() {
    const last = state.last_pair;
    const box = $("paid");
    box.hidden = !last || last.pack !== state.pack.number;
    if (box.hidden) return;
    const paid = last.settlements.filter((x) => x.delta > 0);
    const pays = last.settlements.filter((x) => x.delta <= 0);
    const row = (side, label, moves) =>
      moves.length
        ? h(
            "p",
            { class: "paid-row", dataset: { side } },
            h("span", { class: "paid-label" }, label),
            h("span", { class: "moves" }, ...moves.map(moveOf)),
          )
        : null;
    box.dataset.turn = last.turn;
    box.replaceChildren(
      h(
        "p",
        { class: "paid-head" },
        h("strong", {}, `Turn ${last.turn}`),
        ` ${cardText(last.loser)} loses, ${cardText(last.winner)} wins`,
        last.split ? h("span", { class: "badge split" }, "split") : null,
        last.settlements.length
          ? h("span", { class: "move bank" }, `bank ${signed(last.banker)}`)
          : h("span", { class: "none" }, ": nothing on these ranks"),
      ),
      ...[row("paid", "Paid", paid), row("pays", "Pays", pays)].filter(Boolean),
    );
  }

  /** The last pair's ranks, for marking them on the layout. */
  function lastRanks() {
    const last = state.last_pair;
    if (!last || last.pack !== state.pack.number) return {};
    const lo = cardRank(last.loser);
    const wi = cardRank(last.winner);
    return last.split ? { [lo]: "split" } : { [lo]: "lost", [wi]: "won" };
  }

  /** Each place's checks, one per player and direction, their weights added up. */
  function stacks() {
    const by = {};
    for (const p of state.predictions) {
      const key = `${p.player}|${p.copper}`;
      const stack = (by[placeKey(p)] ||= new Map());
      const chip = stack.get(key) || { player: p.player, copper: p.copper, weight: 0, count: 0 };
      chip.weight += p.weight;
      chip.count += 1;
      stack.set(key, chip);
    }
    return by;
  }

  const chipText = (c) => `${c.player} ${c.weight}${c.copper ? " coppered" : ""}`;

  /** The checks on a place; past ``room`` of them, the last check shows how many more. */
  const placeWords = (place) => place.rank || placeName({ ranks: place.ranks, high_card: place.high });
  // A check is one player's bets in one direction: it takes off just those, so taking
  // off a coppered check leaves the player's ordinary bet on the same place.
  const removeOf = (place, c) => ({ type: "remove", player: c.player, ...placeFields(place), copper: c.copper });

  function chipsOn(place, chips, room) {
    const shown = chips.length > room ? chips.slice(0, room - 1) : chips;
    const hidden = chips.slice(shown.length);
    const where = placeWords(place);
    const remove = (c) => removeOf(place, c);
    return h(
      "div",
      { class: "chips" },
      shown.map((c) =>
        h(
          "button",
          {
            type: "button",
            class: "chip" + (c.copper ? " copper" : ""),
            style: `--chip:${colourOf(c.player)}`,
            dataset: { player: c.player, weight: c.weight, copper: c.copper },
            title: `${c.player}: ${c.weight}${c.copper ? " coppered" : ""} on ${where}`,
            "aria-label": `Take ${c.player}'s ${c.weight}${c.copper ? " coppered" : ""} off ${where}`,
            onclick: () => enter(remove(c)),
          },
          String(c.weight),
        ),
      ),
      // The rest, one tap away: the list of every check on the place, with their owners.
      hidden.length
        ? h(
            "button",
            {
              type: "button",
              class: "chip more",
              style: `--chip:#2b2b2b`,
              title: hidden.map(chipText).join(", "),
              "aria-label": `List the ${chips.length} checks on ${where}`,
              onclick: () => listChecks(place),
            },
            `+${hidden.length}`,
          )
        : null,
    );
  }

  /** The place whose checks the list shows, while it is open. */
  let listing = null;

  function listChecks(place) {
    listing = place;
    drawChecks();
    const dialog = $("checks-dialog");
    if (!dialog.open) dialog.showModal();
  }

  /** Every check on the listed place: its owner, weight and direction, and taking it off. */
  function drawChecks() {
    if (!listing) return;
    const place = listing;
    const chips = [...(stacks()[placeKey(placeFields(place))] || new Map()).values()];
    const where = placeWords(place);
    $("checks-title").textContent = place.high ? "On the high card" : `On ${where}`;
    $("checks-list").replaceChildren(
      ...(chips.length
        ? chips.map((c) =>
            h(
              "li",
              { dataset: { player: c.player, copper: c.copper } },
              h("span", { class: "swatch", style: `--chip:${colourOf(c.player)}`, "aria-hidden": "true" }),
              h("span", { class: "name" }, c.player),
              h("strong", { class: "weight" }, String(c.weight)),
              c.copper ? h("span", { class: "coppered" }, h("span", { class: "penny" }), " coppered") : h("span"),
              h(
                "button",
                {
                  type: "button",
                  class: "small",
                  "aria-label": `Take ${c.player}'s ${c.weight}${c.copper ? " coppered" : ""} off ${where}`,
                  onclick: () => {
                    $("checks-dialog").close();
                    enter(removeOf(place, c));
                  },
                },
                "Take off",
              ),
            ),
          )
        : [h("li", { class: "none" }, "No checks here.")]),
    );
  }

  // Holding a finger on a place lists its checks (a tap bets, as ever).
  const HOLD = 500;
  let hold = { timer: null, fired: false };
  const holdOn = (place) => () => {
    clearTimeout(hold.timer);
    hold = { fired: false, timer: setTimeout(() => ((hold.fired = true), listChecks(place)), HOLD) };
  };
  const letGo = () => clearTimeout(hold.timer);
  /** Whether this click ends a hold (which listed the checks) rather than being a tap. */
  const held = () => {
    const fired = hold.fired;
    hold.fired = false;
    return fired;
  };

  /** The places between neighbouring cards, each on the grid area it straddles. */
  function betweens(felt) {
    const pair = (a, b) => ({ ranks: [a, b].sort(byRankOrder) });
    const places = [];
    const across = (row, line) =>
      row.slice(0, -1).forEach((r, i) =>
        places.push({ ...pair(r, row[i + 1]), kind: "across", area: `${line} / ${i + 1} / span 1 / span 2` }),
      );
    across(felt.upper, 1);
    across(felt.lower, 2);
    felt.lower.forEach((r, i) =>
      places.push({ ...pair(r, felt.upper[i]), kind: "down", area: `1 / ${i + 1} / span 2 / span 1` }),
    );
    const end = felt.lower.length;
    places.push({ ...pair(felt.upper[end - 1], felt.seven), kind: "to-seven upper", area: `1 / ${end} / span 1 / span 2` });
    places.push({ ...pair(felt.lower[end - 1], felt.seven), kind: "to-seven lower", area: `2 / ${end} / span 1 / span 2` });
    // A corner names its lower pair, then its upper pair, left to right: A-2-K-Q.
    felt.lower.slice(0, -1).forEach((r, i) =>
      places.push({
        ranks: [r, felt.lower[i + 1], felt.upper[i], felt.upper[i + 1]],
        kind: "corner",
        area: `1 / ${i + 1} / span 2 / span 2`,
      }),
    );
    return places;
  }

  function drawLayout() {
    const counts = Object.fromEntries(state.case.map((c) => [c.rank, c.count]));
    const marks = lastRanks();
    const byPlace = stacks();
    const chipsAt = (key) => [...(byPlace[key] || new Map()).values()];
    // Two rows of checks fit on a card; past that, the last check shows how many more.
    const spot = (rank, where) => {
      const chips = chipsAt(rank);
      const left = counts[rank];
      const label =
        `${RANK_NAME[rank] || rank} of spades, ${left} left` +
        (chips.length ? `; ${chips.map(chipText).join(", ")}` : "");
      return h(
        "div",
        {
          class: `spot ${where}` + (left === 0 ? " dead" : "") + (marks[rank] ? ` ${marks[rank]}` : ""),
          dataset: { rank },
        },
        h(
          "button",
          {
            type: "button",
            class: "card",
            "aria-label": label,
            dataset: { rank },
            onclick: () => held() || tapPlace({ rank }),
            onpointerdown: holdOn({ rank }),
          },
          h("span", { class: "rank", "aria-hidden": "true" }, rank),
          h("span", { class: "suit", "aria-hidden": "true" }, "♠"),
          h("span", { class: "pips", "aria-hidden": "true" }, "●".repeat(left) + "○".repeat(4 - left)),
        ),
        chipsOn({ rank }, chips, 4),
      );
    };
    // A place off the cards: between neighbours, at a corner, or the high-card space.
    const space = (place, kind, text, attrs) => {
      const key = place.high ? "high" : place.ranks.join("-");
      const chips = chipsAt(place.high ? "high" : [...place.ranks].sort(byRankOrder).join("-"));
      const named = place.high ? "the high card" : `${place.ranks.length} cards, ${key}`;
      return h(
        "div",
        { class: `${kind}`, dataset: { place: key }, ...attrs },
        h(
          "button",
          {
            type: "button",
            class: "hit",
            dataset: { place: key },
            "aria-label": `Bet on ${named}` + (chips.length ? `; ${chips.map(chipText).join(", ")}` : ""),
            onclick: () => held() || tapPlace(place),
            onpointerdown: holdOn(place),
          },
          text,
        ),
        chipsOn(place, chips, place.high ? 6 : 2),
      );
    };
    const felt = state.felt;
    const options = state.options || {};
    const layout = $("layout");
    layout.dataset.entries = state.entries;
    layout.replaceChildren(
      ...felt.upper.map((r) => spot(r, "upper")),
      spot(felt.seven, "seven"),
      ...felt.lower.map((r) => spot(r, "lower")),
      ...(options.combinations
        ? betweens(felt).map((b) =>
            space({ ranks: b.ranks }, `between ${b.kind}`, "", { style: `grid-area: ${b.area}` }),
          )
        : []),
      ...(options.high_card ? [space({ high: true }, "high-card", "High card")] : []),
    );
  }

  /** A tap on a card, between cards or on the high card: a bet there, or taking one off. */
  function tapPlace(place) {
    if (!state.seats.length) return toast("Seat the table first.");
    if (!picks.player) return toast("Pick a player first.");
    if (picks.takeOff) return enter({ type: "remove", player: picks.player, ...placeFields(place) });
    return tapped({
      type: "bet",
      player: picks.player,
      ...placeFields(place),
      weight: picks.weight,
      copper: picks.copper,
    });
  }

  /** Each house rule in a few words, by its option's value. */
  const RULE_WORDS = {
    even_weights: { true: "even weights", false: "odd weights" },
    remove_dead: { true: "dead ranks come off", false: "dead bets stay" },
    collect_leftovers: { true: "leftovers collected", false: null },
    high_card: { true: "high card", false: null },
    combinations: { true: "combinations", false: null },
    call_trips: { true: "trips called by colour", false: "no call on trips" },
    cat_hop_pays: { 1: "cat-hop pays 1 to 1", 2: "cat-hop pays 2 to 1" },
    rotate_bank: { true: "bank rotates", false: "bank stays" },
  };

  function drawRules() {
    const options = state.options || {};
    const words = Object.entries(RULE_WORDS)
      .filter(([key]) => key in options)
      .map(([key, said]) => said[String(options[key])])
      .filter(Boolean);
    const profile = state.profile || "teaching";
    const box = $("rules");
    box.dataset.profile = profile;
    box.replaceChildren(
      h("strong", {}, `${profile.charAt(0).toUpperCase()}${profile.slice(1)} rules`),
      words.length ? `: ${words.join(", ")}` : "",
    );
  }

  function drawPickers() {
    const players = state.seats.filter((name) => name !== state.banker);
    $("pickers").hidden = players.length === 0;
    $("players").replaceChildren(
      ...players.map((name) =>
        h(
          "button",
          {
            type: "button",
            class: "choice player",
            "aria-pressed": String(name === picks.player),
            dataset: { player: name },
            onclick: () => {
              picks.player = name;
              savePicks();
              drawPickers();
              drawCall();
            },
          },
          h("span", { class: "swatch", style: `--chip:${colourOf(name)}`, "aria-hidden": "true" }),
          name,
        ),
      ),
    );
    const weights = (state.options || {}).even_weights === false ? ANY_WEIGHTS : EVEN_WEIGHTS;
    if (!weights.includes(picks.weight)) picks.weight = weights.includes(2) ? 2 : weights[0];
    $("weights").dataset.count = weights.length;
    $("weights").replaceChildren(
      ...weights.map((w) =>
        h(
          "button",
          {
            type: "button",
            class: "choice weight",
            "aria-pressed": String(w === picks.weight),
            "aria-label": `weight ${w}`,
            dataset: { weight: w },
            onclick: () => {
              picks.weight = w;
              savePicks();
              drawPickers();
              drawCall();
            },
          },
          String(w),
        ),
      ),
    );
    $("copper").setAttribute("aria-pressed", String(picks.copper));
    $("take-off").setAttribute("aria-pressed", String(picks.takeOff));
    const who = picks.player || "the player";
    $("hint").textContent = picks.takeOff
      ? `Taking off: tap a check to take it off, or a card to take ${who}'s off it.`
      : `Tap a card${state.options && state.options.combinations ? " or a gap between cards" : ""}: ${who} puts ${picks.weight} on it ${picks.copper ? "coppered, to lose" : "to win"}. Take off, then tap a check, to remove it.`;
    $("layout").classList.toggle("taking-off", picks.takeOff);
    $("felt").classList.toggle("taking-off", picks.takeOff);
  }

  function drawControls() {
    const pack = state.pack;
    $("lock").disabled = state.entries !== "open" || pack.exposed.length >= 51;
    $("new-pack").disabled = !pack.complete;
    $("undo").disabled = pack.exposed.length === 0;
    $("enter-card").disabled = pack.complete;
    $("clear").disabled = state.alarms.length === 0;
  }

  function drawBalances() {
    const list = $("balances");
    if (!state.seats.length) {
      list.replaceChildren(h("li", { class: "none" }, "Nobody is seated yet."));
      return;
    }
    list.replaceChildren(
      ...openNight(state).map(({ player: name, balance, left }) => {
        return h(
          "li",
          { dataset: { player: name }, class: left ? "left" : null },
          h("span", { class: "swatch", style: `--chip:${colourOf(name)}`, "aria-hidden": "true" }),
          // The name wraps rather than being cut; the badges go under it when the row is narrow.
          h(
            "span",
            { class: "who" },
            h("span", { class: "name" }, name),
            left ? h("span", { class: "badge gone" }, "left") : null,
            name === state.banker ? h("span", { class: "badge bank" }, "bank") : null,
            state.leaders.includes(name) && balance !== 0
              ? h("span", { class: "badge leader", title: "leader" }, "★ leads")
              : null,
          ),
          h(
            "span",
            { class: `balance ${balance > 0 ? "up" : balance < 0 ? "down" : ""}`, dataset: { balance } },
            signed(balance),
          ),
        );
      }),
    );
  }

  /** Join, leave and close the night: each enabled only when the rules would take it. */
  function drawSeatControls() {
    const seated = state.seats.length > 0;
    const open = state.entries === "open";
    const out = state.pack.exposed.length;
    $("seat-controls").hidden = !seated;
    $("join").disabled = !open || state.seats.length >= 10;
    $("leave").disabled = !open || state.seats.length <= 2;
    $("close-night").disabled = !(out === 0 || state.pack.complete);
  }

  /** Between nights: the night closed last, as a table and a CSV file. */
  function drawNight() {
    const night = state.last_night;
    $("night").hidden = state.seats.length > 0 || !night;
    if (!night) return;
    $("night-title").textContent = `Night ${night.number}: the results`;
    $("night-table").replaceChildren(...nightTable(night.results));
  }

  let callShown = null;

  function drawCall() {
    const box = $("call");
    if (!state) return;
    const pack = state.pack;
    const atThree = pack.exposed.length === LAST_THREE;
    const results = state.call_results;
    box.hidden = !(atThree || state.calls.length || (pack.complete && results.length));
    if (box.hidden) {
      callShown = null;
      return;
    }
    const three = odds && odds.key === cardsKey(state) ? odds.last_three : null;
    const player = picks.player;
    if (atThree) {
      const left = state.case.flatMap((c) => Array(c.count).fill(c.rank));
      const byColour = three && three.by === "colour";
      const who = player ? ` Tap an order to call it for ${player}, weight ${picks.weight}.` : "";
      const catHop = (state.options || {}).cat_hop_pays || 2;
      $("call-hint").textContent =
        (byColour
          ? `The last three are all ${left[0]}s: name their colours, loser, winner, hock. A right call pays 2 to 1.`
          : `Left: ${left.join(" ")}. Name the order: loser, winner, hock. A right call pays 4 to 1 (${catHop} to 1 with a pair in it).`) +
        who;
    } else {
      $("call-hint").textContent = pack.complete ? "The hock settled the calls." : "";
    }
    $("call-orders").replaceChildren(
      ...(atThree && three && player
        ? three.orders.map((o) => {
            const named = o.order || o.colours;
            return h(
              "button",
              {
                type: "button",
                class: "order",
                dataset: { order: named.join(" ") },
                "aria-label": `${player} calls ${named.join(", ")} for ${picks.weight}; chance ${o.fraction}`,
                onclick: () =>
                  tapped(
                    {
                      type: "call",
                      player,
                      weight: picks.weight,
                      ...(o.order ? { order: o.order } : { colours: o.colours }),
                    },
                    "call-note",
                  ),
              },
              h("span", { class: "named" }, named.join(" · ")),
              h("span", { class: "chance" }, formatChance(o.chance, o.fraction)),
            );
          })
        : []),
    );
    const items = [
      ...state.calls.map((c) =>
        h(
          "li",
          { dataset: { player: c.player } },
          h("span", { class: "swatch", style: `--chip:${colourOf(c.player)}`, "aria-hidden": "true" }),
          `${c.player} calls ${(c.order || c.colours).join(" · ")} for ${c.weight}`,
        ),
      ),
      ...(pack.complete
        ? results.map((r) =>
            h(
              "li",
              { dataset: { player: r.player, outcome: r.outcome } },
              h("span", { class: "swatch", style: `--chip:${colourOf(r.player)}`, "aria-hidden": "true" }),
              `${r.player} ${r.outcome === "called" ? "called it" : "miscalled"}: `,
              h("strong", { class: r.delta > 0 ? "up" : "down" }, signed(r.delta)),
            ),
          )
        : []),
    ];
    $("call-list").replaceChildren(...items);
    // Brought into view as it opens, again once its orders are in, and for the calls' results.
    const shown = `${pack.number}:${pack.exposed.length}:${Boolean(three)}`;
    if (shown !== callShown) {
      callShown = shown;
      box.scrollIntoView({ block: "nearest" });
    }
    // While calls are taken, a player's calls can be taken back (all of them at once).
    const callers = atThree && state.entries === "open" ? [...new Set(state.calls.map((c) => c.player))] : [];
    $("call-back").replaceChildren(
      ...callers.map((name) =>
        h(
          "button",
          {
            type: "button",
            class: "quiet small",
            dataset: { player: name },
            onclick: () => enter({ type: "remove", player: name, call: true }, "call-note"),
          },
          `Take back ${name}'s calls`,
        ),
      ),
    );
  }

  function formatChance(chance, fraction) {
    if (picks.percent) {
      const pct = chance * 100;
      return pct === 0 ? "0%" : pct < 0.1 ? "<0.1%" : `${pct.toFixed(1)}%`;
    }
    return fraction === "0/1" ? "0" : fraction === "1/1" ? "1" : fraction;
  }

  function drawOdds() {
    if (!odds) return;
    const what = {
      soda: "of the first pair, after the soda",
      pair: "of the next pair",
      winner: "of this pair's winner",
      none: "no pair left: the pack in sum",
    }[odds.next];
    $("odds-what").textContent = what;
    // With no pair left every chance is nought: the pack's summary says more.
    $("odds-now").hidden = odds.next === "none";
    drawPackSummary();
    $("odds-form").setAttribute("aria-pressed", String(picks.percent));
    $("odds-form").textContent = picks.percent ? "Show as fractions" : "Show as percentages";
    const best = Math.max(...odds.ranks.map((r) => r.win));
    $("odds-table").replaceChildren(
      h("caption", { class: "sr-only" }, "For each rank, the chance that the next pair makes it lose, win or split"),
      h(
        "thead",
        {},
        h("tr", {}, ...["rank", "left", "lose", "win", "split"].map((t) => h("th", { scope: "col" }, t))),
      ),
      h(
        "tbody",
        {},
        ...odds.ranks.map((r) =>
          h(
            "tr",
            { dataset: { rank: r.rank }, class: r.count ? "" : "dead" },
            h("th", { scope: "row" }, r.rank),
            h("td", {}, String(r.count)),
            h("td", {}, formatChance(r.lose, r.fractions.lose)),
            h("td", { class: r.win === best && best > 0 ? "best" : "" }, formatChance(r.win, r.fractions.win)),
            h("td", {}, formatChance(r.split, r.fractions.split)),
          ),
        ),
      ),
    );
    drawCall();
  }

  /** The pack in a few numbers, once no pair is left in it. */
  function drawPackSummary() {
    const box = $("pack-summary");
    box.hidden = !odds || odds.next !== "none" || !history || !state;
    if (box.hidden) return;
    const sum = packSummary(history, state.pack.number);
    const banker = sum.banker || state.banker;
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    box.replaceChildren(
      h(
        "p",
        { class: "pack-line" },
        `Pack ${sum.number}: ${plural(sum.pairs, "pair")}, ${plural(sum.splits, "split")}, `,
        `${plural(sum.settled, "bet")} settled${sum.calls ? `, ${plural(sum.calls, "call")}` : ""}.`,
      ),
      h(
        "p",
        { class: "pack-bank", dataset: { bank: sum.bank } },
        `The bank${banker ? ` (${banker})` : ""}: `,
        h("strong", { class: sum.bank > 0 ? "up" : sum.bank < 0 ? "down" : "" }, signed(sum.bank)),
        " for the pack",
      ),
      sum.results.length
        ? h(
            "table",
            { class: "odds-table pack-results" },
            h("caption", { class: "sr-only" }, "Each player's result for the pack"),
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "player"), h("th", { scope: "col" }, "this pack"))),
            h(
              "tbody",
              {},
              ...sum.results.map((r) =>
                h(
                  "tr",
                  { dataset: { player: r.player } },
                  h("th", { scope: "row" }, r.player),
                  h("td", { class: r.delta > 0 ? "up" : r.delta < 0 ? "down" : "" }, signed(r.delta)),
                ),
              ),
            ),
          )
        : h("p", { class: "none" }, "No bet was settled in this pack."),
    );
  }

  /** What happened to a bet: the bank collects what is left on the layout at the end. */
  const OUTCOME = { collected: "collected by the bank" };

  function describeSettlement(x) {
    const on = x.rank === null && !x.ranks && !x.high_card ? "the call" : placeName(x);
    const where = `${on}${x.copper ? " coppered" : ""}`;
    return `${x.player} ${signed(x.delta)} (${OUTCOME[x.outcome] || x.outcome} on ${where})`;
  }

  /** One settlement: who, how much, on what. */
  function moveOf(x) {
    return h(
      "span",
      { class: `move ${x.delta > 0 ? "up" : "down"}`, title: describeSettlement(x), dataset: { player: x.player } },
      h("span", { class: "swatch", style: `--chip:${colourOf(x.player)}`, "aria-hidden": "true" }),
      `${x.player} ${signed(x.delta)}`,
      h(
        "small",
        { class: "on", dataset: { outcome: x.outcome } },
        ` on ${placeName(x)}`,
        x.outcome === "collected" ? ", collected by the bank" : "",
      ),
      x.copper ? h("span", { class: "penny", title: "coppered" }) : null,
      x.copper ? h("span", { class: "sr-only" }, "coppered") : null,
    );
  }

  function drawHistory() {
    if (!history) return;
    const packs = history.packs;
    const items = [];
    for (const pair of history.pairs) {
      items.push(
        h(
          "li",
          { dataset: { pack: pair.pack, turn: pair.turn } },
          h("span", { class: "turn" }, `${pair.pack > 1 ? `P${pair.pack} ` : ""}T${pair.turn}`),
          miniCard(pair.loser),
          miniCard(pair.winner),
          pair.split ? h("span", { class: "badge split" }, "split") : null,
          h(
            "span",
            { class: "moves" },
            pair.settlements.length
              ? [
                  ...pair.settlements.map(moveOf),
                  h("span", { class: "move bank" }, `bank ${signed(pair.banker)}`),
                ]
              : h("span", { class: "none" }, "nothing on these ranks"),
          ),
        ),
      );
      const pack = packs.find((p) => p.number === pair.pack);
      if (pair.turn === 25 && pack && pack.calls.length) {
        items.push(
          h(
            "li",
            { class: "calls" },
            h("span", { class: "turn" }, "hock"),
            h("span", { class: "moves" },
              pack.calls.map((x) =>
                h("span", { class: `move ${x.delta > 0 ? "up" : "down"}` },
                  h("span", { class: "swatch", style: `--chip:${colourOf(x.player)}`, "aria-hidden": "true" }),
                  `${x.player} ${signed(x.delta)}`, h("small", {}, " call")),
              )),
          ),
        );
      }
    }
    items.reverse();
    drawPackSummary();
    $("settlements").replaceChildren(
      ...(items.length ? items : [h("li", { class: "none" }, "No pair settled yet.")]),
    );
    chart();
  }

  /** Everyone with a result tonight, those who left too. */
  const participants = () => openNight(state).map((r) => r.player);

  const chart = () => drawChart($("chart"), state && history, state ? participants() : [], colourOf);

  // -- the forms --------------------------------------------------------------------------

  function seatRows(count) {
    const list = $("seat-list");
    while (list.children.length < count) {
      const n = list.children.length + 1;
      list.append(
        h(
          "li",
          {},
          h("label", { class: "sr-only", for: `seat-${n}` }, `Seat ${n}`),
          h("input", {
            id: `seat-${n}`,
            name: "seat",
            type: "text",
            autocomplete: "off",
            placeholder: `Seat ${n}`,
            maxlength: "24",
            oninput: bankerChoices,
          }),
        ),
      );
    }
    while (list.children.length > count) list.lastElementChild.remove();
    $("seat-add").disabled = count >= 10;
    $("seat-remove").disabled = count <= 2;
    bankerChoices();
  }

  function seatNames() {
    return [...$("seat-list").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  }

  function bankerChoices() {
    const select = $("banker-select");
    const chosen = select.value;
    const names = seatNames();
    select.replaceChildren(
      h("option", { value: "" }, "Draw at random"),
      ...names.map((n) => h("option", { value: n, selected: n === chosen }, n)),
    );
  }

  function askToken(message) {
    const form = $("token-form");
    form.hidden = false;
    $("token-error").hidden = !message;
    $("token-error").textContent = message || "";
    $("token-input").focus();
  }

  let toastTimer = null;
  function toast(message, rule) {
    const box = $("toast");
    const text = message.charAt(0).toUpperCase() + message.slice(1);
    box.replaceChildren(h("span", {}, text), ...(rule ? [h("small", { class: "rule" }, rule)] : []));
    box.hidden = false;
    box.dataset.rule = rule || "";
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      box.hidden = true;
    }, 5000);
  }

  let cardPick = { rank: null, suit: null };
  function drawCardDialog() {
    const out = new Set(state.pack.exposed);
    const counts = Object.fromEntries(state.case.map((c) => [c.rank, c.count]));
    $("card-ranks").replaceChildren(
      ...RANKS.map((r) =>
        h(
          "button",
          {
            type: "button",
            class: "choice",
            "aria-pressed": String(r === cardPick.rank),
            disabled: counts[r] === 0,
            dataset: { rank: r },
            onclick: () => {
              cardPick.rank = r;
              if (cardPick.suit && out.has(r + cardPick.suit)) cardPick.suit = null;
              drawCardDialog();
            },
          },
          r,
        ),
      ),
    );
    $("card-suits").replaceChildren(
      ...SUITS.map((suit) =>
        h(
          "button",
          {
            type: "button",
            class: `choice suit ${"HD".includes(suit) ? "red-suit" : ""}`,
            "aria-pressed": String(suit === cardPick.suit),
            "aria-label": SUIT_NAME[suit],
            disabled: cardPick.rank !== null && out.has(cardPick.rank + suit),
            dataset: { suit },
            onclick: () => {
              cardPick.suit = suit;
              drawCardDialog();
            },
          },
          SUIT_SYMBOL[suit],
        ),
      ),
    );
    const ready = cardPick.rank && cardPick.suit;
    $("card-confirm").disabled = !ready;
    $("card-confirm").textContent = ready ? `Enter ${cardText(cardPick.rank + cardPick.suit)}` : "Enter";
  }

  /** Join (asks a name), leave (one of the seated, not the banker), close the night. */
  function wireSeats() {
    const joinDialog = $("join-dialog");
    $("join").addEventListener("click", () => {
      $("join-name").value = "";
      joinDialog.showModal();
    });
    $("join-cancel").addEventListener("click", () => joinDialog.close());
    $("join-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const player = $("join-name").value.trim();
      if (!player) return;
      joinDialog.close();
      post({ type: "join", player });
    });

    const leaveDialog = $("leave-dialog");
    $("leave").addEventListener("click", () => {
      $("leave-list").replaceChildren(
        ...state.seats
          .filter((name) => name !== state.banker)
          .map((name) =>
            h(
              "button",
              {
                type: "button",
                class: "leaver",
                dataset: { player: name },
                onclick: () => {
                  leaveDialog.close();
                  post({ type: "leave", player: name });
                },
              },
              h("span", { class: "swatch", style: `--chip:${colourOf(name)}`, "aria-hidden": "true" }),
              `${name} gets up`,
            ),
          ),
      );
      leaveDialog.showModal();
    });

    const closeDialog = $("close-dialog");
    $("close-night").addEventListener("click", () => {
      $("close-table").replaceChildren(...nightTable(openNight(state)));
      closeDialog.returnValue = "";
      closeDialog.showModal();
    });
    closeDialog.addEventListener("close", () => {
      if (closeDialog.returnValue === "close") post({ type: "close" });
    });

    $("night-csv").addEventListener("click", () => {
      const night = state.last_night;
      if (night) download(`faro-night-${night.number}.csv`, nightCsv(night.number, night.results));
    });
  }

  function wire() {
    $("token-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const value = $("token-input").value.trim();
      if (!value) return;
      localStorage.setItem(TOKEN_KEY, value);
      $("token-input").value = "";
      $("token-form").hidden = true;
    });
    $("token-cancel").addEventListener("click", () => {
      $("token-form").hidden = true;
    });
    $("token-button").addEventListener("click", () => askToken(""));

    $("seat-add").addEventListener("click", () => seatRows($("seat-list").children.length + 1));
    $("seat-remove").addEventListener("click", () => seatRows($("seat-list").children.length - 1));
    $("seating-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const seats = seatNames();
      const banker = $("banker-select").value;
      post({ type: "session", seats, ...(banker ? { banker } : {}) });
    });

    $("copper").addEventListener("click", () => {
      picks.copper = !picks.copper;
      picks.takeOff = false;
      savePicks();
      drawPickers();
    });
    $("take-off").addEventListener("click", () => {
      picks.takeOff = !picks.takeOff;
      drawPickers();
    });

    $("undo-entry").addEventListener("click", takeBack);
    for (const end of ["pointerup", "pointercancel", "scroll"]) document.addEventListener(end, letGo, true);
    $("layout").addEventListener("contextmenu", (e) => e.preventDefault());
    $("checks-dialog").addEventListener("close", () => {
      listing = null;
      hold.fired = false; // the hold's own click went to the list, not to the card
    });
    const againDialog = $("again-dialog");
    againDialog.addEventListener("close", () => {
      const asked = again;
      again = null;
      if (asked && againDialog.returnValue === "again") enter(asked.event, asked.slot);
    });

    wireSeats();

    $("lock").addEventListener("click", () => post({ type: "lock" }));
    $("new-pack").addEventListener("click", () => post({ type: "shuffle" }));
    $("clear").addEventListener("click", () => post({ type: "clear" }));
    $("alarm-clear").addEventListener("click", () => post({ type: "clear" }));

    const voidDialog = $("void-dialog");
    $("undo").addEventListener("click", () => {
      const exposed = state.pack.exposed;
      const last = exposed[exposed.length - 1];
      if (!last) return;
      voidDialog.dataset.card = last;
      $("void-text").textContent =
        `Take back ${cardText(last)} (${cardSpoken(last)}), card ${exposed.length} of this pack? ` +
        "Do it only for a misread. Entries made since that no longer fit are dropped.";
      $("void-confirm").textContent = `Take back ${cardText(last)}`;
      voidDialog.showModal();
    });
    voidDialog.addEventListener("close", () => {
      if (voidDialog.returnValue === "void") post({ type: "void", card: voidDialog.dataset.card });
    });

    const cardDialog = $("card-dialog");
    const enterCard = () => {
      cardPick = { rank: null, suit: null };
      drawCardDialog();
      cardDialog.showModal();
    };
    $("enter-card").addEventListener("click", enterCard);
    $("alarm-card").addEventListener("click", enterCard);
    cardDialog.addEventListener("close", () => {
      if (cardDialog.returnValue === "enter" && cardPick.rank && cardPick.suit) {
        post({ type: "card", card: cardPick.rank + cardPick.suit });
      }
    });

    $("odds-form").addEventListener("click", () => {
      picks.percent = !picks.percent;
      savePicks();
      drawOdds();
    });

    let width = 0;
    new ResizeObserver(() => {
      const w = $("chart").clientWidth;
      if (w !== width) {
        width = w;
        if (history) chart();
      }
    }).observe($("chart"));
  }

  wire();
  if (!token()) askToken("");
  listen();
})();
