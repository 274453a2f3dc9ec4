// The list of every check on one place: its owner, weight and direction, and taking it off.
// Opened by holding a place, or by a place's "+n"; it follows the table while open.

import { $, h, patch } from "../dom.js";
import { colourOf, swatch } from "../cards.js";
import { checksOn, placeWords, removeOf } from "../panels/layout.js";

/** The place whose checks the list shows, while it is open. */
let listing = null;

export function open(place, actions) {
  listing = place;
  actions.redraw();
  const dialog = $("checks-dialog");
  if (!dialog.open) dialog.showModal();
}

export function render({ table }, actions) {
  if (!listing) return;
  const place = listing;
  const chips = checksOn(table, place);
  const where = placeWords(place);
  $("checks-title").textContent = place.high ? "On the high card" : `On ${where}`;
  const item = (c) =>
    h(
      "li",
      { key: `${c.player}|${c.copper}`, dataset: { player: c.player, copper: c.copper } },
      swatch(colourOf(table, c.player)),
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
            actions.enter(removeOf(place, c));
          },
        },
        "Take off",
      ),
    );
  patch($("checks-list"), chips.length ? chips.map(item) : h("li", { class: "none" }, "No checks here."));
}

export function wire() {
  $("checks-dialog").addEventListener("close", () => (listing = null));
}
