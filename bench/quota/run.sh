#!/usr/bin/env bash
# ResourceQuota admission overhead: CREATE configmap requests/s at 1 and 32 keep-alive HTTPS
# connections in three namespaces of one Capstan (embedded store), in the same run:
#   none    - no ResourceQuota (the plugin lists the namespace's quotas from the watch cache: none)
#   other   - one quota that does not track configmaps (hard pods=100: evaluated, nothing written)
#   tracked - one quota with count/configmaps=10000000 (each create also writes the quota's status)
#   bench/quota/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-5}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.31
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-quota-bench-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

"$CAPSTAN" --data-dir "$D/data" --secure-port "$PORT" >"$D/capstan.log" 2>&1 &
CPID=$!
until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
K="$KUBECTL --kubeconfig $D/data/admin.kubeconfig"
for ns in none other tracked; do $K create namespace $ns >/dev/null; done
$K -n other create quota q --hard=pods=100 >/dev/null
$K -n tracked create quota q --hard=count/configmaps=10000000 >/dev/null
until $K -n tracked get quota q -o jsonpath='{.status.used}' | grep -q configmaps; do sleep 0.1; done
until $K -n other get quota q -o jsonpath='{.status.used}' | grep -q pods; do sleep 0.1; done
VALUE=$(head -c 768 /dev/zero | tr '\0' 'x')
for c in 1 32; do
  for ns in none other tracked; do
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c-$c-{n}\"},\"data\":{\"payload\":\"$VALUE\"}}" > "$D/create.json"
    "$LOADGEN" --port "$PORT" --cert "$D/data/pki/admin.crt" --key "$D/data/pki/admin.key" --seconds "$SECS" \
      --connections $c --method POST --path /api/v1/namespaces/$ns/configmaps --body-file "$D/create.json" \
      --label "CREATE configmap, quota: $ns"
  done
done
echo
echo "quota status after the run:"
$K -n tracked get quota q -o jsonpath='{.status.used}'; echo
echo "configmaps in tracked: $($K -n tracked get configmaps --no-headers | wc -l)"
