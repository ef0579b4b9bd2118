// advisor/html.js: the advisor's small DOM and text helpers and how a configuration is named.
// In: a document, tag names, attributes, catalogue words. Out: elements and strings. Side effects: none
// beyond the elements it creates; text only through textContent.

export function el(doc, tag, attrs, children) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children || []) if (c != null) e.append(c);
  return e;
}

export function fill(node, ...kids) {
  node.replaceChildren(...kids.filter((k) => k != null)); // replaceChildren(null) would write "null"
}

export function say(words, key, values) {
  let t = words[key] == null ? key : words[key];
  for (const [k, v] of Object.entries(values || {})) t = t.split("{" + k + "}").join(String(v));
  return t;
}

/** The engine and its release, each named once: the ingest's release label (site_gen.data.dimensions
 * .release_label) already names any engine but TensorRT-LLM ("transformers 5.17.0", "vLLM 0.24.0"), whose
 * releases are bare numbers ("1.2.0"). */
export function engineRelease(c) {
  return c.engine === "tensorrt-llm" ? `${c.engine} ${c.version}` : String(c.version);
}

export function configLabel(c) {
  return `${c.gpu} ×${c.n_gpus} · TP${c.tp}/PP${c.pp}/EP${c.ep || 1} · ${c.precision} · ${engineRelease(c)}` +
    ` · ${c.publisher}`;
}

export function configKey(c) {
  return [c.gpu, c.n_gpus, c.tp, c.pp, c.ep || 1, c.precision, c.engine, c.version, c.publisher].join("~");
}
