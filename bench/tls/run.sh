#!/usr/bin/env bash
# The cost of a full TLS handshake on the secure port, per protocol version, in one run: one
# `openssl s_time -new` client per version (a new session each time, no resumption) for SECS seconds
# against the generated ECDSA P-256 serving certificate, then an RSA 2048 one (--tls-cert-file).
# Prints handshakes/s (one client, so this is latency-bound) and the server's CPU time per handshake,
# read from /proc before and after. The certificate callback (SNI choice, client CA names) is in it.
#   bench/tls/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-5}
CAPSTAN=$B/capstan
D=$(mktemp -d /tmp/capstan-tlsbench-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$CPID/stat"; }
start_server() {  # $1: data dir name, then extra flags
  local dir=$1; shift
  "$CAPSTAN" --data-dir "$D/$dir" --secure-port "$PORT" "$@" >"$D/capstan-$dir.log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
}
stop_server() { kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""; }
measure() {  # $1: label
  local hz; hz=$(getconf CLK_TCK)
  for v in -tls1_2 -tls1_3; do
    local before after n t0 t1
    before=$(cpu_ticks)
    t0=$(date +%s.%N)
    n=$(openssl s_time -connect "127.0.0.1:$PORT" -new -time "$SECS" "$v" 2>/dev/null | awk '/connections in [0-9]+ real seconds/ {print $1}')
    t1=$(date +%s.%N)
    after=$(cpu_ticks)
    awk -v l="$1" -v v="$v" -v n="$n" -v t="$((after - before))" -v hz="$hz" -v s="$(echo "$t1 - $t0" | bc)" \
      'BEGIN { printf "%-12s %-8s %6d handshakes  %7.1f/s  server CPU %.2f ms/handshake\n", l, v, n, n / s, t * 1000 / hz / n }'
  done
}

start_server ecdsa
measure "ECDSA P-256"
stop_server
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=bench -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$D/rsa.key" -out "$D/rsa.crt" 2>/dev/null
start_server rsa --tls-cert-file "$D/rsa.crt" --tls-private-key-file "$D/rsa.key"
measure "RSA 2048"
stop_server
