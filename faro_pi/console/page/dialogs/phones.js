// The phones logged in (GET /api/phones), pairing another (POST /api/pair: the OLED's one-use
// code, shown here for the other phone to scan), and logging out (POST /api/logout): this
// phone, or another from the list. The daemon ends the session, so the cookie opens nothing any more;
// a token typed into this page is forgotten too.

import { $, h, patch } from "../dom.js";
import { forgetToken, token } from "../api.js";

const headers = () => {
  const all = { "Content-Type": "application/json" };
  if (token()) all.Authorization = `Bearer ${token()}`;
  return all;
};

const logout = (body) =>
  fetch("/api/logout", { method: "POST", headers: headers(), body: JSON.stringify(body) });

/** "just now", "12 min ago", "3 h 5 min ago": from the daemon's clock, as it gave ``now``. */
function ago(seconds) {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min ago`;
}

function row(phone, now, actions) {
  return h(
    "li",
    { key: phone.id, dataset: { phone: phone.id, this: phone.this } },
    h("span", { class: "device" }, phone.device, phone.this ? h("small", { class: "badge" }, "this phone") : null),
    h("small", { class: "when" }, `logged in ${ago(now - phone.since)} · seen ${ago(now - phone.seen)}`),
    phone.this
      ? h("span")
      : h(
          "button",
          {
            type: "button",
            class: "small danger",
            "aria-label": `Log out ${phone.device}, logged in ${ago(now - phone.since)}`,
            onclick: () => end(phone, actions),
          },
          "End",
        ),
  );
}

/** Asks the daemon for the list and shows it; says so when this phone may not see it. */
async function show(actions) {
  let answer;
  try {
    answer = await fetch("/api/phones", { headers: headers() });
  } catch (err) {
    patch($("phones-list"), h("li", { class: "none" }, "The table cannot be reached."));
    return;
  }
  const loggedIn = answer.ok;
  $("logout").hidden = !loggedIn;
  $("pair-button").hidden = !loggedIn;
  if (!loggedIn) {
    $("phones-this").textContent =
      "This phone is not logged in: it follows the table, and changes need the table's code or the token.";
    patch($("phones-list"));
    return;
  }
  const { now, phones } = await answer.json();
  const mine = phones.find((phone) => phone.this);
  $("phones-this").textContent = mine
    ? `This phone (${mine.device}) logged in ${ago(now - mine.since)}.`
    : "This phone holds the console's token.";
  patch(
    $("phones-list"),
    phones.length
      ? phones.map((phone) => row(phone, now, actions))
      : h("li", { class: "none" }, "No phone is logged in by the table's code or a token link."),
  );
}

let pairTimer = null;

function unpair() {
  clearInterval(pairTimer);
  pairTimer = null;
  $("pair-code").hidden = true;
  $("pair-image").removeAttribute("src");
}

/** Shows a new pairing code for another phone, and how long it stays good; it goes when
 * its time is out (the table voids it then, and once it is used). */
async function pair(actions) {
  let answer;
  try {
    answer = await fetch("/api/pair", { method: "POST", headers: headers(), body: "{}" });
  } catch (err) {
    actions.toast("The table cannot be reached: no code was made.");
    return;
  }
  if (!answer.ok) {
    actions.toast((await answer.json().catch(() => ({}))).error || `refused (${answer.status})`);
    return;
  }
  const { link, seconds, qr } = await answer.json();
  unpair();
  $("pair-image").src = qr;
  $("pair-link").textContent = link;
  $("pair-link").href = link;
  $("pair-code").hidden = false;
  const until = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.round((until - Date.now()) / 1000);
    if (left <= 0) return unpair();
    $("pair-says").textContent = `Scan it with the other phone: good once, for ${left} s more.`;
  };
  tick();
  pairTimer = setInterval(tick, 1000);
}

async function end(phone, actions) {
  try {
    const answer = await logout({ phone: phone.id });
    if (answer.ok || answer.status === 404) actions.toast(`Logged out: ${phone.device}.`);
    else actions.toast((await answer.json()).error || `refused (${answer.status})`);
  } catch (err) {
    actions.toast("The table cannot be reached: nobody was logged out.");
  }
  await show(actions);
}

async function logOutThisPhone(actions) {
  try {
    await logout({}); // a 401 says this phone's session had ended already
  } catch (err) {
    actions.toast("The table cannot be reached: this phone is still logged in.");
    return;
  }
  forgetToken();
  $("phones-dialog").close();
  actions.toast("This phone is logged out. Scan the table's code, or enter the token, to make changes.");
}

export function wire(actions) {
  $("phones-button").addEventListener("click", () => {
    patch($("phones-list"));
    $("phones-this").textContent = "…";
    $("phones-dialog").showModal();
    show(actions);
  });
  $("logout").addEventListener("click", () => logOutThisPhone(actions));
  $("pair-button").addEventListener("click", () => pair(actions));
  $("phones-dialog").addEventListener("close", unpair);
  // The token's form lies over the page: the dialog goes first.
  $("token-button").addEventListener("click", () => $("phones-dialog").close());
}
