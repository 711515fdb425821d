#!/usr/bin/env bash
# End-to-end: `steward operate` and `steward twin snapshot` reach an API server over TLS signed
# by a self-made CA (made here with the openssl CLI), authenticating with a token that an exec
# credential plugin (client.authentication.k8s.io/v1, as EKS/GKE/AKS use) prints; and kubectl
# with the same kubeconfig agrees. A kubeconfig without the CA is refused (TLS verified by
# default), as is one whose plugin prints a wrong token.
set -euo pipefail
bin=${1:?usage: operate_tls_exec.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/harness.sh"
cd "$tmp"
# A CA, and a server certificate for 127.0.0.1 it signs.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=steward-e2e-ca" \
  -keyout ca.key -out ca.pem >/dev/null 2>&1 || fail "openssl CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr \
  >/dev/null 2>&1 || fail "openssl CSR"
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile san.ext -out server.pem >/dev/null 2>&1 || fail "openssl sign"
token=e2e-$RANDOM$RANDOM
printf '%s\n' "$token" >token
cd - >/dev/null

"$bin" serve "$root/examples/kube/rehearsal.yaml" --warmup 0 --port 0 --kube-port 0 --speed 60 \
  --token-file "$tmp/token" --tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key" \
  >"$tmp/serve.log" 2>&1 &
pids+=($!)
url=
for _ in $(seq 1 600); do
  url=$(sed -n 's|.*Kubernetes API at \(https://[^ ]*\)/ .*|\1|p' "$tmp/serve.log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || fail "serve printed no https address"

# The exec plugin: prints an ExecCredential with the token, and logs that it ran.
plugin() {  # plugin FILE TOKEN
  cat >"$1" <<EOF
#!/bin/sh
echo ran >>"$tmp/plugin.log"
[ -n "\$KUBERNETES_EXEC_INFO" ] || exit 3
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$2"
EOF
  chmod +x "$1"
}
plugin "$tmp/get-token" "$token"
plugin "$tmp/bad-token" "not-$token"
kubeconfig() {  # kubeconfig FILE PLUGIN [CA-LINE]
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: twin
  cluster:
    server: $url
$3
users:
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $2
      interactiveMode: Never
contexts:
- name: twin
  context: {cluster: twin, user: exec}
current-context: twin
EOF
}
kubeconfig "$tmp/kc" "$tmp/get-token" "    certificate-authority: $tmp/ca.pem"
kubeconfig "$tmp/kc-no-ca" "$tmp/get-token" ""
kubeconfig "$tmp/kc-bad" "$tmp/bad-token" "    certificate-authority: $tmp/ca.pem"

ready() { kubectl --kubeconfig "$tmp/kc" get --raw /readyz >/dev/null 2>&1; }
for _ in $(seq 1 300); do ready && break; sleep 0.1; done
ready || fail "kubectl with the exec kubeconfig cannot reach $url"
[ "$(kubectl --kubeconfig "$tmp/kc" get nodes --no-headers | wc -l)" = 16 ] || fail "kubectl nodes"

: >"$tmp/plugin.log"
"$bin" operate --kubeconfig "$tmp/kc" --once >"$tmp/op.out" 2>"$tmp/op.err" ||
  fail "operate over TLS + exec: $(cat "$tmp/op.err")"
grep -q "against $url (16 nodes)" "$tmp/op.err" || fail "operate did not see the cluster: $(cat "$tmp/op.err")"
[ -s "$tmp/plugin.log" ] || fail "the exec plugin never ran"

if "$bin" operate --kubeconfig "$tmp/kc-no-ca" --once --sync-timeout 10 >/dev/null 2>"$tmp/noca.err"; then
  fail "a server certificate from an unknown CA was accepted"
fi
grep -Eiq "certificate|tls|ssl|verif" "$tmp/noca.err" || fail "no-CA error: $(cat "$tmp/noca.err")"
if "$bin" operate --kubeconfig "$tmp/kc-bad" --once --sync-timeout 10 >/dev/null 2>"$tmp/bad.err"; then
  fail "a wrong token was accepted"
fi
grep -Eq "401|Unauthorized" "$tmp/bad.err" || fail "bad-token error: $(cat "$tmp/bad.err")"

"$bin" twin snapshot --kubeconfig "$tmp/kc" -o "$tmp/snap" >/dev/null 2>"$tmp/snap.err" ||
  fail "twin snapshot over TLS + exec: $(cat "$tmp/snap.err")"
"$bin" twin validate "$tmp/snap/scenario.yaml" >/dev/null || fail "the snapshot does not validate"
echo "TLS with a self-made CA and an exec credential plugin: kubectl, operate and snapshot agree"
