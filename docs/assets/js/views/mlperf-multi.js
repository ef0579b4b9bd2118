// views/mlperf-multi.js: a filter of the MLPerf page that takes several values (the accelerator: H200 SXM and
// H200 NVL together, issue 26): the check boxes site_gen/pages/mlperf_pages.py (_multi) writes in a <details>
// drop-down; nothing ticked means every value. In: the [data-mlperf-multi] box, a callback for the reader's
// changes. Out: {name, values(), set(values)}. Side effects: the boxes' state, the summary's text and title,
// the drop-down closed on Escape or a click outside (listeners removed by destroy()).

/** Mount one multi-value filter; onChange() runs after each box the reader ticks or unticks. */
export function mountMulti(box, onChange) {
  const name = box.dataset.mlperfMulti;
  const details = box.querySelector("details");
  const summary = box.querySelector("[data-mlperf-multi-summary]");
  const all = summary.textContent; // the catalogue's "All", as the page was written in its language
  const inputs = [...box.querySelectorAll("input[type=checkbox]")];
  const values = () => inputs.filter((i) => i.checked).map((i) => i.value);
  const label = () => {
    const v = values();
    summary.textContent = v.length ? v.join(", ") : all;
    summary.title = v.length ? v.join("\n") : "";
  };
  box.addEventListener("change", () => {
    label();
    onChange();
  });
  // a drop-down, not a panel in the page: it closes when the reader is done with it
  const close = (ev) => {
    if (details.open && (ev.type === "keydown" ? ev.key === "Escape" : !box.contains(ev.target))) {
      details.open = false;
      if (ev.type === "keydown") summary.focus();
    }
  };
  document.addEventListener("click", close);
  document.addEventListener("keydown", close);
  return {
    name,
    values,
    /** Tick exactly these values (the others unticked; a value the box does not offer is ignored). */
    set(wanted) {
      const keep = new Set(wanted);
      for (const i of inputs) i.checked = keep.has(i.value);
      label();
    },
    /** The values the box offers (what the URL may name). */
    offered: () => inputs.map((i) => i.value),
    destroy() {
      document.removeEventListener("click", close);
      document.removeEventListener("keydown", close);
    },
  };
}
