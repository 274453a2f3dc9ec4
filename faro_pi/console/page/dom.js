// What every part of the page draws with: elements, cards, and where a bet sits.

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
export const RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };

export const $ = (id) => document.getElementById(id);

/** An element: h("button", {class: "x", onclick: f}, "text", child...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
/** An SVG element, as h() makes an HTML one. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, value);
  for (const child of children) el.append(child instanceof Node ? child : String(child));
  return el;
}

export const cardRank = (code) => code.slice(0, -1);
export const cardSuit = (code) => code.slice(-1);
export const isRed = (code) => "HD".includes(cardSuit(code));
export const cardText = (code) => cardRank(code) + SUIT_SYMBOL[cardSuit(code)];
export const cardSpoken = (code) =>
  `${RANK_NAME[cardRank(code)] || cardRank(code)} of ${SUIT_NAME[cardSuit(code)]}`;
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

export function miniCard(code, extra) {
  return h(
    "span",
    { class: `mini ${isRed(code) ? "red" : "black"} ${extra || ""}`, title: cardSpoken(code) },
    h("span", { "aria-hidden": "true" }, cardText(code)),
    h("span", { class: "sr-only" }, cardSpoken(code)),
  );
}

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
