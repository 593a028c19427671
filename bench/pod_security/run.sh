#!/usr/bin/env bash
# PodSecurity's overhead per pod create, end to end: POST of one pod at a time (1 keep-alive HTTPS
# connection) into a namespace without labels (privileged: PodSecurity only reads the namespace) and
# into one labelled enforce=baseline (every baseline check runs), alternating A/B/A/B in one server
# run. Not part of `make test`.
#   bench/pod_security/run.sh [build-dir] [seconds-per-round] [rounds]
set -euo pipefail
B=${1:-build}
SECS=${2:-5}
ROUNDS=${3:-3}
LOADGEN=$B/bench/loadgen/loadgen
CAPSTAN=$B/capstan
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.31
[ -x "$KUBECTL" ] || KUBECTL=kubectl
D=$(mktemp -d /tmp/capstan-psa-bench-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
cleanup() { [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
"$CAPSTAN" --data-dir "$D/data" --secure-port "$PORT" >"$D/capstan.log" 2>&1 &
CPID=$!
until curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/readyz" 2>/dev/null | grep -q 200; do sleep 0.05; done
K="$KUBECTL --kubeconfig $D/data/admin.kubeconfig"
$K create namespace psa-none >/dev/null
$K create namespace psa-baseline >/dev/null
$K label namespace psa-baseline pod-security.kubernetes.io/enforce=baseline >/dev/null
for ns in psa-none psa-baseline; do
  until $K -n $ns get serviceaccount default >/dev/null 2>&1; do sleep 0.1; done
done
run() {  # a body of its own per round: loadgen's {n} starts at 0 in every run
  echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-$3-{n}\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}" > "$D/pod-$3.json"
  "$LOADGEN" --port "$PORT" --cert "$D/data/pki/admin.crt" --key "$D/data/pki/admin.key" --seconds "$SECS" \
    --connections 1 --method POST --path "/api/v1/namespaces/$1/pods" --body-file "$D/pod-$3.json" --label "$2"
}
for r in $(seq 1 "$ROUNDS"); do
  run psa-none "round $r: CREATE pod, namespace without labels (privileged)" "$r"
  run psa-baseline "round $r: CREATE pod, namespace enforce=baseline" "$r"
done
