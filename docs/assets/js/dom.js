// dom.js: the few DOM helpers every module shares.
// In: tag names, attributes, text. Out: elements (text only ever through textContent, never innerHTML),
// a data-lb-* attribute read as JSON, a web link or null, the root font size. Side effects: none at import.

/** An element with its attributes and, when given, its text (set as text: a result's string is never markup). */
export function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An attribute's JSON (the build writes the config of each placeholder as data-lb-* JSON), or the fallback. */
export function json(node, name, fallback) {
  const text = node.getAttribute(name);
  return text ? JSON.parse(text) : fallback;
}

/** Only web links become links: a result file cannot smuggle a javascript: URL into an href. */
export function webUrl(v) {
  try {
    const u = new URL(String(v));
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch (e) {
    return null;
  }
}

/** The link to a run's card (runs.html#<id>), relative to the page as the build wrote data-lb-card. */
export function cardHref(node, id) {
  return (node.dataset.lbCard || "runs.html") + "#" + encodeURIComponent(id);
}

// The root font size in px (Material: 20 px on phones, more on wide screens): a style read, no layout.
let rootPx = 0;
export function remPx() {
  if (!rootPx) rootPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return rootPx;
}
/** The window was resized: the root font size is read again at the next use. */
export function forgetRem() {
  rootPx = 0;
}

/** Put a failure in a placeholder (and on the console, where the tests look for errors). */
export function showError(node, message, error) {
  node.textContent = "";
  node.append(el("p", { class: "lb-status lb-error" }, message + error.message));
  console.error(error);
}
