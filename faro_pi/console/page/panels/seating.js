// Seating the table before a night: 2 to 10 names in table order, and who banks.

import { $, h, patch } from "../dom.js";

let count = 3;

const names = () =>
  [...$("seat-list").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);

export function render({ table }, actions) {
  $("seating").hidden = table.seats.length > 0;
  $("seating-wait").hidden = !table.pack.complete;
  const rows = Array.from({ length: count }, (_, i) =>
    h(
      "li",
      { key: i + 1 },
      h("label", { class: "sr-only", for: `seat-${i + 1}` }, `Seat ${i + 1}`),
      h("input", {
        id: `seat-${i + 1}`,
        name: "seat",
        type: "text",
        autocomplete: "off",
        placeholder: `Seat ${i + 1}`,
        maxlength: "24",
        oninput: actions.redraw,
      }),
    ),
  );
  patch($("seat-list"), rows);
  $("seat-add").disabled = count >= 10;
  $("seat-remove").disabled = count <= 2;
  const chosen = $("banker-select").value;
  patch(
    $("banker-select"),
    h("option", { key: "", value: "" }, "Draw at random"),
    names().map((n) => h("option", { key: n, value: n, selected: n === chosen }, n)),
  );
}

export function wire(actions) {
  const seats = (n) => {
    count = n;
    actions.redraw();
  };
  $("seat-add").addEventListener("click", () => seats(count + 1));
  $("seat-remove").addEventListener("click", () => seats(count - 1));
  $("seating-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const banker = $("banker-select").value;
    actions.post({ type: "session", seats: names(), ...(banker ? { banker } : {}) });
  });
}
