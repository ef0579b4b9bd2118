// pages/advisor.js: the advisor's page module ("What should I run?", issue 27): mounts advisor/ui.js on
// its placeholder like the other pages and hands main.js its teardown. A module: it does not run from
// file:// (the placeholder's own text then says how to serve the folder).
// In: #llmbench-advisor. Out: {ready, destroy}. Side effects: those of advisor/ui.js.

import { mountAdvisor } from "../advisor/ui.js";

export function mountAdvisorPage(root) {
  return mountAdvisor(root, window);
}
