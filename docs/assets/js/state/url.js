// state/url.js: the only reader and writer of history and location, and the language switch, which
// carries the page's state (query, #run) to the other language's twin.
// In: queries and parameters from the pages. Out: the current search/hash. Side effects: history entries,
// the language links' href, one capturing click listener (installLanguageSwitch).

export const search = () => location.search;
export const hash = () => location.hash;
export const param = (key) => new URLSearchParams(location.search).get(key);

/** Go to another page (a run's card from a chart's mark). */
export function go(href) {
  location.href = href;
}

/** A new history entry with this query (the hash kept), unless the URL would not change. */
export function pushQuery(query) {
  const url = location.pathname + query + location.hash;
  if (url !== location.pathname + location.search + location.hash) history.pushState(null, "", url);
  syncLanguageLinks();
}

/** The current entry's query replaced (no new entry: a price typed key by key, compare's pickers). */
export function replaceQuery(params, keepState = true) {
  const q = String(params);
  history.replaceState(keepState ? history.state : null, "", location.pathname + (q ? "?" + q : "") + location.hash);
  syncLanguageLinks();
}

/** One parameter set (or removed when it equals its default) in place. */
export function setParam(key, value, fallback) {
  const params = new URLSearchParams(location.search);
  if (value === fallback) params.delete(key);
  else params.set(key, String(value));
  replaceQuery(params);
}

// The language switch (Material's header; the build links each language's home, en: index.html,
// ko: ko/index.html): to this page's twin in the other language (every page has one, falling back to
// English), with the page's state (query string, #run id). The language's folders come from the
// <link rel=alternate hreflang> of <head>; the switch is a full page load, since <html lang>, the
// catalogue and the search language belong to the page (instant navigation would keep them).
function languageHome(lang) {
  const link = document.querySelector(`head link[rel=alternate][hreflang="${lang}"]`);
  return link ? new URL(".", new URL(link.getAttribute("href"), location.href)) : null;
}

export function languageLink(a) {
  const here = languageHome(document.documentElement.lang);
  const there = languageHome(a.getAttribute("hreflang"));
  if (!here || !there || !location.href.startsWith(here.href)) return a.href;
  const url = new URL(location.pathname.slice(here.pathname.length) || "index.html", there);
  url.search = location.search;
  url.hash = location.hash;
  return url.href;
}

export function syncLanguageLinks() {
  for (const a of document.querySelectorAll("a.md-select__link[hreflang]")) a.href = languageLink(a);
}

/** Once per document: the switch goes to the twin (before Material's instant navigation sees the click). */
export function installLanguageSwitch() {
  window.addEventListener(
    "click",
    (ev) => {
      const a = ev.target.closest && ev.target.closest("a.md-select__link[hreflang]");
      if (!a || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      location.href = languageLink(a);
    },
    true
  );
  window.addEventListener("popstate", syncLanguageLinks);
  window.addEventListener("hashchange", syncLanguageLinks);
}
