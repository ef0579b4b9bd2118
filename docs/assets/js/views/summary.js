// views/summary.js: a scope's "N of M runs" line and the note on runs a latency limit hides.
// In: draw({shown, total, estimates, held, missing, limited}): runs, the estimates shown beside them and
// the low-confidence estimates held back (calc/estimates.js); cells(shown, runs, onEvery): the line of the
// explorer's first view at scale, with its "Show every run" button; loading(values): while runs load;
// failed(error): runs that could not be loaded; unavailable(error): the page's own runs could not be (its
// charts' "Loading chart…" lines say so too; rethrows).
// Out: none. Side effects: the scope's .lb-count, .lb-limit-note, its charts' status lines.

import { el } from "../dom.js";
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
    /** "The best run of each cell: N of M runs" and the button that shows every run. */
    cells(shown, runs, onEvery) {
      if (!count) return;
      const button = el("button", { type: "button", class: "lb-every md-button" }, UI.everyRun);
      button.addEventListener("click", onEvery);
      count.textContent = UI.summaryFirst(COUNT.format(shown), COUNT.format(runs)) + " ";
      count.append(button);
    },
    /** Runs that could not be loaded: said in the count line (and on the console); returns nothing. */
    failed(error) {
      if (count) count.textContent = UI.runsFailed(error.message);
      console.error(error);
    },
    /** The page's first data could not be loaded: said in the count line and in each chart's place (the
     * "Loading chart…" line would stay for ever); rethrown, so the scope's ready says it failed. */
    unavailable(error) {
      if (count) count.textContent = UI.dataFailed(error.message);
      for (const status of root.querySelectorAll(".lb-chart > .lb-status")) {
        status.classList.add("lb-error");
        status.textContent = UI.chartError + error.message;
      }
      console.error(error);
      throw error;
    },
    /** While runs load (the scope busy until its owner says otherwise): every run ([]), or every run of
     * these values (the GPUs of a filter); null: nothing to say. */
    loading(values) {
      root.setAttribute("aria-busy", "true");
      if (count && values) count.textContent = values.length ? UI.runsOfLoading(values.join(", ")) : UI.everyRunLoading;
    },
  };
}
