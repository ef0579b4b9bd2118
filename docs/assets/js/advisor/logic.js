// advisor/logic.js: the advisor's arithmetic, with no DOM: the best operating point of a curve under the
// reader's limits (linear between measured concurrencies, never past them), instances needed, $/hour and
// $ per 1M output tokens, the ranking, the nearest miss, and the per-interactivity frontier table.
// In: curves as the build writes them (site_gen/pages/advisor.py). Out: plain objects. Side effects: none.
// The Python twin is site_gen/pages/advisor.py; tests/site/test_advisor.py runs both on the same cases.

export const EPS = 1e-9; // a limit equal to a measured figure is met
export const ESTIMATE_KINDS = ["modelled", "estimated"];

function lin(c0, c1, y0, y1, c) {
  return c1 === c0 ? y0 : y0 + ((y1 - y0) * (c - c0)) / (c1 - c0);
}

function figures(curve, pct) {
  return {
    gpu: curve.gpu_tps,
    user: curve.user_tps,
    ttft: pct === "p50" ? curve.ttft50 : curve.ttft90,
    tpot: curve.tpot,
  };
}

/** [figure, "max"|"min", bound] for each limit set (null or undefined: not set). */
export function checks(limits) {
  const out = [];
  if (limits.ttft_ms != null) out.push(["ttft", "max", limits.ttft_ms]);
  if (limits.tpot_ms != null) out.push(["tpot", "max", limits.tpot_ms]);
  if (limits.user_min != null) out.push(["user", "min", limits.user_min]);
  return out;
}

function within(y, how, bound) {
  const tol = EPS * Math.max(1, Math.abs(bound));
  return how === "max" ? y <= bound + tol : y >= bound - tol;
}

function allowed(y0, y1, c0, c1, how, bound) {
  const ok0 = within(y0, how, bound), ok1 = within(y1, how, bound);
  if (ok0 && ok1) return [c0, c1];
  if (!ok0 && !ok1) return null;
  const cross = c0 + ((bound - y0) * (c1 - c0)) / (y1 - y0);
  return ok0 ? [c0, cross] : [cross, c1];
}

function pointAt(curve, f, i, j, c) {
  const c0 = curve.c[i], c1 = curve.c[j];
  const y = (name) => {
    const a = f[name][i], b = f[name][j];
    return a == null || b == null ? null : lin(c0, c1, a, b, c);
  };
  const measured = c === c0 || c === c1;
  const k = c === c0 ? i : j;
  return {
    concurrency: c,
    gpu_tps: y("gpu") || 0,
    user_tps: y("user"),
    ttft_ms: y("ttft"),
    tpot_ms: y("tpot"),
    interpolated: !measured,
    from: measured ? [c] : [c0, c1],
    runs: measured ? curve.runs[k].slice() : curve.runs[i].concat(curve.runs[j]),
  };
}

/** The whole concurrency in the measured range with the most tok/s per GPU meeting every limit, or null. */
export function bestPoint(curve, limits) {
  const f = figures(curve, limits.ttft_pct), cs = curve.c, cks = checks(limits);
  let best = null;
  const segments = [];
  for (let i = 0; i < cs.length; i++) segments.push([i, i]);
  for (let i = 0; i + 1 < cs.length; i++) segments.push([i, i + 1]);
  for (const [i, j] of segments) {
    let lo = cs[i], hi = cs[j], ok = true;
    for (const [name, how, bound] of cks) {
      const y0 = f[name][i], y1 = f[name][j];
      if (y0 == null || y1 == null) { ok = false; break; }
      const span = allowed(y0, y1, cs[i], cs[j], how, bound);
      if (!span) { ok = false; break; }
      lo = Math.max(lo, span[0]);
      hi = Math.min(hi, span[1]);
    }
    if (!ok) continue;
    for (const c of new Set([Math.ceil(lo - EPS), Math.floor(hi + EPS)])) {
      if (c < lo - EPS || c > hi + EPS || c < cs[i] || c > cs[j]) continue;
      const p = pointAt(curve, f, i, j, c);
      if (!best || p.gpu_tps > best.gpu_tps + EPS) best = p;
    }
  }
  return best;
}

export function demandTps(demand, kind, osl) {
  return kind === "tps" ? demand : demand * osl;
}

export function basis(kind) {
  return ESTIMATE_KINDS.includes(kind) ? "estimated" : kind;
}

/** Instances, GPUs, $/hour and $ per 1M output tokens of serving needTps on curve at point. */
export function deployment(curve, point, needTps, price) {
  const perInstance = point.gpu_tps * curve.n_gpus;
  const instances = Math.max(1, Math.ceil(needTps / perInstance - EPS));
  const gpus = instances * curve.n_gpus;
  const usdHour = gpus * price;
  return {
    curve, point, instances, gpus,
    usd_hour: usdHour,
    usd_per_m: (usdHour / (needTps * 3600)) * 1e6,
    basis: basis(curve.kind),
  };
}

// Python's str(None) is "None": the fixed order must be the same in both twins.
function py(v) {
  return v == null ? "None" : String(v);
}

function cents(x) {
  return Math.round(x * 100);
}

/** Cheapest first; at an equal cost to the cent, measured and published before estimated, then fewer GPUs. */
export function compare(a, b) {
  return (
    cents(a.usd_per_m) - cents(b.usd_per_m) ||
    (a.basis === "estimated") - (b.basis === "estimated") ||
    a.gpus - b.gpus ||
    (pyLabel(a.curve) < pyLabel(b.curve) ? -1 : pyLabel(a.curve) > pyLabel(b.curve) ? 1 : 0)
  );
}

function pyLabel(c) {
  return [c.gpu, c.n_gpus, c.tp, c.pp, c.ep, c.precision, c.engine, c.version, c.publisher].map(py).join("|");
}

/** The curves of q's model and workload passing its GPU-count, TP and EP filters (empty list: any). */
export function matching(curves, q) {
  const any = (list, v) => !list || !list.length || list.includes(v);
  return curves.filter(
    (c) => c.model === q.model && c.isl === q.isl && c.osl === q.osl &&
      any(q.n_gpus, c.n_gpus) && any(q.tp, c.tp) && any(q.ep, c.ep || 1),
  );
}

/** {rows, unpriced, considered}: the deployments meeting q's limits, ranked. */
export function rank(curves, q) {
  const need = demandTps(q.demand, q.demand_kind, q.osl);
  const cands = matching(curves, q), rows = [], unpriced = [];
  for (const c of cands) {
    const p = bestPoint(c, q.limits);
    if (!p) continue;
    const price = q.prices[c.gpu];
    if (price == null) {
      if (!unpriced.includes(c.gpu)) unpriced.push(c.gpu);
      continue;
    }
    rows.push(deployment(c, p, need, price));
  }
  rows.sort(compare);
  return { rows, unpriced, considered: cands.length };
}

/** The measured point missing the limits by the least (its largest relative miss), or null. */
export function closest(curves, q) {
  let best = null;
  const cks = checks(q.limits);
  for (const c of matching(curves, q)) {
    const f = figures(c, q.limits.ttft_pct);
    c.c.forEach((conc, k) => {
      let worst = null;
      for (const [name, how, bound] of cks) {
        let v = f[name][k], miss;
        if (v == null) { miss = Infinity; v = NaN; }
        else if (how === "max") miss = bound > 0 ? Math.max(0, v / bound - 1) : v <= bound ? 0 : Infinity;
        else miss = v > 0 ? Math.max(0, bound / v - 1) : Infinity;
        if (!worst || miss > worst.miss) worst = { miss, limit: name, value: v, bound };
      }
      if (!worst || !isFinite(worst.miss)) return;
      if (!best || worst.miss < best.miss - EPS) best = { curve: c, concurrency: conc, ...worst };
    });
  }
  return best;
}

/** The curve's Pareto frontier as [tok/s per user, tok/s per GPU], by tok/s per user (the Pareto view's rule). */
export function frontier(curve) {
  const pts = [];
  curve.user_tps.forEach((u, i) => {
    const g = curve.gpu_tps[i];
    if (u != null && g != null && u > 0 && g > 0) pts.push([u, g]);
  });
  pts.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  const front = [];
  let top = -Infinity;
  for (const p of pts) if (p[1] > top) { front.push(p); top = p[1]; }
  return front.sort((a, b) => a[0] - b[0]);
}

/** Tok/s per GPU at x tok/s per user along the frontier; null outside its range. */
export function frontierAt(front, x) {
  if (!front.length || x < front[0][0] - EPS || x > front[front.length - 1][0] + EPS) return null;
  for (let k = 0; k + 1 < front.length; k++) {
    const [x0, y0] = front[k], [x1, y1] = front[k + 1];
    if (x >= x0 - EPS && x <= x1 + EPS) return lin(x0, x1, y0, y1, Math.min(Math.max(x, x0), x1));
  }
  return front[0][1];
}

/** Trapezoid area under the frontier between its lowest and highest tok/s per user; 0 for one point. */
export function frontierAuc(front) {
  let a = 0;
  for (let k = 0; k + 1 < front.length; k++) {
    a += ((front[k + 1][0] - front[k][0]) * (front[k][1] + front[k + 1][1])) / 2;
  }
  return a;
}

/** {buckets, cells, best, auc}: rows the curves, columns the buckets some frontier spans. */
export function frontierTable(curves, buckets) {
  const fronts = curves.map(frontier);
  let cells = fronts.map((f) => buckets.map((b) => frontierAt(f, b)));
  const keep = buckets.map((_, k) => k).filter((k) => cells.some((row) => row[k] != null));
  cells = cells.map((row) => keep.map((k) => row[k]));
  const best = keep.map((_, k) => {
    let at = -1;
    cells.forEach((row, i) => { if (row[k] != null && (at < 0 || row[k] > cells[at][k])) at = i; });
    return at;
  });
  return { buckets: keep.map((k) => buckets[k]), cells, best, auc: fronts.map(frontierAuc) };
}
