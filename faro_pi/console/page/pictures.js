// The camera's stills of the cards: which cards of the night have one (GET /api/pictures),
// each shown on a tap, and the still of a no-read. A still is fetched with the console's
// token (or its session cookie), as a change is, and kept in this page as an object URL.

import { $, h } from "./dom.js";
import { token } from "./api.js";
import { cardSpoken, miniCard } from "./cards.js";
import { cardsKey, store, subscribe } from "./store.js";

let cards = {}; // "pack:card" -> the still's hash
let askedFor = null;
const urls = new Map(); // hash -> object URL, or null while it is fetched
let redraw = () => {};

const get = (url) => fetch(url, { headers: token() ? { Authorization: `Bearer ${token()}` } : {} });

/** The night's cards with a still, asked again whenever a card comes or goes. */
async function refresh() {
  const table = store.table;
  if (!table) return;
  const key = `${cardsKey(table)}:${table.alarms.length}`;
  if (key === askedFor) return;
  askedFor = key;
  try {
    const answer = await get("/api/pictures");
    if (!answer.ok) return;
    const body = await answer.json();
    cards = Object.fromEntries(body.cards.map((c) => [`${c.pack}:${c.card}`, c.picture]));
    redraw();
  } catch (err) {
    askedFor = null; // the event stream reconnects; the next state asks again
  }
}

/** The still named ``hash`` as a URL for an <img>, or "" until it has come (then a redraw). */
export function url(hash) {
  if (urls.has(hash)) return urls.get(hash) || "";
  urls.set(hash, null);
  get(`/api/pictures/${hash}.jpg`)
    .then((answer) => (answer.ok ? answer.blob() : null))
    .then((blob) => {
      if (blob) urls.set(hash, URL.createObjectURL(blob));
      else urls.delete(hash);
      redraw();
    })
    .catch(() => urls.delete(hash));
  return "";
}

/** Shows the still ``hash`` in the picture dialog, under ``title``. */
export function show(hash, title) {
  $("picture-title").textContent = title;
  $("picture-image").src = url(hash);
  $("picture-image").dataset.picture = hash;
  $("picture-dialog").showModal();
}

/** ``code``'s small card, dealt in ``pack``: a button showing its still when it has one. */
export function pictured(pack, code, extra) {
  const hash = cards[`${pack}:${code}`];
  if (!hash) return miniCard(code, extra);
  return h(
    "button",
    {
      type: "button",
      class: "pictured",
      title: `the ${cardSpoken(code)}: its picture`,
      dataset: { picture: hash, card: code },
      onclick: () => show(hash, `The ${cardSpoken(code)} as the camera saw it`),
    },
    miniCard(code, extra),
  );
}

export function render() {
  const shown = $("picture-image");
  if ($("picture-dialog").open && !shown.getAttribute("src")) shown.src = url(shown.dataset.picture);
}

export function wire(actions) {
  redraw = actions.redraw;
  subscribe(refresh);
}
