// pages/runs.js: the run card page (.lb-runcard, runs.html#<id>): the run of the hash from the cards'
// Source (only its partition is loaded), drawn again when the hash changes (another run's permalink).
// In: the placeholder (data-lb-cards). Out: {ready, hashchange, destroy}. Side effects: the card.

import { json, showError } from "../dom.js";
import { UI } from "../messages.js";
import * as url from "../state/url.js";
import { openCards } from "../data/source.js";
import { hashId, showCard } from "../views/run-card.js";

export function mountRunCard(node) {
  const source = openCards(json(node, "data-lb-cards", { src: [], key: [] }));
  let alive = true;
  const show = async () => {
    const id = hashId(url.hash());
    const run = await source.run(id);
    if (alive) showCard(node, id, run, location.href);
  };
  const ready = show().catch((e) => showError(node, UI.chartError, e));
  return { ready, hashchange: show, destroy: () => (alive = false) };
}
