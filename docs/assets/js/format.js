// format.js: numbers in the page's language, and the one derived figure (cost per 1M output tokens).
// In: <html lang> (or the catalogue's language; "en" under node). Out: formatters, cell(), costPerMillion(),
// byText(). Side effects: none. Pure apart from reading the language once: tested under node.

// Numbers in the page's language (<html lang>: "en", "ko"); the catalogue's language when it has none.
export const LOCALE =
  (globalThis.document && document.documentElement.lang) || (globalThis.LLMBENCH_I18N || {}).lang || "en";

// A formatter built on its first use: the page's first Intl.NumberFormat loads ICU's number data, ~20 ms
// of the module's evaluation (x4 on Lighthouse's phone) on every page, most of which format nothing while
// they load (the home page, the guide).
export function formatter(options, locale = LOCALE) {
  let f = null;
  return { format: (v) => (f || (f = new Intl.NumberFormat(locale, options))).format(v) };
}

// One formatter for every cell (NUMBER) and every count (COUNT): Number.toLocaleString with options builds
// a new one per call, which made rendering the table's ~1,000 numeric cells a large part of a filter change.
export const NUMBER = formatter({ maximumFractionDigits: 1 });
export const COUNT = formatter({});
// $ per million output tokens: 3-4 significant digits (0.5556, 2.49, 40.18; most are below one dollar, so
// the table's one decimal would say 0.6 or 0); the header names the currency and the price ($2.00).
export const COST = formatter({ minimumSignificantDigits: 3, maximumSignificantDigits: 4 });
export const USD = formatter({ style: "currency", currency: "USD" });

/** site_gen.charts.latency_views.cost_per_million_tokens: price × GPUs / (output tokens/s × 3600 s/h) × 10^6. */
export function costPerMillion(price, gpus, outputTps) {
  return ((price * gpus) / (outputTps * 3600)) * 1e6;
}

/** The cost column of a run at a price, or null where the run cannot have one (no throughput, no GPU). */
export function runCost(run, price) {
  return run.output_tps > 0 && run.n_gpus >= 1 ? costPerMillion(price ?? 0, run.n_gpus, run.output_tps) : null;
}

// A figure read alone (a run card's field, a tooltip without a format of its own): at least 3 significant
// digits below 100, so a small rate keeps its value (13.8 tok/s / 1,024 tokens = 0.0135 requests/s, not 0).
const SMALL = formatter({ maximumSignificantDigits: 3 });
export function figure(v) {
  const n = Number(v);
  return Math.abs(n) >= 100 || n === 0 || !Number.isFinite(n) ? NUMBER.format(n) : SMALL.format(n);
}

/** A table cell's text: "–" for no value, a number in the page's language, or the value as text. */
export function cell(v, numeric) {
  if (v === null || v === undefined) return "–";
  if (!numeric) return String(v);
  return NUMBER.format(Number(v));
}

/** A formatter for a d3-format spec of the build's tooltips (",.1f", ".0f", "d"); other specs give figure(). */
export function tooltipFormat(spec) {
  if (spec === "d") return (v) => COUNT.format(Math.round(Number(v)));
  const m = /^(,?)\.(\d+)f$/.exec(spec || "");
  // another spec (or none): a number as a figure (never a raw float such as 0.073915894060784), text as is
  if (!m) return (v) => (typeof v === "number" ? figure(v) : String(v));
  const digits = Number(m[2]);
  const f = new Intl.NumberFormat(LOCALE, {
    useGrouping: !!m[1], minimumFractionDigits: digits, maximumFractionDigits: digits,
  });
  return (v) => f.format(Number(v));
}

// Ties in order are broken by code point (as Python's sorted() does), not localeCompare: its first call
// loads ICU's collation data, tens of milliseconds of a phone's page load.
export function byText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
