#!/usr/bin/env bash
# API Priority and Fairness figures (issue 22), with APF on and off in one run. Not part of `make test`.
#
#  1. Flood: the server gets --max-requests-inflight=8 --max-mutating-requests-inflight=4 (12 seats).
#     User "flooder" runs FLOOD_CONNS (default 120, 10x the seats) closed-loop connections listing
#     100 ConfigMaps; meanwhile an exempt client (system:masters, the admin certificate) and a second
#     user "gooduser" (same global-default level, another flow) each GET one ConfigMap on one
#     connection. Reported: p50/p99 of each and their status codes.
#  2. Idle overhead: GET of one ConfigMap as gooduser (a non-exempt level, so classification, a seat
#     and the queue set are on the path) on 1 and 32 connections, APF on vs off, twice alternating.
#
#   bench/apf/run.sh [--seconds N] [BINARY]
# ROUNDS=n (default 2) repeats the overhead A/B; PARTS=overhead or PARTS=flood runs one part only.
set -euo pipefail
SECS=10
if [ "${1:-}" = "--seconds" ]; then SECS=$2; shift 2; fi
HERE=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$HERE/build/capstan}
LOADGEN=${LOADGEN:-$HERE/build/bench/loadgen/loadgen}
FLOOD_CONNS=${FLOOD_CONNS:-120}
ROUNDS=${ROUNDS:-2}
PARTS=${PARTS:-flood,overhead}
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-apf-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
CPID=""
cleanup() { [ -n "$CPID" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
printf 'flood-token-0123456789,flooder,flooder-uid\ngood-token-0123456789,gooduser,gooduser-uid\n' >"$D/tokens.csv"
start() {  # start APF_ENABLED [extra flags...]
  local apf=$1
  shift
  "$BIN" --data-dir "$D/data" --secure-port "$PORT" --token-auth-file "$D/tokens.csv" \
    --enable-priority-and-fairness="$apf" "$@" >"$D/log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
}
stop() { kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""; }
K="$KUBECTL --kubeconfig $D/data/admin.kubeconfig"
ADMIN="$LOADGEN --port $PORT --cert $D/data/pki/admin.crt --key $D/data/pki/admin.key"
FLOOD="$LOADGEN --port $PORT --token flood-token-0123456789"
GOOD="$LOADGEN --port $PORT --token good-token-0123456789"
ONE=/api/v1/namespaces/bench/configmaps/get-me

start true
$K create namespace bench >/dev/null
$K -n bench create configmap get-me --from-literal=payload="$(head -c 768 /dev/zero | tr '\0' 'x')" >/dev/null
for i in $(seq 1 100); do echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-$i\"},\"data\":{\"k\":\"$(head -c 512 /dev/zero | tr '\0' 'v')\"}}"; done |
  $K -n bench apply -f - >/dev/null
$K -n bench create role read --verb=get,list --resource=configmaps >/dev/null
$K -n bench create rolebinding read --role=read --user=flooder --user=gooduser >/dev/null
stop

if [[ $PARTS == *flood* ]]; then
echo "== flood: $FLOOD_CONNS connections of flooder listing 100 ConfigMaps, 12 seats, ${SECS}s =="
for apf in true false; do
  start "$apf" --max-requests-inflight=8 --max-mutating-requests-inflight=4
  $GOOD --seconds 1 --connections 4 --path $ONE --label warm >/dev/null
  $FLOOD --seconds "$SECS" --connections "$FLOOD_CONNS" --path /api/v1/namespaces/bench/configmaps \
    --label "apf=$apf flooder LIST" >"$D/flood.out" &
  FPID=$!
  sleep 1
  $ADMIN --seconds $((SECS - 2)) --connections 1 --path $ONE --label "apf=$apf exempt GET" &
  APID=$!
  $GOOD --seconds $((SECS - 2)) --connections 1 --path $ONE --label "apf=$apf gooduser GET"
  wait "$APID"
  wait "$FPID"
  cat "$D/flood.out"
  stop
done
fi

[[ $PARTS == *overhead* ]] || exit 0
echo "== idle overhead: gooduser GET of one ConfigMap, ${SECS}s each =="
for round in $(seq 1 "$ROUNDS"); do
  for apf in true false; do
    start "$apf"
    $GOOD --seconds 2 --connections 32 --path $ONE --label warm >/dev/null
    for c in 1 32; do
      $GOOD --seconds "$SECS" --connections $c --path $ONE --label "round $round apf=$apf GET c=$c"
    done
    stop
  done
done
