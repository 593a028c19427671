#!/usr/bin/env bash
# A/B of Capstan binaries in one run (the machine is shared and noisy: compare only within a run).
# Each binary serves the same data dir in turn, twice, and is measured with GET of one 1-KiB ConfigMap
# on 1 and 32 keep-alive HTTPS connections. Not part of `make test`.
#   bench/api/ab.sh [--seconds N] BINARY_A BINARY_B [...]
# Build an A binary from another commit with e.g.:
#   git worktree add /tmp/capstan-a <commit> && cmake -S /tmp/capstan-a -B /tmp/capstan-a/build -G Ninja \
#     -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ && ninja -C /tmp/capstan-a/build capstan
set -euo pipefail
SECS=5
if [ "${1:-}" = "--seconds" ]; then SECS=$2; shift 2; fi
[ $# -ge 2 ] || { echo "usage: $0 [--seconds N] BINARY_A BINARY_B [...]" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")/../.." && pwd)
LOADGEN=${LOADGEN:-$HERE/build/bench/loadgen/loadgen}
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-ab-XXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
CPID=""
cleanup() { [ -n "$CPID" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
start() {
  "$1" --data-dir "$D/data" --secure-port "$PORT" >"$D/log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
}
stop() { kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""; }
K="$KUBECTL --kubeconfig $D/data/admin.kubeconfig"
L="$LOADGEN --port $PORT --cert $D/data/pki/admin.crt --key $D/data/pki/admin.key"
start "$1"
$K create namespace bench >/dev/null
$K -n bench create configmap get-me --from-literal=payload="$(head -c 768 /dev/zero | tr '\0' 'x')" >/dev/null
stop
for round in 1 2; do
  for bin in "$@"; do
    start "$bin"
    $L --seconds 2 --connections 32 --path /api/v1/namespaces/bench/configmaps/get-me --label warm >/dev/null
    for c in 1 32; do
      $L --seconds "$SECS" --connections $c --path /api/v1/namespaces/bench/configmaps/get-me \
        --label "round $round $(basename "$bin") GET c=$c"
    done
    stop
  done
done
