// pages/planner.js: the memory planner (#llmbench-planner, guide page 07): its data (the classic
// planner-data.js, window.LLMBENCH_PLANNER), its state from and to the URL, the form and the bars.
// Imported by main.js on that page only. In: the host element. Out: {ready, destroy}. Side effects: the
// host's content; the URL's query replaced after a change (through state/url.js).

import * as url from "../state/url.js";
import { fitTable, plan } from "../calc/planner-memory.js";
import {
  KV_CHOICES, PP_CHOICES, TP_CHOICES, WEIGHT_CHOICES, field, legend, number, readState, renderBars, renderSummary, select,
} from "../views/planner-form.js";
import { el } from "../dom.js";

function initialState(data) {
  var q = new URLSearchParams(url.search());
  var fallback = data.models.filter(function (m) { return /Llama-3\.1-70B/.test(m.id); })[0] || data.models[0];
  var model = data.models.filter(function (m) { return m.id === q.get("model"); })[0] || fallback;
  function pick(key, choices, dflt) {
    var v = q.get(key);
    return choices.map(String).indexOf(v) >= 0 ? v : dflt;
  }
  function int(key, dflt) {
    var v = parseInt(q.get(key), 10);
    return v > 0 ? v : dflt;
  }
  return {
    model: model.id,
    weight_precision: pick("weights", WEIGHT_CHOICES, "FP16"),
    kv_dtype: pick("kv", KV_CHOICES, "FP16"),
    batch: int("batch", 32),
    seq_len: int("seq", 4096),
    tp: pick("tp", TP_CHOICES, "4"),
    pp: pick("pp", PP_CHOICES, "1"),
    max_num_tokens: int("max_num_tokens", data.constants.DEFAULT_MAX_NUM_TOKENS),
    attention_dp: q.get("adp") === "1",
  };
}

function writeUrl(s) {
  var q = new URLSearchParams(url.search());
  q.set("model", s.model); q.set("weights", s.weight_precision); q.set("kv", s.kv_dtype);
  q.set("batch", s.batch); q.set("seq", s.seq_len); q.set("tp", s.tp); q.set("pp", s.pp);
  q.set("max_num_tokens", s.max_num_tokens);
  q.set("adp", s.attention_dp ? "1" : "0");
  url.replaceQuery(q, false);
}

/** Draw the planner in its host (once per element). */
export function mountPlanner(host) {
  var data = window.LLMBENCH_PLANNER;
  if (!data || host.dataset.mounted) return { ready: Promise.resolve(), destroy() {} };
  host.dataset.mounted = "1";
  host.textContent = "";
  var C = data.constants, s0 = initialState(data);
  var form = el("form", { class: "llmbench-planner__form" });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  var models = data.models.slice().sort(function (a, b) { return a.name.localeCompare(b.name); });
  field(form, "Model", select("model", models.map(function (m) { return { value: m.id, label: m.name }; }), s0.model));
  field(form, "Weight precision", select("weight_precision", WEIGHT_CHOICES, s0.weight_precision));
  field(form, "KV-cache dtype", select("kv_dtype", KV_CHOICES, s0.kv_dtype));
  field(form, "Batch (sequences)", number("batch", s0.batch, 1, 65536));
  field(form, "Sequence length (ISL + OSL)", number("seq_len", s0.seq_len, 1, 1048576));
  field(form, "TP", select("tp", TP_CHOICES, s0.tp));
  field(form, "PP", select("pp", PP_CHOICES, s0.pp));
  field(form, "max_num_tokens", number("max_num_tokens", s0.max_num_tokens, 1, 1048576));
  var adp = el("input", { type: "checkbox", name: "attention_dp" });
  adp.checked = s0.attention_dp;
  field(form, "Attention DP", adp);
  var summary = el("div", { class: "llmbench-planner__summary", "aria-live": "polite" });
  var bars = el("div", { class: "llmbench-planner__bars" });
  host.appendChild(form);
  host.appendChild(summary);
  host.appendChild(legend());
  host.appendChild(bars);

  function update(share) {
    var s = readState(form);
    var arch = data.models.filter(function (m) { return m.id === s.model; })[0];
    var p = plan(arch, s, C);
    renderSummary(summary, arch, s, p, C);
    renderBars(bars, p, fitTable(arch, s, data.gpus, C), C);
    if (share) writeUrl(s); // only after a change: a plain visit keeps a clean address
  }
  form.addEventListener("input", function () { update(true); });
  form.addEventListener("change", function () { update(true); });
  update(false);
  return { ready: Promise.resolve(), destroy() {} };
}
