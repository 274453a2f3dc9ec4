// What the console's panels draw with: cards, places on the layout, money and colours.

import { h } from "./dom.js";

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
export const RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };

export const cardRank = (code) => code.slice(0, -1);
export const cardSuit = (code) => code.slice(-1);
export const isRed = (code) => "HD".includes(cardSuit(code));
export const cardText = (code) => cardRank(code) + SUIT_SYMBOL[cardSuit(code)];
export const cardSpoken = (code) =>
  `${RANK_NAME[cardRank(code)] || cardRank(code)} of ${SUIT_NAME[cardSuit(code)]}`;
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
/** The class of a sum of money: up, down, or none for nought. */
export const trend = (n) => (n > 0 ? "up" : n < 0 ? "down" : "");

export function miniCard(code, extra) {
  return h(
    "span",
    { class: `mini ${isRed(code) ? "red" : "black"} ${extra || ""}`, title: cardSpoken(code) },
    h("span", { "aria-hidden": "true" }, cardText(code)),
    h("span", { class: "sr-only" }, cardSpoken(code)),
  );
}

// One colour a seat, light enough for dark text on the chip and for a line on the chart.
// None is near the copper marker's orange-brown, so a coppered check reads as coppered.
const PALETTE = [
  "#42a5f5", "#fdd835", "#ff4f8b", "#9ccc65", "#ce93d8",
  "#4dd0e1", "#f5f5f5", "#7986cb", "#f8bbd0", "#90a4ae",
];

/**
 * A participant's colour, theirs all night: by the order they first sat (the balances keep
 * it), so that one getting up does not hand their colour to the next seat.
 */
export const colourOf = (table, name) => {
  const sat = table ? Object.keys(table.balances).indexOf(name) : -1;
  return sat < 0 ? "#8a8a8a" : PALETTE[sat % PALETTE.length];
};

/**
 * A participant's initial, for their checks beside their colour: the first letter, or the
 * first two when someone else tonight shares it (Ann and Abe: "An" and "Ab").
 */
export const initialOf = (table, name) => {
  const first = (n) => n.charAt(0).toUpperCase();
  const names = table ? Object.keys(table.balances) : [];
  const shared = names.some((n) => n !== name && first(n) === first(name));
  return shared ? first(name) + name.charAt(1) : first(name);
};

/** A small disc in a player's colour, beside their name. */
export const swatch = (colour) =>
  h("span", { class: "swatch", style: `--chip:${colour}`, "aria-hidden": "true" });

export const byRankOrder = (a, b) => RANKS.indexOf(a) - RANKS.indexOf(b);
/** Where a bet sits, as a key: its rank, its ranks in rank order ("9-10"), or "high". */
export const placeKey = (p) =>
  p.high_card ? "high" : p.ranks ? [...p.ranks].sort(byRankOrder).join("-") : p.rank;
/** Where a bet or a settlement sat, for people: "9", "9-10", "A-2-K-Q" or "high card". */
export const placeName = (x) => (x.high_card ? "high card" : x.ranks ? x.ranks.join("-") : x.rank);
/** The fields of a bet or a remove that say where: rank, ranks or high_card. */
export const placeFields = (place) =>
  place.high || place.high_card
    ? { high_card: true }
    : place.ranks
      ? { ranks: place.ranks }
      : { rank: place.rank };

/** What happened to a bet: the bank collects what is left on the layout at the end. */
const OUTCOME = { collected: "collected by the bank" };

function describeSettlement(x) {
  const on = x.rank === null && !x.ranks && !x.high_card ? "the call" : placeName(x);
  const where = `${on}${x.copper ? " coppered" : ""}`;
  return `${x.player} ${signed(x.delta)} (${OUTCOME[x.outcome] || x.outcome} on ${where})`;
}

/** One settlement: who, how much, on what. */
export function move(table, x) {
  return h(
    "span",
    { class: `move ${x.delta > 0 ? "up" : "down"}`, title: describeSettlement(x), dataset: { player: x.player } },
    swatch(colourOf(table, x.player)),
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
