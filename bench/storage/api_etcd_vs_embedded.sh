#!/usr/bin/env bash
# Capstan on etcd against Capstan on the embedded store, in one run: CREATE, GET and LIST (500
# ConfigMaps) of 1 KiB ConfigMaps at 1 and 32 keep-alive HTTPS connections (bench/loadgen), throughput
# and p99 per point; then the time for a write through one replica to reach a watch on a second
# replica on the same etcd. Needs Debian's etcd-server (/usr/bin/etcd); not part of `make test`.
#   bench/storage/api_etcd_vs_embedded.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-5}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-etcd-bench-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

ECP=$(free_port); EPP=$(free_port)
/usr/bin/etcd --name b0 --data-dir "$D/etcd" --listen-client-urls "http://127.0.0.1:$ECP" \
  --advertise-client-urls "http://127.0.0.1:$ECP" --listen-peer-urls "http://127.0.0.1:$EPP" \
  --initial-advertise-peer-urls "http://127.0.0.1:$EPP" --initial-cluster "b0=http://127.0.0.1:$EPP" \
  >"$D/etcd.log" 2>&1 &
PIDS+=($!)
until curl -s "http://127.0.0.1:$ECP/health" 2>/dev/null | grep -q true; do sleep 0.1; done
echo "etcd $(/usr/bin/etcd --version | head -1 | awk '{print $3}') on 127.0.0.1:$ECP; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# start_capstan <name> [flags...]: sets PORT and DATA
start_capstan() {
  local name=$1; shift
  DATA=$D/$name
  PORT=$(free_port)
  mkdir -p "$DATA"
  [ -n "${PKI_FROM:-}" ] && cp -r "$PKI_FROM" "$DATA/pki"
  "$CAPSTAN" --data-dir "$DATA" --secure-port "$PORT" "$@" >"$DATA/capstan.log" 2>&1 &
  PIDS+=($!)
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
}

VALUE=$(head -c 900 /dev/zero | tr '\0' 'x')
measure() {
  local label=$1
  local K="$KUBECTL --kubeconfig $DATA/admin.kubeconfig"
  local run=("$LOADGEN" --port "$PORT" --cert "$DATA/pki/admin.crt" --key "$DATA/pki/admin.key" --seconds "$SECS")
  $K create namespace bench >/dev/null
  $K -n bench create configmap get-me --from-literal=payload="$VALUE" >/dev/null
  $K create namespace listing >/dev/null
  python3 - "$DATA/list.yaml" "$VALUE" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("apiVersion: v1\nkind: List\nitems:\n")
    for i in range(500):
        f.write(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: item-{i}\n    namespace: listing\n  data:\n    payload: {sys.argv[2]}\n")
PY
  $K create --validate=false -f "$DATA/list.yaml" >/dev/null
  echo "--- $label"
  for c in 1 32; do
    echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c$c-{n}\"},\"data\":{\"payload\":\"$VALUE\"}}" >"$DATA/create-$c.json"
    "${run[@]}" --connections $c --method POST --path /api/v1/namespaces/bench/configmaps --body-file "$DATA/create-$c.json" --label "$label CREATE c=$c"
    "${run[@]}" --connections $c --path /api/v1/namespaces/bench/configmaps/get-me --label "$label GET c=$c"
    "${run[@]}" --connections $c --path /api/v1/namespaces/listing/configmaps --label "$label LIST 500 c=$c"
  done
}

start_capstan embedded
measure embedded
kill "${PIDS[-1]}"
start_capstan etcd --etcd-servers "http://127.0.0.1:$ECP"
measure etcd
A_PORT=$PORT; A_DATA=$DATA

# A second replica on the same etcd: write through the first, watch on the second.
PKI_FROM=$A_DATA/pki start_capstan etcd-b --etcd-servers "http://127.0.0.1:$ECP"
python3 - "$A_PORT" "$PORT" "$A_DATA/pki" <<'PY'
import http.client, json, ssl, sys, time, threading
a_port, b_port, pki = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
w = http.client.HTTPSConnection("127.0.0.1", b_port, context=ctx)
w.request("GET", "/api/v1/namespaces/bench/configmaps?watch=1&allowWatchBookmarks=false&resourceVersion=0")
resp = w.getresponse()
seen = {}
def reader():
    buf = b""
    while True:
        chunk = resp.read1(65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            ev = json.loads(line)
            name = ev["object"]["metadata"]["name"]
            if name.startswith("lat-"):
                seen[name] = time.monotonic()
threading.Thread(target=reader, daemon=True).start()
time.sleep(1)
c = http.client.HTTPSConnection("127.0.0.1", a_port, context=ctx)
lat = []
for i in range(100):
    name = f"lat-{i}"
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
    t0 = time.monotonic()
    c.request("POST", "/api/v1/namespaces/bench/configmaps", body, {"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    t_ack = time.monotonic()
    while name not in seen and time.monotonic() - t0 < 10:
        time.sleep(0.0002)
    if name in seen:
        lat.append(((seen[name] - t0) * 1000, (seen[name] - t_ack) * 1000))
lat.sort()
n = len(lat)
after = sorted(x[1] for x in lat)
print(f"replica A write -> watch on replica B: {n}/100 seen; from the request p50 {lat[n//2][0]:.1f} ms p99 {lat[min(n-1, n*99//100)][0]:.1f} ms; "
      f"after A's 201 p50 {after[n//2]:.1f} ms p99 {after[min(n-1, n*99//100)]:.1f} ms")
PY
echo "load average after the run $(cut -d' ' -f1-3 /proc/loadavg)"
