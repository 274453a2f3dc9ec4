// The table's controls: lock, new pack, undo the last card, a card by hand, clear alarms.

import { $ } from "../dom.js";

export function render({ table }) {
  const pack = table.pack;
  $("lock").disabled = !table.can_lock;
  $("new-pack").disabled = !pack.complete;
  $("undo").disabled = pack.stage === "shuffled";
  $("enter-card").disabled = pack.complete;
  $("clear").disabled = table.alarms.length === 0;
}

export function wire(actions) {
  $("lock").addEventListener("click", () => actions.post({ type: "lock" }));
  $("new-pack").addEventListener("click", () => actions.post({ type: "shuffle" }));
  $("clear").addEventListener("click", () => actions.post({ type: "clear" }));
  $("undo").addEventListener("click", actions.voidLast);
  $("enter-card").addEventListener("click", actions.enterCard);
}
