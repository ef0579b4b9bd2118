// views/summary.js: a scope's "N of M runs" line and the note on runs a latency limit hides.
// In: draw({shown, total, estimates, held, missing, limited}): runs, the estimates shown beside them and
// the low-confidence estimates held back (calc/estimates.js).
// Out: none. Side effects: the scope's .lb-count, .lb-limit-note.

import { UI } from "../messages.js";
import { COUNT } from "../format.js";

export function mountSummary(root) {
  const count = root.querySelector(".lb-count");
  const note = root.querySelector(".lb-limit-note");
  return {
    draw({ shown, total, estimates = 0, held = 0, missing, limited }) {
      if (note) {
        note.hidden = !limited;
        note.textContent = limited ? UI.limitHidden(COUNT.format(missing)) : "";
      }
      if (count)
        count.textContent =
          UI.count(COUNT.format(shown), COUNT.format(total)) +
          (estimates ? UI.countEstimates(COUNT.format(estimates)) : "") +
          (held ? UI.countHeld(COUNT.format(held)) : "");
    },
  };
}
