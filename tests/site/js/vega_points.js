// Runs a compiled Vega spec on rows in node (vega.min.js, renderer none) and prints the datums of its
// marks of one type (argv[3], default symbol) in drawing order: what the page draws and its data table lists.
const vega = require(process.argv[2]);
let input = ""; process.stdin.on("data", (d) => (input += d)).on("end", async () => {
  const { spec, name, rows } = JSON.parse(input);
  const view = new vega.View(vega.parse(spec), { renderer: "none" });
  view.insert(name, rows);
  await view.runAsync();
  const out = [];
  const walk = (n) => { if (n.marktype === (process.argv[3] || "symbol") && n.role === "mark") n.items.forEach((i) => out.push(i.datum)); (n.items || []).forEach(walk); };
  walk(view.scenegraph().root);
  console.log(JSON.stringify(out));
});
