// The bar at the top: the pack and turn, whether entries are open, the event stream's link.

import { $ } from "../dom.js";

const ENTRIES = { open: "Entries open", locked: "Locked", closed: "Entries closed" };
const LINK = { connecting: "connecting", live: "live", lost: "offline" };

export function render({ table, link }) {
  $("link").dataset.link = link;
  $("link-text").textContent = LINK[link];
  // With the stream down the page cannot know what the table does: it says so, not "open".
  document.body.dataset.link = link;
  $("offline").hidden = link === "live";
  $("offline-text").textContent = link === "connecting" ? "Connecting to the table…" : "Offline: the table does not answer. Taps are refused until it is back.";
  if (!table) return;
  const pack = table.pack;
  // The turn the felt shows: the pair under way once its loser is out, else the last settled.
  const turn = table.pair ? table.pair.turn : pack.turn;
  $("status").textContent = turn > 0
    ? `Pack ${pack.number} · turn ${turn} · ${pack.left} in the shoe`
    : `Pack ${pack.number} · ${pack.left} in the shoe`;
  const entries = $("entries");
  const live = link === "live";
  entries.dataset.entries = live ? table.entries : "offline";
  entries.textContent = live ? ENTRIES[table.entries] : "Offline";
}
