// Teaching a new deck from the camera's dialog: the lookout names it, the dealer deals it
// once through the box in factory order, and the camera reader says how far it is
// (GET /api/camera/teach, a second apart while the dialog is open). No card of that deal
// goes to the table.

import { $ } from "../dom.js";
import { token } from "../api.js";

const EVERY = 1000;
const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const UNDER_WAY = new Set(["dealing", "teaching"]);
let timer = null;

const headers = (more = {}) => (token() ? { Authorization: `Bearer ${token()}`, ...more } : more);

async function answerOf(response) {
  const body = await response.json().catch(() => ({}));
  return response.ok ? body : { error: body.error || `The table answered ${response.status}.` };
}

function show(lesson) {
  const busy = Boolean(lesson.asked) || (UNDER_WAY.has(lesson.state) && !lesson.error);
  $("teach-cancel").hidden = !busy;
  $("teach-start").disabled = busy;
  let said = lesson.said || "";
  if (lesson.asked && !lesson.error) said = "Asking the camera…";
  if (lesson.state === "taught" && !lesson.asked) said = `Taught: ${said}`;
  if (lesson.state === "none" && !lesson.asked) said = "";
  $("teach-said").textContent = lesson.error ? `${said ? `${said}. ` : ""}${lesson.error}` : said;
  const refused = $("teach-refused");
  refused.replaceChildren(
    ...Object.entries(lesson.refused || {}).map(([card, why]) => {
      const item = document.createElement("li");
      item.textContent = `${card} not taught: ${why}`;
      return item;
    }),
  );
}

async function follow() {
  clearTimeout(timer);
  try {
    show(await answerOf(await fetch("/api/camera/teach", { headers: headers(), cache: "no-store" })));
  } catch (err) {
    $("teach-said").textContent = "The table cannot be reached.";
  }
  if ($("camera-dialog").open) timer = setTimeout(follow, EVERY);
}

async function ask(body) {
  try {
    const response = await fetch("/api/camera/teach", {
      method: "POST",
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify(body),
    });
    show(await answerOf(response));
  } catch (err) {
    $("teach-said").textContent = "The table cannot be reached.";
  }
  follow();
}

function start() {
  const name = $("teach-name").value.trim().toLowerCase();
  if (!NAME.test(name)) {
    $("teach-said").textContent = "A deck's name is lowercase letters, digits and dashes, 1 to 40.";
    return;
  }
  ask({ deck: name });
}

export function wire() {
  $("teach-start").addEventListener("click", start);
  $("teach-cancel").addEventListener("click", () => ask({ cancel: true }));
  $("teach-name").addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault(); // the dialog's form would close it
    start();
  });
  $("camera-view").addEventListener("click", follow);
  $("camera-dialog").addEventListener("close", () => clearTimeout(timer));
}
