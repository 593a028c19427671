#!/usr/bin/env bash
# Audit overhead per mode, in one run: for audit off, --audit-log-mode=batch, blocking (the default)
# and blocking-strict, a fresh server on the embedded store (only the ttl controller, so nothing else
# writes) with a Metadata-level policy for every request (both stages logged, to a file in the data
# dir), ConfigMaps created at 32 keep-alive HTTPS connections for N seconds (creates/s). Then the
# number of events in the log against the creates made. Not part of `make test`.
#   bench/audit/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-10}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
D=$(mktemp -d /tmp/capstan-bench-audit-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
CPID=""

cat > "$D/policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
YAML
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-{n}"},"data":{"k":"v"}}' > "$D/cm.json"

for mode in off batch blocking blocking-strict; do
  DATA=$D/data-$mode
  PORT=$(free_port)
  FLAGS=()
  if [ "$mode" != off ]; then
    FLAGS=(--audit-policy-file "$D/policy.yaml" --audit-log-path "$DATA/audit.log" --audit-log-mode "$mode")
  fi
  "$CAPSTAN" --data-dir "$DATA" --secure-port "$PORT" --controllers ttl-controller "${FLAGS[@]}" >"$D/log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
  CERT=$DATA/pki/admin.crt KEY=$DATA/pki/admin.key
  sleep 1
  echo "== audit: $mode"
  "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY" --seconds "$SECS" --connections 32 --method POST \
    --path /api/v1/namespaces/default/configmaps --body-file "$D/cm.json" --label "CREATE configmap"
  kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""
  if [ "$mode" != off ]; then
    CREATES=$(grep -c '"verb":"create","user":{"username":"kubernetes-admin"' "$DATA/audit.log" || true)
    echo "audit log: $(wc -l < "$DATA/audit.log") events, $CREATES of them for the admin's creates (two per create)"
  fi
done
