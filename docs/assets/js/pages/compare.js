// pages/compare.js: compare mode (.lb-compare, compare.html?by=gpu&a=…&b=…): A against B along one
// dimension over the configurations both have; its pickers, summary, geomean, chart and table.
// In: the placeholder (data-lb-config from site_gen/pages/compare.py), the page's charts. Out: {ready, destroy}.
// Side effects: the placeholder's elements; the URL (replaced, through state/url.js).

import { cardHref, el, json } from "../dom.js";
import { COUNT, NUMBER } from "../format.js";
import * as url from "../state/url.js";
import { fixedMatcher, openSource, valueCodes } from "../data/source.js";
import { geomean, pairLabel, pairs, usable } from "../calc/compare.js";
import { setRows } from "../views/chart.js";

// The order of a compared column's values (registry order for GPUs, release order for versions).
const SORT_COLUMN = { gpu: "gpu_order", engine_version: "version_key", precision: "precision_order", workload: "workload_order" };
const values = (rows, column) => valueCodes(rows, { column, sort_column: SORT_COLUMN[column] || null }).values;

function select(label, value, options, onChange, anyLabel) {
  const box = el("label", { class: "lb-compare-field" });
  box.append(el("span", {}, label + " "));
  const sel = el("select");
  if (anyLabel) sel.append(el("option", { value: "" }, anyLabel));
  for (const o of options) {
    const opt = el("option", { value: o }, o);
    if (o === value) opt.selected = true;
    sel.append(opt);
  }
  sel.addEventListener("change", () => onChange(sel.value));
  box.append(sel);
  return box;
}

export function mountCompare(root, charts) {
  const cfg = json(root, "data-lb-config", {});
  const ui = cfg.ui;
  const bar = root.querySelector(".lb-compare-bar");
  const tableNode = root.querySelector(".lb-compare-table");
  // filters besides the compared dimension: model, workload and the other "by" dimensions
  const filters = [
    { key: "model", label: ui.model, column: "model_name" },
    { key: "workload", label: ui.workload, column: "workload" },
    ...cfg.by,
  ];
  let all = [], state = null, chart = null;
  const byDim = () => cfg.by.find((d) => d.key === state.by);

  function readUrl(search) {
    const q = new URLSearchParams(search);
    const by = cfg.by.find((d) => d.key === q.get("by")) || cfg.by[0];
    const free = (cfg.free || []).includes(q.get("free")) ? q.get("free") : "";
    const s = { by: by.key, a: q.get("a") || "", b: q.get("b") || "", where: {}, free };
    for (const f of filters) if (f.key !== by.key && q.get(f.key)) s.where[f.key] = q.get(f.key);
    return s;
  }

  function writeUrl() {
    const q = new URLSearchParams({ by: state.by, a: state.a, b: state.b });
    for (const [k, v] of Object.entries(state.where)) q.set(k, v);
    if (state.free) q.set("free", state.free);
    url.replaceQuery(q, false);
  }

  // Rows passing the filters other than the compared dimension.
  function filtered() {
    const tests = Object.entries(state.where).map(([k, v]) => [filters.find((f) => f.key === k).column, v]);
    return all.filter((r) => tests.every(([c, v]) => String(r[c]) === v));
  }

  function buildBar(rows) {
    const by = byDim();
    const options = values(rows, by.column);
    if (!options.includes(state.a)) state.a = options[0] || "";
    if (!options.includes(state.b)) state.b = options.find((o) => o !== state.a) || "";
    const set = (patch) => {
      Object.assign(state, patch);
      update(true);
    };
    bar.replaceChildren(
      select(ui.by, by.label, cfg.by.map((d) => d.label), (label) => {
        const d = cfg.by.find((x) => x.label === label);
        const where = { ...state.where };
        delete where[d.key];
        set({ by: d.key, a: "", b: "", where });
      }),
      select(ui.a, state.a, options, (v) => set({ a: v })),
      select(ui.b, state.b, options, (v) => set({ b: v })),
      ...filters
        .filter((f) => f.key !== by.key)
        .map((f) =>
          select(f.label, state.where[f.key] || "", values(all, f.column), (v) => {
            const where = { ...state.where };
            if (v) where[f.key] = v;
            else delete where[f.key];
            set({ where });
          }, ui.any)
        )
    );
    if (by.column !== "precision" && (cfg.free || []).includes("precision")) {
      const box = el("label", { class: "lb-compare-field" });
      const check = el("input", { type: "checkbox" });
      check.checked = state.free !== "precision";
      check.addEventListener("change", () => set({ free: check.checked ? "" : "precision" }));
      box.append(check, " " + ui.free);
      bar.append(box);
    }
  }

  async function update(push) {
    const rows = filtered();
    buildBar(rows);
    if (push) writeUrl();
    const by = byDim().column;
    const metric = cfg.metric;
    const found = pairs(rows, { by, a: state.a, b: state.b, match: cfg.match, metric, free: state.free });
    const data = found.map((p, i) => ({
      label: pairLabel({ ...p.a, other: p.b }, by, state.free), order: i, a: p.a[metric], b: p.b[metric],
      ratio: p.a[metric] / p.b[metric], run_id: null, a_run: p.a.run_id, b_run: p.b.run_id,
    }));
    const n = data.length;
    root.querySelector(".lb-compare-summary").textContent = n
      ? `${state.a} vs ${state.b}: ` + ui.matched.replace("{n}", COUNT.format(n))
      : ui.none;
    const g = geomean(data.map((d) => d.ratio));
    root.querySelector(".lb-compare-geomean").textContent = g ? ui.geomean.replace("{g}", g.toFixed(2) + "×") : "";
    renderTable(data);
    await setRows(chart, data);
    root.dataset.lbRendered = String((Number(root.dataset.lbRendered) || 0) + 1);
  }

  function renderTable(data) {
    const head = el("tr");
    for (const h of [ui.config, `A: ${state.a}`, `B: ${state.b}`, ui.ratio]) head.append(el("th", { scope: "col" }, h));
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    for (const d of data) {
      const tr = el("tr");
      tr.append(el("td", {}, d.label));
      for (const [v, id] of [[d.a, d.a_run], [d.b, d.b_run]]) {
        const td = el("td", { class: "lb-num" });
        td.append(el("a", { href: cardHref(root, id) }, NUMBER.format(v)));
        tr.append(td);
      }
      tr.append(el("td", { class: "lb-num" }, d.ratio.toFixed(2)));
      tbody.append(tr);
    }
    tableNode.replaceChildren(thead, tbody);
  }

  async function start() {
    const rows = await openSource(root.dataset.lbSrc, root.dataset.lbKey).rows();
    all = usable(rows.filter(fixedMatcher(json(root, "data-lb-fixed", {}))), cfg);
    state = readUrl(url.search());
    root.querySelectorAll(".lb-preset").forEach((a) =>
      a.addEventListener("click", (ev) => {
        ev.preventDefault();
        ev.stopPropagation();
        state = readUrl(new URL(a.href).search);
        update(true);
      })
    );
    const record = charts.of(root.querySelector(".lb-chart"));
    record.source = () => null; // compare sets the rows itself
    chart = await charts.draw(record);
    await update(false);
  }

  return { ready: start(), destroy() {} };
}
