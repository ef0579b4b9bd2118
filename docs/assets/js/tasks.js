// tasks.js: scheduling and on-demand loading. Ends a task so the page can paint (yieldToMain), is the one
// loader of classic scripts (loadScript: Vega, the planner's data), once per URL, and of the data files
// (loadJson: the pages' and the advisor's payloads). In: URLs or asset paths. Out: promises.
// Side effects: <script>/<link rel=prefetch> in <head>, fetches.

// Paths are relative to assets/ (this module's folder's parent), so they work from any page and sub-path.
const ASSETS = new URL("..", import.meta.url);
// Vega only: the specs are compiled from Vega-Lite at build time (site_gen/charts/vega_compile.py).
export const VEGA = ["vendor/vega.min.js", "vendor/vega-embed.min.js"];
export const PLANNER = ["js/planner-data.js"]; // the planner's registry data (site_gen.data.memory)
const scripts = {}; // absolute URL -> Promise of its loaded <script>

/** End the current task so the browser can paint and answer input before the next piece of work (a page
 * of several charts drawn in one task blocked the main thread for over a second on a phone). */
export function yieldToMain() {
  if (globalThis.scheduler && globalThis.scheduler.yield) return globalThis.scheduler.yield(); // globalThis: node too
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves once the browser has painted a frame (or at once in a hidden tab, which paints none): the
 * page's first paint must not wait for the page script. After the document is parsed, Chromium runs the
 * deferred scripts and DOMContentLoaded's listeners before it paints unless its parser yielded for a
 * paint earlier, which it does on some loads only: on the others the first paint came after the page
 * script's mounting, ~1 s into a phone's load instead of ~0.25 s (Lighthouse then put the largest paint at
 * 4.4-4.7 s instead of 1.7-2.1 s; issue 26). A requestAnimationFrame callback runs just before the frame
 * is painted; a task it queues runs after. */
export function afterPaint() {
  if (document.hidden) return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** A data file's JSON (site_gen.data.dataset.data_file), fetched and parsed. Not kept here: the caller keeps
 * what it makes of it (data/payload.js drops each payload once decoded), so each call fetches (the HTTP
 * cache answers a repeat). JSON.parse of a payload is 2-4x faster than running it as a script's object
 * literal, which is how the files were shipped before (3.4 MB in Chromium: 17-33 against 85-140 ms).
 * what: what the file is, for the error ("could not load the page data https://... (HTTP 404)"). */
export async function loadJson(src, { what = "" } = {}) {
  const href = globalThis.document ? new URL(src, document.baseURI).href : src;
  const fail = (why) => new Error(`could not load ${what ? what + " " : ""}${href} (${why})`);
  let response;
  try {
    response = await fetch(href);
  } catch {
    throw fail("a network error");
  }
  if (!response.ok) throw fail(`HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw fail("not JSON: a file cut short or not a data file");
  }
}

/** One classic <script> per URL, for the whole session: the one way the page script runs a classic script
 * (Vega, the planner's data). Calls for the same URL share one <script> and one promise; a failed load is
 * forgotten, so a later call tries again.
 * ordered: run in insertion order among ordered scripts (async = false; still downloaded in parallel).
 * what: what the script is, for the error ("could not load vendor/vega.min.js https://... (a network
 * error or a missing file)"). */
export function loadScript(src, { ordered = false, what = "" } = {}) {
  const href = new URL(src, document.baseURI).href;
  if (!scripts[href]) {
    scripts[href] = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = href;
      s.async = !ordered;
      s.onload = () => resolve(s);
      s.onerror = () => {
        delete scripts[href];
        s.remove(); // a retry adds a fresh one
        reject(new Error(`could not load ${what ? what + " " : ""}${href} (a network error or a missing file)`));
      };
      document.head.appendChild(s);
    });
  }
  return scripts[href];
}

/** Asset scripts (paths relative to assets/) in the given order, each once. */
export function loadScripts(paths) {
  return Promise.all(paths.map((path) => loadScript(new URL(path, ASSETS).href, { ordered: true, what: path })));
}

/** Fetched into the cache without running (loadScripts runs them when needed). */
export function prefetch(paths) {
  for (const path of paths) {
    const href = new URL(path, ASSETS).href;
    if (scripts[href] || !/^https?:$/.test(location.protocol)) continue;
    if (document.querySelector(`link[rel=prefetch][href="${href}"]`)) continue;
    const link = document.createElement("link");
    Object.assign(link, { rel: "prefetch", as: "script", href });
    document.head.append(link);
  }
}

/** Watches elements to say when each comes near the screen: the one way the page script draws something
 * only when the reader may see it (the charts below the first screen, the MLPerf page's table of every
 * result, the Pareto view's per-interactivity tables): what a reader never scrolls to costs a phone
 * nothing in its page load. Whether an element is near is asked of an IntersectionObserver, whose answer
 * comes after the browser's own layout: reading positions here would force a layout of the page in the
 * middle of building it.
 * margin: how near counts, as a CSS rootMargin ("50% 0px": within half the viewport's height).
 * firstLook: null: the margin counts from the start. Else a test of the first answer's entry (the element
 * shows on the first screen, with no margin); the margin counts only from the reader's first scroll or
 * resize, so a page load draws only what its first screen shows, for a reader who may never scroll.
 * signal: an AbortSignal (the page left by instant navigation): stops the watching; nothing resolves after.
 * watch(el) gives {first, near}: first resolves with whether the first look found it showing (for
 * firstLook null: in the margin), near when it is near (at once when first is true). forget(el) stops
 * watching one element (drawn another way). Without IntersectionObserver, everything is near at once. */
export function nearScreen({ margin = "0px", firstLook = null, signal = null } = {}) {
  const IO = window.IntersectionObserver;
  const pending = new Map(); // element -> {looked, near}: its promises' resolvers (looked null once answered)
  let looking = null; // the first look (no margin)
  let nearing = null; // the margin's observer: from the start, or from the first scroll or resize
  let moved = !firstLook; // the margin counts

  const drop = (el) => {
    if (looking) looking.unobserve(el);
    if (nearing) nearing.unobserve(el);
    pending.delete(el);
  };
  const arrive = (el) => {
    const p = pending.get(el);
    drop(el);
    if (p.looked) p.looked(false); // came near before the first look answered (a scroll at once)
    if (p.near) p.near();
  };
  // no longer wanted near (drawn another way); a first look under way still answers (a caller may wait
  // on it)
  function forget(el) {
    const p = pending.get(el);
    if (!p) return;
    p.near = null;
    if (p.looked && firstLook) {
      if (nearing) nearing.unobserve(el);
      return;
    }
    if (p.looked) p.looked(false);
    drop(el);
  }
  const observeNear = (el) => {
    if (!nearing) {
      nearing = new IO((entries) => {
        for (const e of entries) {
          const p = pending.get(e.target);
          if (!p) continue;
          if (!firstLook && p.looked) {
            p.looked(e.isIntersecting);
            p.looked = null;
          }
          if (e.isIntersecting) arrive(e.target);
        }
      }, { rootMargin: margin });
    }
    nearing.observe(el);
  };
  const onFirstLook = (entries) => {
    for (const e of entries) {
      looking.unobserve(e.target);
      const p = pending.get(e.target);
      if (!p || !p.looked) continue;
      const shown = e.isIntersecting && firstLook(e);
      p.looked(shown);
      p.looked = null;
      if (!p.near) drop(e.target);
      else if (shown) arrive(e.target);
      else if (moved) observeNear(e.target);
    }
  };
  // the reader's first scroll or resize: from then on the margin counts, for every element still waiting
  const off = () => {
    window.removeEventListener("scroll", start);
    window.removeEventListener("resize", start);
  };
  const start = () => {
    off();
    if (moved) return;
    moved = true;
    for (const [el, p] of pending) if (p.near) observeNear(el);
  };
  if (IO && firstLook) {
    window.addEventListener("scroll", start, { passive: true });
    window.addEventListener("resize", start, { passive: true });
  }
  if (signal) {
    signal.addEventListener("abort", () => {
      off();
      if (looking) looking.disconnect();
      if (nearing) nearing.disconnect();
      pending.clear();
    }, { once: true });
  }

  function watch(el) {
    let looked, near;
    const first = new Promise((resolve) => (looked = resolve));
    const nearP = new Promise((resolve) => (near = resolve));
    if (signal && signal.aborted) return { first, near: nearP };
    if (!IO) {
      looked(true);
      near();
      return { first, near: nearP };
    }
    pending.set(el, { looked, near });
    if (firstLook) {
      if (!looking) looking = new IO(onFirstLook);
      looking.observe(el);
    }
    if (moved) observeNear(el);
    return { first, near: nearP };
  }
  return { watch, forget };
}

/** Resolves when one element comes near the screen (nearScreen's rules; firstLook true: it shows at all);
 * now: at once (the address names it: the reader asked for it). Never resolves once signal aborts. */
export function whenNear(el, { margin = "0px", firstLook = null, signal = null, now = false } = {}) {
  if (now) return Promise.resolve();
  const test = firstLook === true ? () => true : firstLook;
  return nearScreen({ margin, firstLook: test, signal }).watch(el).near;
}
