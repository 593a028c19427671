#!/usr/bin/env bash
# Encryption at rest cost, in one run: Secret creates per second on the embedded store with secrets
# stored as they are (identity), with aesgcm, and with KMS v2 (the test KMS plugin,
# tests/storage/transformers/kms/test_kms_plugin, on a unix socket: the KDF seed is made once at
# start, so a create costs one HKDF and one AES-GCM and no plugin call; DEK cache warm), 32 keep-alive
# HTTPS connections for N seconds each, a fresh server per provider (only the ttl controller). Then
# GETs of one Secret (decrypted on each read from the store). Not part of `make test`.
#   bench/encryption/run.sh [build-dir] [seconds]
set -euo pipefail
B=${1:-build}
SECS=${2:-10}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
PLUGIN=$B/tests/storage/transformers/kms/test_kms_plugin
D=$(mktemp -d /tmp/capstan-bench-enc-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() {
  [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true
  [ -n "${KPID:-}" ] && kill "$KPID" 2>/dev/null || true
  rm -rf "$D"
}
trap cleanup EXIT
CPID="" KPID=""

echo key-1 > "$D/key-id"
"$PLUGIN" "$D/kms.sock" "$D/key-id" 2>/dev/null &
KPID=$!
KEY=$(head -c 32 /dev/urandom | base64)
provider() {
  case $1 in
    identity) echo "  - identity: {}" ;;
    aesgcm) printf '  - aesgcm:\n      keys:\n      - name: k1\n        secret: %s\n' "$KEY" ;;
    kmsv2) printf '  - kms:\n      apiVersion: v2\n      name: bench\n      endpoint: unix://%s/kms.sock\n' "$D" ;;
  esac
}
echo '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s-{n}"},"type":"Opaque","data":{"password":"aHVudGVyMg==","token":"ZXlKaGJHY2lPaUpTVXpJMU5pSXNJbXRwWkNJNklpSjkuZXlKcGMzTWlPaUpyZFdKbGNtNWxkR1Z6TDNObGNuWnBZMlZoWTJOdmRXNTBJbjA="}}' > "$D/secret.json"

for p in identity aesgcm kmsv2; do
  DATA=$D/data-$p
  printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n%s\n' "$(provider $p)" > "$D/enc-$p.yaml"
  PORT=$(free_port)
  "$CAPSTAN" --data-dir "$DATA" --secure-port "$PORT" --controllers ttl-controller \
    --encryption-provider-config "$D/enc-$p.yaml" >"$D/log" 2>&1 &
  CPID=$!
  until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
  CERT=$DATA/pki/admin.crt KEY_FILE=$DATA/pki/admin.key
  sleep 1
  echo "== secrets: $p"
  "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY_FILE" --seconds "$SECS" --connections 32 --method POST \
    --path /api/v1/namespaces/default/secrets --body-file "$D/secret.json" --label "CREATE secret"
  "$LOADGEN" --port "$PORT" --cert "$CERT" --key "$KEY_FILE" --seconds "$SECS" --connections 32 \
    --path /api/v1/namespaces/default/secrets/s-1 --label "GET secret"
  kill "$CPID"; wait "$CPID" 2>/dev/null || true; CPID=""
done
