// theme.js: Material's light/dark scheme as Vega config, and a watcher of the reader's toggle.
// In: <body data-md-color-scheme>. Out: themeConfig(), isDark(), onSchemeChange(fn) → its disposer.
// Side effects: a MutationObserver on <body> while a watcher is subscribed.

export const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

export function isDark() {
  return document.body.getAttribute("data-md-color-scheme") === "slate";
}

// Material's palette as Vega config (the specs are Vega: Vega-Lite's view and font settings are the
// styles its compiler gives the plot's frame, guides and text marks).
export function themeConfig() {
  const dark = isDark();
  const fg = dark ? "#d5d8e2" : "#202124";
  const muted = dark ? "#aeb3c2" : "#5f6368"; // a note in the plot: 7.7:1 on slate, 6.0:1 on white
  const line = dark ? "#4a4f5c" : "#dadce0";
  const font = FONT;
  const axis = { labelColor: fg, titleColor: fg, gridColor: line, domainColor: line, tickColor: line };
  return {
    background: "transparent",
    axis,
    legend: { labelColor: fg, titleColor: fg },
    title: { color: fg },
    style: {
      cell: { stroke: line },
      "guide-label": { font },
      "guide-title": { font },
      "group-title": { font, fill: fg },
      "group-subtitle": { font },
      // text marks without a colour of their own (site_gen.charts.vega_compile._theme_text)
      text: { font, fill: fg },
      "lb-note": { fill: muted, fontStyle: "italic" },
    },
  };
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
