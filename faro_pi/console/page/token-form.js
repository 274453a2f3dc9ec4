// The form that asks for the console's token: at the first visit, and when it is refused.

import { $ } from "./dom.js";
import { keepToken } from "./api.js";

export function ask(message) {
  $("token-form").hidden = false;
  $("token-error").hidden = !message;
  $("token-error").textContent = message || "";
  $("token-input").focus({ preventScroll: true }); // the form lies over the page: nothing to scroll to
}

export function wire() {
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("token-input").value.trim();
    if (!value) return;
    keepToken(value);
    $("token-input").value = "";
    $("token-form").hidden = true;
  });
  $("token-cancel").addEventListener("click", () => {
    $("token-form").hidden = true;
  });
  $("token-button").addEventListener("click", () => ask(""));
}
