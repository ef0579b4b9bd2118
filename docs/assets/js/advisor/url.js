// advisor/url.js: the advisor's state <-> its page address (every input is in the URL, so an answer is
// shareable). Pure: reads and writes URLSearchParams, never history. Values from the address are checked
// here (numbers: digits and one point, above 0; names: one of the data's), the rest is dropped and listed.

const NUMBER = /^\d{1,9}(\.\d{1,6})?$/;

/** A positive number from text, or null; "" is "not set" (also null) and is not an error. */
export function number(text) {
  if (text == null || text === "") return { value: null, bad: false };
  const t = String(text).trim();
  if (!NUMBER.test(t) || !(parseFloat(t) > 0)) return { value: null, bad: true };
  return { value: parseFloat(t), bad: false };
}

function ints(text) {
  if (!text) return [];
  return String(text).split(",").filter((s) => /^\d{1,4}$/.test(s)).map(Number).filter((n) => n > 0);
}

export const PRICE_PREFIX = "price.";

/** The state from the query string; `bad` lists [field, raw text] that were not used. */
export function readState(search, defaults, choices) {
  const q = new URLSearchParams(search);
  const bad = [];
  const num = (key, dflt) => {
    if (!q.has(key)) return dflt;
    const r = number(q.get(key));
    if (r.bad) bad.push([key, q.get(key)]);
    return r.bad ? dflt : r.value;
  };
  const model = choices.models.includes(q.get("model")) ? q.get("model") : defaults.model;
  const wls = choices.workloads(model);
  const wl = wls.includes(q.get("wl")) ? q.get("wl") : wls[0] || "";
  const prices = Object.assign({}, defaults.prices);
  for (const [k, v] of q) {
    if (!k.startsWith(PRICE_PREFIX)) continue;
    const gpu = k.slice(PRICE_PREFIX.length);
    if (!choices.gpus.includes(gpu)) continue;
    const r = number(v);
    if (r.bad) bad.push([gpu, v]);
    else if (r.value == null) delete prices[gpu];
    else prices[gpu] = r.value;
  }
  return {
    state: {
      model, wl,
      ttft: num("ttft", defaults.ttft),
      pct: q.get("pct") === "p50" ? "p50" : "p90",
      lk: q.get("lk") === "tpot" ? "tpot" : "user",
      tpot: num("tpot", defaults.tpot),
      user: num("user", defaults.user),
      demand: num("d", defaults.demand),
      dk: q.get("dk") === "rps" ? "rps" : "tps",
      prices,
      n: ints(q.get("n")), tp: ints(q.get("tp")), ep: ints(q.get("ep")),
    },
    bad,
  };
}

function fmt(v) {
  return v == null ? "" : String(v);
}

/** The query string of a state: everything but the defaults' own prices. */
export function writeState(s, defaults) {
  const q = new URLSearchParams();
  q.set("model", s.model);
  q.set("wl", s.wl);
  q.set("ttft", fmt(s.ttft));
  q.set("pct", s.pct);
  q.set("lk", s.lk);
  if (s.lk === "tpot") q.set("tpot", fmt(s.tpot)); else q.set("user", fmt(s.user));
  q.set("d", fmt(s.demand));
  q.set("dk", s.dk);
  const gpus = new Set([...Object.keys(s.prices), ...Object.keys(defaults.prices)]);
  for (const gpu of [...gpus].sort()) {
    if (s.prices[gpu] !== defaults.prices[gpu]) q.set(PRICE_PREFIX + gpu, fmt(s.prices[gpu]));
  }
  if (s.n.length) q.set("n", s.n.join(","));
  if (s.tp.length) q.set("tp", s.tp.join(","));
  if (s.ep.length) q.set("ep", s.ep.join(","));
  return "?" + q.toString();
}
