#!/usr/bin/env bash
# Capstan's memory, attributed: starts the server on a fresh data dir (optionally with N 1-KiB
# ConfigMaps), waits for /readyz and a quiet second, then prints the resident set by mapping and,
# when gperftools' tcmalloc is installed (libgoogle-perftools4), the live heap by component from a
# second run under its heap profiler. Not part of `make test`.
#   bench/memory/run.sh [build-dir] [configmaps]
set -euo pipefail
B=${1:-build}
N=${2:-0}
CAPSTAN=$B/capstan
HERE=$(cd "$(dirname "$0")" && pwd)
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$KUBECTL" ] || KUBECTL=kubectl
TCMALLOC=/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4
D=$(mktemp -d /tmp/capstan-memory-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

start() {  # start <data-dir> [env...]
  local dir=$1; shift
  PORT=$(free_port)
  env "$@" "$CAPSTAN" --data-dir "$dir" --secure-port "$PORT" >"$dir.log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
}
load() {
  [ "$N" -gt 0 ] || return 0
  local value
  value=$(head -c 1024 /dev/zero | tr '\0' x)
  for i in $(seq 1 "$N"); do
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: default\ndata:\n  v: "%s"\n---\n' "$i" "$value"
  done | "$KUBECTL" --kubeconfig "$1/admin.kubeconfig" create -f - >/dev/null
}

start "$D/a"
load "$D/a"
sleep 2
echo "== $N ConfigMaps, $(ls /proc/$CPID/task | wc -l) threads"
python3 "$HERE/breakdown.py" smaps "$CPID" "$CAPSTAN"
kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""

if [ -e "$TCMALLOC" ]; then
  # The same state under tcmalloc's heap profiler (its own allocator, so the totals differ a little).
  start "$D/b" LD_PRELOAD="$TCMALLOC" HEAPPROFILE="$D/prof" HEAPPROFILESIGNAL=12 \
    HEAP_PROFILE_ALLOCATION_INTERVAL=0 HEAP_PROFILE_INUSE_INTERVAL=0
  load "$D/b"
  sleep 2
  before=$(find "$D" -name "prof.*.heap" | wc -l)
  kill -USR2 "$CPID"  # tcmalloc writes a profile now
  until [ "$(find "$D" -name "prof.*.heap" | wc -l)" -gt "$before" ]; do sleep 0.1; done
  sleep 0.5
  PROFILE=$(ls "$D"/prof.*.heap | sort | tail -1)
  cp "$PROFILE" "$D/idle.heap"
  kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""
  PROFILE="$D/idle.heap"
  python3 "$HERE/breakdown.py" heap "$PROFILE" "$CAPSTAN"
else
  echo "(install libgoogle-perftools4 for the heap by component)"
fi
