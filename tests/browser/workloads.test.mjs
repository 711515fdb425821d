// Browser test of the dashboard at 10,240 GPUs (issue 18, item 5): `steward serve` on the
// default scenario warmed up for two simulated days, in Debian's headless Chromium. The workload
// list equals /api/workloads (first page, a team filter, the state filter with its pending
// reasons, the next page by continue token); a node link opens the node panel, whose GPU rows
// equal /api/nodes/{name} (readings and the pod on each GPU); the heatmap is drawn per GPU with
// a label per rack, finds a rack and a node, and zooms out to per-rack tiles fetched without
// nodes; the time axis reads in days and hours; an XID injected from the page adds a fault
// marker to the chart; the incident summary adds up to the faulty counter. Saves a screenshot.
//
//   node tests/browser/workloads.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]
import { dirname, join, resolve } from "node:path";

import { launchBrowser, serve } from "./serve.mjs";
import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: workloads.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]");
  process.exit(2);
}
const shotDir = resolve(process.argv[3] || dirname(steward));

let browser, server;
let ok = false;
try {
  browser = await launchBrowser();
  // Two simulated days of warm-up at full speed before serving, then 2.4 simulated hours live
  // (2.4 s) to the horizon, where the twin stands still: page and API compare number for number.
  server = await serve(steward, ["--speed", "3600", "--days", "2.1", "--warmup", "2"], 120000);
  if (!/warmed up 2 simulated days/.test(server.log()))
    fail(`no warm-up line in the log:\n${server.log()}`);
  const base = server.base;
  const api = async (path, options) => {
    const res = await fetch(base + path, options);
    if (!res.ok) fail(`${path}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  };

  const page = await browser.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => m.type() === "error" &&
    !m.text().startsWith("Failed to load resource: the server responded with a status of") &&
    errors.push("console: " + m.text()));
  const foreign = [];
  const requested = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(base + "/")) {
      requested.push(url.slice(base.length));
      return route.continue();
    }
    foreign.push(url);
    return route.abort();
  });

  await page.goto(base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  // Warmed up: the first page already shows day 2.
  const firstSim = Number(await page.getAttribute("#sim-time", "data-value"));
  if (!(firstSim >= 2 * 86400)) fail(`the page starts at sim_time ${firstSim}, before day 2`);
  await page.waitForSelector("#finished", { timeout: 60000 });
  const o = await api("/api/overview");
  if (!(o.workloads_running > 0)) fail("a warmed-up cluster runs workloads");
  console.log(`warmed up: the page starts at ${await page.textContent("#sim-time")}, ` +
              `${o.gpus_in_use} GPUs in use, ${o.workloads_running} running, ${o.workloads_pending} pending`);

  // Time axis in days and hours, from the start of the run (the warm-up is charted too).
  const ticks = await page.$$eval("#chart text.tick", (t) => t.map((e) => e.textContent));
  if (ticks.length < 3 || !ticks.every((t) => /^d\d+ \d\d(h|:\d\d)$/.test(t)))
    fail(`time axis ticks: ${JSON.stringify(ticks)}`);
  const ts = await api("/api/timeseries?max_points=600");
  if (ts.points[0].hours !== 0) fail(`the series starts at ${ts.points[0].hours} h`);
  console.log(`time axis: ${ticks.join(" | ")}`);

  // The workload list: the first page is the API's.
  const rows = () => page.$$eval("#workloads tbody tr[data-workload]", (r) => r.map((e) => ({
    name: e.dataset.workload, team: e.dataset.team, state: e.dataset.state,
    reason: e.querySelector("td.reason").childNodes[0]?.textContent || "",
  })));
  const sameAs = async (query) => {
    const want = await api(`/api/workloads?limit=50${query}`);
    const got = await rows();
    const total = Number(await page.getAttribute("#workloads", "data-total"));
    return total === want.total && got.length === want.workloads.length &&
      got.every((r, i) => r.name === want.workloads[i].name &&
                          r.reason === (want.workloads[i].reason || "")) ? { want, got } : false;
  };
  const first = await waitFor("the first page of workloads", () => sameAs(""), 30000);
  if (first.got.length !== 50) fail(`first page has ${first.got.length} rows`);
  console.log(`workload list: ${first.want.total} unfinished, first page of 50 equals the API`);

  // Filters: the busiest team, then pending workloads with their reasons.
  const team = (await api("/api/queues")).queues
    .map((q) => ({ team: q.team, n: q.running + q.starting + q.pending }))
    .sort((a, b) => b.n - a.n)[0].team;
  await page.selectOption("#wl-team", team);
  const byTeam = await waitFor(`the ${team} filter`, () => sameAs(`&team=${team}`), 30000);
  if (!byTeam.got.every((r) => r.team === team)) fail(`rows of other teams under team=${team}`);
  console.log(`team=${team}: ${byTeam.want.total} workloads, page equals the API`);
  await page.selectOption("#wl-team", "");
  await page.selectOption("#wl-state", "pending");
  const pending = await waitFor("the pending filter", () => sameAs("&state=pending"), 30000);
  if (!pending.got.every((r) => r.state === "pending" && r.reason !== ""))
    fail(`pending rows without a reason: ${JSON.stringify(pending.got)}`);
  const reasons = [...new Set(pending.got.map((r) => r.reason))];
  console.log(`state=pending: ${pending.want.total} workloads, reasons ${reasons.join(", ") || "(none)"}`);
  await page.click("#wl-clear");
  await waitFor("the cleared filters", () => sameAs(""), 30000);

  // Paging by continue token, forward and back.
  if (!first.want.continue) fail("no second page");
  await page.click("#wl-next");
  const second = await waitFor("the second page", () => sameAs(`&continue=${first.want.continue}`), 30000);
  if (second.got[0].name === first.got[0].name) fail("next did not move");
  const range = await page.textContent("#wl-range");
  if (!range.startsWith("51")) fail(`range on page 2: ${range}`);
  await page.click("#wl-prev");
  await waitFor("the first page again", () => sameAs(""), 30000);
  console.log(`paging: page 2 starts at ${second.got[0].name} (${range})`);

  // The node panel, opened from the workload list: a running workload's first node.
  await page.selectOption("#wl-state", "running");
  await waitFor("running workloads", () => sameAs("&state=running"), 30000);
  const picked = await page.$eval("#workloads tbody tr[data-state='running'] a.node-link",
    (a) => ({ node: a.dataset.node, workload: a.closest("tr").dataset.workload }));
  const nodeName = picked.node, workloadName = picked.workload;
  await page.click(`#workloads tbody tr[data-workload='${workloadName}'] a.node-link[data-node='${nodeName}']`);
  await page.waitForSelector(`#node-panel[data-node='${nodeName}']:not([hidden])`, { timeout: 10000 });
  const node = await api(`/api/nodes/${nodeName}`);
  const panel = await waitFor("the node panel's GPU rows", async () => {
    const got = await page.$$eval("#node-gpus tbody tr", (r) => r.map((e) => ({
      state: e.dataset.state, temp: e.querySelector("td.temp").textContent,
      power: e.querySelector("td.power").textContent, pod: e.querySelector("td.pod").innerText,
    })));
    return got.length === node.gpu_details.length ? got : false;
  }, 10000);
  node.gpu_details.forEach((g, i) => {
    const p = panel[i];
    if (p.state !== g.state) fail(`GPU ${i}: state ${p.state}, API ${g.state}`);
    if (p.temp !== g.temperature_c.toFixed(0)) fail(`GPU ${i}: temperature ${p.temp}, API ${g.temperature_c}`);
    if (p.power !== g.power_w.toFixed(0)) fail(`GPU ${i}: power ${p.power}, API ${g.power_w}`);
    const pods = g.pods.map((x) => x.name).join("\n") || "\u2013";
    if (p.pod !== pods) fail(`GPU ${i}: pod ${JSON.stringify(p.pod)}, API ${JSON.stringify(pods)}`);
  });
  if (!node.gpu_details.some((g) => g.pods.some((x) => x.workload === workloadName)))
    fail(`${workloadName} holds no GPU of ${nodeName}`);
  console.log(`node panel ${nodeName}: ${panel.length} GPUs equal the API (` +
              node.gpu_details.map((g) => `${g.state}${g.pods.length ? " " + g.pods[0].name : ""}`).join("; ") + ")");

  // Heatmap: per GPU at 10,240 GPUs, one labelled box per rack.
  const racks = (await api("/api/racks?nodes=false")).racks;
  const heat = await page.evaluate(() => ({ mode: document.querySelector("#heatmap").dataset.mode,
                                             boxes: rackLayout.length, cells: layout ? layout.length : 0 }));
  if (heat.mode !== "gpus" || heat.boxes !== racks.length || heat.cells !== o.nodes_total)
    fail(`heatmap at fit: ${JSON.stringify(heat)}, ${racks.length} racks, ${o.nodes_total} nodes`);
  // Search a node: its panel opens; search a rack: it is outlined.
  const other = racks[racks.length - 1];
  const otherNode = (await api(`/api/nodes?rack=${other.rack}&limit=1`)).nodes[0].name;
  await page.fill("#heatmap-search", otherNode);
  await page.click("#heatmap-search-button");
  await page.waitForSelector(`#node-panel[data-node='${otherNode}']`, { timeout: 10000 });
  await page.fill("#heatmap-search", `rack-${other.rack}`);
  await page.click("#heatmap-search-button");
  await waitFor("the rack search", async () =>
    (await page.textContent("#search-result")) === `rack ${other.rack}`, 10000);
  // Zoom out to per-rack tiles: the page then asks for racks without nodes.
  for (let i = 0; i < 10; i++) {
    if ((await page.getAttribute("#heatmap", "data-mode")) === "racks") break;
    await page.click("#zoom-out");
    await page.waitForTimeout(200);
  }
  if ((await page.getAttribute("#heatmap", "data-mode")) !== "racks") fail("zooming out never aggregated racks");
  requested.length = 0;
  await waitFor("a rack summary request", () => requested.some((u) => u === "/api/racks?nodes=false"), 10000);
  // Clicking a rack tile zooms back in to its GPUs.
  const tile = await page.evaluate((r) => { const b = rackLayout.find((k) => k.rack === r); return b && { x: b.x + 2, y: b.y + 2 }; }, other.rack);
  // The page is long (the workload list): bring the heatmap into view before clicking on it.
  await page.$eval("#heatmap", (c) => c.scrollIntoView({ block: "start" }));
  const box = await page.$eval("#heatmap", (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.click(box.x + tile.x, box.y + tile.y);
  await waitFor("the zoom into the rack", async () =>
    (await page.getAttribute("#heatmap", "data-mode")) === "gpus", 10000);
  await page.click("#zoom-auto");
  console.log(`heatmap: ${racks.length} rack boxes, ${heat.cells} node rows; found ${otherNode} and rack ${other.rack}; ` +
              "per-rack tiles when zoomed out, back to GPUs on a tile click");

  // A fault from the page's controls (XID 79 on GPU 0 of the panel's node) is a chart marker.
  // The panel shows the node again (the search above opened another).
  await page.fill("#heatmap-search", nodeName);
  await page.click("#heatmap-search-button");
  await page.waitForSelector(`#node-panel[data-node='${nodeName}']`, { timeout: 10000 });
  const markersBefore = Number(await page.getAttribute("#chart", "data-markers"));
  await page.fill("#node-name", nodeName);
  await page.fill("#fault-xid", "79");
  await page.click("#fault-button");
  await waitFor("the fault to show", async () =>
    (await page.textContent("#control-result")).includes("XID 79"), 10000);
  const marker = await waitFor("a fault marker on the chart", async () => {
    const m = await page.$$eval("#chart g.marker[data-kind='fault']", (g) => g.map((e) => e.textContent));
    return m.find((t) => t.includes(nodeName));
  }, 10000);
  const markersAfter = Number(await page.getAttribute("#chart", "data-markers"));
  if (!(markersAfter > markersBefore)) fail(`markers ${markersBefore} -> ${markersAfter}`);
  await waitFor("GPU 0 faulty in the node panel", async () =>
    (await page.getAttribute("#node-gpus tbody tr[data-gpu='0']", "data-state")) === "faulty", 10000);
  console.log(`fault marker: "${marker}" (${markersBefore} -> ${markersAfter} markers on the chart)`);

  // The incident summary adds up to the faulty counter and the API.
  const summary = await waitFor("an incident summary equal to the API", async () => {
    const inc = await api("/api/incidents");
    const shown = await page.$eval("#incident-summary", (e) => ({ ...e.dataset }));
    const faulty = Number(await page.getAttribute("#counters [data-key='gpus_faulty']", "data-value"));
    const s = inc.summary;
    return Number(shown.gpusFaulty) === s.gpus_faulty && faulty === s.gpus_faulty &&
      Number(shown.gpusFaultyInIncidents) === s.gpus_faulty_in_incidents &&
      Number(shown.nodesQuarantined) === s.nodes_quarantined &&
      s.gpus_faulty_in_incidents + s.gpus_faulty_outside_incidents === s.gpus_faulty &&
      (await page.$$("#outside-incidents li")).length === inc.outside_incidents.length ? s : false;
  }, 30000);
  console.log(`incidents: ${summary.incidents_open} open hold ${summary.gpus_faulty_in_incidents} of ` +
              `${summary.gpus_faulty} faulty GPUs; ${summary.nodes_quarantined} quarantined nodes`);

  const shot = join(shotDir, "serve_dashboard_workloads.png");
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
console.log(process.exitCode ? "FAIL" : "workloads browser test: ok");
