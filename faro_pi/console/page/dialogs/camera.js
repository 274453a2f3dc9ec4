// The camera's view, to aim it from a phone: while this is open, a still a second with the
// card's outline as the finder sees it (green when the light passes, red when not) and the
// light check's verdict, as the doctor's "light" gives it.

import { $ } from "../dom.js";
import { token } from "../api.js";

const EVERY = 1000;
let timer = null;
let shown = null;

async function look() {
  const said = $("camera-light");
  try {
    const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
    const answer = await fetch("/api/camera/view.jpg", { headers, cache: "no-store" });
    if (answer.ok) {
      const blob = await answer.blob();
      if (shown) URL.revokeObjectURL(shown);
      shown = URL.createObjectURL(blob);
      $("camera-image").src = shown;
      $("camera-image").hidden = false;
      said.textContent = `Light: ${answer.headers.get("X-Light") || "no verdict"}`;
    } else {
      const body = await answer.json().catch(() => ({}));
      said.textContent = body.error || `The table answered ${answer.status}.`;
    }
  } catch (err) {
    said.textContent = "The table cannot be reached.";
  }
  if ($("camera-dialog").open) timer = setTimeout(look, EVERY);
}

export function wire() {
  $("camera-view").addEventListener("click", () => {
    $("camera-image").hidden = true;
    $("camera-light").textContent = "Asking the camera…";
    $("camera-dialog").showModal();
    clearTimeout(timer);
    look();
  });
  $("camera-dialog").addEventListener("close", () => clearTimeout(timer));
}
