// calc/estimates.js: AIConfigurator estimates among the runs (issue 28), pure. Which rows are estimates,
// which are held back until the reader asks for low-confidence ones, the filter counts without them, and
// the words of an estimate's badge. In: rows (source_kind, est_* columns of site_gen.data.queries.site_estimates),
// the crossfilter's results. Out: plain values. Side effects: none. Tested under node
// (tests/site/test_estimates_site.py) and in the browser.

export const ESTIMATE_KIND = "modelled"; // source_kind of an estimate (site_gen.data.estimates.KIND)
export const LOW_KEY = "est_low"; // the URL's parameter: ?est_low=1 draws the low-confidence estimates too

export const isEstimate = (r) => r.source_kind === ESTIMATE_KIND;

/** Whether a filter state shows estimates at all ("Source kind" all, or "modelled" among its values): the
 * low-confidence box means nothing otherwise and is disabled. */
export const estimatesChosen = (state) => !(state.kind && state.kind.length) || state.kind.includes(ESTIMATE_KIND);

/** Held back unless asked for: an estimate whose category was not validated on at least 5 comparable
 * published runs within a median |error| of 25 % (confidence "low"), or has no comparable run at all
 * ("unvalidated"). */
export const isHeldBack = (r) => isEstimate(r) && r.est_confidence !== "validated";

/** The filter's result without the held-back rows: ``all`` is the index's result over every row, ``held``
 * the same state's result over the held-back rows only (their own index, so its value codes differ:
 * counts are matched by value text). A row adds one to counts independently of the others, so taking the
 * held rows' counts away leaves exactly the counts of the rows shown. */
export function withoutHeld(all, held, allValues, heldValues) {
  const gone = new Set(held.rows);
  const counts = {};
  for (const key of Object.keys(all.counts)) {
    const c = Int32Array.from(all.counts[key]);
    const at = new Map(allValues[key].map((v, i) => [v, i]));
    (heldValues[key] || []).forEach((v, i) => {
      if (at.has(v)) c[at.get(v)] -= held.counts[key][i];
    });
    counts[key] = c;
  }
  return { ...all, rows: all.rows.filter((r) => !gone.has(r)), counts, held: held.rows.length };
}

/** The badge's text for an estimate row, from the catalogue's sentences ``words``: {badge(version, n),
 * badgeLow(version, n), badgeNone(version)}; null for a measured or published run. ``est_pct`` is the
 * band's N, computed at build time (site_gen.data.estimates.band_percent); null where there is no band. */
export function badgeText(r, words) {
  if (!isEstimate(r)) return null;
  const version = r.est_version || "?";
  const n = r.est_pct;
  if (n === null || n === undefined) return words.badgeNone(version);
  return r.est_confidence === "validated" ? words.badge(version, n) : words.badgeLow(version, n);
}
