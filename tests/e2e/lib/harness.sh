# Shared by the e2e tests that start background processes (source it; not a test).
# Sets $tmp (a scratch directory, removed at exit unless KEEP_TMP is set) and the array `pids`
# (stopped at exit: SIGTERM, up to 5 s to finish, then SIGKILL), and a default `fail` that
# prints the tail of every log in $tmp; a test may redefine `fail` after sourcing.
tmp=$(mktemp -d)
pids=()
harness_cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ -n "${KEEP_TMP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap harness_cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.log; do
    [ -f "$f" ] && { echo "--- $(basename "$f") (tail)" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}
