// Join (asks a name), leave (one of the seated, not the banker), close the night (shows it).

import { $, h, patch } from "../dom.js";
import { colourOf, swatch } from "../cards.js";
import { nightTable, openNight } from "../night.js";
import { players } from "../picks.js";

export function join() {
  $("join-name").value = "";
  $("join-dialog").showModal();
}

export function leave(table, actions) {
  const dialog = $("leave-dialog");
  patch(
    $("leave-list"),
    players(table).map((name) =>
      h(
        "button",
        {
          type: "button",
          key: name,
          class: "leaver",
          dataset: { player: name },
          onclick: () => {
            dialog.close();
            actions.post({ type: "leave", player: name });
          },
        },
        swatch(colourOf(table, name)),
        `${name} gets up`,
      ),
    ),
  );
  dialog.showModal();
}

export function closeNight(table) {
  const dialog = $("close-dialog");
  patch($("close-table"), nightTable(openNight(table)));
  dialog.returnValue = "";
  dialog.showModal();
}

export function wire(actions) {
  const joinDialog = $("join-dialog");
  $("join-cancel").addEventListener("click", () => joinDialog.close());
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const player = $("join-name").value.trim();
    if (!player) return;
    joinDialog.close();
    actions.post({ type: "join", player });
  });
  const closeDialog = $("close-dialog");
  closeDialog.addEventListener("close", () => {
    if (closeDialog.returnValue === "close") actions.post({ type: "close" });
  });
}
