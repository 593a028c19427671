#!/usr/bin/env bash
# API benchmark: GET of one ConfigMap, LIST of 500, CREATE and UPDATE at 1 and 32 keep-alive HTTPS
# connections against Capstan on the embedded store, and the same GET bytes served by nginx over HTTPS
# as the ceiling. Also: start-up time to /readyz on an existing data dir, idle RSS, and /healthz
# requests/s. Needs nginx (apt-get install nginx); not part of `make test`.
#   bench/api/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-5}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-bench-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; [ -n "${NPID:-}" ] && kill "$NPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

start_capstan() {
  local t0 t1
  t0=$(date +%s%N)
  "$CAPSTAN" --data-dir "$D/data" --secure-port "$PORT" >"$D/capstan.log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.002; done
  t1=$(date +%s%N)
  START_MS=$(( (t1 - t0) / 1000000 ))
}

CPID=""
start_capstan
echo "first start (generates PKI): $START_MS ms"
kill "$CPID"; wait "$CPID" 2>/dev/null || true
start_capstan
echo "start to /readyz 200 on an existing data dir: $START_MS ms (includes curl polling every 2 ms)"
sleep 1
echo "idle RSS: $(( $(awk '/VmRSS/{print $2}' /proc/$CPID/status) / 1024 )) MiB"

K="$KUBECTL --kubeconfig $D/data/admin.kubeconfig"
CERT=$D/data/pki/admin.crt
KEY=$D/data/pki/admin.key
VALUE=$(head -c 768 /dev/zero | tr '\0' 'x')
$K create namespace bench >/dev/null
$K -n bench create configmap get-me --from-literal=payload="$VALUE" >/dev/null
python3 - "$D/list.yaml" "$VALUE" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("apiVersion: v1\nkind: List\nitems:\n")
    for i in range(500):
        f.write(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: item-{i}\n    namespace: listing\n  data:\n    payload: {sys.argv[2]}\n")
PY
$K create namespace listing >/dev/null
$K create --validate=false -f "$D/list.yaml" >/dev/null
echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c-RUN-{n}\"},\"data\":{\"payload\":\"$VALUE\"}}" > "$D/create.json"
echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"upd\"},\"data\":{\"payload\":\"$VALUE\",\"n\":\"{n}\"}}" > "$D/update.json"
$K -n bench create configmap upd --from-literal=n=0 >/dev/null

run() { "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY" --seconds "$SECS" "$@"; }
echo
echo "healthz (anonymous):"
for c in 1 32; do "$LOADGEN" --port "$PORT" --seconds "$SECS" --connections $c --path /healthz --label "GET /healthz"; done
echo
for c in 1 32; do
  run --connections $c --path /api/v1/namespaces/bench/configmaps/get-me --label "GET configmap"
  run --connections $c --path /api/v1/namespaces/listing/configmaps --label "LIST 500 configmaps"
  sed "s/RUN/$c/" "$D/create.json" > "$D/create-$c.json"
  run --connections $c --method POST --path /api/v1/namespaces/bench/configmaps --body-file "$D/create-$c.json" --label "CREATE configmap"
  run --connections $c --method PUT --path /api/v1/namespaces/bench/configmaps/upd --body-file "$D/update.json" --label "UPDATE configmap"
done
echo "RSS after the run: $(( $(awk '/VmRSS/{print $2}' /proc/$CPID/status) / 1024 )) MiB"

if command -v nginx >/dev/null; then
  curl -sk --cert "$CERT" --key "$KEY" "https://127.0.0.1:$PORT/api/v1/namespaces/bench/configmaps/get-me" > "$D/get-me.json"
  NPORT=$(free_port)
  mkdir -p "$D/nginx"
  cat > "$D/nginx.conf" <<NGX
user root;
worker_processes 2;
pid $D/nginx/nginx.pid;
error_log $D/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NPORT ssl;
    ssl_certificate $D/data/pki/apiserver.crt;
    ssl_certificate_key $D/data/pki/apiserver.key;
    location / { root $D; default_type application/json; }
  }
}
NGX
  nginx -c "$D/nginx.conf" -p "$D/nginx" -g 'daemon off;' &
  NPID=$!
  sleep 0.5
  echo
  echo "nginx serving the same GET bytes over HTTPS (the ceiling):"
  for c in 1 32; do "$LOADGEN" --port "$NPORT" --seconds "$SECS" --connections $c --path /get-me.json --label "nginx GET"; done
fi
