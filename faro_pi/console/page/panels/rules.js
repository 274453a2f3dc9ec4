// The house rules in a line, under the controls.

import { $, h, patch } from "../dom.js";

/** Each house rule in a few words, by its option's value. */
const RULE_WORDS = {
  even_weights: { true: "even weights", false: "odd weights" },
  remove_dead: { true: "dead ranks come off", false: "dead bets stay" },
  collect_leftovers: { true: "leftovers collected", false: null },
  high_card: { true: "high card", false: null },
  combinations: { true: "combinations", false: null },
  call_trips: { true: "trips called by colour", false: "no call on trips" },
  cat_hop_pays: { 1: "cat-hop pays 1 to 1", 2: "cat-hop pays 2 to 1" },
  rotate_bank: { true: "bank rotates", false: "bank stays" },
};

export function render({ table }) {
  const options = table.options || {};
  const words = Object.entries(RULE_WORDS)
    .filter(([key]) => key in options)
    .map(([key, said]) => said[String(options[key])])
    .filter(Boolean);
  const profile = table.profile || "teaching";
  const box = $("rules");
  box.dataset.profile = profile;
  patch(
    box,
    h("strong", {}, `${profile.charAt(0).toUpperCase()}${profile.slice(1)} rules`),
    words.length ? `: ${words.join(", ")}` : "",
  );
}
