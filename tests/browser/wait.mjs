// Shared by the browser tests: failing with a message, and polling until a condition holds.
export function fail(message) {
  throw new Error(message);
}

// Calls `fn` every 100 ms until it returns something truthy (returned) or `timeoutMs` passes
// (fails naming `what` and the last value or error).
export async function waitFor(what, fn, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`timed out waiting for ${what} (last: ${last})`);
}
