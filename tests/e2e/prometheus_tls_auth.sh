#!/usr/bin/env bash
# End-to-end: Steward reaches a Prometheus served as users run it, over https with a private CA
# and basic auth (Prometheus' own --web.config.file), through a Prometheus-style HTTP client
# config (--prometheus-config) that Prometheus' own HTTP client reads too.
#
#   1. openssl makes a CA and a server certificate (SANs 127.0.0.1, prometheus.steward.test).
#      The password's bcrypt hash: `htpasswd -nbB` of a random password where apache2-utils is
#      installed (scripts/install-deps.sh installs it), else /usr/bin/python3's bcrypt module,
#      else the hash below of a fixed test password (made once with htpasswd -nbB -C 10); the
#      PASS line says which. promtool check web-config accepts the web config.
#   2. client.yml: basic_auth (password_file) + tls_config.ca_file, relative to its directory.
#      Prometheus reads the same keys: a scrape job of itself embeds them (promtool check
#      config accepts it) and must come up. Debian's promtool (2.42) has no
#      --http.config.file, so the scrape job is where Prometheus' own client reads the file.
#   3. Backfilled DCGM series (one GPU at SM-active 0.5, no kube-state-metrics):
#      `diagnose --prometheus https://... --prometheus-config client.yml` reads them, and lists
#      the kube-state-metrics parts it could not compute.
#   4. Without the config: a TLS error naming the certificate problem and ca_file; with the CA
#      but no credentials: 401 naming --prometheus-config; http:// to the https server, a wrong
#      server_name, a config with an unknown key: each a clear error, exit non-zero.
#      tls_config.server_name with the certificate's DNS name works against 127.0.0.1.
#   5. A second Prometheus requiring a client certificate: tls_config cert_file/key_file
#      reach it, a config without them is refused.
#
# Fails (never skips) when prometheus/promtool/openssl are missing: CI installs them
# (scripts/install-deps.sh). Everything it starts is stopped on exit.
set -euo pipefail
bin=$(realpath "${1:?usage: prometheus_tls_auth.sh STEWARD}")
. "$(dirname "$0")/lib/harness.sh"
prom=$(command -v prometheus || true)
[ -n "$prom" ] || prom=/usr/bin/prometheus
promtool=$(command -v promtool || true)
[ -n "$promtool" ] || promtool=/usr/bin/promtool
. "$(dirname "$0")/lib/prometheus.sh"
[ -x "$prom" ] && [ -x "$promtool" ] ||
  fail "prometheus/promtool not installed (scripts/install-deps.sh installs Debian's package)"
command -v openssl >/dev/null || fail "openssl not installed (scripts/install-deps.sh)"

# 1. A private CA, a server certificate it signs, the password's bcrypt hash.
cd "$tmp"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -keyout ca.key -out ca.pem -subj "/CN=Steward test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  2>openssl.log || fail "openssl CA: $(tail -n 3 openssl.log)"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout server.key -out server.csr -subj "/CN=prometheus.steward.test" 2>>openssl.log ||
  fail "openssl CSR"
printf 'subjectAltName=IP:127.0.0.1,DNS:prometheus.steward.test\nextendedKeyUsage=serverAuth\n' >san.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile san.ext -out server.pem 2>>openssl.log || fail "openssl sign: $(tail -n 3 openssl.log)"
if command -v htpasswd >/dev/null; then
  hashed_by="htpasswd -nbB"
  password="steward-e2e-$RANDOM$RANDOM"
  hash=$(htpasswd -nbB steward "$password" | cut -d: -f2-)
elif /usr/bin/python3 -c 'import bcrypt' 2>/dev/null; then
  hashed_by="python3 bcrypt"
  password="steward-e2e-$RANDOM$RANDOM"
  hash=$(/usr/bin/python3 -c 'import bcrypt, sys; print(bcrypt.hashpw(sys.argv[1].encode(), bcrypt.gensalt()).decode())' "$password")
else
  hashed_by="the committed hash of a fixed test password"
  password="steward-e2e-fixed-password"
  hash='$2y$10$2M5.qAnJb1jK5lM49Wjk9u2.G15oYAUURPIRMl1vjCw2YwpfzoZya'
fi
[ -n "$hash" ] || fail "no bcrypt hash ($hashed_by)"
cat >web.yml <<EOF
tls_server_config:
  cert_file: server.pem
  key_file: server.key
basic_auth_users:
  steward: '$hash'
EOF
"$promtool" check web-config web.yml >promtool.log 2>&1 || fail "promtool check web-config: $(cat promtool.log)"

# 2. The client config, its password in a file beside it (relative paths, as Prometheus reads).
mkdir -p secrets
printf '%s\n' "$password" >secrets/password
cat >client.yml <<'EOF'
basic_auth:
  username: steward
  password_file: secrets/password
tls_config:
  ca_file: ca.pem
EOF
# Prometheus scrapes itself with the same client settings (indented under the job).
{
  printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    scheme: https\n'
  printf '    static_configs: [{targets: ["127.0.0.1:@PORT@"]}]\n'
  sed 's/^/    /' client.yml
} >prometheus.yml
"$promtool" check config --syntax-only prometheus.yml >promtool.log 2>&1 ||
  fail "promtool check config rejects the client settings: $(cat promtool.log)"

# 3. One GPU at SM-active 0.5 for an hour, backfilled; dcgm-exporter's pod labels only.
t0=1700000000
{
  for m in DCGM_FI_PROF_SM_ACTIVE:0.5 DCGM_FI_DEV_GPU_UTIL:50; do
    echo "# TYPE ${m%%:*} gauge"
    for i in $(seq 0 12); do
      echo "${m%%:*}{gpu=\"0\",UUID=\"GPU-e2e-0\",Hostname=\"node-a\",modelName=\"NVIDIA H100 80GB HBM3\",pod=\"train-0\",namespace=\"team-a\",container=\"main\"} ${m#*:} $((t0 + 300 * i))"
    done
  done
  echo "# EOF"
} >series.om
"$promtool" tsdb create-blocks-from openmetrics series.om data >promtool.log 2>&1 ||
  fail "promtool backfill: $(tail -n 5 promtool.log)"
cd - >/dev/null

prom_scheme=https
prom_curl_args=(--cacert "$tmp/ca.pem" -u "steward:$password")
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log" \
  --web.config.file="$tmp/web.yml" --storage.tsdb.retention.time=100y
case "$prom_url" in https://127.0.0.1:*) ;; *) fail "unexpected URL $prom_url" ;; esac

# Prometheus' own client, reading the same settings, reaches the TLS + basic-auth endpoint.
# Retried for up to a minute: on a loaded machine the first scrapes (bcrypt on every request)
# or a query may time out; the last error is reported.
up=""
for _ in $(seq 1 300); do
  up=$("$bin" metrics query --prometheus "$prom_url" --prometheus-config "$tmp/client.yml" \
    'up{job="self"}' --json 2>"$tmp/query.err" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; print(int(float(r[0]["value"][1])) if r else "")') ||
    up=""
  [ "$up" = 1 ] && break
  sleep 0.2
done
[ "$up" = 1 ] || fail "Prometheus' scrape of itself with client.yml's settings is not up ($up): $(cat "$tmp/query.err")"

d() { "$bin" diagnose --prometheus "$1" --start $t0 --end $((t0 + 3600)) --step 5m "${@:2}"; }
d "$prom_url" --prometheus-config "$tmp/client.yml" --json >"$tmp/diag.json" 2>"$tmp/diag.err" ||
  fail "diagnose over https with the config: $(cat "$tmp/diag.err")"
python3 - "$tmp/diag.json" <<'PY' || fail "diagnosis over https is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"]["kind"] == "prometheus" and d["source"]["where"].startswith("https://"), d["source"]
assert d["source"]["gpus"] == 1, d["source"]
assert d["source"]["frames"] == 13, d["source"]
assert abs(d["sm_active_utilization"] - 0.5) < 1e-3, d["sm_active_utilization"]
missing = {n["series"] for n in d["not_computed"]}
assert 'kube_pod_container_resource_requests{resource="nvidia_com_gpu"}' in missing, missing
assert 'kube_node_status_allocatable{resource="nvidia_com_gpu"}' in missing, missing
assert "DCGM_FI_DEV_FB_USED" in missing, missing
assert "DCGM_FI_PROF_SM_ACTIVE" not in missing, missing
print("diagnosis over https + basic auth: SM-active %.3f, not computed: %d parts"
      % (d["sm_active_utilization"], len(d["not_computed"])))
PY
d "$prom_url" --prometheus-config "$tmp/client.yml" >"$tmp/diag.txt" 2>&1 || fail "diagnose text"
grep -q "^Not computed" "$tmp/diag.txt" || fail "the text output does not list what was not computed"
grep -q "kube_pod_container_resource_requests" "$tmp/diag.txt" || fail "text: missing KSM series not named"

# 4. The ways it fails, each saying what to change.
expect_fail() {  # expect_fail NAME PATTERN COMMAND...
  local name=$1 pattern=$2
  shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err"; then fail "$name: succeeded"; fi
  grep -Eq "$pattern" "$tmp/err" || fail "$name: error does not match /$pattern/: $(cat "$tmp/err")"
  echo "ok: $name: $(head -c 300 "$tmp/err")"
}
expect_fail "no config (self-signed CA)" "TLS.*certificate.*ca_file" d "$prom_url"
printf 'tls_config:\n  ca_file: ca.pem\n' >"$tmp/ca-only.yml"
expect_fail "CA but no credentials" "401.*--prometheus-config" \
  d "$prom_url" --prometheus-config "$tmp/ca-only.yml"
printf 'basic_auth:\n  username: steward\n  password: wrong\ntls_config:\n  ca_file: ca.pem\n' \
  >"$tmp/wrong.yml"
expect_fail "wrong password" "401.*wrong.yml" d "$prom_url" --prometheus-config "$tmp/wrong.yml"
expect_fail "http:// to the https server" "speaks https" \
  d "${prom_url/https:/http:}" --prometheus-config "$tmp/client.yml"
{ cat "$tmp/client.yml"; printf '  server_name: other.steward.test\n'; } >"$tmp/other-name.yml"
expect_fail "server_name the certificate lacks" "does not name other.steward.test" \
  d "$prom_url" --prometheus-config "$tmp/other-name.yml"
{ cat "$tmp/client.yml"; printf 'proxy_url: http://proxy:3128\n'; } >"$tmp/proxy.yml"
expect_fail "proxy_url" "proxy.yml:6:1: proxy_url: not supported" \
  d "$prom_url" --prometheus-config "$tmp/proxy.yml"
{ cat "$tmp/client.yml"; printf 'tls_confg: {}\n'; } >"$tmp/typo.yml"
expect_fail "unknown key" "typo.yml:6:1: tls_confg: unknown field" \
  d "$prom_url" --prometheus-config "$tmp/typo.yml"

# The certificate's DNS name, verified while connecting to 127.0.0.1; plus a tenant header
# (Prometheus ignores it; Mimir/Cortex would route by it).
{
  cat "$tmp/client.yml"
  printf '  server_name: prometheus.steward.test\n'
  printf 'http_headers:\n  X-Scope-OrgID:\n    values: [team-a]\n'
} >"$tmp/by-name.yml"
d "$prom_url" --prometheus-config "$tmp/by-name.yml" --json >"$tmp/by-name.json" 2>"$tmp/err" ||
  fail "server_name prometheus.steward.test: $(cat "$tmp/err")"
# 5. A client certificate (tls_config cert_file/key_file): a second Prometheus, empty, that
# requires one signed by the CA.
cd "$tmp"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout client.key -out client.csr -subj "/CN=steward" 2>>openssl.log || fail "openssl client CSR"
printf 'extendedKeyUsage=clientAuth\n' >client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile client.ext -out client.pem 2>>openssl.log || fail "openssl sign client"
cat >web-mtls.yml <<'EOF'
tls_server_config:
  cert_file: server.pem
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.pem
EOF
"$promtool" check web-config web-mtls.yml >promtool.log 2>&1 || fail "web-mtls.yml: $(cat promtool.log)"
printf 'tls_config:\n  ca_file: ca.pem\n  cert_file: client.pem\n  key_file: client.key\n' >mtls.yml
printf 'global:\n  scrape_interval: 1m\n' >empty.yml
cd - >/dev/null
tls_url=$prom_url
prom_curl_args=(--cacert "$tmp/ca.pem" --cert "$tmp/client.pem" --key "$tmp/client.key")
start_prometheus "$tmp/empty.yml" "$tmp/data-mtls" "$tmp/prometheus-mtls.log" \
  --web.config.file="$tmp/web-mtls.yml"
[ "$tls_url" != "$prom_url" ] || fail "the two servers share a URL"
one=$("$bin" metrics query --prometheus "$prom_url" --prometheus-config "$tmp/mtls.yml" 'vector(1)' \
  --json 2>"$tmp/err" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["result"][0]["value"][1]))') ||
  fail "query with a client certificate: $(cat "$tmp/err")"
[ "$one" = 1 ] || fail "vector(1) gave $one"
expect_fail "no client certificate" "TLS.*cert_file" \
  "$bin" metrics query --prometheus "$prom_url" --prometheus-config "$tmp/ca-only.yml" 'vector(1)'
echo "PASS prometheus_tls_auth (bcrypt hash by $hashed_by)"
