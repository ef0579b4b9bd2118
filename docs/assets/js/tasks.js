// tasks.js: scheduling and on-demand scripts. Ends a task so the page can paint (yieldToMain) and is the
// one loader of classic scripts (loadScript: Vega, the planner's data, the page and advisor data), once
// per URL. In: script URLs or asset paths. Out: promises. Side effects: <script>/<link rel=prefetch> in <head>.

// Paths are relative to assets/ (this module's folder's parent), so they work from any page and sub-path.
const ASSETS = new URL("..", import.meta.url);
// Vega only: the specs are compiled from Vega-Lite at build time (site_gen/charts/vega_compile.py).
export const VEGA = ["vendor/vega.min.js", "vendor/vega-embed.min.js"];
export const PLANNER = ["js/planner-data.js"]; // the planner's registry data (site_gen.data.memory)
const scripts = {}; // absolute URL -> Promise of its loaded <script>

/** End the current task so the browser can paint and answer input before the next piece of work (a page
 * of several charts drawn in one task blocked the main thread for over a second on a phone). */
export function yieldToMain() {
  if (window.scheduler && window.scheduler.yield) return window.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** One classic <script> per URL, for the whole session: the one way the page script runs a classic script
 * (Vega, the planner's data, the pages' data payloads; a classic script also loads from a plain static
 * folder, where fetch() of a module-relative JSON file is refused from file://). Calls for the same URL
 * share one <script> and one promise; a failed load is forgotten, so a later call tries again.
 * ordered: run in insertion order among ordered scripts (async = false; still downloaded in parallel).
 * what: what the script is, for the error ("could not load the page data https://...: ..."). */
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
