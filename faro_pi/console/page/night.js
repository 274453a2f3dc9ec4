// A night at the table in sum: each participant's result, as a table and as a CSV file.

import { h } from "./dom.js";
import { signed, trend } from "./cards.js";

/** The open night's results from the state: the seated in table order, then those who left. */
export function openNight(state) {
  const rows = state.seats.map((player) => ({ player, balance: state.balances[player], left: false }));
  for (const [player, balance] of Object.entries(state.balances)) {
    if (!state.seats.includes(player)) rows.push({ player, balance, left: true });
  }
  return rows;
}

/** The results as a table: who, their result, and whether they had left. */
export function nightTable(rows) {
  return [
    h("caption", { class: "sr-only" }, "Each participant's result for the night"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "participant"), h("th", { scope: "col" }, "result"))),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h(
          "tr",
          { key: r.player, dataset: { player: r.player } },
          h("th", { scope: "row" }, r.player, r.left ? h("small", {}, " left early") : null),
          h("td", { class: trend(r.balance) }, signed(r.balance)),
        ),
      ),
    ),
  ];
}

/** A field of a CSV line, quoted when it holds a comma, a quote or a line break (RFC 4180). */
const field = (value) => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The night as CSV: one line per participant, the header first. */
export function nightCsv(number, rows) {
  const lines = [["night", "participant", "result"], ...rows.map((r) => [number, r.player, r.balance])];
  return lines.map((line) => line.map(field).join(",")).join("\r\n") + "\r\n";
}

/** Saves ``text`` as a file named ``name``, made in the page: no request leaves it. */
export function download(name, text, type = "text/csv") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement("a"), { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
