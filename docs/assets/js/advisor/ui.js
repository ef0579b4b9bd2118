// advisor/ui.js: the advisor page's form, answer, ranked table and price table, and a link to the Pareto
// view's per-interactivity tables for the same model and workload.
// In: the placeholder element (data-src, data-key, data-card, data-planner, data-pareto, data-words,
// data-lang) and the window. Out: mountAdvisor returns {ready, destroy} (pages/advisor.js). Side effects: fetches the
// data file (tasks.js loadJson), writes the page address with history.replaceState. Every string
// from the data goes through textContent or a URL-encoded attribute, never innerHTML.

import * as logic from "./logic.js";
import { loadJson } from "../tasks.js";
import { number, readState, writeState } from "./url.js";
import { el, fill, say, configLabel, engineRelease } from "./html.js";
import { readPrices, renderPrices } from "./prices.js";
import { choicesOf, defaultsOf, query } from "./model.js";

export { configLabel };

// The advisor's data file (JSON: site_gen.pages.advisor.curves_payload), fetched once per URL and kept
// (tens of KB): the page swapped back in by Material's instant navigation mounts again on the same data.
const loaded = {}; // src -> Promise of the data
function loadData(src) {
  if (!loaded[src]) {
    loaded[src] = loadJson(src, { what: "the advisor's data" });
    loaded[src].catch(() => delete loaded[src]); // a failed load is tried again on the next mount
  }
  return loaded[src];
}

const MAX_ROWS = 20; // ranked rows shown at first ("Show all" for the rest): fewer numbers on first sight





export function mountAdvisor(root, win) {
  const doc = win.document, ctl = new AbortController(), on = { signal: ctl.signal };
  const words = JSON.parse(root.dataset.words || "{}"), lang = root.dataset.lang || "en";
  const nf = (d) => new Intl.NumberFormat(lang === "ko" ? "ko-KR" : "en-US", { maximumFractionDigits: d, minimumFractionDigits: 0 });
  const usd = new Intl.NumberFormat(lang === "ko" ? "ko-KR" : "en-US", { style: "currency", currency: "USD" });
  const t = (k, v) => say(words, k, v);
  let alive = true;

  const ready = loadData(root.dataset.src).then((data) => {
    if (alive) build(data);
  }, (e) => {
    if (!alive) return;
    root.replaceChildren(el(doc, "p", { class: "lb-advisor-error", text: t("loadError") + e.message }));
  });

  function build(data) {
    const defaults = defaultsOf(data), choices = choicesOf(data);
    if (!data.curves.length) {
      root.replaceChildren(el(doc, "p", { class: "lb-advisor-nothing", text: t("noModel") }));
      root.dataset.ready = "1";
      return;
    }
    const read = readState(win.location.search, defaults, choices);
    let state = read.state, showAll = false;
    const headline = el(doc, "div", { class: "lb-advisor-headline", role: "status", "aria-live": "polite" });
    const notes = el(doc, "p", { class: "lb-advisor-notes" });
    const form = el(doc, "form", { class: "lb-advisor-form", "aria-label": t("inputs") });
    const answer = el(doc, "div", { class: "lb-advisor-answer" });
    const prices = el(doc, "div", { class: "lb-advisor-prices" });
    const front = el(doc, "p", { class: "lb-advisor-frontier" });
    root.replaceChildren(headline, notes, form, answer,
      el(doc, "p", { class: "lb-advisor-method", text: t("method") }), prices, front);

    function field(labelText, control) {
      return el(doc, "label", { class: "lb-advisor-field" }, [el(doc, "span", { text: labelText }), control]);
    }
    function select(name, options, value) {
      const s = el(doc, "select", { name });
      for (const [v, text] of options) s.append(el(doc, "option", { value: v, text, selected: String(v) === String(value) }));
      return s;
    }
    function numberBox(name, value) {
      return el(doc, "input", { name, type: "text", inputmode: "decimal", value: value == null ? "" : String(value), size: 7 });
    }
    function multi(name, values, chosen) {
      const box = el(doc, "fieldset", { class: "lb-advisor-multi" }, [el(doc, "legend", { text: t(name === "n" ? "nGpus" : name) })]);
      for (const v of values) {
        box.append(el(doc, "label", {}, [
          el(doc, "input", { type: "checkbox", name, value: v, checked: chosen.includes(v) }), " " + v,
        ]));
      }
      return values.length > 1 ? box : null;
    }

    function drawForm() {
      const s = state;
      const mine = data.curves.filter((c) => c.model === s.model);
      const uniq = (f) => [...new Set(mine.map(f))].sort((a, b) => a - b);
      form.replaceChildren(...[
        field(t("model"), select("model", choices.models.map((m) => [m, m]), s.model)),
        field(t("workload"), select("wl", choices.workloads(s.model).map((w) => [w, w]), s.wl)),
        field(t("ttft"), numberBox("ttft", s.ttft)),
        field(t("ttftPct"), select("pct", [["p50", "p50"], ["p90", "p90"]], s.pct)),
        field(t("latencyKind"), select("lk", [["user", t("userKind")], ["tpot", t("tpotKind")]], s.lk)),
        field(s.lk === "tpot" ? t("tpotKind") : t("userKind"), numberBox(s.lk === "tpot" ? "tpot" : "user", s.lk === "tpot" ? s.tpot : s.user)),
        field(t("demand"), numberBox("d", s.demand)),
        field(t("demandUnit"), select("dk", [["tps", t("demandTps")], ["rps", t("demandRps")]], s.dk)),
        multi("n", uniq((c) => c.n_gpus), s.n),
        multi("tp", uniq((c) => c.tp), s.tp),
        multi("ep", uniq((c) => c.ep || 1), s.ep),
      ].filter((e) => e != null)); // a filter with one value only is left out
    }

    function readForm() {
      const f = form.elements, bad = [];
      const num = (name, label) => {
        if (!f[name]) return undefined;
        const r = number(f[name].value);
        if (r.bad) bad.push([label, f[name].value]);
        return r.bad ? undefined : r.value;
      };
      const checked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => Number(i.value));
      const next = Object.assign({}, state, {
        model: f.model.value, pct: f.pct.value, lk: f.lk.value, dk: f.dk.value,
        n: checked("n"), tp: checked("tp"), ep: checked("ep"),
      });
      next.wl = choices.workloads(next.model).includes(f.wl.value) ? f.wl.value : choices.workloads(next.model)[0];
      for (const [name, key] of [["ttft", "ttft"], ["tpot", "tpot"], ["user", "user"], ["d", "demand"]]) {
        const v = num(name, t(name === "d" ? "demand" : name === "ttft" ? "ttft" : name + "Kind"));
        if (v !== undefined) next[key] = v;
      }
      if (next.demand == null) next.demand = defaults.demand; // a demand is needed to count instances
      return { next, bad };
    }

    function drawPrices() {
      renderPrices(prices, { doc, t, curves: data.curves, prices: data.prices, gpus: choices.gpus, state });
    }

    function cardLink(ids) {
      const span = el(doc, "span", { class: "lb-advisor-links" });
      ids.forEach((id, i) => {
        if (i) span.append(" ");
        span.append(el(doc, "a", { href: root.dataset.card + "#" + encodeURIComponent(id), text: t("runCards") + (ids.length > 1 ? " " + (i + 1) : "") }));
      });
      return span;
    }

    function plannerLink(c, p) {
      const q = new URLSearchParams({
        model: c.model_id, weights: c.precision, kv: c.kv || c.precision, batch: String(p.concurrency),
        seq: String(c.isl + c.osl), tp: String(c.tp), pp: String(c.pp), adp: c.adp ? "1" : "0",
      });
      return el(doc, "a", { href: root.dataset.planner + "?" + q.toString(), text: t("planner") });
    }

    function basisCell(d) {
      const text = t(d.basis) + (d.curve.band != null ? " " + t("band", { band: nf(0).format(d.curve.band) }) : "");
      return el(doc, "span", { class: "lb-advisor-basis lb-basis-" + d.basis, text });
    }

    function drawAnswer() {
      const s = state, q = query(s), res = logic.rank(data.curves, q);
      const wl = s.wl, head = [];
      notes.textContent = "";
      if (!res.considered) {
        headline.replaceChildren(el(doc, "p", { class: "lb-advisor-nothing", text: t("noCurves", { model: s.model, workload: wl }) }));
        answer.replaceChildren();
        return;
      }
      if (res.rows.length) {
        const d = res.rows[0];
        head.push(el(doc, "p", { class: "lb-advisor-best" }, [
          el(doc, "strong", { text: usd.format(d.usd_per_m) + " / 1M" }), " · ",
          configLabel(d.curve) + " · " + t("colConcurrency") + " " + d.point.concurrency + " · " +
          d.instances + " × " + d.curve.n_gpus + " = " + d.gpus + " GPU · " + usd.format(d.usd_hour) + "/h",
        ]));
      } else {
        head.push(el(doc, "p", { class: "lb-advisor-nothing", text: t("nothing") }));
        const near = logic.closest(data.curves, q);
        if (near) {
          const name = near.limit === "ttft" ? t("limitTtft", { pct: s.pct }) : near.limit === "tpot" ? t("limitTpot") : t("limitUser");
          const unit = near.limit === "user" ? " tok/s" : " ms";
          head.push(el(doc, "p", { class: "lb-advisor-closest", text: t("closest", {
            config: configLabel(near.curve), c: near.concurrency, limit: name,
            value: nf(1).format(near.value) + unit, bound: nf(1).format(near.bound) + unit, miss: nf(0).format(near.miss * 100),
          }) }));
        } else {
          head.push(el(doc, "p", { class: "lb-advisor-closest", text: t("closestNone", { pct: s.pct }) }));
        }
      }
      head.push(el(doc, "p", { class: "lb-advisor-summary", text: t("summary", { n: res.rows.length, m: res.considered, model: s.model, workload: wl }) }));
      if (res.unpriced.length) head.push(el(doc, "p", { class: "lb-advisor-unpriced", text: t("unpriced", { gpus: res.unpriced.join(", ") }) }));
      headline.replaceChildren(...head);
      if (!res.rows.length) { answer.replaceChildren(); return; }
      const cols = ["colRank", "colGpu", "colPerInstance", "colParallel", "colPrecision", "colEngine", "colConcurrency",
        "colInstances", "colGpus", "colUsdHour", "colUsdM", "colBasis", "colLatency", "colLinks"];
      const shown = showAll ? res.rows : res.rows.slice(0, MAX_ROWS);
      const body = shown.map((d, i) => {
        const c = d.curve, p = d.point;
        const where = p.interpolated ? t("interpolated", { a: p.from[0], b: p.from[1] }) : t("atMeasured");
        const fig = t("pointFigures", {
          user: p.user_tps == null ? "–" : nf(1).format(p.user_tps), pct: s.pct,
          ttft: p.ttft_ms == null ? "–" : nf(0).format(p.ttft_ms), tpot: p.tpot_ms == null ? "–" : nf(1).format(p.tpot_ms),
        });
        return el(doc, "tr", { "data-basis": d.basis }, [
          el(doc, "td", { text: String(i + 1) }), el(doc, "td", { text: c.gpu }), el(doc, "td", { class: "lb-num", text: String(c.n_gpus) }),
          el(doc, "td", { text: `${c.tp}/${c.pp}/${c.ep || 1}` }), el(doc, "td", { text: c.precision }),
          el(doc, "td", { text: engineRelease(c) }),
          el(doc, "td", { class: "lb-num", text: String(p.concurrency) }),
          el(doc, "td", { class: "lb-num", text: String(d.instances) }), el(doc, "td", { class: "lb-num", text: String(d.gpus) }),
          el(doc, "td", { class: "lb-num", text: usd.format(d.usd_hour) }), el(doc, "td", { class: "lb-num lb-advisor-cost", text: usd.format(d.usd_per_m) }),
          el(doc, "td", {}, [basisCell(d)]),
          el(doc, "td", { class: "lb-advisor-point" }, [fig, el(doc, "br"), el(doc, "small", { text: where })]),
          el(doc, "td", {}, [cardLink(p.runs), " · ", plannerLink(c, p)]),
        ]);
      });
      fill(answer,
        el(doc, "h2", { text: t("answer") }),
        el(doc, "div", { class: "lb-advisor-scroll", tabindex: "0", role: "region", "aria-label": t("answer") }, [
          el(doc, "table", { class: "lb-advisor-table" }, [
            el(doc, "thead", {}, [el(doc, "tr", {}, cols.map((k) => el(doc, "th", { scope: "col", text: t(k) })))]),
            el(doc, "tbody", {}, body)])]),
        shown.length < res.rows.length
          ? el(doc, "button", { type: "button", class: "md-button lb-advisor-all", text: t("showAll", { n: res.rows.length }) })
          : null,
        el(doc, "p", { class: "lb-advisor-muted", text: t("share") }),
      );
      const all = answer.querySelector(".lb-advisor-all");
      if (all) all.addEventListener("click", () => { showAll = true; drawAnswer(); }, on);
    }

    // The per-interactivity tables live on the Pareto view, filtered there to this model and workload.
    function drawFrontier() {
      const q = new URLSearchParams({ model: state.model, workload: state.wl });
      // #frontier: the view draws its tables at once (else as the reader scrolls near them)
      fill(front, el(doc, "a", { href: root.dataset.pareto + "?" + q.toString() + "#frontier", text: t("frontierLink") }));
    }

    function showBad(bad) {
      notes.textContent = bad.map(([f, v]) => t("badNumber", { value: v, field: f })).join(" ");
    }

    function render(writeUrl) {
      drawForm();
      drawPrices();
      drawAnswer();
      drawFrontier();
      if (writeUrl) win.history.replaceState(null, "", writeState(state, defaults) + win.location.hash);
      root.dataset.ready = "1";
    }

    function update() {
      const { next, bad } = readForm();
      next.prices = readPrices(prices, bad);
      const reform = next.model !== state.model || next.lk !== state.lk;
      showAll = false;
      state = next;
      if (reform) {
        drawForm(); // the workloads and filters are the model's; the limit's box follows its kind
        drawPrices();
      }
      drawAnswer();
      drawFrontier();
      win.history.replaceState(null, "", writeState(state, defaults) + win.location.hash);
      showBad(bad);
    }

    form.addEventListener("change", update, on);
    form.addEventListener("submit", (e) => { e.preventDefault(); update(); }, on);
    prices.addEventListener("change", update, on);
    prices.addEventListener("click", (e) => {
      if (!e.target.closest || !e.target.closest(".lb-advisor-reset")) return;
      state = Object.assign({}, state, { prices: Object.assign({}, defaults.prices) });
      render(true);
    }, on);
    // Back/Forward: the theme's guard fires lb:popstate (state/url.js onPopState says why)
    win.addEventListener("lb:popstate", () => {
      state = readState(win.location.search, defaults, choices).state;
      render(false);
    }, on);
    render(false);
    showBad(read.bad);
  }

  return {
    ready,
    destroy: () => {
      alive = false;
      ctl.abort();
    },
  };
}
