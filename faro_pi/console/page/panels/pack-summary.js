// The pack in a few numbers, once no pair is left in it.

import { $, h, patch } from "../dom.js";
import { signed, trend } from "../cards.js";
import { packSummary } from "../summary.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function render({ table, odds, history }) {
  const box = $("pack-summary");
  box.hidden = !odds || odds.next !== "none" || !history;
  if (box.hidden) return;
  const sum = packSummary(history, table.pack.number);
  const banker = sum.banker || table.banker;
  patch(
    box,
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
      h("strong", { class: trend(sum.bank) }, signed(sum.bank)),
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
            sum.results.map((r) =>
              h(
                "tr",
                { key: r.player, dataset: { player: r.player } },
                h("th", { scope: "row" }, r.player),
                h("td", { class: trend(r.delta) }, signed(r.delta)),
              ),
            ),
          ),
        )
      : h("p", { class: "none" }, "No bet was settled in this pack."),
  );
}
