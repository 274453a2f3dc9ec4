// The same tap twice at once: asked about, not entered twice.

import { $ } from "../dom.js";

let answer = null;

/** Asks whether ``said`` is to be entered a second time; resolves true if so. */
export function ask(said) {
  const dialog = $("again-dialog");
  $("again-text").textContent = `${said}: tapped twice. Enter it a second time?`;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => (answer = resolve));
}

export function wire() {
  const dialog = $("again-dialog");
  dialog.addEventListener("close", () => {
    const resolve = answer;
    answer = null;
    if (resolve) resolve(dialog.returnValue === "again");
  });
}
