// The alarms banner: what the table raised, entering the card the reader missed, clearing.
// A no-read from the camera shows the still it could not read and the cards it was likeliest
// to be: one tap enters one, as "Enter a card" would, naming the no-read's still.

import { $, h, patch } from "../dom.js";
import { cardSpoken, cardText } from "../cards.js";
import { show, url } from "../pictures.js";

function settling(table, alarm, actions) {
  const out = new Set(table.pack.exposed);
  const picture = alarm.picture;
  return h(
    "div",
    { class: "noread", key: picture, dataset: { picture } },
    h(
      "button",
      {
        type: "button",
        class: "still-button",
        title: "the still the reader could not read",
        onclick: () => show(picture, "The card the reader could not read"),
      },
      h("img", { class: "noread-still", src: url(picture), alt: "the card the reader could not read" }),
    ),
    h(
      "div",
      { class: "likely", role: "group", "aria-label": "Which card is it?" },
      (alarm.likely || []).map((code) =>
        h(
          "button",
          {
            type: "button",
            key: code,
            class: `likely-card ${"HD".includes(code.slice(-1)) ? "red" : "black"}`,
            dataset: { card: code },
            disabled: out.has(code),
            title: out.has(code) ? `the ${cardSpoken(code)} is out already` : `enter the ${cardSpoken(code)}`,
            onclick: () => actions.post({ type: "card", card: code, picture }),
          },
          cardText(code),
        ),
      ),
      h("button", { type: "button", key: "other", class: "other-card", onclick: () => actions.enterCard() }, "Another card"),
    ),
  );
}

export function render({ table }, actions) {
  const alarms = table.alarms;
  const noread = alarms.find((a) => a.kind === "noread");
  const still = noread && noread.picture && !table.pack.complete ? noread : null;
  $("alarms").hidden = alarms.length === 0;
  $("alarm-card").hidden = !noread || table.pack.complete || still !== null;
  patch($("alarm-list"), alarms.map((a) => h("li", { dataset: { kind: a.kind } }, a.text)));
  patch($("alarm-settle"), still ? settling(table, still, actions) : null);
}

export function wire(actions) {
  $("alarm-card").addEventListener("click", () => actions.enterCard());
  $("alarm-clear").addEventListener("click", () => actions.post({ type: "clear" }));
}
