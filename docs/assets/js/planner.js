/* llmbench memory planner: per-GPU memory of serving a model, in the browser, no server.
 *
 * The arithmetic mirrors site_gen/memory.py line for line (tests/guide/test_planner_js.py runs both on
 * the same cases and compares). Data and constants come from window.LLMBENCH_PLANNER, written at build
 * time by site_gen.memory.planner_script() from the registries, so this file holds no figures of its own.
 * The UI mounts on any element with id "llmbench-planner"; every string is set through textContent.
 */
(function (root) {
  "use strict";

  // ------------------------------------------------------------------ pure functions (node-testable)

  function kvElementsPerLayer(arch) {
    if (arch.kv_lora_rank) return arch.kv_lora_rank + arch.qk_rope_head_dim;
    return 2 * arch.kv_heads * arch.head_dim;
  }

  function kvElementsPerToken(arch) {
    return arch.layers * kvElementsPerLayer(arch);
  }

  function layerCounts(arch) {
    var pattern = arch.layer_pattern || "F";
    var counts = { F: 0, S: 0, C: 0 };
    for (var i = 0; i < arch.layers; i++) counts[pattern[i % pattern.length]] += 1;
    return counts;
  }

  function cachedPositions(arch, seqLen) {
    var c = layerCounts(arch);
    var windowed = Math.min(seqLen, arch.window || seqLen);
    return c.F * seqLen + (c.S + c.C) * windowed;
  }

  function kvBytesPerToken(arch, kvBytes) {
    return kvElementsPerToken(arch) * kvBytes;
  }

  function kvBytesPerTokenSimplified(arch, kvBytes) {
    return 2 * arch.layers * arch.hidden_size * kvBytes;
  }

  function kvBytesPerSequence(arch, kvBytes, seqLen) {
    return kvElementsPerLayer(arch) * cachedPositions(arch, seqLen) * kvBytes;
  }

  function attentionParamsPerLayer(arch) {
    var h = arch.hidden_size, heads = arch.attention_heads, hd = arch.head_dim;
    if (arch.kv_lora_rank) {
      var rope = arch.qk_rope_head_dim, kvLora = arch.kv_lora_rank, qLora = arch.q_lora_rank;
      var q = qLora ? h * qLora + qLora * heads * (hd + rope) : h * heads * (hd + rope);
      return q + h * (kvLora + rope) + kvLora * heads * 2 * hd + heads * hd * h;
    }
    return 2 * h * heads * hd + 2 * h * arch.kv_heads * hd;
  }

  function paramGroups(arch) {
    var h = arch.hidden_size, vocab = arch.vocab_size;
    var experts = arch.experts || 0;
    var moeLayers = experts ? arch.moe_layers || arch.layers : 0;
    var g = {
      embeddings: vocab * h,
      lm_head: vocab * h,
      attention: arch.layers * attentionParamsPerLayer(arch),
      router: moeLayers * h * experts,
      experts: moeLayers * experts * 3 * h * arch.intermediate_size,
    };
    var counted = g.embeddings + g.lm_head + g.attention + g.router + g.experts;
    g.dense = Math.max(0, arch.params_b * 1e9 - counted);
    return g;
  }

  function groupBytesPerWeight(arch, precision, C) {
    var fmt = (arch.formats || {})[precision] || C.PRECISIONS[precision].format;
    var quantised = C.FORMAT_BYTES[fmt];
    var kept = (arch.kept_16bit || {})[precision] || C.DEFAULT_KEPT_16BIT;
    var out = {};
    C.GROUPS.forEach(function (g) {
      out[g] = quantised >= C.HALF_BYTES || kept.indexOf(g) < 0 ? quantised : C.HALF_BYTES;
    });
    return out;
  }

  function weightBytesByGroup(arch, precision, C) {
    var per = groupBytesPerWeight(arch, precision, C), groups = paramGroups(arch), out = {};
    C.GROUPS.forEach(function (g) { out[g] = groups[g] * per[g]; });
    return out;
  }

  function weightBytes(arch, precision, C) {
    var by = weightBytesByGroup(arch, precision, C);
    return C.GROUPS.reduce(function (sum, g) { return sum + by[g]; }, 0);
  }

  function weightBytesPerGpu(arch, precision, tp, pp, attentionDp, C) {
    var by = weightBytesByGroup(arch, precision, C), total = 0;
    C.GROUPS.forEach(function (g) {
      var replicated = attentionDp && C.REPLICATED_UNDER_ATTENTION_DP.indexOf(g) >= 0;
      total += by[g] / (replicated ? pp : tp * pp);
    });
    return total;
  }

  function kvBytesPerSequencePerGpu(arch, kvBytes, seqLen, tp, pp, attentionDp) {
    var whole = Boolean(arch.kv_lora_rank) || Boolean(attentionDp);
    var headShare = whole ? 1.0 : Math.ceil(arch.kv_heads / tp) / arch.kv_heads;
    var stageShare = Math.ceil(arch.layers / pp) / arch.layers;
    return kvBytesPerSequence(arch, kvBytes, seqLen) * headShare * stageShare;
  }

  function activationBytesPerGpu(arch, batch, seqLen, tp, maxNumTokens, C) {
    var tokens = Math.min(batch * seqLen, maxNumTokens);
    var qDim = arch.attention_heads * arch.head_dim;
    var kvDim = 2 * arch.kv_heads * arch.head_dim;
    var mlp = 2 * arch.intermediate_size * (arch.experts_per_token || 1);
    var width = 2 * arch.hidden_size + (qDim + kvDim + mlp) / tp;
    var logits = Math.min(batch, tokens) * arch.vocab_size / tp * C.LOGIT_BYTES;
    return tokens * width * C.ACTIVATION_BYTES + logits;
  }

  function overheadBytesPerGpu(nGpus, C) {
    return (C.CONTEXT_OVERHEAD_GIB + (nGpus > 1 ? C.NCCL_OVERHEAD_GIB : 0.0)) * C.GIB;
  }

  /** Bytes on the most loaded GPU: {weights, kv_cache, activations, overhead, total}. */
  function plan(arch, inp, C) {
    var tp = inp.tp || 1, pp = inp.pp || 1, n = tp * pp;
    var maxNumTokens = inp.max_num_tokens || C.DEFAULT_MAX_NUM_TOKENS;
    var kvB = C.KV_BYTES[inp.kv_dtype], adp = Boolean(inp.attention_dp);
    var batch = adp ? Math.ceil(inp.batch / tp) : inp.batch;
    var out = {
      weights: weightBytesPerGpu(arch, inp.weight_precision, tp, pp, adp, C),
      kv_cache: batch * kvBytesPerSequencePerGpu(arch, kvB, inp.seq_len, tp, pp, adp),
      activations: activationBytesPerGpu(arch, batch, inp.seq_len, tp, maxNumTokens, C),
      overhead: overheadBytesPerGpu(n, C),
    };
    out.total = out.weights + out.kv_cache + out.activations + out.overhead;
    return out;
  }

  function smallestFit(arch, inp, memoryGb, C) {
    for (var i = 0; i < C.LAYOUTS.length; i++) {
      var tp = C.LAYOUTS[i][0], pp = C.LAYOUTS[i][1];
      if (tp > arch.attention_heads || arch.attention_heads % tp) continue;
      var trial = Object.assign({}, inp, { tp: tp, pp: pp });
      if (plan(arch, trial, C).total <= memoryGb * C.GIB) return [tp, pp];
    }
    return null;
  }

  /** Per GPU: does the chosen layout fit, free bytes, and the smallest layout that fits. */
  function fitTable(arch, inp, gpus, C) {
    var perGpu = plan(arch, inp, C).total;
    return gpus.map(function (g) {
      var capacity = g.memory_gb * C.GIB;
      var best = smallestFit(arch, inp, g.memory_gb, C);
      return {
        gpu: g.name,
        memory_gb: g.memory_gb,
        fits: perGpu <= capacity,
        free_bytes: capacity - perGpu,
        min_gpus: best ? best[0] * best[1] : null,
        min_layout: best ? "TP" + best[0] + " x PP" + best[1] : null,
      };
    });
  }

  var api = {
    kvElementsPerToken: kvElementsPerToken,
    cachedPositions: cachedPositions,
    kvBytesPerToken: kvBytesPerToken,
    kvBytesPerTokenSimplified: kvBytesPerTokenSimplified,
    kvBytesPerSequence: kvBytesPerSequence,
    paramGroups: paramGroups,
    weightBytes: weightBytes,
    plan: plan,
    smallestFit: smallestFit,
    fitTable: fitTable,
  };

  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
    return;
  }
  root.LLMBenchPlanner = api;

  // ------------------------------------------------------------------------------------------ UI

  var PARTS = [
    ["weights", "Weights"],
    ["kv_cache", "KV cache"],
    ["activations", "Activations"],
    ["overhead", "Runtime overhead"],
  ];
  var WEIGHT_CHOICES = ["FP16", "BF16", "FP8", "INT8", "FP4", "INT4"];
  var KV_CHOICES = ["FP16", "BF16", "FP8", "INT8", "NVFP4"];
  var TP_CHOICES = [1, 2, 4, 8, 16];
  var PP_CHOICES = [1, 2, 4, 8];

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function gib(bytes) {
    return (bytes / 1073741824).toFixed(1) + " GiB";
  }

  function field(form, label, control) {
    var wrap = el("label", { class: "llmbench-planner__field" });
    wrap.appendChild(el("span", {}, label));
    wrap.appendChild(control);
    form.appendChild(wrap);
    return control;
  }

  function select(name, options, value) {
    var s = el("select", { name: name });
    options.forEach(function (o) {
      var opt = el("option", { value: String(o.value !== undefined ? o.value : o) }, String(o.label || o));
      s.appendChild(opt);
    });
    s.value = String(value);
    return s;
  }

  function number(name, value, min, max) {
    return el("input", { type: "number", name: name, value: String(value), min: String(min), max: String(max), step: "1" });
  }

  function readState(form) {
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

  function initialState(data) {
    var q = new URLSearchParams(root.location.search);
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
    var q = new URLSearchParams(root.location.search);
    q.set("model", s.model); q.set("weights", s.weight_precision); q.set("kv", s.kv_dtype);
    q.set("batch", s.batch); q.set("seq", s.seq_len); q.set("tp", s.tp); q.set("pp", s.pp);
    q.set("max_num_tokens", s.max_num_tokens);
    q.set("adp", s.attention_dp ? "1" : "0");
    root.history.replaceState(null, "", "?" + q.toString() + root.location.hash);
  }

  function renderSummary(box, arch, s, p, C) {
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

  function renderBars(box, p, rows, C) {
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

  function legend() {
    var box = el("div", { class: "llmbench-planner__legend" });
    PARTS.forEach(function (part) {
      var item = el("span", { class: "llmbench-planner__key" });
      item.appendChild(el("span", { class: "llmbench-planner__seg llmbench-planner__seg--" + part[0] }));
      item.appendChild(document.createTextNode(" " + part[1]));
      box.appendChild(item);
    });
    return box;
  }

  function mount(host) {
    var data = root.LLMBENCH_PLANNER;
    if (!data || host.dataset.mounted) return;
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
  }

  function mountAll() {
    var host = document.getElementById("llmbench-planner");
    if (host) mount(host);
  }

  // Material re-renders content on instant navigation and announces it on document$; from file:// that
  // observable never fires (Material 9.8), so fall back to DOMContentLoaded there.
  if (root.document$ && root.location.protocol !== "file:") {
    root.document$.subscribe(mountAll);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})(typeof window !== "undefined" ? window : this);
