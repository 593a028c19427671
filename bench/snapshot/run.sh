#!/usr/bin/env bash
# `capstan snapshot` on the embedded store: N ConfigMaps of 1 KiB (default 10000) created over HTTPS,
# then snapshot save while the server runs (wall time, file size), status, and restore into a new data
# dir (wall time), and the restored server's object count. Not part of `make test`.
#   bench/snapshot/run.sh [build-dir] [objects]
set -euo pipefail
B=${1:-build}
N=${2:-10000}
CAPSTAN=$B/capstan
D=$(mktemp -d /tmp/capstan-bench-snapshot-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
PORT=$(free_port)
"$CAPSTAN" --data-dir "$D/a" --secure-port "$PORT" --controllers ttl-controller >"$D/log" 2>&1 &
CPID=$!
until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
python3 - "$PORT" "$D/a/pki" "$N" <<'PY'
import http.client, json, ssl, sys, threading
port, pki, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
def work(t, k):
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
    for i in range(t, n, k):
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c-{i}"}, "data": {"v": "x" * 1024}})
        c.request("POST", "/api/v1/namespaces/default/configmaps", body, {"Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        assert r.status == 201, r.status
threads = [threading.Thread(target=work, args=(t, 16)) for t in range(16)]
[t.start() for t in threads]; [t.join() for t in threads]
PY
echo "created $N ConfigMaps of 1 KiB; data.mdb: $(( $(stat -c %s "$D/a/store/data.mdb") / 1024 )) KiB"
t0=$(date +%s%N)
"$CAPSTAN" snapshot save "$D/s.snap" --data-dir "$D/a" >/dev/null
t1=$(date +%s%N)
echo "snapshot save (server running): $(( (t1 - t0) / 1000000 )) ms, file $(( $(stat -c %s "$D/s.snap") / 1024 )) KiB"
"$CAPSTAN" snapshot status "$D/s.snap" --write-out=table
t0=$(date +%s%N)
"$CAPSTAN" snapshot restore "$D/s.snap" --data-dir "$D/b" >/dev/null
t1=$(date +%s%N)
echo "snapshot restore: $(( (t1 - t0) / 1000000 )) ms"
kill "$CPID"; wait "$CPID" 2>/dev/null || true
PORT=$(free_port)
"$CAPSTAN" --data-dir "$D/b" --secure-port "$PORT" --controllers ttl-controller >"$D/log2" 2>&1 &
CPID=$!
until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
COUNT=$(curl -sk --cert "$D/b/pki/admin.crt" --key "$D/b/pki/admin.key" \
  "https://127.0.0.1:$PORT/api/v1/namespaces/default/configmaps?limit=1" |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print(1+d["metadata"].get("remainingItemCount",0))')
echo "restored server lists $COUNT ConfigMaps in default ($N created)"
