// Undoing the last card, for a misread: asked first, since entries since may be dropped.

import { $ } from "../dom.js";
import { cardSpoken, cardText } from "../cards.js";

export function open(table) {
  const exposed = table.pack.exposed;
  const last = exposed[exposed.length - 1];
  if (!last) return;
  const dialog = $("void-dialog");
  dialog.dataset.card = last;
  $("void-text").textContent =
    `Take back ${cardText(last)} (${cardSpoken(last)}), card ${exposed.length} of this pack? ` +
    "Do it only for a misread. Entries made since that no longer fit are dropped.";
  $("void-confirm").textContent = `Take back ${cardText(last)}`;
  dialog.showModal();
}

export function wire(actions) {
  const dialog = $("void-dialog");
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "void") actions.post({ type: "void", card: dialog.dataset.card });
  });
}
