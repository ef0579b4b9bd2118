// advisor-entry.js: mounts the advisor (advisor/ui.js) on its page's placeholder, #llmbench-advisor, and
// tears the last mount down on every page change of Material's instant navigation (document$), or once on
// load without it. A module script: it does not run from file:// (the placeholder's <noscript> and text
// say how to serve the folder). The lead folds this into main.js with the ES-module split.

import { mountAdvisor } from "./advisor/ui.js";

let teardown = null;

function mount() {
  if (teardown) {
    teardown();
    teardown = null;
  }
  const root = document.getElementById("llmbench-advisor");
  if (root) teardown = mountAdvisor(root, window);
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(mount);
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", mount);
} else {
  mount();
}
