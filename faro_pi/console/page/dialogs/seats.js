// Join (asks a name), leave (one of the seated, not the banker), pass the bank (to one of
// them, between packs), close the night (shows it).

import { $, h, patch } from "../dom.js";
import { colourOf, swatch } from "../cards.js";
import { nightTable, openNight } from "../night.js";
import { players } from "../picks.js";

export function join() {
  $("join-name").value = "";
  $("join-dialog").showModal();
}

export function leave(table, actions) {
  pickPlayer(table, "leave", (name) => actions.post({ type: "leave", player: name }), "gets up");
}

export function passBank(table, actions) {
  pickPlayer(table, "bank", (name) => actions.post({ type: "bank", player: name }), "banks");
}

/** Offers every seated player but the banker in dialog ``which``; a tap does ``then``. */
function pickPlayer(table, which, then, says) {
  const dialog = $(`${which}-dialog`);
  patch(
    $(`${which}-list`),
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
            then(name);
          },
        },
        swatch(colourOf(table, name)),
        `${name} ${says}`,
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
