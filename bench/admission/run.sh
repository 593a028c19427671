#!/usr/bin/env bash
# The per-request overhead of auditing at Metadata level (to a log file) and of one validating
# admission webhook round trip, relative to neither, in one run: CREATE of a 1-KiB ConfigMap with
# loadgen, 5 s per phase, phases alternated over two rounds. Two servers run side by side: one
# plain (measured without, then with, a ValidatingWebhookConfiguration for configmaps pointing at
# admit_webhook.py), one with --audit-policy-file (every request at Metadata) and --audit-log-path.
# Usage: bench/admission/run.sh <build dir> [seconds] [connections]   Needs openssl and python3.
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd); SECS=${2:-5}; CONNS=${3:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/capstan-admission-bench-XXXXXX)
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.31}
cd "$DIR"
openssl req -x509 -newkey rsa:2048 -nodes -keyout hook.key -out hook.crt -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
python3 "$HERE/admit_webhook.py" > hook.port 2> hook.err & HOOK=$!
printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' > policy.yaml
"$BUILD/capstan" --data-dir "$DIR/plain" --secure-port 0 > plain.log 2>&1 & PLAIN=$!
"$BUILD/capstan" --data-dir "$DIR/audited" --secure-port 0 --audit-policy-file=policy.yaml \
  --audit-log-path="$DIR/audit.log" > audited.log 2>&1 & AUDITED=$!
trap 'kill $HOOK 2>/dev/null; kill -TERM $PLAIN $AUDITED 2>/dev/null; wait $PLAIN $AUDITED 2>/dev/null; rm -rf "$DIR"' EXIT
for d in plain audited; do
  for i in $(seq 200); do [ -s $d/admin.kubeconfig ] && $KUBECTL --kubeconfig $d/admin.kubeconfig get --raw /readyz >/dev/null 2>&1 && break; sleep 0.1; done
done
for i in $(seq 100); do [ -s hook.port ] && break; sleep 0.1; done
port_of() { grep -o 'server: https://[^ ]*' "$1/admin.kubeconfig" | sed 's/.*://'; }
VALUE=$(head -c 768 /dev/zero | tr '\0' 'x')
webhook() {
  cat <<JSON
{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"bench"},
 "webhooks":[{"name":"bench.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","failurePolicy":"Fail",
  "clientConfig":{"url":"https://127.0.0.1:$(cat hook.port)/validate","caBundle":"$(base64 -w0 hook.crt)"},
  "rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]}]}
JSON
}
phase() {  # phase <label> <data dir>
  local label=$1 d=$2
  echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$label-{n}\"},\"data\":{\"payload\":\"$VALUE\"}}" > body.json
  "$BUILD/bench/loadgen/loadgen" --port "$(port_of "$d")" --cert "$d/pki/admin.crt" --key "$d/pki/admin.key" \
    --connections "$CONNS" --seconds "$SECS" --method POST --path /api/v1/namespaces/default/configmaps \
    --body-file body.json --label "$label" | tail -1
}
for round in 1 2; do
  phase "none-r$round" plain
  phase "audit-metadata-r$round" audited
  webhook | $KUBECTL --kubeconfig plain/admin.kubeconfig apply -f - >/dev/null
  phase "one-validating-webhook-r$round" plain
  $KUBECTL --kubeconfig plain/admin.kubeconfig delete validatingwebhookconfiguration bench >/dev/null
done
echo "audit log lines: $(wc -l < audit.log)"
