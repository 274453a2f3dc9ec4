// The layout: a suit of spades, the places between the cards and the high card, the checks
// on each; a tap bets there (or takes off), holding a finger lists a place's checks.

import { $, h, patch } from "../dom.js";
import { RANK_NAME, byRankOrder, cardRank, colourOf, placeFields, placeKey, placeName } from "../cards.js";

/** Each place's checks, one per player and direction, their weights added up. */
export function stacks(table) {
  const by = {};
  for (const p of table.predictions) {
    const key = `${p.player}|${p.copper}`;
    const stack = (by[placeKey(p)] ||= new Map());
    const chip = stack.get(key) || { player: p.player, copper: p.copper, weight: 0, count: 0 };
    chip.weight += p.weight;
    chip.count += 1;
    stack.set(key, chip);
  }
  return by;
}

/** The checks on ``place``, one per player and direction. */
export const checksOn = (table, place) => [...(stacks(table)[placeKey(placeFields(place))] || new Map()).values()];

export const chipText = (c) => `${c.player} ${c.weight}${c.copper ? " coppered" : ""}`;
export const placeWords = (place) => place.rank || placeName({ ranks: place.ranks, high_card: place.high });
// A check is one player's bets in one direction: it takes off just those, so taking
// off a coppered check leaves the player's ordinary bet on the same place.
export const removeOf = (place, c) => ({ type: "remove", player: c.player, ...placeFields(place), copper: c.copper });

// Holding a finger on a place lists its checks (a tap bets, as ever).
const HOLD = 500;
let hold = { timer: null, fired: false };
const holdOn = (place, actions) => () => {
  clearTimeout(hold.timer);
  hold = { fired: false, timer: setTimeout(() => ((hold.fired = true), actions.listChecks(place)), HOLD) };
};
const letGo = () => clearTimeout(hold.timer);
/** Whether this click ends a hold (which listed the checks) rather than being a tap. */
const held = () => {
  const fired = hold.fired;
  hold.fired = false;
  return fired;
};

/** The checks on a place; past ``room`` of them, the last check shows how many more. */
function chipsOn(table, place, chips, room, actions) {
  const shown = chips.length > room ? chips.slice(0, room - 1) : chips;
  const hidden = chips.slice(shown.length);
  const where = placeWords(place);
  return h(
    "div",
    { class: "chips" },
    shown.map((c) =>
      h(
        "button",
        {
          type: "button",
          key: `${c.player}|${c.copper}`,
          class: "chip" + (c.copper ? " copper" : ""),
          style: `--chip:${colourOf(table, c.player)}`,
          dataset: { player: c.player, weight: c.weight, copper: c.copper },
          title: `${c.player}: ${c.weight}${c.copper ? " coppered" : ""} on ${where}`,
          "aria-label": `Take ${c.player}'s ${c.weight}${c.copper ? " coppered" : ""} off ${where}`,
          onclick: () => actions.enter(removeOf(place, c)),
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
            key: "more",
            class: "chip more",
            style: `--chip:#2b2b2b`,
            title: hidden.map(chipText).join(", "),
            "aria-label": `List the ${chips.length} checks on ${where}`,
            onclick: () => actions.listChecks(place),
          },
          `+${hidden.length}`,
        )
      : null,
  );
}

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

/** The last pair's ranks, for marking them on the layout. */
function lastRanks(table) {
  const last = table.last_pair;
  if (!last || last.pack !== table.pack.number) return {};
  const lo = cardRank(last.loser);
  const wi = cardRank(last.winner);
  return last.split ? { [lo]: "split" } : { [lo]: "lost", [wi]: "won" };
}

/** A tap on a card, between cards or on the high card: a bet there, or taking one off. */
function tapPlace(table, picks, place, actions) {
  if (!table.seats.length) return actions.toast("Seat the table first.");
  if (!picks.player) return actions.toast("Pick a player first.");
  if (picks.takeOff) return actions.enter({ type: "remove", player: picks.player, ...placeFields(place) });
  const bet = { type: "bet", player: picks.player, ...placeFields(place), weight: picks.weight, copper: picks.copper };
  // Copper plays one bet to lose: once the table takes it, copper goes off.
  return actions.tapped(bet).then((taken) => taken && bet.copper && actions.pick({ copper: false }));
}

export function render({ table, picks }, actions) {
  const counts = Object.fromEntries(table.case.map((c) => [c.rank, c.count]));
  const marks = lastRanks(table);
  const byPlace = stacks(table);
  const chipsAt = (key) => [...(byPlace[key] || new Map()).values()];
  const tap = (place) => () => held() || tapPlace(table, picks, place, actions);
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
        key: rank,
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
          onclick: tap({ rank }),
          onpointerdown: holdOn({ rank }, actions),
        },
        h("span", { class: "rank", "aria-hidden": "true" }, rank),
        h("span", { class: "suit", "aria-hidden": "true" }, "♠"),
        h("span", { class: "pips", "aria-hidden": "true" }, "●".repeat(left) + "○".repeat(4 - left)),
      ),
      chipsOn(table, { rank }, chips, 4, actions),
    );
  };
  // A place off the cards: between neighbours, at a corner, or the high-card space.
  const space = (place, kind, text, attrs) => {
    const key = place.high ? "high" : place.ranks.join("-");
    const chips = chipsAt(place.high ? "high" : [...place.ranks].sort(byRankOrder).join("-"));
    const named = place.high ? "the high card" : `${place.ranks.length} cards, ${key}`;
    return h(
      "div",
      { key, class: `${kind}`, dataset: { place: key }, ...attrs },
      h(
        "button",
        {
          type: "button",
          class: "hit",
          dataset: { place: key },
          "aria-label": `Bet on ${named}` + (chips.length ? `; ${chips.map(chipText).join(", ")}` : ""),
          onclick: tap(place),
          onpointerdown: holdOn(place, actions),
        },
        text,
      ),
      chipsOn(table, place, chips, place.high ? 6 : 2, actions),
    );
  };
  const felt = table.felt;
  const options = table.options || {};
  const layout = $("layout");
  layout.dataset.entries = table.entries;
  layout.classList.toggle("taking-off", picks.takeOff);
  patch(
    layout,
    felt.upper.map((r) => spot(r, "upper")),
    spot(felt.seven, "seven"),
    felt.lower.map((r) => spot(r, "lower")),
    options.combinations
      ? betweens(felt).map((b) => space({ ranks: b.ranks }, `between ${b.kind}`, "", { style: `grid-area: ${b.area}` }))
      : [],
    options.high_card ? space({ high: true }, "high-card", "High card") : null,
  );
}

export function wire() {
  for (const end of ["pointerup", "pointercancel", "scroll"]) document.addEventListener(end, letGo, true);
  $("layout").addEventListener("contextmenu", (e) => e.preventDefault());
  // The hold's own click went to the list of checks, not to the card.
  $("checks-dialog").addEventListener("close", () => (hold.fired = false));
}
