// Browser test of the dashboard's tenant isolation panel: `steward serve` on the tenancy example
// scenario in Debian's headless Chromium; the panel shows one row per /api/tenancy finding (same
// check, severity and first object, in order) and the summary counts; without a tenancy
// section the panel stays hidden. Saves a screenshot of the panel.
//
//   node tests/browser/tenancy.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { chromium } from "playwright-core";

import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: tenancy.test.mjs STEWARD_BINARY [SCREENSHOT_DIR]");
  process.exit(2);
}
const shotDir = resolve(process.argv[3] || dirname(steward));
// Starts `steward serve ARGS...`; returns {base, stop, log}.
async function serve(args) {
  const server = spawn(steward, ["serve", "--port", "0", "--speed", "3600", ...args],
                       { stdio: ["ignore", "pipe", "pipe"] });
  const out = { log: "" };
  server.stdout.on("data", (d) => (out.log += d));
  server.stderr.on("data", (d) => (out.log += d));
  const exited = new Promise((r) => server.on("exit", (code, signal) => r({ code, signal })));
  const port = await waitFor("the server's address", () => {
    const m = out.log.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
    return m && Number(m[1]);
  });
  out.base = `http://127.0.0.1:${port}`;
  out.stop = async () => {
    server.kill("SIGTERM");
    const timer = setTimeout(() => server.kill("SIGKILL"), 10000);
    const r = await exited;
    clearTimeout(timer);
    return r;
  };
  return out;
}

const userDataDir = mkdtempSync(join(tmpdir(), "steward-chromium-"));
let context, tenancy, plain;
let ok = false;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || (await context.newPage());
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
  if (context) await context.close().catch(() => {});
  rmSync(userDataDir, { recursive: true, force: true });
  for (const s of [tenancy, plain]) if (s) { await s.stop(); if (!ok) console.error(s.log); }
}
console.log(ok ? "tenancy browser test: ok" : "FAIL");
if (!ok) process.exitCode = 1;
