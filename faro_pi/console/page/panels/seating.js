// Seating the table before a night: 2 to 10 names in table order, who banks, and the
// house rules: a profile, and its options changed one by one.

import { $, h, patch } from "../dom.js";

let count = 3;

/** Each option in words, as the seating form offers it; cat-hop's pay is a choice. */
const OPTION_WORDS = {
  even_weights: "Weights must be even",
  remove_dead: "A dead rank's bets come off by themselves",
  collect_leftovers: "The bank takes what is left at the last pair",
  high_card: "The high-card space is on the layout",
  combinations: "Weights between cards and at corners (combinations)",
  call_trips: "Trips in the last three are called by colour",
  rotate_bank: "The bank passes at each shuffle",
  cat_hop_pays: "A right call on a cat-hop pays",
};

/** The profile chosen and the options as set now: the profile's until one is changed. */
let chosen = null;

function choose(profiles, profile) {
  chosen = { profile, options: { ...profiles[profile] } };
}

function option(key, value, redraw) {
  if (typeof value === "boolean") {
    return h(
      "li",
      { key },
      h("input", {
        id: `option-${key}`,
        type: "checkbox",
        checked: value,
        onchange: (e) => {
          chosen.options[key] = e.target.checked;
          redraw();
        },
      }),
      h("label", { for: `option-${key}` }, OPTION_WORDS[key] || key),
    );
  }
  return h(
    "li",
    { key },
    h("label", { for: `option-${key}` }, OPTION_WORDS[key] || key),
    h(
      "select",
      {
        id: `option-${key}`,
        onchange: (e) => {
          chosen.options[key] = Number(e.target.value);
          redraw();
        },
      },
      [1, 2].map((n) => h("option", { key: n, value: n, selected: n === value }, `${n} to 1`)),
    ),
  );
}

/** The options that differ from the profile's: what the session event needs to say. */
function changed(profiles) {
  const base = profiles[chosen.profile];
  return Object.fromEntries(Object.entries(chosen.options).filter(([k, v]) => base[k] !== v));
}

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
  const banker = $("banker-select").value;
  patch(
    $("banker-select"),
    h("option", { key: "", value: "" }, "Draw at random"),
    names().map((n) => h("option", { key: n, value: n, selected: n === banker }, n)),
  );
  const profiles = table.profiles;
  if (!profiles) return;
  if (chosen === null || !(chosen.profile in profiles)) choose(profiles, table.profile || "teaching");
  $("profile-select").value = chosen.profile;
  patch(
    $("option-list"),
    Object.entries(chosen.options).map(([key, value]) => option(key, value, actions.redraw)),
  );
  for (const [key, value] of Object.entries(chosen.options)) {
    const input = $(`option-${key}`); // the property, which an attribute no longer sets once touched
    if (typeof value === "boolean") input.checked = value;
    else input.value = String(value);
  }
  seatingProfiles = profiles;
}

let seatingProfiles = null;

export function wire(actions) {
  const seats = (n) => {
    count = n;
    actions.redraw();
  };
  $("seat-add").addEventListener("click", () => seats(count + 1));
  $("seat-remove").addEventListener("click", () => seats(count - 1));
  $("profile-select").addEventListener("change", (e) => {
    if (seatingProfiles) choose(seatingProfiles, e.target.value);
    actions.redraw();
  });
  $("seating-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const banker = $("banker-select").value;
    const rules = chosen ? { profile: chosen.profile } : {};
    const options = chosen && seatingProfiles ? changed(seatingProfiles) : {};
    if (Object.keys(options).length) rules.options = options;
    actions.post({ type: "session", seats: names(), ...(banker ? { banker } : {}), ...rules });
  });
}
