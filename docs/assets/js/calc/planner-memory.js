// calc/planner-memory.js: the memory planner's arithmetic, pure: per-GPU memory of serving a model
// (weights, KV cache, activations, overhead) and the smallest layout that fits. It mirrors
// site_gen/data/memory.py line for line (tests/guide/test_planner_js.py runs both on the same cases under node).
// In: a model's architecture, the inputs and the constants of window.LLMBENCH_PLANNER (site_gen.data.memory.
// planner_script(), from the registries: no figure of its own). Out: numbers and tables. Side effects: none.

function kvElementsPerLayer(arch) {
  if (arch.kv_lora_rank) return arch.kv_lora_rank + arch.qk_rope_head_dim;
  return 2 * arch.kv_heads * arch.head_dim;
}

export function kvElementsPerToken(arch) {
  return arch.layers * kvElementsPerLayer(arch);
}

export function layerCounts(arch) {
  var pattern = arch.layer_pattern || "F";
  var counts = { F: 0, S: 0, C: 0 };
  for (var i = 0; i < arch.layers; i++) counts[pattern[i % pattern.length]] += 1;
  return counts;
}

export function cachedPositions(arch, seqLen) {
  var c = layerCounts(arch);
  var windowed = Math.min(seqLen, arch.window || seqLen);
  return c.F * seqLen + (c.S + c.C) * windowed;
}

export function kvBytesPerToken(arch, kvBytes) {
  return kvElementsPerToken(arch) * kvBytes;
}

export function kvBytesPerTokenSimplified(arch, kvBytes) {
  return 2 * arch.layers * arch.hidden_size * kvBytes;
}

export function kvBytesPerSequence(arch, kvBytes, seqLen) {
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

export function paramGroups(arch) {
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

export function groupBytesPerWeight(arch, precision, C) {
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

export function weightBytes(arch, precision, C) {
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
export function plan(arch, inp, C) {
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

export function smallestFit(arch, inp, memoryGb, C) {
  for (var i = 0; i < C.LAYOUTS.length; i++) {
    var tp = C.LAYOUTS[i][0], pp = C.LAYOUTS[i][1];
    if (tp > arch.attention_heads || arch.attention_heads % tp) continue;
    var trial = Object.assign({}, inp, { tp: tp, pp: pp });
    if (plan(arch, trial, C).total <= memoryGb * C.GIB) return [tp, pp];
  }
  return null;
}

/** Per GPU: does the chosen layout fit, free bytes, and the smallest layout that fits. */
export function fitTable(arch, inp, gpus, C) {
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
