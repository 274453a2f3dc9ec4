// The odds of the next pair for each rank, exactly, from the cards left in the shoe.

import { $, h, patch } from "../dom.js";
import { formatChance } from "../chance.js";

const WHAT = {
  soda: "of the first pair, after the soda",
  pair: "of the next pair",
  winner: "of this pair's winner",
  none: "no pair left: the pack in sum",
};

export function render({ odds, picks }) {
  $("odds-form").setAttribute("aria-pressed", String(picks.percent));
  $("odds-form").textContent = picks.percent ? "Show as fractions" : "Show as percentages";
  if (!odds) return;
  $("odds-what").textContent = WHAT[odds.next];
  // With no pair left every chance is nought: the pack's summary says more.
  $("odds-now").hidden = odds.next === "none";
  const best = Math.max(...odds.ranks.map((r) => r.win));
  const chance = (value, fraction) => formatChance(picks.percent, value, fraction);
  patch(
    $("odds-table"),
    h("caption", { class: "sr-only" }, "For each rank, the chance that the next pair makes it lose, win or split"),
    h("thead", {}, h("tr", {}, ["rank", "left", "lose", "win", "split"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      odds.ranks.map((r) =>
        h(
          "tr",
          { key: r.rank, dataset: { rank: r.rank }, class: r.count ? "" : "dead" },
          h("th", { scope: "row" }, r.rank),
          h("td", {}, String(r.count)),
          h("td", {}, chance(r.lose, r.fractions.lose)),
          h("td", { class: r.win === best && best > 0 ? "best" : "" }, chance(r.win, r.fractions.win)),
          h("td", {}, chance(r.split, r.fractions.split)),
        ),
      ),
    ),
  );
}

export function wire(actions) {
  $("odds-form").addEventListener("click", () => actions.pick((p) => ({ percent: !p.percent })));
}
