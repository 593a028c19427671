#!/usr/bin/env bash
# Create throughput of a custom resource whose CRD has 10 x-kubernetes-validations rules, against the
# same CRD without rules, in one run of one server (loadgen POSTs with a unique name per request).
# Usage: bench/cel/create_throughput.sh <build dir> [seconds] [connections]   (one loadgen line per case)
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd); SECS=${2:-5}; CONNS=${3:-8}
DIR=$(mktemp -d /tmp/capstan-cel-bench-XXXXXX)
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}
cd "$DIR"
"$BUILD/capstan" --data-dir "$DIR/data" --secure-port 0 > capstan.log 2>&1 & SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for i in $(seq 600); do [ -s data/admin.kubeconfig ] && break; sleep 0.1; done
K="$KUBECTL --kubeconfig data/admin.kubeconfig"
for i in $(seq 600); do $K get --raw /readyz >/dev/null 2>&1 && break; sleep 0.1; done
[ -s data/admin.kubeconfig ] || { echo "server did not start:"; tail -20 capstan.log; exit 1; }
PORT=$(grep -o 'server: https://[^ ]*' data/admin.kubeconfig | sed 's/.*://')
RULES='[{"rule":"self.minReplicas <= self.maxReplicas"},{"rule":"self.name.startsWith(\"app-\")"},
  {"rule":"self.name.matches(\"^[a-z][-a-z0-9]*$\")"},{"rule":"self.ports.all(p, p > 0 && p < 65536)"},
  {"rule":"size(self.tags) <= 16"},{"rule":"self.tags.exists(t, t == \"prod\") || self.env != \"prod\""},
  {"rule":"!has(self.image) || self.image.contains(\":\")"},{"rule":"self.env in [\"dev\", \"staging\", \"prod\"]"},
  {"rule":"self.ports.filter(p, p < 1024).size() <= 2"},{"rule":"int(self.maxReplicas) * 2 > self.minReplicas"}]'
crd() {  # crd <plural> <kind> <rules json or empty>
  local extra=""; [ -n "$3" ] && extra=",\"x-kubernetes-validations\":$3"
  cat <<JSON
{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"$1.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"$1","kind":"$2"},
  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object"$extra,"properties":{"minReplicas":{"type":"integer"},"maxReplicas":{"type":"integer"},
    "name":{"type":"string","maxLength":63},"ports":{"type":"array","maxItems":16,"items":{"type":"integer"}},
    "tags":{"type":"array","maxItems":16,"items":{"type":"string","maxLength":32}},"env":{"type":"string","maxLength":16},
    "image":{"type":"string","maxLength":256}}}}}}}]}}
JSON
}
crd plainapps PlainApp "" | $K apply -f - >/dev/null
crd ruledapps RuledApp "$RULES" | $K apply -f - >/dev/null
$K wait --for=condition=Established --timeout=20s crd/plainapps.example.com crd/ruledapps.example.com >/dev/null
for kind in PlainApp:plainapps RuledApp:ruledapps; do
  k=${kind%%:*}; plural=${kind##*:}
  printf '{"apiVersion":"example.com/v1","kind":"%s","metadata":{"name":"a-{n}"},"spec":{"minReplicas":1,"maxReplicas":3,"name":"app-web","ports":[80,443,8080],"tags":["prod","web"],"env":"prod","image":"nginx:1.27"}}' "$k" > body-$plural.json
  "$BUILD/bench/loadgen/loadgen" --port "$PORT" --cert data/pki/admin.crt --key data/pki/admin.key --connections "$CONNS" \
    --seconds "$SECS" --method POST --path /apis/example.com/v1/namespaces/default/$plural --body-file body-$plural.json \
    --content-type application/json --label "create-$plural-${CONNS}conn" | tail -1
done
