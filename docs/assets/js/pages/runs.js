// pages/runs.js: the run card page (.lb-runcard, runs.html#<id>): the run of the hash from the Source,
// drawn again when the hash changes (another run's permalink on the same page).
// In: the placeholder (data-lb-src/-key). Out: {ready, hashchange, destroy}. Side effects: the card.

import { showError } from "../dom.js";
import { UI } from "../messages.js";
import * as url from "../state/url.js";
import { openSource } from "../data/source.js";
import { hashId, showCard } from "../views/run-card.js";

export function mountRunCard(node) {
  const source = openSource(node.dataset.lbSrc, node.dataset.lbKey);
  let alive = true;
  const show = async () => {
    const id = hashId(url.hash());
    const run = await source.run(id);
    if (alive) showCard(node, id, run, location.href);
  };
  const ready = show().catch((e) => showError(node, UI.chartError, e));
  return { ready, hashchange: show, destroy: () => (alive = false) };
}
