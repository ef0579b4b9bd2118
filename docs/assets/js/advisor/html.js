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

export function configLabel(c) {
  return `${c.gpu} ×${c.n_gpus} · TP${c.tp}/PP${c.pp}/EP${c.ep || 1} · ${c.precision} · ${c.engine} ${c.version}` +
    ` · ${c.publisher}`;
}

export function configKey(c) {
  return [c.gpu, c.n_gpus, c.tp, c.pp, c.ep || 1, c.precision, c.engine, c.version, c.publisher].join("~");
}
