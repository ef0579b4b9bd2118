// theme.js: Material's light/dark scheme as Vega config, and a watcher of the reader's toggle.
// In: <body data-md-color-scheme>, window.LLMBENCH_THEME. Out: themeConfig(), isDark(), onSchemeChange(fn) → its disposer.
// Side effects: a MutationObserver on <body> while a watcher is subscribed.

// The theme of both schemes (site_gen/charts/theme.py, written beside the page script's catalogue: the
// build draws its pictures of the charts with the same): {font, light, dark}.
const THEME = globalThis.LLMBENCH_THEME || { font: "sans-serif", light: {}, dark: {} };
export const FONT = THEME.font;

export function isDark() {
  return document.body.getAttribute("data-md-color-scheme") === "slate";
}

/** Material's scheme of the moment as Vega config (a copy: vega-embed merges into what it is given). */
export function themeConfig() {
  return structuredClone(isDark() ? THEME.dark : THEME.light);
}

/** Call fn when the reader flips Material's light/dark toggle; returns the function that stops watching. */
export function onSchemeChange(fn) {
  let scheme = document.body.getAttribute("data-md-color-scheme");
  const observer = new MutationObserver(() => {
    const now = document.body.getAttribute("data-md-color-scheme");
    if (now === scheme) return;
    scheme = now;
    fn();
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  return () => observer.disconnect();
}
