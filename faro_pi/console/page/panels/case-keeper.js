// The case keeper's grid, as its LEDs show it: lit, still in the shoe; the count left a rank.

import { $, h, patch } from "../dom.js";
import { RANKS, SUITS, SUIT_SYMBOL, cardText } from "../cards.js";

export function render({ table }) {
  const out = new Set(table.pack.exposed);
  const latest = table.pack.exposed[table.pack.exposed.length - 1];
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, h("span", { class: "sr-only" }, "suit")),
    RANKS.map((r) => h("th", { scope: "col" }, r)),
  );
  const rows = SUITS.map((suit) =>
    h(
      "tr",
      {},
      h("th", { scope: "row", class: "HD".includes(suit) ? "red-suit" : "" }, SUIT_SYMBOL[suit]),
      RANKS.map((r) => {
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
    h("th", { scope: "row" }, h("span", { "aria-hidden": "true" }, "#"), h("span", { class: "sr-only" }, "left")),
    table.case.map((c) => h("td", { class: c.count ? "" : "none" }, String(c.count))),
  );
  patch(
    $("case-grid"),
    h("caption", { class: "sr-only" }, "Case keeper: lit cards are still in the shoe"),
    h("thead", {}, head),
    h("tbody", {}, rows, counts),
  );
}
