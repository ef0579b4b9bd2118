// advisor/frontier.js: the per-interactivity tables (issue 27): tok/s per GPU at each tok/s-per-user bucket
// along each configuration's Pareto frontier (advisor/logic.js frontierTable), the best per column, the
// advantage over a chosen baseline, the area under each frontier. The Pareto view's page module
// (pages/frontier.js) feeds it the series its chart draws.
// In: the section's element and {doc, t, nf, curves: [{key, label, user_tps, gpu_tps}], buckets, base}.
// Out: none. Side effects: the section's content (text only through textContent).

import * as logic from "./logic.js";
import { el, fill } from "./html.js";

export const MAX_FRONTIER = 15; // rows: the largest areas under the frontier (the baseline always among them)

/** The rows shown: the largest areas first, at most MAX_FRONTIER, the baseline kept (ties: by key). */
export function frontierRows(curves, base) {
  const aucs = curves.map((c) => logic.frontierAuc(logic.frontier(c)));
  let order = curves.map((_, i) => i).sort((a, b) => aucs[b] - aucs[a] || (curves[a].key < curves[b].key ? -1 : 1));
  const pinned = curves.findIndex((c) => c.key === base);
  order = order.slice(0, MAX_FRONTIER);
  if (pinned >= 0 && !order.includes(pinned)) order[order.length - 1] = pinned;
  return order.map((i) => curves[i]);
}

export function renderFrontier(front, { doc, t, nf, curves, buckets, base }) {
  const cs = frontierRows(curves, base);
  const table = logic.frontierTable(cs, buckets);
  if (!cs.length || !table.buckets.length) {
    fill(front, el(doc, "h2", { text: t("frontierTitle") }), el(doc, "p", { text: t("noFrontier") }));
    return;
  }
  const b = Math.max(0, cs.findIndex((c) => c.key === base));
  const headRow = () => el(doc, "tr", {}, [el(doc, "th", { scope: "col", text: t("configuration") }),
    ...table.buckets.map((x) => el(doc, "th", { scope: "col", class: "lb-num", text: t("bucket", { x }) })),
    el(doc, "th", { scope: "col", class: "lb-num", text: t("auc") })]);
  const rowHead = (c, i) => el(doc, "th", { scope: "row", class: i === b ? "lb-frontier-base" : null, text: c.label });
  const rows = cs.map((c, i) => el(doc, "tr", {}, [rowHead(c, i),
    ...table.cells[i].map((v, k) => {
      const best = table.best[k] === i;
      return el(doc, "td", { class: "lb-num" + (best ? " lb-frontier-top" : ""), title: best ? t("best") : null,
        text: v == null ? "–" : nf(0).format(v) + (best ? " ★" : "") });
    }),
    el(doc, "td", { class: "lb-num", text: nf(0).format(table.auc[i]) })]));
  const adv = cs.map((c, i) => el(doc, "tr", {}, [rowHead(c, i),
    ...table.cells[i].map((v, k) => {
      const at = table.cells[b][k];
      return el(doc, "td", { class: "lb-num", text: v == null || at == null ? "–" : nf(2).format(v / at) + "×" });
    }),
    el(doc, "td", { class: "lb-num", text: table.auc[b] > 0 ? nf(2).format(table.auc[i] / table.auc[b]) + "×" : "–" })]));
  const pick = el(doc, "select", { name: "base" });
  cs.forEach((c, i) => pick.append(el(doc, "option", { value: c.key, text: c.label, selected: i === b })));
  // each table scrolls in its own box (tabindex: reachable by keyboard); the page never scrolls sideways
  const box = (label, cls, head, body) => el(doc, "div", { class: "lb-frontier-scroll", tabindex: "0", role: "region", "aria-label": label },
    [el(doc, "table", { class: cls }, [el(doc, "thead", {}, [head]), el(doc, "tbody", {}, body)])]);
  fill(front,
    el(doc, "h2", { text: t("frontierTitle") }),
    el(doc, "p", { text: t("frontierNote") }),
    curves.length > cs.length ? el(doc, "p", { class: "lb-frontier-muted", text: t("moreConfigs", { n: curves.length - cs.length }) }) : null,
    box(t("frontierTitle"), "lb-frontier-table", headRow(), rows),
    el(doc, "p", { class: "lb-frontier-muted", text: t("aucDef") }),
    el(doc, "h3", { text: t("advantageTitle") }),
    el(doc, "label", { class: "lb-frontier-field" }, [el(doc, "span", { text: t("baseline") }), pick]),
    box(t("advantageTitle"), "lb-frontier-advantage", headRow(), adv),
  );
}
