// The balances: each participant's result tonight, those who left too; join, leave, pass
// the bank, close.

import { $, h, patch } from "../dom.js";
import { colourOf, signed, swatch, trend } from "../cards.js";
import { openNight } from "../night.js";

export function render({ table }) {
  const seated = table.seats.length > 0;
  const open = table.entries === "open";
  // Join, leave and close the night: each enabled only when the rules would take it.
  $("seat-controls").hidden = !seated;
  $("seat-why").hidden = !seated;
  const full = table.seats.length >= 10;
  const few = table.seats.length <= 2;
  $("join").disabled = !open || full;
  $("leave").disabled = !open || few;
  const betweenPacks = ["shuffled", "hock"].includes(table.pack.stage);
  $("close-night").disabled = !betweenPacks;
  $("pass-bank").disabled = !betweenPacks;
  $("seat-why").textContent = seatsWhy(table, open, full, few, betweenPacks);
  if (!seated) {
    patch($("balances"), h("li", { class: "none" }, "Nobody is seated yet."));
    return;
  }
  patch(
    $("balances"),
    openNight(table).map(({ player: name, balance, left }) =>
      h(
        "li",
        { key: name, dataset: { player: name }, class: left ? "left" : null },
        swatch(colourOf(table, name)),
        // The name wraps rather than being cut; the badges go under it when the row is narrow.
        h(
          "span",
          { class: "who" },
          h("span", { class: "name" }, name),
          left ? h("span", { class: "badge gone" }, "left") : null,
          name === table.banker ? h("span", { class: "badge bank" }, "bank") : null,
          table.leaders.includes(name) && balance !== 0
            ? h("span", { class: "badge leader", title: "leader" }, "★ leads")
            : null,
        ),
        h("span", { class: `balance ${trend(balance)}`, dataset: { balance } }, signed(balance)),
      ),
    ),
  );
}

/** Why a seat control is off, in words beside them: a greyed button alone says nothing. */
function seatsWhy(table, open, full, few, betweenPacks) {
  const why = [];
  if (!open) {
    why.push(
      table.pack.complete
        ? "Join and leave once a new pack is started."
        : "Join and leave between turns, while entries are open.",
    );
  } else {
    if (full) why.push("The table is full: 10 are seated.");
    if (few) why.push("Two must stay seated: close the night instead of leaving.");
  }
  if (!betweenPacks) why.push("The bank passes and the night closes between packs: before the soda or after the hock.");
  return why.join(" ");
}

export function wire(actions) {
  $("join").addEventListener("click", actions.join);
  $("leave").addEventListener("click", actions.leave);
  $("pass-bank").addEventListener("click", actions.passBank);
  $("close-night").addEventListener("click", actions.closeNight);
}
