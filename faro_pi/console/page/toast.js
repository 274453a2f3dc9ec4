// A message that shows for a few seconds: a refusal in words (its rule's code in data-rule),
// or what to do first.

import { $, h, patch } from "./dom.js";

let timer = null;

export function toast(message, rule) {
  const box = $("toast");
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  patch(box, h("span", {}, text)); // the rule's code is for tests and logs: data-rule
  box.hidden = false;
  box.dataset.rule = rule || "";
  clearTimeout(timer);
  timer = setTimeout(() => {
    box.hidden = true;
  }, 5000);
}
