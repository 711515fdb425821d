#!/usr/bin/env bash
# End-to-end: the ledger's guards through the CLI. A second writer is refused naming the holder;
# a run refuses a ledger of another run (seed, scenario); `cost report` reads a ledger in a
# read-only directory without changing a byte, refuses a 0-byte file, and names the window a
# tampered ledger breaks.
set -euo pipefail
bin=$(realpath "${1:?usage: cost_ledger_guard.sh STEWARD}")
source "$(dirname "$0")/lib/harness.sh"
command -v sqlite3 >/dev/null || fail "sqlite3 CLI not installed (scripts/install-deps.sh)"
db=$tmp/l.db

"$bin" twin run --days 1 --seed 1 --ledger "$db" --quiet >/dev/null 2>"$tmp/run1.log" || fail "first run"
# The same run again replaces its windows; another seed or scenario is refused.
"$bin" twin run --days 1 --seed 1 --ledger "$db" --quiet >/dev/null 2>"$tmp/run2.log" || fail "re-run"
if "$bin" twin run --days 1 --seed 2 --ledger "$db" --quiet >/dev/null 2>"$tmp/err.log"; then
  fail "a run with another seed wrote into the ledger"
fi
grep -q "holds windows of scenario .*seed 1" "$tmp/err.log" || fail "mixed-run message: $(cat "$tmp/err.log")"
grep -q "seed 2" "$tmp/err.log" || fail "mixed-run message lacks this run: $(cat "$tmp/err.log")"
if "$bin" twin run examples/faults/scenario.yaml --days 1 --seed 1 --ledger "$db" --quiet >/dev/null 2>"$tmp/err.log"; then
  fail "another scenario wrote into the ledger"
fi
grep -q "holds windows of" "$tmp/err.log" || fail "other-scenario message: $(cat "$tmp/err.log")"

# A second writer while one holds the lock (a holder that announced itself, like a writer does).
echo "pid 4242 on host elsewhere since 2026-12-04T00:00:00Z" >"$db.lock"
exec 9<>"$db.lock"
flock -n 9 || fail "could not take the lock for the test"
if "$bin" twin run --days 1 --seed 1 --ledger "$db" --quiet >/dev/null 2>"$tmp/err.log"; then
  fail "a second writer got in"
fi
grep -q "l.db: another writer holds it: pid 4242 on host elsewhere" "$tmp/err.log" \
  || fail "two-writer message: $(cat "$tmp/err.log")"
exec 9>&-

# Reports on a read-only file in a read-only directory: same figures, no byte changed, no file
# created. Root ignores permissions, so as root the report runs as nobody.
"$bin" cost report --db "$db" --window 2d --csv >"$tmp/before.csv" || fail "report"
mkdir "$tmp/ro" && cp "$db" "$tmp/ro/l.db" && sum=$(sha256sum <"$tmp/ro/l.db")
chmod 0444 "$tmp/ro/l.db" && chmod 0555 "$tmp/ro" && chmod 0755 "$tmp"
as_reader=()
if [ "$(id -u)" = 0 ]; then as_reader=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
"${as_reader[@]}" "$bin" cost report --db "$tmp/ro/l.db" --window 2d --csv >"$tmp/ro.csv" 2>"$tmp/err.log" \
  || fail "report on a read-only ledger: $(cat "$tmp/err.log")"
cmp -s "$tmp/before.csv" "$tmp/ro.csv" || fail "read-only report differs"
[ "$(sha256sum <"$tmp/ro/l.db")" = "$sum" ] || fail "the report changed the ledger"
[ "$(ls "$tmp/ro")" = "l.db" ] || fail "the report created files: $(ls "$tmp/ro")"
chmod 0755 "$tmp/ro"

# A 0-byte file is not a ledger, and reading it leaves it empty.
: >"$tmp/zero.db"
if "$bin" cost report --db "$tmp/zero.db" --window 1d 2>"$tmp/err.log"; then fail "0-byte file read as a ledger"; fi
grep -q "zero.db: not a Steward ledger" "$tmp/err.log" || fail "0-byte message: $(cat "$tmp/err.log")"
[ ! -s "$tmp/zero.db" ] || fail "the report wrote into the 0-byte file"

# A flipped value: more GPU-hours than the window's capacity. The report names the window.
sqlite3 "$db" "UPDATE allocations SET allocated_gpu_hours = allocated_gpu_hours * 1000
  WHERE id = (SELECT min(id) FROM allocations);"
if "$bin" cost report --db "$db" --window 2d 2>"$tmp/err.log" >/dev/null; then fail "tampered ledger reported"; fi
grep -q "window \[.*capacity is" "$tmp/err.log" || fail "tampered-window message: $(cat "$tmp/err.log")"
echo "cost_ledger_guard: ok"
