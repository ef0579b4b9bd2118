// tasks.js: scheduling and on-demand scripts. Ends a task so the page can paint (yieldToMain) and loads
// the classic scripts a page needs (Vega, the planner's data) once each, relative to this folder.
// In: script paths. Out: promises. Side effects: <script>/<link rel=prefetch> in <head>.

// Paths are relative to assets/ (this module's folder's parent), so they work from any page and sub-path.
const ASSETS = new URL("..", import.meta.url);
// Vega only: the specs are compiled from Vega-Lite at build time (site_gen/charts/vega_compile.py).
export const VEGA = ["vendor/vega.min.js", "vendor/vega-embed.min.js"];
export const PLANNER = ["js/planner-data.js"]; // the planner's registry data (site_gen.data.memory)
const scripts = {}; // asset path -> Promise of its loaded <script>

/** End the current task so the browser can paint and answer input before the next piece of work (a page
 * of several charts drawn in one task blocked the main thread for over a second on a phone). */
export function yieldToMain() {
  if (window.scheduler && window.scheduler.yield) return window.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Scripts in the given order (downloaded in parallel, run in order: async = false), each once. */
export function loadScripts(paths) {
  return Promise.all(
    paths.map((path) => {
      if (!scripts[path]) {
        scripts[path] = new Promise((resolve, reject) => {
          const s = document.createElement("script");
          s.src = new URL(path, ASSETS).href;
          s.async = false;
          s.onload = resolve;
          s.onerror = () => {
            delete scripts[path];
            reject(new Error("could not load " + path));
          };
          document.head.appendChild(s);
        });
      }
      return scripts[path];
    })
  );
}

/** Fetched into the cache without running (loadScripts runs them when needed). */
export function prefetch(paths) {
  for (const path of paths) {
    if (scripts[path] || !/^https?:$/.test(location.protocol)) continue;
    const href = new URL(path, ASSETS).href;
    if (document.querySelector(`link[rel=prefetch][href="${href}"]`)) continue;
    const link = document.createElement("link");
    Object.assign(link, { rel: "prefetch", as: "script", href });
    document.head.append(link);
  }
}
