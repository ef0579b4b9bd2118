// views/run-card.js: one run's card (runs.html#<id>): its fields by section, links only to web URLs, the
// result file in the repository and a "report a mistake" link. In: the placeholder (data-lb-sections,
// data-lb-repo, data-lb-branch, data-lb-explorer), the id asked for and the run (or null), the page URL.
// Out: none. Side effects: the placeholder's content and document.title.

import { el, json, webUrl } from "../dom.js";
import { UI } from "../messages.js";
import { figure } from "../format.js";
import { badgeText } from "../calc/estimates.js";

const CITE = new Set(["cite_text", "cite_bibtex"]);

function cardValue(key, v) {
  if (key === "bound_note") return UI.boundNote(v);
  if (typeof v === "boolean") return v ? UI.yes : UI.no;
  if (typeof v === "number") return figure(v);
  return String(v);
}

/** The run id in a card's hash; a hash that is not valid percent-encoding ("#%") is taken as typed
 * (decodeURIComponent would throw and leave the card broken until a reload): no run has that id. */
export function hashId(hash) {
  const raw = hash.slice(1);
  try {
    return decodeURIComponent(raw);
  } catch (e) {
    return raw;
  }
}

const pageTitles = new WeakMap(); // placeholder -> the page's own title, before a card named its run in it

export function showCard(node, id, run, pageUrl) {
  const sections = json(node, "data-lb-sections", []);
  const repo = webUrl(node.dataset.lbRepo) ? node.dataset.lbRepo.replace(/\/$/, "") : "";
  node.textContent = "";
  if (!run) {
    node.append(el("p", { class: "lb-status" }, id ? UI.noSuchRun(id) : UI.noRunChosen));
    node.append(el("a", { href: node.dataset.lbExplorer || "explorer.html", class: "md-button" }, UI.toExplorer));
    return;
  }
  const title = `${run.model_name} ${run.precision} on ${run.gpu}, TP ${run.tp}${run.pp > 1 ? ", PP " + run.pp : ""}, ISL/OSL ${run.workload}`;
  node.append(el("h2", {}, title));
  // an estimate says so first, with its band (issue 28), as in the explorer's table
  const badge = badgeText(run, UI.estimateWords);
  if (badge) {
    const p = el("p", { class: "lb-card-badge" });
    p.append(el("span", { class: "lb-badge lb-estimate", title: UI.estBadgeHelp }, badge));
    node.append(p);
  }
  const idLine = el("p", { class: "lb-card-id" });
  idLine.append(UI.runId + " ", el("code", {}, run.run_id));
  node.append(idLine);
  const path = String(run.file || "").split("/").map(encodeURIComponent).join("/");
  const branch = encodeURIComponent(node.dataset.lbBranch || "main");
  const fileUrl = repo && run.file ? `${repo}/blob/${branch}/results/${path}` : null;
  for (const section of sections) {
    const dl = el("dl", { class: "lb-card-fields" });
    for (const [key, label] of section.fields) {
      const v = run[key];
      if (v === null || v === undefined || v === "") continue;
      const dd = el("dd");
      const link = key === "file" ? fileUrl : key === "source_url" || key === "site_url" ? webUrl(v) : null;
      if (key === "command" || key === "extra_options" || CITE.has(key)) {
        // "cite this" is stored once per file with "{run_id}" where the run's id goes (site_gen.data.cite)
        const text = CITE.has(key) ? String(v).split("{run_id}").join(run.run_id) : String(v);
        const pre = el("pre");
        pre.append(el("code", {}, text));
        dd.append(pre);
      } else if (link) dd.append(el("a", { href: link, rel: "noopener" }, String(v)));
      else dd.textContent = cardValue(key, v);
      dl.append(el("dt", {}, label), dd);
    }
    if (!dl.children.length) continue;
    node.append(el("h3", {}, section.title), dl);
  }
  if (repo) {
    const body = UI.reportBody(run.run_id, pageUrl, run.file || "");
    const q = new URLSearchParams({ title: UI.reportTitle(run.run_id, title), body });
    node.append(el("a", { href: `${repo}/issues/new?${q}`, class: "md-button lb-report", rel: "noopener" }, UI.report));
  }
  if (!pageTitles.has(node)) pageTitles.set(node, document.title);
  document.title = `${title} · ${pageTitles.get(node)}`;
}
