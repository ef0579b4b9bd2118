/* file-notice.js: a classic script (a module cannot run from file://). Chromium refuses module scripts
 * and fetch() on pages opened from disk, so there the page script (main.js, a module) never runs: this
 * puts one line in each placeholder saying how to serve the folder. Over http(s) it does nothing.
 * In: location.protocol, window.LLMBENCH_I18N.ui.fileNotice. Out: <p class="lb-file-notice">.
 * Side effects: those lines and body[data-lb-file-notice]. Imports nothing. */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;
  var ui = (window.LLMBENCH_I18N && window.LLMBENCH_I18N.ui) || {};
  var text =
    ui.fileNotice ||
    "Opened from disk: the charts and tables need a web server. In the site folder run python -m http.server and open http://localhost:8000/";
  var nodes = document.querySelectorAll(".lb-scope, .lb-compare, .lb-runcard, .lb-chart, #llmbench-planner, [data-mlperf]");
  for (var i = 0; i < nodes.length; i++) {
    var node = nodes[i];
    if (node.parentElement && node.parentElement.closest(".lb-scope, .lb-compare")) continue; // one per placeholder
    var p = document.createElement("p");
    p.className = "lb-status lb-file-notice";
    p.setAttribute("role", "status");
    p.textContent = text;
    node.insertBefore(p, node.firstChild);
  }
  document.body.setAttribute("data-lb-file-notice", String(nodes.length));
})();
