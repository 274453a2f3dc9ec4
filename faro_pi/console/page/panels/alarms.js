// The alarms banner: what the table raised, entering the card the reader missed, clearing.

import { $, h, patch } from "../dom.js";

export function render({ table }) {
  const alarms = table.alarms;
  $("alarms").hidden = alarms.length === 0;
  $("alarm-card").hidden = !alarms.some((a) => a.kind === "noread") || table.pack.complete;
  patch($("alarm-list"), alarms.map((a) => h("li", { dataset: { kind: a.kind } }, a.text)));
}

export function wire(actions) {
  $("alarm-card").addEventListener("click", actions.enterCard);
  $("alarm-clear").addEventListener("click", () => actions.post({ type: "clear" }));
}
