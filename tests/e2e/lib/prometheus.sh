# Shared by the e2e tests that run Debian's Prometheus on loopback (source it; not a test).
# Needs: $prom (the prometheus binary), the array `pids` (the caller's cleanup kills them),
# and a `fail` function.

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A random loopback port nobody listens on (races are handled by start_prometheus' retries).
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    port_in_use "$p" || { echo "$p"; return 0; }
  done
  return 1
}

# start_prometheus CONFIG DATA_DIR LOG [EXTRA_FLAG...]: starts Prometheus on a free port, up to
# three times (another process may take the port first), and sets prom_url once /-/ready answers.
# A CONFIG holding @PORT@ is started from a copy (CONFIG.run) with the chosen port in its place
# (a job scraping Prometheus itself). Set prom_scheme=https and prom_curl_args (e.g. --cacert,
# -u) for a server started with --web.config.file.
start_prometheus() {
  local config=$1 data=$2 log=$3 port pp run scheme=${prom_scheme:-http}
  shift 3
  prom_url=""
  for attempt in 1 2 3; do
    port=$(free_port) || fail "no free port"
    run=$config
    if grep -q '@PORT@' "$config"; then
      run=$config.run
      sed "s/@PORT@/$port/g" "$config" >"$run"
    fi
    "$prom" --config.file="$run" --web.listen-address="127.0.0.1:$port" \
      --storage.tsdb.path="$data" "$@" >"$log" 2>&1 &
    pp=$!
    pids+=($pp)
    for _ in $(seq 1 150); do
      kill -0 "$pp" 2>/dev/null || break  # Lost a race for the port: retry on another.
      if curl -sf ${prom_curl_args[@]+"${prom_curl_args[@]}"} "$scheme://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
        prom_url="$scheme://127.0.0.1:$port"
        return 0
      fi
      sleep 0.1
    done
    echo "prometheus attempt $attempt on port $port failed; retrying" >&2
  done
  fail "prometheus did not become ready"
}
