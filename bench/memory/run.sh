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
load() {  # N ConfigMaps of 1 KiB, eight creates at a time
  [ "$N" -gt 0 ] || return 0
  export BODY_HEAD='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-'
  export BODY_TAIL='"},"data":{"v":"'$(head -c 1024 /dev/zero | tr '\0' x)'"}}'
  export CERT="$1/pki/admin.crt" KEY="$1/pki/admin.key" URL="https://127.0.0.1:$PORT/api/v1/namespaces/default/configmaps"
  seq 1 "$N" | xargs -P 8 -n 1 sh -c \
    'curl -sk -o /dev/null --cert "$CERT" --key "$KEY" -H "Content-Type: application/json" -d "$BODY_HEAD$1$BODY_TAIL" "$URL"' _
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
