#!/usr/bin/env bash
# HTTP/2 against HTTP/1.1 on the same server, in one run, with the same load generator (h2load, from
# Debian's nghttp2-client: apt-get install nghttp2-client; the server does not need it):
#   GET of a 1-KiB ConfigMap, 1 connection x 32 concurrent streams over h2, then 32 HTTP/1.1 keep-alive
#   connections with one request each in flight. Prints requests/s and the server's CPU time per request.
# Then (bench/http2/watchers.js, Node's built-in http2/https): 1000 watchers on 10 h2 connections
# against 1000 HTTP/1.1 connections, the time until 1000 creates have reached every watcher, and the
# server's CPU and RSS.
# Authenticates h2load with a static bearer token (h2load has no client-certificate option).
#   bench/http2/run.sh [build-dir] [seconds] [watchers] [events]
set -euo pipefail
B=${1:-build}
SECS=${2:-10}
WATCHERS=${3:-1000}
EVENTS=${4:-1000}
[ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096  # 1000 HTTP/1.1 watch connections
CAPSTAN=$B/capstan
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
command -v h2load >/dev/null || { echo "needs h2load: apt-get install nghttp2-client"; exit 1; }
D=$(mktemp -d /tmp/capstan-h2bench-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

TOKEN=bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$TOKEN,bench-admin,bench-admin,system:masters" > "$D/tokens.csv"
start_server() {  # a fresh server on a fresh data dir ($1), so RSS figures do not carry over
  "$CAPSTAN" --data-dir "$D/$1" --secure-port "$PORT" --token-auth-file "$D/tokens.csv" >"$D/capstan-$1.log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
  K="$KUBECTL --kubeconfig $D/$1/admin.kubeconfig"
}
stop_server() { kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""; }
start_server data

VALUE=$(head -c 1024 /dev/zero | tr '\0' 'x')
$K create namespace bench >/dev/null
$K -n bench create configmap get-me --from-literal=payload="$VALUE" >/dev/null
URL="https://127.0.0.1:$PORT/api/v1/namespaces/bench/configmaps/get-me"
echo "object: $(curl -sk -H "Authorization: Bearer $TOKEN" "$URL" | wc -c) bytes of JSON; $SECS s per run; $(nproc) cores"

cpu_ticks() { awk '{print $14 + $15}' /proc/$CPID/stat; }
run() {
  local label=$1; shift
  local t0 t1 out reqs rps
  t0=$(cpu_ticks)
  out=$(h2load -D "$SECS" -H "Authorization: Bearer $TOKEN" "$@" "$URL" 2>&1)
  t1=$(cpu_ticks)
  reqs=$(echo "$out" | awk '/^requests:/{print $8}')
  rps=$(echo "$out" | awk '/^finished in/{print $4}')
  local status=$(echo "$out" | awk "/^status codes:/{print \$3}")
  local tick=$(getconf CLK_TCK)
  local us_per_req=$(awk -v d=$((t1 - t0)) -v n="$reqs" -v hz="$tick" 'BEGIN{ if (n > 0) printf "%.0f", d * 1e6 / hz / n; else print "n/a" }')
  printf "%-44s %10s req/s   %6s us server CPU/request   (%s requests, 2xx: %s)\n" "$label" "$rps" "$us_per_req" "$reqs" "$status"
}
run "GET configmap, h2, 1 connection x 32 streams" -c 1 -m 32
run "GET configmap, HTTP/1.1, 32 connections" --h1 -c 32 -m 1
run "GET configmap, h2, 1 connection x 1 stream" -c 1 -m 1
run "GET configmap, HTTP/1.1, 1 connection" --h1 -c 1 -m 1
echo "server RSS after the runs: $(( $(awk '/VmRSS/{print $2}' /proc/$CPID/status) / 1024 )) MiB"
echo
HERE=$(dirname "$0")
for proto in h2 h1; do
  stop_server
  start_server "watch-$proto"
  $K create namespace watch >/dev/null
  echo "server RSS before the watchers: $(( $(awk '/VmRSS/{print $2}' /proc/$CPID/status) / 1024 )) MiB"
  node "$HERE/watchers.js" "$proto" "$PORT" "$D/watch-$proto/pki" watch "$CPID" "$WATCHERS" "$EVENTS"
done
