// views/controls.js: on a phone a scope's presets, filters, latency limits and price sit behind a
// "Filters" button (llmbench.css hides .lb-controls below 40em unless the scope has .lb-controls-open),
// so that the first chart, the answer, is on the first screen instead of 1,200 px down (issue 26).
// In: the scope's element. Out: {sync(), open()}: the button names how many filters are set ("Filters · 2");
// open() shows the controls (a value the link carried was refused: its note must be seen).
// Side effects: the scope's class, the button's aria-expanded.

export function mountControls(root) {
  const button = root.querySelector(".lb-controls-toggle");
  if (!button) return { sync() {}, open() {} };
  const count = button.querySelector(".lb-controls-n");
  const show = (open) => {
    root.classList.toggle("lb-controls-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => show(!root.classList.contains("lb-controls-open")));
  return {
    open: () => show(true),
    /** After the bar has drawn the state: how many filters and limits are set (the bar marks them). */
    sync() {
      const n = root.querySelectorAll(".lb-filter.lb-active, .lb-limit.lb-active").length;
      count.textContent = n ? ` · ${n}` : "";
    },
  };
}
