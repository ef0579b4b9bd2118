// views/planner-form.js: the memory planner's form, summary and per-GPU bars (English, as the page).
// In: the state and the numbers of calc/planner-memory.js. Out: the form's state (readState).
// Side effects: the planner's own elements; every string through textContent.

import { el } from "../dom.js";
import { groupBytesPerWeight, kvBytesPerToken, kvBytesPerTokenSimplified, layerCounts } from "../calc/planner-memory.js";

var PARTS = [
  ["weights", "Weights"],
  ["kv_cache", "KV cache"],
  ["activations", "Activations"],
  ["overhead", "Runtime overhead"],
];
export const WEIGHT_CHOICES = ["FP16", "BF16", "FP8", "INT8", "FP4", "INT4"];
export const KV_CHOICES = ["FP16", "BF16", "FP8", "INT8", "NVFP4"];
export const TP_CHOICES = [1, 2, 4, 8, 16];
export const PP_CHOICES = [1, 2, 4, 8];

function gib(bytes) {
  return (bytes / 1073741824).toFixed(1) + " GiB";
}

export function field(form, label, control) {
  var wrap = el("label", { class: "llmbench-planner__field" });
  wrap.appendChild(el("span", {}, label));
  wrap.appendChild(control);
  form.appendChild(wrap);
  return control;
}

export function select(name, options, value) {
  var s = el("select", { name: name });
  options.forEach(function (o) {
    var opt = el("option", { value: String(o.value !== undefined ? o.value : o) }, String(o.label || o));
    s.appendChild(opt);
  });
  s.value = String(value);
  return s;
}

export function number(name, value, min, max) {
  return el("input", { type: "number", name: name, value: String(value), min: String(min), max: String(max), step: "1" });
}

export function readState(form) {
  var f = form.elements;
  return {
    model: f.model.value,
    weight_precision: f.weight_precision.value,
    kv_dtype: f.kv_dtype.value,
    batch: Math.max(1, parseInt(f.batch.value, 10) || 1),
    seq_len: Math.max(1, parseInt(f.seq_len.value, 10) || 1),
    tp: parseInt(f.tp.value, 10),
    pp: parseInt(f.pp.value, 10),
    max_num_tokens: Math.max(1, parseInt(f.max_num_tokens.value, 10) || 1),
    attention_dp: f.attention_dp.checked,
  };
}

export function renderSummary(box, arch, s, p, C) {
  box.textContent = "";
  var kvB = C.KV_BYTES[s.kv_dtype];
  var exact = kvBytesPerToken(arch, kvB), simple = kvBytesPerTokenSimplified(arch, kvB);
  var lines = [
    "Per GPU (TP" + s.tp + " x PP" + s.pp + "): weights " + gib(p.weights) + " + KV cache " + gib(p.kv_cache) +
      " + activations " + gib(p.activations) + " + overhead " + gib(p.overhead) + " = " + gib(p.total) + ".",
    "KV cache per token, whole model: " + (exact / 1024).toFixed(0) + " KiB (" +
      (arch.kv_dim_per_layer
        ? arch.layers + " layers × " + arch.kv_dim_per_layer + " latent elements"
        : "2 × " + arch.layers + " layers × " + arch.kv_heads + " KV heads × " + arch.head_dim) +
      " × " + kvB + " B); the hidden-size shortcut would say " + (simple / 1024).toFixed(0) + " KiB (" +
      (simple / exact).toFixed(1) + "x).",
  ];
  if (arch.attention_heads % s.tp) {
    lines.push("Warning: TP" + s.tp + " does not divide the " + arch.attention_heads + " attention heads; " +
      "TensorRT-LLM will refuse this layout.");
  }
  var counts = layerCounts(arch);
  if (counts.S || counts.C) {
    lines.push((counts.S || counts.C) + " of " + arch.layers + " layers use " +
      (counts.S ? "a " + arch.window + "-token sliding window" : "chunked attention in blocks of " + arch.window + " tokens") +
      " and cache at most " + arch.window + " tokens.");
  }
  var per = groupBytesPerWeight(arch, s.weight_precision, C);
  var kept = C.GROUPS.filter(function (g) { return per[g] === C.HALF_BYTES && per.experts !== C.HALF_BYTES; });
  var fmt = (arch.formats || {})[s.weight_precision] || C.PRECISIONS[s.weight_precision].format;
  lines.push("Weights: " + fmt + " at " + (8 * per.experts).toFixed(3).replace(/\.?0+$/, "") + " bits per weight" +
    (kept.length ? "; kept in 16 bit: " + kept.join(", ").replace(/_/g, " ") : "") +
    (s.attention_dp ? "; attention DP: attention, embeddings and lm_head whole on every GPU" : "") + ".");
  lines.forEach(function (t) { box.appendChild(el("p", {}, t)); });
}

export function renderBars(box, p, rows, C) {
  box.textContent = "";
  rows.forEach(function (r) {
    var capacity = r.memory_gb * C.GIB;
    var row = el("div", { class: "llmbench-planner__row" + (r.fits ? "" : " llmbench-planner__row--over") });
    var need = r.min_gpus ? "needs " + r.min_gpus + " GPU" + (r.min_gpus > 1 ? "s" : "") + " (" + r.min_layout + ")" : "does not fit in 128 GPUs";
    row.appendChild(el("div", { class: "llmbench-planner__label" },
      r.gpu + ": " + gib(p.total) + " of " + r.memory_gb + " GiB, " + (r.fits ? "fits" : "does not fit") +
      " at this layout; " + need));
    var bar = el("div", { class: "llmbench-planner__bar", role: "img",
      "aria-label": r.gpu + ": " + gib(p.total) + " of " + r.memory_gb + " GiB" });
    var used = 0;
    PARTS.forEach(function (part) {
      var share = Math.max(0, Math.min(p[part[0]] / capacity, 1 - used));
      used += share;
      var seg = el("span", { class: "llmbench-planner__seg llmbench-planner__seg--" + part[0],
        title: part[1] + ": " + gib(p[part[0]]) });
      seg.style.width = (100 * share).toFixed(3) + "%";
      bar.appendChild(seg);
    });
    row.appendChild(bar);
    box.appendChild(row);
  });
}

export function legend() {
  var box = el("div", { class: "llmbench-planner__legend" });
  PARTS.forEach(function (part) {
    var item = el("span", { class: "llmbench-planner__key" });
    item.appendChild(el("span", { class: "llmbench-planner__seg llmbench-planner__seg--" + part[0] }));
    item.appendChild(document.createTextNode(" " + part[1]));
    box.appendChild(item);
  });
  return box;
}
