/* The MLPerf(R) Inference page (site_gen/mlperf_pages.py writes its shell and its one data file).
 *
 * Loads the page's rows once (a <script> assigning window.LLMBENCH_DATA[key], site_gen.dataset's columnar
 * format, so it works from file://) and renders, for the rows the filter bar keeps: a bar chart and a
 * table of the best result per accelerator, the results across rounds for one system type, and every
 * result. MLCommons' rules, as the page script keeps them:
 * - every figure drawn names its result ID, submitter, system and round;
 * - "best" is taken within one division, benchmark, scenario and group of rounds MLCommons allows
 *   comparing (comparableKey), whatever the filters say; only tokens/s results are ranked as tokens/s;
 * - per-accelerator throughput is labelled derived, not an MLPerf metric;
 * - the chart's exported SVG/PNG carries the footnote (suite, round, division, benchmark and scenario,
 *   date and source of retrieval, result IDs, "verified by MLCommons", the trademark legend).
 * Text goes in through textContent only (never innerHTML), so nothing from a result file is markup.
 */
(function () {
  "use strict";

  const LOG_TAIL = "/performance/run_1/mlperf_log_summary.txt"; // site_gen.mlperf_pages.LOG_TAIL
  // Every sentence the script shows comes from the page language's message catalogue (mlperf_ui in
  // site_gen/i18n/<lang>.yaml, loaded before this script as assets/i18n/<lang>.js); {name} placeholders.
  // MLCommons' required English (trademark legend, "Result verified by MLCommons Association.") comes
  // from the page (data-trademark, data-verified), with the catalogue's gloss beside it where it has one.
  const I18N = (window.LLMBENCH_I18N && window.LLMBENCH_I18N.mlperf_ui) || {};
  const fill = (text, values) => String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  const say = (key, values) => fill(I18N[key] ?? key, values || {});
  const UNITS = {
    tokens_per_s: say("unit_tokens_per_s"), samples_per_s: say("unit_samples_per_s"),
    queries_per_s: say("unit_queries_per_s"), latency_p90_ns: say("unit_latency_p90_ns"),
  };
  const UI = {
    count: (n, total, division) => say("count", { n, total, division }),
    pickBenchmark: say("pickBenchmark"),
    noTokens: say("noTokens"),
    mixedRounds: (rounds) => say("mixedRounds", { rounds }),
    chartTitle: (bench, scenario, division) => say("chartTitle", { bench, scenario, division }),
    chartAria: (measure, n, table) => say("chartAria", { measure, n, table }),
    systemLine: (gpu, value, n, perAcc) => say(n === 1 ? "systemLineOne" : "systemLineMany", { gpu, value, n, perAcc }),
    accLine: (gpu, perAcc, value, n) => say("accLine", { gpu, perAcc, value, n }),
    // the division and availability as MLCommons writes them; "open ‡" marks an open-division result
    whoLine: (r) => say("whoLine", {
      submitter: r.submitter, system: r.system_name, round: r.round, open: r.division === "open" ? " · open ‡" : "",
      availability: r.availability, rid: r.result_id,
    }),
    foot: (suites, rounds, division, bench, scenario) => say("foot", { suites, rounds, division, bench, scenario }),
    retrieved: (dates, repos) => say("retrieved", { dates, repos }),
    ids: (ids) => say("ids", { ids }),
    derived: say("derived"),
    suitesJoin: say("suitesJoin"),
    openFoot: "‡ ",
    inferred: say("inferred"),
    asFiled: say("asFiled"),
    latency: (name, p99, limit) => (limit === null ? say("latency", { name, p99 }) : say("latencyLimit", { name, p99, limit })),
    na: say("na"),
    downloadSvg: say("downloadSvg"),
    downloadPng: say("downloadPng"),
    loadError: say("loadError"),
  };
  // Numbers in the page's language (<html lang>: "en", "ko"); the catalogue's language when it has none.
  const LOCALE = document.documentElement.lang || (window.LLMBENCH_I18N || {}).lang || "en";
  const fmt1 = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const count = new Intl.NumberFormat(LOCALE);
  const api = { lastChart: null };
  window.mlperfPage = api; // for the browser tests

  /* ---- data ---------------------------------------------------------------------------------- */

  // The rows through the page script's loader and decoder (llmbench.js, which loads this script), each
  // copied with the figures derived here (the decoded rows are shared with its cache).
  function load(src, key) {
    return window.llmbench.loadRows(src, key).then((rows) => rows.map(withFigures));
  }

  function withFigures(row) {
    const r = { ...row };
    r.value = Number(r.value_text);
    r.tps = r.metric === "tokens_per_s" ? r.value : null; // never rank samples/s or latency as tokens/s
    r.per_acc = r.tps === null ? null : r.tps / r.total_accelerators;
    // site_gen.mlperf_pages._log_parts: null = system_id/benchmark/scenario; "=" + URL = the URL as is
    const path = r.log_path === null ? `${r.system_id}/${r.benchmark}/${r.scenario}` : r.log_path;
    r.log_url = path.startsWith("=") ? path.slice(1) : r.log_head + path + LOG_TAIL;
    return r;
  }

  /* ---- MLCommons' comparability -------------------------------------------------------------- */

  const roundNumber = (r) => r.replace(/^v/, "");
  function cmpRound(a, b) {
    const [x1, y1] = roundNumber(a).split(".").map(Number);
    const [x2, y2] = roundNumber(b).split(".").map(Number);
    return x1 - x2 || y1 - y2;
  }
  function compatKey(compat, bench) {
    return Object.keys(compat).find((k) => bench.startsWith(k)) || null;
  }
  // The rounds a result may be compared across: its benchmark's compatible range when the round lies in
  // it, else the round alone (a benchmark MLCommons does not list is never compared across rounds).
  function roundGroup(compat, bench, round) {
    const k = compatKey(compat, bench);
    if (k && cmpRound(round, compat[k][0]) >= 0 && cmpRound(round, compat[k][1]) <= 0) return "c:" + k;
    return "r:" + round;
  }
  function comparableKey(compat, r) {
    return [r.division, r.benchmark_official, r.scenario, roundGroup(compat, r.benchmark_official, r.round)].join("\u0000");
  }
  // The best tokens/s result per key; keys always start with comparableKey, so no "best" mixes
  // divisions, benchmarks, scenarios or incompatible rounds, whatever the filters keep.
  function best(compat, rows, keyOf, score) {
    const out = new Map();
    for (const r of rows) {
      if (r.tps === null) continue;
      const k = comparableKey(compat, r) + "\u0001" + keyOf(r);
      if (!out.has(k) || score(r) > score(out.get(k))) out.set(k, r);
    }
    return [...out.values()];
  }
  Object.assign(api, { roundGroup, comparableKey, best });

  /* ---- DOM helpers --------------------------------------------------------------------------- */

  function el(tag, attrs, text) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  }
  function row(body, cells) {
    const tr = document.createElement("tr");
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c;
      tr.appendChild(td);
    }
    body.appendChild(tr);
    return tr;
  }
  function ridCell(r) {
    return el("span", { class: "mlperf-rid" }, r.result_id);
  }
  function divisionCell(r, openNote) {
    return r.division === "open" ? el("span", { class: "mlperf-open", title: openNote }, "open ‡") : r.division;
  }
  // the figure exactly as the LoadGen log prints it; where that is exponent notation (1.12685e+06), also
  // written out, since a reader should not have to decode it
  const shown = (r) => (/e/i.test(r.value_text) ? `${r.value_text} (${count.format(Math.round(r.value))})` : r.value_text);
  const perAcc = (r) => (r.per_acc === null ? UI.na : fmt1.format(r.per_acc));

  /* ---- the chart: inline SVG, the same drawing on the page and in the exported image ------------ */

  let measureCtx = null;
  function textWidth(text, font) {
    measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
    measureCtx.font = font;
    return measureCtx.measureText(text).width;
  }
  function wrap(text, font, width) {
    const lines = [];
    let line = "";
    for (const word of text.split(" ")) {
      const next = line ? line + " " + word : word;
      if (line && textWidth(next, font) > width) {
        lines.push(line);
        line = word;
      } else line = next;
    }
    if (line) lines.push(line);
    return lines;
  }

  const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  // items: [{r, score, head, who}]; opts: {width, colors: {bg, text, muted, bar}, title: [], foot: []}
  function drawChart(items, opts) {
    const pad = 8, w = opts.width, inner = w - 2 * pad;
    const font = (px, bold) => `${bold ? "600 " : ""}${px}px ${FONT}`;
    const svg = svgEl("svg", { xmlns: SVG, width: w, role: "img", "font-family": FONT });
    const parts = [];
    let y = pad;
    const lines = (texts, px, bold, color, cls) => {
      for (const t of texts) {
        for (const line of wrap(t, font(px, bold), inner)) {
          y += px * 1.3;
          parts.push(svgEl("text", { x: pad, y: y - px * 0.3, "font-size": px, "font-weight": bold ? 600 : 400, fill: color, ...(cls ? { class: cls } : {}) }, line));
        }
        y += px * 0.3;
      }
    };
    if (opts.title.length) {
      lines(opts.title, 15, true, opts.colors.text);
      y += 6;
    }
    const max = Math.max(...items.map((it) => it.score));
    for (const it of items) {
      const g = svgEl("g", { class: "mlperf-bar", "data-rid": it.r.result_id });
      g.appendChild(svgEl("title", {}, `${it.head}. ${it.who}`));
      const start = parts.length;
      lines([it.head], 12.5, true, opts.colors.text, "mlperf-chart-head");
      y += 2;
      parts.push(svgEl("rect", { x: pad, y, width: Math.max(1, (inner * it.score) / max), height: 14, rx: 2, fill: opts.colors.bar, class: "mlperf-chart-bar" }));
      y += 14 + 2;
      lines([it.who], 11, false, opts.colors.muted, "mlperf-chart-who");
      y += 8;
      for (const p of parts.splice(start)) g.appendChild(p);
      parts.push(g);
    }
    if (opts.foot.length) {
      y += 4;
      parts.push(svgEl("line", { x1: pad, x2: w - pad, y1: y, y2: y, stroke: opts.colors.muted, "stroke-width": 0.5 }));
      y += 4;
      lines(opts.foot, 10.5, false, opts.colors.text);
    }
    const h = Math.ceil(y + pad);
    svg.setAttribute("height", h);
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    if (opts.colors.bg) svg.appendChild(svgEl("rect", { x: 0, y: 0, width: w, height: h, fill: opts.colors.bg }));
    for (const p of parts) svg.appendChild(p);
    return svg;
  }

  function download(name, blob) {
    const a = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  function exportSvg(chart) {
    const svg = drawChart(chart.items, {
      width: 960, title: chart.title, foot: chart.foot,
      colors: { bg: "#ffffff", text: "#1a1a1a", muted: "#555555", bar: "#3f51b5" },
    });
    return new XMLSerializer().serializeToString(svg);
  }
  function exportPng(chart, name) {
    const text = exportSvg(chart);
    const img = new Image();
    img.onload = () => {
      const canvas = el("canvas", { width: img.width * 2, height: img.height * 2 });
      const ctx = canvas.getContext("2d");
      ctx.scale(2, 2);
      ctx.drawImage(img, 0, 0);
      canvas.toBlob((blob) => download(name, blob), "image/png");
    };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  }

  /* ---- the page ------------------------------------------------------------------------------ */

  // An MLCommons-required sentence in its English, then the page language's gloss when there is one
  // (the footnote under the chart and in the exported image).
  const notice = (text, gloss) => (gloss ? [text, gloss] : [text]);

  function boot(root) {
    if (!root || root.dataset.ready) return;
    root.dataset.ready = "1";
    load(root.dataset.src, root.dataset.key).then(
      (rows) => start(root, rows),
      () => {
        const fb = document.querySelector("[data-mlperf-fallback]");
        if (fb) fb.prepend(document.createTextNode(UI.loadError + root.dataset.src + ". "));
      },
    );
  }

  function start(root, rows) {
    const compat = JSON.parse(root.dataset.compat);
    const openNote = root.dataset.openNote;
    const filters = [...root.querySelectorAll("[data-mlperf-filter]")];
    const $ = (sel) => root.querySelector(sel);
    const systemSel = $("[data-mlperf-system]");
    const measureSel = $("[data-mlperf-measure]");
    const figure = $("[data-mlperf-chart]");
    let keep = rows;

    function chosen() {
      return Object.fromEntries(filters.map((f) => [f.dataset.mlperfFilter, f.value]));
    }

    function visible() {
      const want = filters.filter((f) => f.value).map((f) => [f.dataset.mlperfFilter, f.value]);
      return rows.filter((r) => want.every(([k, v]) => String(r[k]) === v));
    }

    function fillBest() {
      const body = $("[data-mlperf-best] tbody");
      const frag = document.createDocumentFragment();
      const list = best(compat, keep, (r) => r.gpu, (r) => r.tps).sort((a, b) =>
        a.benchmark_official.localeCompare(b.benchmark_official) || a.scenario.localeCompare(b.scenario) || b.tps - a.tps);
      for (const r of list) {
        row(frag, [r.gpu, r.benchmark_official, r.scenario, shown(r), perAcc(r), String(r.total_accelerators),
          r.submitter, r.system_name, r.round, divisionCell(r, openNote), r.availability, ridCell(r)]);
      }
      body.replaceChildren(frag);
    }

    function fillSystems() {
      const types = new Map();
      for (const r of keep) {
        const t = `${r.gpu} × ${r.total_accelerators}`;
        if (r.tps !== null) types.set(t, (types.get(t) || 0) + 1);
      }
      const was = systemSel.value;
      systemSel.replaceChildren(...[...types.keys()].sort().map((t) => el("option", { value: t }, t)));
      // keep the reader's choice; else start on the system type with the most results
      const most = [...types.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
      if (types.has(was)) systemSel.value = was;
      else if (most) systemSel.value = most[0];
    }

    function fillRounds() {
      const body = $("[data-mlperf-rounds] tbody");
      const type = systemSel.value;
      // only benchmarks MLCommons lists, in rounds inside their range, are set side by side
      const mine = keep.filter((r) => `${r.gpu} × ${r.total_accelerators}` === type
        && roundGroup(compat, r.benchmark_official, r.round).startsWith("c:"));
      const list = best(compat, mine, (r) => r.round, (r) => r.tps).sort((a, b) =>
        a.benchmark_official.localeCompare(b.benchmark_official) || a.scenario.localeCompare(b.scenario) || cmpRound(a.round, b.round));
      const frag = document.createDocumentFragment();
      for (const r of list) {
        row(frag, [r.benchmark_official, r.scenario, r.round, shown(r), String(r.total_accelerators), r.submitter,
          r.system_name, divisionCell(r, openNote), r.availability, ridCell(r)]);
      }
      body.replaceChildren(frag);
    }

    function latency(r) {
      return [["TTFT", r.ttft_p99_ms, r.ttft_limit_ms], ["TPOT", r.tpot_p99_ms, r.tpot_limit_ms]]
        .filter(([, p99]) => p99 !== null)
        .map(([name, p99, limit]) => UI.latency(name, p99, limit))
        .join("; ");
    }

    function fillAll() {
      const frag = document.createDocumentFragment();
      for (const r of keep) {
        const bench = el("span", {}, r.benchmark_official);
        if (r.benchmark !== r.benchmark_official) bench.append(el("br"), el("small", {}, UI.asFiled + r.benchmark));
        const value = el("span", {});
        value.append(el("a", { href: r.log_url }, shown(r)), " " + UNITS[r.metric]);
        if (r.tokens_inferred) value.append(el("br"), el("small", {}, UI.inferred));
        const engine = el("span", {}, `${r.engine} `);
        engine.append(el("small", {}, `(${r.engine_basis})`), el("br"), el("small", {}, r.framework));
        const tr = row(frag, [ridCell(r), r.round, divisionCell(r, openNote), r.availability, r.submitter, r.system_name,
          r.gpu, String(r.total_accelerators), bench, r.scenario, value, perAcc(r), engine, el("small", {}, latency(r))]);
        if (r.metric !== "tokens_per_s") tr.cells[10].className = "mlperf-other-metric";
      }
      $("[data-mlperf-all] tbody").replaceChildren(frag);
    }

    function chartData() {
      const f = chosen();
      if (!f.benchmark_official || !f.scenario) return { message: UI.pickBenchmark };
      const acc = measureSel.value === "acc";
      const score = acc ? (r) => r.per_acc : (r) => r.tps;
      const top = best(compat, keep, (r) => r.gpu, score);
      if (!top.length) return { message: UI.noTokens };
      const groups = new Set(top.map((r) => comparableKey(compat, r)));
      if (groups.size > 1) return { message: UI.mixedRounds([...new Set(top.map((r) => r.round))].sort(cmpRound).join(", ")) };
      top.sort((a, b) => score(b) - score(a));
      const items = top.map((r) => ({
        r, score: score(r),
        head: acc ? UI.accLine(r.gpu, perAcc(r), shown(r), r.total_accelerators)
          : UI.systemLine(r.gpu, shown(r), r.total_accelerators, perAcc(r)),
        who: UI.whoLine(r),
      }));
      const uniq = (xs) => [...new Set(xs)].sort();
      const suites = uniq(top.map((r) => r.suite[0].toUpperCase() + r.suite.slice(1))).join(UI.suitesJoin);
      const rounds = uniq(top.map((r) => r.round)).sort(cmpRound).join(", ");
      const division = top[0].division;
      const foot = [
        UI.foot(suites, rounds, division, f.benchmark_official, f.scenario),
        UI.retrieved(uniq(top.map((r) => r.retrieved)).join(", "), uniq(top.map((r) => r.repository)).join(", ")),
        UI.ids(top.map((r) => r.result_id).join(", ")),
        ...notice(root.dataset.verified, root.dataset.verifiedGloss),
        UI.derived,
        ...(division === "open" ? [UI.openFoot + openNote] : []),
        ...notice(root.dataset.trademark, root.dataset.trademarkGloss),
      ];
      // the measure as the page's select names it (its words are the page's, from the catalogue)
      const measure = measureSel.selectedOptions[0].textContent;
      const title = [UI.chartTitle(f.benchmark_official, f.scenario, division), measure];
      const name = `mlperf-${f.benchmark_official}-${f.scenario}-${division}${acc ? "-per-accelerator" : ""}`;
      return { items, foot, title, name, measure };
    }

    function fillChart() {
      const chart = chartData();
      api.lastChart = chart;
      figure.replaceChildren();
      if (chart.message) {
        figure.append(el("p", { class: "mlperf-status" }, chart.message));
        return;
      }
      const svg = drawChart(chart.items, {
        width: Math.max(280, root.clientWidth || 600), title: [], foot: [],
        // the page's palette comes from mlperf.css (classes), so it follows Material's light/dark scheme
        colors: { text: "currentColor", muted: "currentColor", bar: "currentColor" },
      });
      const table = ($("#best") || {}).firstChild;
      svg.setAttribute("aria-label", UI.chartAria(chart.measure, chart.items.length, table ? table.textContent : ""));
      const caption = el("figcaption", { class: "mlperf-footnote", "data-mlperf-chart-footnote": "" });
      for (const line of chart.foot) caption.append(el("p", {}, line));
      const tools = el("p", { class: "mlperf-export" });
      const svgButton = el("button", { type: "button", class: "md-button", "data-mlperf-export": "svg" }, UI.downloadSvg);
      const pngButton = el("button", { type: "button", class: "md-button", "data-mlperf-export": "png" }, UI.downloadPng);
      svgButton.addEventListener("click", () => download(chart.name + ".svg", new Blob([exportSvg(chart)], { type: "image/svg+xml" })));
      pngButton.addEventListener("click", () => exportPng(chart, chart.name + ".png"));
      tools.append(svgButton, " ", pngButton);
      figure.append(svg, caption, tools);
    }
    api.exportSvg = () => exportSvg(api.lastChart);

    function update() {
      keep = visible();
      const division = chosen().division;
      $("[data-mlperf-count]").textContent = UI.count(count.format(keep.length), count.format(rows.length), division);
      $("[data-mlperf-open-note]").hidden = division !== "open";
      fillChart();
      fillBest();
      fillSystems();
      fillRounds();
      fillAll();
    }

    for (const f of filters) f.addEventListener("change", update);
    systemSel.addEventListener("change", fillRounds);
    measureSel.addEventListener("change", fillChart);
    let resizeTimer = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => document.body.contains(figure) && fillChart(), 150);
    });
    const fb = document.querySelector("[data-mlperf-fallback]");
    if (fb) fb.hidden = true;
    root.hidden = false;
    update();
    root.dataset.rendered = "1";
  }

  function bootAll() { boot(document.querySelector("[data-mlperf]")); }
  if (window.document$ && location.protocol !== "file:") window.document$.subscribe(bootAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bootAll);
  else bootAll();
})();
