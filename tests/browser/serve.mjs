// Shared by the browser tests: Debian's headless Chromium (playwright-core, no bundled browser)
// in a scratch profile, and `steward serve` on a free loopback port.
//
//   const browser = await launchBrowser();
//   const server = await serve(steward, ["--days", "0.2", "scenario.yaml"]);
//   await page.goto(server.base + "/");  ...  await server.stop();  await browser.close();
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { waitFor } from "./wait.mjs";

// A persistent context in a fresh profile directory; close() also removes the profile.
export async function launchBrowser() {
  const userDataDir = mkdtempSync(join(tmpdir(), "steward-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    page: async () => context.pages()[0] || (await context.newPage()),
    close: async () => {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// Starts `steward serve --port 0 ARGS...` (default speed 3600 unless ARGS set --speed); returns
// {base, log, stop} once it prints its address (within `timeoutMs`): base is
// "http://127.0.0.1:PORT", log() the output so far, stop() sends SIGTERM (SIGKILL after 10 s)
// and resolves to {code, signal}.
export async function serve(steward, args, timeoutMs = 60000) {
  const speed = args.includes("--speed") ? [] : ["--speed", "3600"];
  const server = spawn(steward, ["serve", "--port", "0", ...speed, ...args],
                       { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  server.stdout.on("data", (d) => (log += d));
  server.stderr.on("data", (d) => (log += d));
  const exited = new Promise((r) => server.on("exit", (code, signal) => r({ code, signal })));
  let stopped;
  const stop = () => {
    if (!stopped) {
      stopped = (async () => {
        server.kill("SIGTERM");
        const timer = setTimeout(() => server.kill("SIGKILL"), 10000);
        const r = await exited;
        clearTimeout(timer);
        return r;
      })();
    }
    return stopped;
  };
  try {
    const port = await waitFor("the server's address", () => {
      const m = log.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      return m && Number(m[1]);
    }, timeoutMs);
    return { base: `http://127.0.0.1:${port}`, log: () => log, stop };
  } catch (e) {
    await stop();
    throw new Error(`${e.message}\n${log}`);
  }
}
