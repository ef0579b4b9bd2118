// state/url.js: the only reader and writer of history and location, and the language switch, which
// carries the page's state (query, #run) to the other language's twin.
// In: queries and parameters from the pages. Out: the current search/hash. Side effects: history entries,
// the language links' href, one capturing click listener (installLanguageSwitch), the reader's language
// choice in localStorage and the one redirect of a Korean browser from the English home (sendToKorean).
// Back and Forward come as "lb:popstate" (onPopState; why: there).

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

// Back and Forward: the site's listeners hear "lb:popstate", which the theme's guard (site_gen/theme/main.html)
// fires on every traversal before Material's own popstate listener runs. A traversal that changes only the
// query (a page's filters: the MLPerf page, the explorer, the advisor) is the page's own business, and the
// guard keeps it from Material: the first popstate a page got always passed Material's filter (location$ is
// distinct by pathname, and its first value has nothing to differ from), so it fetched the same page again
// and put a fresh copy of its content in; the state the page script had just restored from the URL was
// thrown away and the page mounted anew, its filters at the HTML's defaults until then (the MLPerf page's
// accelerators read "none ticked", under load for seconds), its drawn table and open drop-down lost
// (issue 26). A change of page or of #anchor still reaches Material.

/** Run fn on each Back or Forward (the URL already the new one); returns the remover. */
export function onPopState(fn) {
  window.addEventListener("lb:popstate", fn);
  return () => window.removeEventListener("lb:popstate", fn);
}

// Select boxes kept in the query (the MLPerf page's filters), one parameter each (nameOf(box)): a value
// that is not one of the box's options is ignored (the box keeps its default, its `selected` option),
// and a default leaves the URL clean.
const initial = (box) => ([...box.options].find((o) => o.defaultSelected) || box.options[0] || { value: "" }).value;

/** Each box set from the URL (its default where the URL names no value it offers). */
export function readSelects(boxes, nameOf) {
  const q = new URLSearchParams(location.search);
  for (const box of boxes) {
    const v = q.get(nameOf(box));
    box.value = v !== null && [...box.options].some((o) => o.value === v) ? v : initial(box);
  }
}

/** A new history entry with the boxes' values (other parameters kept) and the lists' values, one
 * parameter per value (?gpu=A&gpu=B; an empty list, its default "all", leaves the URL clean). */
export function pushSelects(boxes, nameOf, lists = {}) {
  const q = new URLSearchParams(location.search);
  for (const box of boxes) {
    if (box.value === initial(box)) q.delete(nameOf(box));
    else q.set(nameOf(box), box.value);
  }
  for (const [key, values] of Object.entries(lists)) {
    q.delete(key);
    for (const v of values) q.append(key, v);
  }
  pushQuery(String(q) ? "?" + String(q) : "");
}

/** A list parameter's values that are among those offered (others ignored), in the URL's order. */
export function readList(key, offered) {
  return new URLSearchParams(location.search).getAll(key).filter((v) => offered.includes(v));
}

/** One parameter set (or removed when it equals its default) in place; push: in a new history entry. */
export function setParam(key, value, fallback, push = false) {
  const params = new URLSearchParams(location.search);
  if (value === fallback) params.delete(key);
  else params.set(key, String(value));
  if (push) pushQuery(String(params) ? "?" + params : "");
  else replaceQuery(params);
}

// The language switch (Material's header; the build links each language's home, en: index.html,
// ko: ko/index.html): to this page's twin in the other language (every page has one, falling back to
// English), with the page's state (query string, #run id). The language's folders come from the
// <link rel=lb-language hreflang> of <head> (site_gen/theme/main.html says why not rel=alternate); the
// switch is a full page load, since <html lang>, the catalogue and the search language belong to the
// page (instant navigation would keep them).
function languageHome(lang) {
  const link = document.querySelector(`head link[rel=lb-language][hreflang="${lang}"]`);
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

// A browser whose first language is Korean, landing on the English home, is sent to the Korean home once
// (issue 26): the choice is kept in localStorage ("ko" then, or the language the reader picks in the
// switch), so it never happens again and never loops; never from file:// (no storage to keep it by). The
// Korean home then says why, with a link back (langSentNotice).
const LANG_KEY = "llmbench.lang";
const SENT_KEY = "llmbench.langSent";
const remember = (lang) => {
  try {
    localStorage.setItem(LANG_KEY, lang);
  } catch {
    // storage refused (private mode): nothing to remember by, so no redirect either (sendToKorean)
  }
};
const isHome = (home) => home && [home.href, home.href + "index.html"].includes(location.origin + location.pathname);

/** On the English home: go to the Korean one if the browser asks for Korean first and no choice is kept. */
export function sendToKorean() {
  const ko = languageHome("ko");
  if (location.protocol === "file:" || !ko || document.documentElement.lang === "ko") return false;
  if (!isHome(languageHome(document.documentElement.lang))) return false;
  const first = (navigator.languages && navigator.languages[0]) || navigator.language || "";
  try {
    if (localStorage.getItem(LANG_KEY) || !/^ko(-|$)/i.test(first)) return false;
    localStorage.setItem(LANG_KEY, "ko");
    sessionStorage.setItem(SENT_KEY, "1");
  } catch {
    return false;
  }
  location.replace(ko.href + location.search + location.hash);
  return true;
}

/** The Korean home reached by sendToKorean: why, and the way back (the language switch's twin link). */
export function langSentNotice(sentence, back) {
  // only the Korean home can be where sendToKorean sent the reader: no other page touches sessionStorage,
  // whose first use in a page held a phone's main thread for ~30 ms (120 ms at Lighthouse's 4x)
  if (document.documentElement.lang !== "ko" || !isHome(languageHome("ko"))) return;
  let sent = null;
  try {
    sent = sessionStorage.getItem(SENT_KEY);
    sessionStorage.removeItem(SENT_KEY);
  } catch {
    return;
  }
  const en = document.querySelector('a.md-select__link[hreflang="en"]');
  const where = document.querySelector(".md-content__inner");
  if (!sent || !en || !where || !isHome(languageHome("ko"))) return;
  const p = document.createElement("p");
  p.className = "lb-lang-sent";
  const a = document.createElement("a");
  a.href = languageLink(en);
  a.hreflang = "en";
  a.textContent = back;
  a.addEventListener("click", () => remember("en"));
  p.append(sentence + " ", a);
  where.prepend(p);
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
      remember(a.getAttribute("hreflang"));
      location.href = languageLink(a);
    },
    true
  );
  onPopState(syncLanguageLinks);
  window.addEventListener("hashchange", syncLanguageLinks);
}
