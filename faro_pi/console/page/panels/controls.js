// The table's controls: lock, new pack, undo the last card, a card by hand, clear alarms.

import { $ } from "../dom.js";

export function render({ table, link }) {
  const pack = table.pack;
  const down = link !== "live"; // nothing reaches the table: nothing to press
  $("lock").disabled = down || !table.can_lock;
  $("new-pack").disabled = down || !pack.complete;
  $("undo").disabled = down || pack.stage === "shuffled";
  $("enter-card").disabled = down || pack.complete;
  $("clear").disabled = down || table.alarms.length === 0;
}

export function wire(actions) {
  $("lock").addEventListener("click", () => actions.post({ type: "lock" }));
  $("new-pack").addEventListener("click", () => actions.post({ type: "shuffle" }));
  $("clear").addEventListener("click", () => actions.post({ type: "clear" }));
  $("undo").addEventListener("click", actions.voidLast);
  $("enter-card").addEventListener("click", actions.enterCard);
}
