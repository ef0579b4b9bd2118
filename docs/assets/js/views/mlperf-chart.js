// views/mlperf-chart.js: the MLPerf page's bar chart as inline SVG, the same drawing on the page and in the
// exported SVG/PNG (which carry MLCommons' footnote). In: items [{r, score, head, who}] and options
// {width, colors, title, foot}. Out: an <svg>, its text, downloads. Side effects: a measuring canvas, the
// download link it clicks.

import { el } from "../dom.js";
import { FONT } from "../theme.js";

const SVG = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}
let measureCtx = null;
function textWidth(text, font) {
  measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
  // a font set is parsed again even when it is the same: only on a change (wrap() measures word by word)
  if (measureCtx.lbFont !== font) measureCtx.font = measureCtx.lbFont = font;
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

// items: [{r, score, head, who}]; opts: {width, colors: {bg, text, muted, bar}, title: [], foot: []}
export function drawChart(items, opts) {
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

export function download(name, blob) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
export function exportSvg(chart) {
  const svg = drawChart(chart.items, {
    width: 960, title: chart.title, foot: chart.foot,
    colors: { bg: "#ffffff", text: "#1a1a1a", muted: "#555555", bar: "#3f51b5" },
  });
  return new XMLSerializer().serializeToString(svg);
}
export function exportPng(chart, name) {
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
