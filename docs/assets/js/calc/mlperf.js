// calc/mlperf.js: MLCommons' comparability rules for the MLPerf(R) Inference page, pure: a result's derived
// figures, its round group and comparable key, and the best result per key (never across divisions,
// benchmarks, scenarios or incompatible rounds). In: the page's rows and its compatibility table
// (data-compat, site_gen/pages/mlperf_pages.py). Out: rows, keys. Side effects: none.

const LOG_TAIL = "/performance/run_1/mlperf_log_summary.txt"; // site_gen.pages.mlperf_pages.LOG_TAIL

/** A row copied with the figures derived here (the decoded rows are shared with the loader's cache). */
export function withFigures(row) {
  const r = { ...row };
  r.value = Number(r.value_text);
  r.tps = r.metric === "tokens_per_s" ? r.value : null; // never rank samples/s or latency as tokens/s
  r.per_acc = r.tps === null ? null : r.tps / r.total_accelerators;
  // site_gen.pages.mlperf_pages._log_parts: null = system_id/benchmark/scenario; "=" + URL = the URL as is
  const path = r.log_path === null ? `${r.system_id}/${r.benchmark}/${r.scenario}` : r.log_path;
  r.log_url = path.startsWith("=") ? path.slice(1) : r.log_head + path + LOG_TAIL;
  return r;
}

const roundNumber = (r) => r.replace(/^v/, "");
export function cmpRound(a, b) {
  const [x1, y1] = roundNumber(a).split(".").map(Number);
  const [x2, y2] = roundNumber(b).split(".").map(Number);
  return x1 - x2 || y1 - y2;
}
function compatKey(compat, bench) {
  return Object.keys(compat).find((k) => bench.startsWith(k)) || null;
}
// The rounds a result may be compared across: its benchmark's compatible range when the round lies in
// it, else the round alone (a benchmark MLCommons does not list is never compared across rounds).
export function roundGroup(compat, bench, round) {
  const k = compatKey(compat, bench);
  if (k && cmpRound(round, compat[k][0]) >= 0 && cmpRound(round, compat[k][1]) <= 0) return "c:" + k;
  return "r:" + round;
}
export function comparableKey(compat, r) {
  return [r.division, r.benchmark_official, r.scenario, roundGroup(compat, r.benchmark_official, r.round)].join("\u0000");
}
// The best tokens/s result per key; keys always start with comparableKey, so no "best" mixes
// divisions, benchmarks, scenarios or incompatible rounds, whatever the filters keep.
export function best(compat, rows, keyOf, score) {
  const out = new Map();
  for (const r of rows) {
    if (r.tps === null) continue;
    const k = comparableKey(compat, r) + "\u0001" + keyOf(r);
    if (!out.has(k) || score(r) > score(out.get(k))) out.set(k, r);
  }
  return [...out.values()];
}
