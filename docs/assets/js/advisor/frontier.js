// advisor/frontier.js: the per-interactivity tables (tok/s per GPU at each tok/s-per-user bucket along each
// configuration's Pareto frontier, the best per column, the advantage over a chosen baseline, the area under
// each frontier). In: the section's element, the curves and the query. Out: none. Side effects: the
// section's content (text only through textContent).

import * as logic from "./logic.js";
import { el, fill, configLabel, configKey } from "./html.js";

const MAX_FRONTIER = 15; // frontier-table rows: the largest areas under the frontier

/** What the tables depend on (the model, workload, filters and baseline; not the limits or prices). */
export function frontierStamp(s) {
  return JSON.stringify([s.model, s.wl, s.n, s.tp, s.ep, s.base]);
}

export function renderFrontier(front, { doc, t, nf, field, curves, buckets, query: q, base }) {
  const all = logic.matching(curves, q), keyOf = all.map(configKey);
  const aucs = all.map((c) => logic.frontierAuc(logic.frontier(c)));
  // the largest areas first, at most MAX_FRONTIER rows (the baseline always among them)
  let order = all.map((_, i) => i).sort((a, b) => aucs[b] - aucs[a] || (keyOf[a] < keyOf[b] ? -1 : 1));
  const pinned = keyOf.indexOf(base);
  order = order.slice(0, MAX_FRONTIER);
  if (pinned >= 0 && !order.includes(pinned)) order[order.length - 1] = pinned;
  const cs = order.map((i) => all[i]);
  const table = logic.frontierTable(cs, buckets);
  if (!cs.length || !table.buckets.length) {
    front.replaceChildren(el(doc, "h2", { text: t("frontierTitle") }), el(doc, "p", { text: t("noFrontier") }));
    return;
  }
  const keys = cs.map(configKey);
  const b = keys.indexOf(base) >= 0 ? keys.indexOf(base) : 0;
  const headRow = (first) => el(doc, "tr", {}, [el(doc, "th", { scope: "col", text: first }),
    ...table.buckets.map((x) => el(doc, "th", { scope: "col", class: "lb-num", text: x + " tok/s/user" })),
    el(doc, "th", { scope: "col", class: "lb-num", text: t("auc") })]);
  const rows = cs.map((c, i) => el(doc, "tr", {}, [el(doc, "th", { scope: "row", text: configLabel(c) }),
    ...table.cells[i].map((v, k) => {
      const best = table.best[k] === i;
      return el(doc, "td", { class: "lb-num" + (best ? " lb-advisor-top" : ""), title: best ? t("best") : null,
        text: v == null ? "–" : nf(0).format(v) + (best ? " ★" : "") });
    }),
    el(doc, "td", { class: "lb-num", text: nf(0).format(table.auc[i]) })]));
  const adv = cs.map((c, i) => el(doc, "tr", {}, [el(doc, "th", { scope: "row", text: configLabel(c) }),
    ...table.cells[i].map((v, k) => {
      const base = table.cells[b][k];
      return el(doc, "td", { class: "lb-num", text: v == null || base == null ? "–" : nf(2).format(v / base) + "×" });
    }),
    el(doc, "td", { class: "lb-num", text: table.auc[b] > 0 ? nf(2).format(table.auc[i] / table.auc[b]) + "×" : "–" })]));
  const pick = el(doc, "select", { name: "base" });
  cs.forEach((c, i) => pick.append(el(doc, "option", { value: keys[i], text: configLabel(c), selected: i === b })));
  fill(front,
    el(doc, "h2", { text: t("frontierTitle") }),
    el(doc, "p", { text: t("frontierNote") }),
    all.length > cs.length ? el(doc, "p", { class: "lb-advisor-muted", text: t("moreConfigs", { n: all.length - cs.length }) }) : null,
    el(doc, "div", { class: "lb-advisor-scroll", tabindex: "0", role: "region", "aria-label": t("frontierTitle") },
      [el(doc, "table", { class: "lb-advisor-frontier-table" }, [el(doc, "thead", {}, [headRow(t("configuration"))]), el(doc, "tbody", {}, rows)])]),
    el(doc, "p", { class: "lb-advisor-muted", text: t("aucDef") }),
    el(doc, "h3", { text: t("advantageTitle") }),
    field(t("baseline"), pick),
    el(doc, "div", { class: "lb-advisor-scroll", tabindex: "0", role: "region", "aria-label": t("advantageTitle") },
      [el(doc, "table", { class: "lb-advisor-advantage" }, [el(doc, "thead", {}, [headRow(t("configuration"))]), el(doc, "tbody", {}, adv)])]),
  );
}
