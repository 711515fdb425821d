// Browser test of the dashboard's tenant isolation panel: `steward serve` on the tenancy example
// scenario in Debian's headless Chromium; the panel shows one row per /api/tenancy finding (same
// check, severity and first object, in order) and the summary counts; without a tenancy
// section the panel stays hidden. Saves a screenshot of the panel.
//
//   node tests/browser/tenancy.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]
import { dirname, join, resolve } from "node:path";

import { launchBrowser, serve as startServe } from "./serve.mjs";
import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: tenancy.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]");
  process.exit(2);
}
const shotDir = resolve(process.argv[3] || dirname(steward));
// `steward serve ARGS...` (serve.mjs); returns {base, stop, log}.
const serve = (args) => startServe(steward, args);

let browser, tenancy, plain;
let ok = false;
try {
  browser = await launchBrowser();
  const page = await browser.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));

  tenancy = await serve(["--days", "0.05", "examples/tenancy/scenario.yaml"]);
  const api = await (await fetch(tenancy.base + "/api/tenancy")).json();
  if (!api.enabled || !api.findings.length) fail("the example scenario has no tenancy findings");
  await page.goto(tenancy.base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  await page.waitForSelector("#tenancy tbody tr[data-check]", { timeout: 30000 });
  if (await page.$eval("#tenancy-panel", (e) => e.hidden)) fail("tenancy panel hidden");
  const rows = await page.$$eval("#tenancy tbody tr[data-check]", (trs) => trs.map((tr) => ({
    id: tr.dataset.check, severity: tr.children[0].textContent, object: tr.children[4].textContent,
    fix: tr.querySelector(".fix").textContent })));
  if (rows.length !== api.findings.length)
    fail(`panel has ${rows.length} rows, /api/tenancy ${api.findings.length} findings`);
  api.findings.forEach((f, i) => {
    const r = rows[i];
    if (r.id !== f.id || r.severity !== f.severity || r.object !== f.objects[0] || r.fix !== f.fix)
      fail(`row ${i}: ${JSON.stringify(r)} vs ${JSON.stringify(f)}`);
  });
  const summary = await page.$eval("#tenancy-summary", (e) => e.textContent);
  if (!summary.includes(`critical: ${api.summary.critical}`) ||
      !summary.includes(`warning: ${api.summary.warning}`))
    fail(`summary "${summary}" vs ${JSON.stringify(api.summary)}`);
  const panel = await page.$("#tenancy-panel");
  const shot = join(shotDir, "serve_tenancy.png");
  await panel.screenshot({ path: shot });
  console.log(`${rows.length} findings in the panel, as /api/tenancy; screenshot: ${shot}`);
  await tenancy.stop();
  tenancy = null;

  plain = await serve(["--days", "0.01"]);
  await page.goto(plain.base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  await waitFor("the tenancy answer", async () =>
    (await (await fetch(plain.base + "/api/tenancy")).json()).enabled === false);
  if (!(await page.$eval("#tenancy-panel", (e) => e.hidden)))
    fail("tenancy panel shown for a scenario without a tenancy section");
  if (errors.length) fail(errors.join("\n"));
  ok = true;
} finally {
  if (browser) await browser.close();
  for (const s of [tenancy, plain]) if (s) { await s.stop(); if (!ok) console.error(s.log()); }
}
console.log(ok ? "tenancy browser test: ok" : "FAIL");
if (!ok) process.exitCode = 1;
