// pages/static-chart.js: a chart outside any scope or compare (.lb-chart with its own data-lb-src and
// fixed filters): drawn (one per task) when its rows are loaded and it is on the first screen, or later
// when the reader scrolls near it. In: the placeholder, the page's charts. Out: {ready, destroy}.

import { json, showError } from "../dom.js";
import { UI } from "../messages.js";
import { fixedMatcher, openSource } from "../data/source.js";

export function mountStaticChart(node, charts) {
  const ready = openSource(node.dataset.lbSrc, node.dataset.lbKey)
    .rows()
    .then((all) => {
      const rows = all.filter(fixedMatcher(json(node, "data-lb-fixed", {})));
      return charts.lazy(charts.of(node), () => rows);
    })
    .catch((e) => showError(node, UI.chartError, e));
  return { ready, destroy() {} };
}
