// Browser test of the dashboard's Rollouts panel: `steward serve` on
// examples/rollouts/twin-driver-rollouts.yaml (three gated driver rollouts the rollout engine
// runs in the twin) in Debian's headless Chromium, run to its horizon; the panel shows every
// rollout of /api/rollouts with its state and counts, each batch's state and nodes with their
// states, each gate's value, conditions and verdict, and the latest batch, gate and rollout
// decisions with their reasons, as the API has them. Saves a screenshot of the panel.
//
//   node tests/browser/rollouts.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]
import { dirname, join, resolve } from "node:path";

import { launchBrowser, serve } from "./serve.mjs";
import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: rollouts.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]");
  process.exit(2);
}
const shotDir = resolve(process.argv[3] || dirname(steward));
const fmtValue = (v) => (v === null ? "\u2013" : String(Number(Number(v).toPrecision(4))));

let browser, server;
let ok = false;
try {
  browser = await launchBrowser();
  const page = await browser.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  // Most of the day at full speed, the rest live, to the horizon: then the page and the API
  // stand still and can be compared item by item.
  server = await serve(steward, ["--days", "1", "--warmup", "0.9", "--speed", "7200",
                                 "examples/rollouts/twin-driver-rollouts.yaml"]);
  await page.goto(server.base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  await page.waitForSelector("#finished", { timeout: 90000 });
  const api = await (await fetch(server.base + "/api/rollouts")).json();
  if (api.rollouts.length !== 3) fail(`expected 3 rollouts, /api/rollouts has ${api.rollouts.length}`);
  const states = api.rollouts.map((r) => r.state).join(",");
  if (states !== "rolled_back,rolled_back,succeeded") fail(`rollout states ${states}`);
  // The page polls once a second: wait until it shows the final statuses.
  await waitFor("the panel's final states", async () =>
    (await page.$$eval("#rollouts .rollout", (ds) => ds.map((d) => d.dataset.state).join(","))) === states);
  if (await page.$eval("#rollouts-panel", (e) => e.hidden)) fail("rollouts panel hidden");

  const shown = await page.$$eval("#rollouts .rollout", (divs) => divs.map((d) => ({
    plan: d.dataset.plan,
    state: d.querySelector(".rollout-state").textContent,
    chips: Object.fromEntries([...d.querySelectorAll(".chip[data-key]")].map((c) => [c.dataset.key, c.textContent])),
    rows: [...d.querySelectorAll("table.batches tbody tr")].map((tr) => ({
      batch: tr.dataset.batch, gate: tr.dataset.gate || null,
      cells: [...tr.children].map((td) => td.textContent) })),
    batchState: Object.fromEntries([...d.querySelectorAll("table.batches tbody tr")]
      .filter((tr) => tr.querySelector(".batch-state"))
      .map((tr) => [tr.dataset.batch, tr.querySelector(".batch-state").textContent])),
    nodes: Object.fromEntries([...d.querySelectorAll(".node")].map((n) => [n.dataset.node, n.querySelector("i").textContent])),
    decisions: [...d.querySelectorAll("table.decisions tbody tr")].map((tr) => ({
      seq: Number(tr.dataset.seq), reason: tr.lastElementChild.textContent })),
  })));
  api.rollouts.forEach((r, i) => {
    const s = shown[i];
    const where = `rollout ${r.plan}`;
    if (s.plan !== r.plan || s.state !== r.state) fail(`${where}: panel shows ${s.plan} ${s.state}`);
    for (const key of ["nodes_upgraded", "nodes_rolled_back", "max_unavailable_seen"])
      if (!s.chips[key] || !s.chips[key].includes(String(r[key])))
        fail(`${where}: ${key} chip "${s.chips[key]}" vs ${r[key]}`);
    const nodeState = new Map(r.nodes.map((n) => [n.name, n.state || "untouched"]));
    for (const b of r.batches) {
      if (s.batchState[b.name] !== b.state) fail(`${where}: batch ${b.name} ${s.batchState[b.name]} vs ${b.state}`);
      for (const n of b.nodes)
        if (s.nodes[n] !== nodeState.get(n)) fail(`${where}: node ${n} ${s.nodes[n]} vs ${nodeState.get(n)}`);
      for (const g of b.gates) {
        const row = s.rows.find((x) => x.batch === b.name && x.gate === g.name);
        if (!row) fail(`${where}: no row for gate ${b.name}/${g.name}`);
        const text = row.cells.join("|");
        for (const want of [g.metric, fmtValue(g.value), g.success_condition, g.failure_condition, g.verdict])
          if (!text.includes(want)) fail(`${where}: gate ${b.name}/${g.name} row "${text}" lacks "${want}"`);
      }
    }
    const wanted = r.log.filter((d) => d.kind !== "node").slice(-s.decisions.length).reverse();
    if (!s.decisions.length) fail(`${where}: no decisions shown`);
    wanted.forEach((d, k) => {
      if (s.decisions[k].seq !== d.seq || s.decisions[k].reason !== d.reason)
        fail(`${where}: decision row ${k} ${JSON.stringify(s.decisions[k])} vs #${d.seq} ${d.reason}`);
    });
  });
  // The bad driver's XID gate failed on the canary, and the panel says so.
  const xids = shown[0].rows.find((x) => x.batch === "canary" && x.gate === "xids");
  if (!xids || !xids.cells.includes("failed")) fail(`canary xids row: ${JSON.stringify(xids)}`);
  const panel = await page.$("#rollouts-panel");
  const shot = join(shotDir, "serve_rollouts.png");
  await panel.screenshot({ path: shot });
  console.log(`${api.rollouts.length} rollouts (${states}) in the panel, as /api/rollouts; ` +
              `screenshot: ${shot}`);
  if (errors.length) fail(errors.join("\n"));
  ok = true;
} finally {
  if (browser) await browser.close();
  if (server) {
    const { code, signal } = await server.stop();
    if (code !== 0) {
      console.error(`steward serve exited with ${code ?? signal} after SIGTERM`);
      ok = false;
    }
    if (!ok) console.error(server.log());
  }
}
console.log(ok ? "rollouts browser test: ok" : "FAIL");
if (!ok) process.exitCode = 1;
