// The bar at the top: the pack and turn, whether entries are open, the event stream's link.

import { $ } from "../dom.js";

const ENTRIES = { open: "Entries open", locked: "Locked", closed: "Entries closed" };
const LINK = { connecting: "connecting", live: "live", lost: "reconnecting" };

export function render({ table, link }) {
  $("link").dataset.link = link;
  $("link-text").textContent = LINK[link];
  if (!table) return;
  const pack = table.pack;
  $("status").textContent = pack.stage !== "shuffled"
    ? `Pack ${pack.number} · turn ${pack.turn} · ${pack.left} in the shoe`
    : `Pack ${pack.number} · ${pack.left} in the shoe`;
  const entries = $("entries");
  entries.dataset.entries = table.entries;
  entries.textContent = ENTRIES[table.entries];
}
