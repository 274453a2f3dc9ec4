// What is out of the shoe: the case keeper's grid (its LEDs) and the piles of cards out.

import { $, RANKS, SUITS, SUIT_SYMBOL, cardText, h, miniCard } from "./dom.js";

export function drawCase(state) {
  const out = new Set(state.pack.exposed);
  const latest = state.pack.exposed[state.pack.exposed.length - 1];
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, h("span", { class: "sr-only" }, "suit")),
    ...RANKS.map((r) => h("th", { scope: "col" }, r)),
  );
  const rows = SUITS.map((suit) =>
    h(
      "tr",
      {},
      h("th", { scope: "row", class: "HD".includes(suit) ? "red-suit" : "" }, SUIT_SYMBOL[suit]),
      ...RANKS.map((r) => {
        const code = r + suit;
        const lit = !out.has(code);
        return h(
          "td",
          {
            class: (lit ? "lit" : "out") + (code === latest ? " latest" : ""),
            dataset: { card: code },
            title: `${cardText(code)} ${lit ? "in the shoe" : "out"}`,
          },
          h("span", { class: "led", "aria-hidden": "true" }),
          h("span", { class: "sr-only" }, `${cardText(code)} ${lit ? "in the shoe" : "out"}`),
        );
      }),
    ),
  );
  const counts = h(
    "tr",
    { class: "counts" },
    h("th", { scope: "row" }, h("span", { "aria-hidden": "true" }, "#"),
      h("span", { class: "sr-only" }, "left")),
    ...state.case.map((c) => h("td", { class: c.count ? "" : "none" }, String(c.count))),
  );
  $("case-grid").replaceChildren(
    h("caption", { class: "sr-only" }, "Case keeper: lit cards are still in the shoe"),
    h("thead", {}, head),
    h("tbody", {}, ...rows, counts),
  );
}

export function drawPiles(state) {
  const pack = state.pack;
  const exposed = pack.exposed;
  const losers = [];
  const winners = [];
  exposed.forEach((code, i) => {
    if (i === 0 || i === 51) return;
    (i % 2 === 1 ? losers : winners).push(code);
  });
  const pile = (name, cards, extra) =>
    h(
      "div",
      { class: "pile", dataset: { pile: name } },
      h("span", { class: "pile-name" }, name, extra ? h("small", {}, ` ${extra}`) : null),
      h("div", { class: "fan" }, cards.length ? cards.map((c) => miniCard(c)) : h("span", { class: "none" }, "—")),
    );
  $("pile-list").replaceChildren(
    pile("soda", pack.soda ? [pack.soda] : []),
    pile("losers", losers, losers.length ? `(${losers.length})` : ""),
    pile("winners", winners, winners.length ? `(${winners.length})` : ""),
    pile("hock", pack.hock ? [pack.hock] : []),
  );
}
