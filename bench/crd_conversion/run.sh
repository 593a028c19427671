#!/usr/bin/env bash
# The conversion round-trip overhead of a CRD with conversion strategy Webhook: GET of a custom
# resource through its storage version (v1) against GET through v2, which converts the stored object
# through the webhook (webhook.py, a self-signed certificate trusted through caBundle).
# Usage: bench/crd_conversion/run.sh <build dir> [seconds]   (prints one loadgen line per run)
set -euo pipefail
BUILD=${1:?build dir}; SECS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/capstan-crd-conversion-XXXXXX)
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.31}
cd "$DIR"
openssl req -x509 -newkey rsa:2048 -nodes -keyout hook.key -out hook.crt -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
python3 "$HERE/webhook.py" > hook.port 2> hook.err & HOOK=$!
"$BUILD/capstan" --data-dir "$DIR/data" --secure-port 0 > capstan.log 2>&1 & SERVER=$!
trap 'kill $HOOK 2>/dev/null; kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for i in $(seq 100); do [ -s hook.port ] && [ -s data/admin.kubeconfig ] && break; sleep 0.1; done
K="$KUBECTL --kubeconfig data/admin.kubeconfig"
for i in $(seq 100); do $K get --raw /readyz >/dev/null 2>&1 && break; sleep 0.1; done
PORT=$(grep -o 'server: https://[^ ]*' data/admin.kubeconfig | sed 's/.*://')
cat > crd.json <<JSON
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"books.library.example.com"},
 "spec":{"group":"library.example.com","scope":"Namespaced","names":{"plural":"books","kind":"Book"},
  "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
    "clientConfig":{"url":"https://127.0.0.1:$(cat hook.port)/convert","caBundle":"$(base64 -w0 hook.crt)"}}},
  "versions":[
   {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
     "properties":{"name":{"type":"string"},"pages":{"type":"integer"}}}}}}},
   {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
     "properties":{"title":{"type":"string"},"pages":{"type":"integer"}}}}}}}]}}
JSON
$K apply -f crd.json >/dev/null
$K wait --for=condition=Established --timeout=10s crd/books.library.example.com >/dev/null
echo '{"apiVersion":"library.example.com/v2","kind":"Book","metadata":{"name":"dune","namespace":"default"},"spec":{"title":"Dune","pages":412}}' |
  $K apply -f - >/dev/null
for conns in 1 8; do
  for v in v1 v2; do
    "$BUILD/bench/loadgen/loadgen" --port "$PORT" --cert data/pki/admin.crt --key data/pki/admin.key --connections $conns \
      --seconds "$SECS" --method GET --path /apis/library.example.com/$v/namespaces/default/books/dune --label "get-$v-${conns}conn" | tail -1
  done
done
