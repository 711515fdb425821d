// Browser test of a human's answer to a paused rollout: `steward serve` on
// examples/rollouts/twin-paused.yaml without its scripted human (gated.human removed), warmed up
// past the canary's inconclusive gate, in Debian's headless Chromium. The Rollouts panel shows
// the pause with Resume and Abort; clicking Resume posts /api/rollouts/NAME/answer, the engine
// records "resumed by a human: from the dashboard" and the next batch starts. Also checks the
// endpoint's refusals (a bad answer, an unknown rollout, a rollout that is not paused).
//
//   node tests/browser/rollout_answer.test.mjs STEWARD_BINARY
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { launchBrowser, serve } from "./serve.mjs";
import { fail, waitFor } from "./wait.mjs";

const steward = resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: rollout_answer.test.mjs STEWARD_BINARY");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "steward-answer-"));
copyFileSync("examples/rollouts/twin-paused-plan.yaml", join(dir, "twin-paused-plan.yaml"));
const original = readFileSync("examples/rollouts/twin-paused.yaml", "utf8");
const scenario = original.replace(/, human: \{[^}]*\}/, "");
if (scenario === original) fail("twin-paused.yaml has no gated.human to remove");
writeFileSync(join(dir, "twin-paused.yaml"), scenario);

const post = async (base, path, body) => {
  const res = await fetch(base + path, { method: "POST", body: JSON.stringify(body),
                                         headers: { "Content-Type": "application/json" } });
  return { status: res.status, body: await res.json() };
};

let browser, server;
let ok = false;
try {
  browser = await launchBrowser();
  const page = await browser.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  // Six hours at full speed (the canary's gate pauses at about 4.3 h), then one simulated
  // minute per real second: the pause lasts while the test clicks.
  server = await serve(steward, ["--days", "1", "--warmup", "0.25", "--speed", "60",
                                 join(dir, "twin-paused.yaml")]);
  const rollout = async () => (await (await fetch(server.base + "/api/rollouts")).json()).rollouts[0];
  const before = await rollout();
  if (!before || before.state !== "paused") fail(`expected a paused rollout, got ${JSON.stringify(before && before.state)}`);
  const name = before.plan;

  let r = await post(server.base, `/api/rollouts/${name}/answer`, { answer: "maybe" });
  if (r.status !== 400) fail(`answer "maybe": ${r.status} ${JSON.stringify(r.body)}`);
  r = await post(server.base, `/api/rollouts/${name}/answer`, { answer: "resume", when: "now" });
  if (r.status !== 400) fail(`unknown field: ${r.status} ${JSON.stringify(r.body)}`);
  r = await post(server.base, "/api/rollouts/no-such/answer", { answer: "resume" });
  if (r.status !== 404) fail(`unknown rollout: ${r.status} ${JSON.stringify(r.body)}`);

  await page.goto(server.base + "/");
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  const button = `#rollouts .rollout[data-plan='${name}'] button[data-answer='resume']`;
  await page.waitForSelector(button, { timeout: 30000 });
  if (!(await page.$(`#rollouts .rollout[data-plan='${name}'] button[data-answer='abort']`)))
    fail("no Abort button on the paused rollout");
  await page.click(button);
  await waitFor("the dashboard's answer in the decision log", async () => {
    const now = await rollout();
    return now.state !== "paused" &&
      now.log.some((d) => d.kind === "rollout" && d.from === "paused" &&
                          d.reason === "resumed by a human: from the dashboard");
  });
  await waitFor("the control result", async () =>
    (await page.$eval("#control-result", (e) => e.textContent)) === `rollout ${name}: resumed`);
  await waitFor("the buttons gone", async () => !(await page.$(button)));
  const after = await rollout();
  const rest = after.batches.find((b) => b.name === "rest");
  if (!rest || rest.state === "pending") fail(`the rest batch did not start: ${JSON.stringify(rest)}`);
  // Not paused any more: a second answer is refused.
  r = await post(server.base, `/api/rollouts/${name}/answer`, { answer: "abort" });
  if (after.state !== "paused" && r.status < 400) fail(`answer while ${after.state}: ${r.status}`);
  if (errors.length) fail(errors.join("\n"));
  console.log(`${name}: paused at the canary, resumed from the dashboard, rest batch ${rest.state}`);
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
  rmSync(dir, { recursive: true, force: true });
}
console.log(ok ? "rollout answer browser test: ok" : "FAIL");
if (!ok) process.exitCode = 1;
