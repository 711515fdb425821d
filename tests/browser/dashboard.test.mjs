// End-to-end browser test of `steward serve`: starts the server on a free loopback port, drives
// the dashboard in Debian's headless Chromium (playwright-core, no bundled browser), checks the
// counters against /api/overview, uses every control (cordon, submit, quota, XID on a node, a
// rack event) and checks the counters and incidents follow, saves a screenshot, and stops the
// server.
//
//   node tests/browser/dashboard.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]
import { dirname, join, resolve } from "node:path";

import { launchBrowser, serve } from "./serve.mjs";
import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: dashboard.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]");
  process.exit(2);
}
const shotDir = resolve(process.argv[3] || dirname(steward));

let browser, server;
let ok = false;
try {
  browser = await launchBrowser();
  // A short horizon at a high speed-up: after a 0.1-day warm-up the twin runs live for a few
  // seconds, then stands still at the horizon, so the page and the API can be compared number
  // for number. Started once the browser is up, so a slow browser start on a busy machine
  // cannot eat the live part.
  server = await serve(steward, ["--speed", "1800", "--days", "0.2", "--warmup", "0.1"]);
  const base = server.base;
  const api = async (path) => {
    const res = await fetch(base + path);
    if (!res.ok) fail(`${path}: HTTP ${res.status}`);
    return res.json();
  };

  const page = await browser.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  // Chromium logs every HTTP error response; the refused controls are expected ones.
  page.on("console", (m) => m.type() === "error" &&
    !m.text().startsWith("Failed to load resource: the server responded with a status of") &&
    errors.push("console: " + m.text()));
  // Offline: the page may load nothing but what Steward serves.
  const foreign = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(base + "/")) return route.continue();
    foreign.push(url);
    return route.abort();
  });

  await page.goto(base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  const firstSim = Number(await page.getAttribute("#sim-time", "data-value"));
  // Live updates: the page shows the horizon being reached without a reload.
  await page.waitForSelector("#finished", { timeout: 60000 });
  const lastSim = Number(await page.getAttribute("#sim-time", "data-value"));
  if (!(lastSim > firstSim)) fail(`sim time on the page did not advance (${firstSim} -> ${lastSim})`);

  const readCounters = () => page.$$eval("#counters [data-key]", (els) =>
    els.map((e) => ({ key: e.dataset.key, value: e.dataset.value, text: e.textContent })));
  const compare = async () => {
    const o = await api("/api/overview");
    const shown = await readCounters();
    const diffs = [];
    for (const c of shown) {
      if (!(c.key in o)) diffs.push(`${c.key}: not in /api/overview`);
      else if (Number(c.value) !== o[c.key]) diffs.push(`${c.key}: page ${c.value}, API ${o[c.key]}`);
      else if (Number.isInteger(o[c.key]) && c.text.replace(/,/g, "") !== String(o[c.key]))
        diffs.push(`${c.key}: shows "${c.text}", API ${o[c.key]}`);
    }
    return { o, shown, diffs };
  };
  let cmp = await waitFor("page counters equal to /api/overview", async () => {
    const r = await compare();
    return r.diffs.length === 0 ? r : false;
  }, 30000);
  const keys = cmp.shown.map((c) => c.key);
  for (const k of ["gpus_in_use", "gpus_idle", "gpus_faulty", "gpus_cordoned", "workloads_pending"])
    if (!keys.includes(k)) fail(`no ${k} counter on the page`);
  console.log(`counters match /api/overview at sim_time ${cmp.o.sim_time}: ` +
              cmp.shown.map((c) => `${c.key}=${c.value}`).join(" "));

  // Panels are drawn: heatmap rows for every node, chart lines, the queue table, cost bars.
  const nodes = (await api("/api/nodes?limit=1")).total;
  const racks = (await api("/api/racks")).racks.length;
  const queues = await page.$$eval("#queues tbody tr", (rows) => rows.length);
  const lines = await page.$$eval("#chart polyline", (l) => l.length);
  const bars = await page.$$eval("#cost rect", (r) => r.length);
  if (queues !== (await api("/api/queues")).queues.length) fail(`queue table has ${queues} rows`);
  if (lines !== 3) fail(`chart has ${lines} lines, want 3`);
  if (bars === 0) fail("no cost bars");
  console.log(`${nodes} nodes in ${racks} racks; ${queues} queues; ${lines} chart lines`);

  // Control 1: cordon an idle node picked on the page (the last idle one: whole under first-fit).
  const idleTotal = (await api("/api/nodes?state=idle&limit=1")).total;
  if (idleTotal === 0) fail("no idle node to cordon");
  const idle = (await api(`/api/nodes?state=idle&offset=${idleTotal - 1}&limit=1`)).nodes[0];
  const before = cmp.o;
  await page.fill("#node-name", idle.name);
  await page.click("#cordon-button");
  await waitFor("the cordon to show", async () =>
    (await page.textContent("#control-result")).includes("cordoned"), 10000);
  cmp = await waitFor("counters after cordon", async () => {
    const r = await compare();
    return r.diffs.length === 0 && r.o.gpus_cordoned === before.gpus_cordoned + idle.gpus_idle ? r : false;
  }, 30000);
  console.log(`cordoned ${idle.name}: gpus_cordoned ${before.gpus_cordoned} -> ${cmp.o.gpus_cordoned}, ` +
              `gpus_idle ${before.gpus_idle} -> ${cmp.o.gpus_idle}`);

  // Control 2: submit a workload with the form; it is listed by the API and counted.
  await page.selectOption("#submit-team", "research");
  await page.click("#submit-button");
  const submitted = await waitFor("the submission to show", async () => {
    const m = (await page.textContent("#control-result")).match(/^submitted (\S+) for research/);
    return m && m[1];
  }, 30000);
  const job = await api(`/api/workloads/${encodeURIComponent(submitted)}`);
  const afterCordon = cmp.o;
  cmp = await waitFor("counters after submit", async () => {
    const r = await compare();
    return r.diffs.length === 0 && r.o.workloads_submitted === afterCordon.workloads_submitted + 1 ? r : false;
  }, 30000);
  console.log(`submitted ${job.name} (${job.state}, ${job.gpus_requested} GPUs): workloads_submitted ` +
              `${afterCordon.workloads_submitted} -> ${cmp.o.workloads_submitted}`);

  // Control 3: change a queue's quota; the queue table follows.
  await page.selectOption("#quota-team", "research");
  await page.fill("#quota-form [name=gpus]", "100");
  await page.click("#quota-button");
  await waitFor("the new quota in the queue table", async () =>
    (await page.textContent("#queues tr[data-team='research'] td.quota")) === "100", 10000);
  const research = (await api("/api/queues")).queues.find((q) => q.team === "research");
  if (research.quota_gpus !== 100) fail(`API quota of research is ${research.quota_gpus}`);
  console.log("quota of research set to 100 through the page");

  // Control 4: inject XID 79 (GPU fallen off the bus) on a whole idle node picked on the page.
  // The remediation loop cordons the node at once (it is empty, so it goes straight to repair):
  // one faulty GPU, its seven healthy ones cordoned, and a node incident in the panel.
  const idle2 = (await api("/api/nodes?state=idle&limit=1000")).nodes
    .find((n) => n.gpus_idle === n.gpus_total && !n.cordoned);
  if (!idle2) fail("no whole idle node to fault");
  const beforeFault = (await compare()).o;
  await page.fill("#node-name", idle2.name);
  await page.fill("#fault-xid", "79");
  await page.click("#fault-button");
  await waitFor("the fault to show", async () =>
    (await page.textContent("#control-result")).includes("XID 79 (GPU_HAS_FALLEN_OFF_THE_BUS"), 10000);
  cmp = await waitFor("counters after the fault", async () => {
    const r = await compare();
    return r.diffs.length === 0 && r.o.gpus_faulty === beforeFault.gpus_faulty + 1 &&
      r.o.gpus_cordoned === beforeFault.gpus_cordoned + 7 ? r : false;
  }, 30000);
  const nodeAfter = await api(`/api/nodes/${idle2.name}`);
  if (!nodeAfter.cordoned || nodeAfter.remediation === "healthy")
    fail(`${idle2.name} after the fault: cordoned ${nodeAfter.cordoned}, remediation ${nodeAfter.remediation}`);
  await waitFor("the node incident in the panel", async () =>
    (await page.$$eval("#incidents li[data-scope='node']", (li) => li.map((e) => e.textContent)))
      .some((t) => t.includes(idle2.name)), 10000);
  console.log(`XID 79 on ${idle2.name}: gpus_faulty ${beforeFault.gpus_faulty} -> ${cmp.o.gpus_faulty}, ` +
              `gpus_cordoned ${beforeFault.gpus_cordoned} -> ${cmp.o.gpus_cordoned}, ` +
              `remediation ${nodeAfter.remediation}, incidents_open ${cmp.o.incidents_open}`);

  // Control 5: a rack event (XID 74, NVLink, on every GPU) on a rack picked by clicking the
  // heatmap: one rack incident, not one per node.
  const racksNow = (await api("/api/racks")).racks;
  const rack = racksNow.find((r) => r.gpus_faulty === 0 && r.nodes.every((n) => !n.cordoned) &&
                                    r.nodes.length >= 3);
  if (!rack) fail("no healthy rack to fault");
  const cell = await page.evaluate((name) => {
    const k = layout.find((c) => c.node.name === name);
    return k && { x: k.x + 1, y: k.y + k.h / 2 };
  }, rack.nodes[0].name);
  if (!cell) fail(`node ${rack.nodes[0].name} not on the heatmap`);
  // The page is long (the workload list): bring the heatmap into view before clicking on it.
  await page.$eval("#heatmap", (c) => c.scrollIntoView({ block: "start" }));
  const box = await page.$eval("#heatmap", (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.click(box.x + cell.x, box.y + cell.y);
  if ((await page.inputValue("#node-name")) !== rack.nodes[0].name) fail("the heatmap click did not pick the node");
  const beforeRack = (await compare()).o;
  await page.fill("#fault-xid", "74");
  await page.click("#rack-fault-button");
  await waitFor("the rack event to show", async () =>
    (await page.textContent("#control-result")).includes(`XID 74 on every GPU of rack ${rack.rack}`), 10000);
  const rackGpus = rack.nodes.reduce((a, n) => a + n.gpus.length, 0);
  cmp = await waitFor("counters after the rack event", async () => {
    const r = await compare();
    return r.diffs.length === 0 && r.o.gpus_faulty === beforeRack.gpus_faulty + rackGpus ? r : false;
  }, 30000);
  const incidents = (await api("/api/incidents")).incidents;
  const rackInc = incidents.find((i) => i.scope === "rack" && i.subject === `rack-${rack.rack}`);
  if (!rackInc || rackInc.nodes.length !== rack.nodes.length)
    fail(`no rack incident for rack ${rack.rack}: ${JSON.stringify(incidents)}`);
  await waitFor("the rack incident in the panel", async () =>
    (await page.$$eval("#incidents li[data-scope='rack']", (li) => li.map((e) => e.textContent)))
      .some((t) => t.includes(`rack-${rack.rack}`)), 10000);
  console.log(`rack event on rack ${rack.rack}: gpus_faulty ${beforeRack.gpus_faulty} -> ${cmp.o.gpus_faulty}, ` +
              `one rack incident with ${rackInc.nodes.length} nodes (ticket ${rackInc.ticket})`);

  const shot = join(shotDir, "serve_dashboard.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  if (foreign.length) fail("the page tried to load remote files: " + foreign.join(", "));
  if (errors.length) fail(errors.join("\n"));
  ok = true;
} finally {
  if (browser) await browser.close();
  if (server) {
    const { code, signal } = await server.stop();
    if (ok && code !== 0) {
      console.error(`steward serve exited with ${code ?? signal} after SIGTERM\n${server.log()}`);
      process.exitCode = 1;
    }
    if (!ok) console.error(server.log());
  }
}
console.log(process.exitCode ? "FAIL" : "dashboard browser test: ok");
