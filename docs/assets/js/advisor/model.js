// advisor/model.js: the advisor's opening state, the choices the data offers (models, GPUs, workloads per
// model) and the query a state asks (advisor/logic.js's input). In: the data file's payload, a state.
// Out: plain objects. Side effects: none (pure).

// The opening model: the one with the most measured points (the best-covered question), then by name.
export function defaultsOf(data) {
  const points = new Map();
  for (const c of data.curves) points.set(c.model, (points.get(c.model) || 0) + c.c.length);
  const model = [...points].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map((e) => e[0])[0] || "";
  const prices = {};
  for (const p of data.prices) prices[p.gpu] = p.usd;
  return { model, ttft: 2000, tpot: 100, user: 10, demand: 10000, prices };
}

export function choicesOf(data) {
  const models = [...new Set(data.curves.map((c) => c.model))].sort();
  const gpus = [...new Set([...data.curves.map((c) => c.gpu), ...data.prices.map((p) => p.gpu)])].sort();
  const workloads = (m) => [...new Set(data.curves.filter((c) => c.model === m).map((c) => c.isl + "/" + c.osl))]
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));
  return { models, gpus, workloads };
}

export function query(s) {
  const [isl, osl] = s.wl.split("/").map(Number);
  return {
    model: s.model, isl, osl,
    limits: {
      ttft_ms: s.ttft, ttft_pct: s.pct,
      tpot_ms: s.lk === "tpot" ? s.tpot : null,
      user_min: s.lk === "user" ? s.user : null,
    },
    demand: s.demand, demand_kind: s.dk, prices: s.prices,
    n_gpus: s.n, tp: s.tp, ep: s.ep,
  };
}
