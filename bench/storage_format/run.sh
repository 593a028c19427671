#!/usr/bin/env bash
# kube's storage format against JSON, in one run: for --storage-media-type protobuf and json, a fresh
# server on the embedded store (only the ttl controller, so nothing else writes), N Deployments created
# at 32 keep-alive HTTPS connections (replicas 0, a kube-like pod template; creates/s), then GET of one
# Deployment at 32 connections (served from the store, decoding the value each time; GETs/s), the bytes
# on disk per object (data.mdb growth / objects, LMDB pages and history included) and the size of one
# stored value (the object's body in that media type: what is stored, but for its resourceVersion).
# Not part of `make test`.
#   bench/storage_format/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-10}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
D=$(mktemp -d /tmp/capstan-bench-format-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
CPID=""

cat > "$D/deploy.json" <<'JSON'
{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d-{n}","labels":{"app":"web","tier":"frontend","team":"payments"},
 "annotations":{"deployment.kubernetes.io/revision":"1","owner":"payments-team@example.com"}},
 "spec":{"replicas":0,"selector":{"matchLabels":{"app":"web","instance":"d-{n}"}},
  "template":{"metadata":{"labels":{"app":"web","instance":"d-{n}"}},
   "spec":{"containers":[{"name":"web","image":"registry.example.com/payments/web:1.27.3",
     "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
     "env":[{"name":"MODE","value":"production"},{"name":"LOG_LEVEL","value":"info"},
            {"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
     "resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},
     "readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5},
     "volumeMounts":[{"name":"config","mountPath":"/etc/web"}]}],
    "volumes":[{"name":"config","configMap":{"name":"web-config"}}]}}}}
JSON

for mt in application/vnd.kubernetes.protobuf application/json; do
  DATA=$D/data-${mt##*/}
  PORT=$(free_port)
  "$CAPSTAN" --data-dir "$DATA" --secure-port "$PORT" --storage-media-type "$mt" --controllers ttl-controller >"$D/log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
  CERT=$DATA/pki/admin.crt KEY=$DATA/pki/admin.key
  sleep 1
  BEFORE=$(stat -c %s "$DATA/store/data.mdb")
  echo "== --storage-media-type=$mt"
  "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY" --seconds "$SECS" --connections 32 --method POST \
    --path /apis/apps/v1/namespaces/default/deployments --body-file "$D/deploy.json" --label "CREATE deployment"
  N=$(curl -sk --cert "$CERT" --key "$KEY" "https://127.0.0.1:$PORT/apis/apps/v1/namespaces/default/deployments?limit=1" |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(1+d["metadata"].get("remainingItemCount",0))')
  "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY" --seconds "$SECS" --connections 32 \
    --path /apis/apps/v1/namespaces/default/deployments/d-1 --label "GET deployment"
  VALUE=$(curl -sk --cert "$CERT" --key "$KEY" -H "Accept: $mt" \
    "https://127.0.0.1:$PORT/apis/apps/v1/namespaces/default/deployments/d-1" | wc -c)
  kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""
  AFTER=$(stat -c %s "$DATA/store/data.mdb")
  echo "one stored value: $VALUE bytes"
  echo "objects: $N; data.mdb grew $(( (AFTER - BEFORE) / 1024 )) KiB: $(( (AFTER - BEFORE) / N )) bytes per object on disk"
  "$CAPSTAN" snapshot save "$D/s.snap" --data-dir "$DATA" >/dev/null 2>&1 &&
    echo "snapshot of the store: $("$CAPSTAN" snapshot status "$D/s.snap")"
done
