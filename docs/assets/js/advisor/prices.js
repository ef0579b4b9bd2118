// advisor/prices.js: the advisor's $/GPU-hour table: one editable box per GPU with the published default
// it starts from and where and when that price was published. In: the section's element, the curves,
// the published prices and the state. Out: readPrices gives the typed prices (bad entries listed).
// Side effects: the section's content (text only through textContent; links only as href attributes).

import { el } from "./html.js";
import { number } from "./url.js";

export function renderPrices(prices, { doc, t, curves, prices: published, gpus, state: s }) {
  const rows = [];
  const seen = new Set(curves.filter((c) => c.model === s.model).map((c) => c.gpu));
  const src = Object.fromEntries(published.map((p) => [p.gpu, p]));
  for (const gpu of gpus.filter((g) => seen.has(g) || src[g])) {
    const p = src[gpu];
    const cite = p
      ? el(doc, "span", {}, [el(doc, "a", { href: p.url, rel: "noopener", text: p.source }), " (" + p.date + ", $" + p.usd + ")"])
      : el(doc, "span", { class: "lb-advisor-muted", text: t("noDefault") });
    const box = el(doc, "input", {
      type: "text", inputmode: "decimal", size: 6, "data-gpu": gpu, "aria-label": t("priceUsd") + " " + gpu,
      value: s.prices[gpu] == null ? "" : String(s.prices[gpu]),
    });
    rows.push(el(doc, "tr", {}, [el(doc, "th", { scope: "row", text: gpu }), el(doc, "td", {}, [box]), el(doc, "td", {}, [cite])]));
  }
  prices.replaceChildren(
    el(doc, "h2", { text: t("prices") }),
    el(doc, "div", { class: "lb-advisor-scroll" }, [el(doc, "table", {}, [
      el(doc, "thead", {}, [el(doc, "tr", {}, [el(doc, "th", { scope: "col", text: t("priceGpu") }),
        el(doc, "th", { scope: "col", text: t("priceUsd") }), el(doc, "th", { scope: "col", text: t("priceSource") })])]),
      el(doc, "tbody", {}, rows)])]),
    el(doc, "button", { type: "button", class: "md-button lb-advisor-reset", text: t("reset") }),
  );
}

export function readPrices(prices, bad) {
  const out = {};
  for (const box of prices.querySelectorAll("input[data-gpu]")) {
    const r = number(box.value);
    if (r.bad) bad.push([box.dataset.gpu, box.value]);
    else if (r.value != null) out[box.dataset.gpu] = r.value;
  }
  return out;
}
