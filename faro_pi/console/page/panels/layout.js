// The layout: a suit of spades, the high card, the checks on each and on the combinations
// (under the cards); a tap bets there (or takes off), holding a finger lists a place's checks.

import { $, h, patch } from "../dom.js";
import { RANK_NAME, byRankOrder, cardRank, colourOf, initialOf, placeFields, placeKey, placeName } from "../cards.js";
import { combination, combinations, partners } from "../combine.js";

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
          // The initial shows before the weight (CSS), so the check's text stays its weight.
          dataset: { player: c.player, weight: c.weight, copper: c.copper, initial: initialOf(table, c.player) },
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

/** The last pair's ranks, for marking them on the layout. */
function lastRanks(table) {
  const last = table.last_pair;
  if (!last || last.pack !== table.pack.number) return {};
  const lo = cardRank(last.loser);
  const wi = cardRank(last.winner);
  return last.split ? { [lo]: "split" } : { [lo]: "lost", [wi]: "won" };
}

/** A tap on a card (or the high card): a bet there, or taking one off. */
function tapPlace(table, picks, place, actions) {
  if (!table.seats.length) return actions.toast("Seat the table first.");
  if (!picks.player) return actions.toast("Pick a player first.");
  const combined = Boolean(place.ranks);
  // Copper plays one bet to lose, a combination is one bet too: once taken, they go off.
  const done = (taken) => taken && actions.pick({ copper: false, combine: combined ? false : picks.combine, first: null });
  if (picks.takeOff) {
    return actions.enter({ type: "remove", player: picks.player, ...placeFields(place) }).then(done);
  }
  const bet = { type: "bet", player: picks.player, ...placeFields(place), weight: picks.weight, copper: picks.copper };
  return actions.tapped(bet).then(done);
}

/** A tap on a card: its rank; with Combine on, the first card of a combination, then the second. */
function tapCard(table, picks, rank, actions) {
  if (!picks.combine) return tapPlace(table, picks, { rank }, actions);
  if (!table.seats.length) return actions.toast("Seat the table first.");
  if (picks.first === null || picks.first === rank) return actions.pick({ first: picks.first === rank ? null : rank });
  const place = combination(table.felt, picks.first, rank);
  // Not a neighbour of the first: this card is the first instead.
  return place ? tapPlace(table, picks, place, actions) : actions.pick({ first: rank });
}

/** The combinations with checks on them, in a strip under the cards: the place and its checks. */
function combos(table, chipsAt, actions) {
  const held = combinations(table.felt)
    .map((place) => ({ place, key: place.ranks.join("-"), chips: chipsAt([...place.ranks].sort(byRankOrder).join("-")) }))
    .filter((c) => c.chips.length);
  return h(
    "div",
    { key: "combos", class: "combos", "aria-label": "Checks on combinations" },
    held.map(({ place, key, chips }) =>
      h(
        "div",
        { key, class: `between ${place.ranks.length === 4 ? "corner" : "two"}`, dataset: { place: key } },
        h("span", { class: "between-name" }, key),
        chipsOn(table, place, chips, 3, actions),
      ),
    ),
  );
}

export function render({ table, picks }, actions) {
  const counts = Object.fromEntries(table.case.map((c) => [c.rank, c.count]));
  const marks = lastRanks(table);
  const byPlace = stacks(table);
  const chipsAt = (key) => [...(byPlace[key] || new Map()).values()];
  const tap = (place) => () => held() || tapPlace(table, picks, place, actions);
  const near = picks.combine && picks.first !== null ? partners(table.felt, picks.first) : new Set();
  // Two checks fit on a phone's card, three on a tablet's; past that, the last shows how many more.
  const room = $("layout").clientWidth / 7 >= 64 ? 3 : 2;
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
        class:
          `spot ${where}` +
          (left === 0 ? " dead" : "") +
          (marks[rank] ? ` ${marks[rank]}` : "") +
          (picks.combine && picks.first === rank ? " chosen" : "") +
          (near.has(rank) ? " partner" : ""),
        dataset: { rank },
      },
      h(
        "button",
        {
          type: "button",
          class: "card",
          "aria-label": label,
          dataset: { rank },
          onclick: () => held() || tapCard(table, picks, rank, actions),
          onpointerdown: holdOn({ rank }, actions),
        },
        h("span", { class: "rank", "aria-hidden": "true" }, rank),
        h("span", { class: "suit", "aria-hidden": "true" }, "♠"),
        h("span", { class: "pips", "aria-hidden": "true" }, "●".repeat(left) + "○".repeat(4 - left)),
      ),
      chipsOn(table, { rank }, chips, room, actions),
    );
  };
  // The high-card space, at the dealer's edge.
  const highCard = () => {
    const chips = chipsAt("high");
    return h(
      "div",
      { key: "high", class: "high-card", dataset: { place: "high" } },
      h(
        "button",
        {
          type: "button",
          class: "hit",
          dataset: { place: "high" },
          "aria-label": "Bet on the high card" + (chips.length ? `; ${chips.map(chipText).join(", ")}` : ""),
          onclick: tap({ high: true }),
          onpointerdown: holdOn({ high: true }, actions),
        },
        "High card",
      ),
      chipsOn(table, { high: true }, chips, 3, actions),
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
    options.high_card || options.combinations
      ? h(
          "div",
          { key: "edge", class: "edge" },
          options.high_card ? highCard() : null,
          options.combinations ? combos(table, chipsAt, actions) : null,
        )
      : null,
  );
}

export function wire() {
  for (const end of ["pointerup", "pointercancel", "scroll"]) document.addEventListener(end, letGo, true);
  $("layout").addEventListener("contextmenu", (e) => e.preventDefault());
  // The hold's own click went to the list of checks, not to the card.
  $("checks-dialog").addEventListener("close", () => (hold.fired = false));
}
