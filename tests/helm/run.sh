#!/usr/bin/env bash
# Helm 4 (helm.sh/helm/v4, built from the Go module proxy into BUILD_DIR/helm-bin on first run)
# against the real Capstan on a fresh embedded store: a chart made by `helm create` is installed,
# upgraded, rolled back, tested for its release history and uninstalled; every step is checked with
# kubectl 1.32. Exits non-zero at the first check that fails.
#
#   tests/helm/run.sh [BUILD_DIR]    (part of `make conformance`; needs go on PATH)
set -euo pipefail
build=${1:-build}
build=$(cd "$build" && pwd)
helm_version=v4.3.2
helm="$build/helm-bin/helm"
# `go install` sets no version into the binary: a marker file says which one was built.
if [ ! -x "$helm" ] || [ "$(cat "$build/helm-bin/.version" 2>/dev/null)" != "${helm_version}" ]; then
  echo "helm-check: building helm ${helm_version} from the Go module proxy"
  GOBIN="$build/helm-bin" go install "helm.sh/helm/v4/cmd/helm@${helm_version}"
  echo "${helm_version}" >"$build/helm-bin/.version"
fi
kubectl=/usr/lib/google-cloud-sdk/bin/kubectl.1.32
[ -x "$kubectl" ] || kubectl=$(command -v kubectl)

work=$(mktemp -d /tmp/capstan-helm-XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "helm-check: FAIL: $*" >&2
  echo "--- capstan log (last lines)" >&2
  tail -n 40 "$work/capstan.log" >&2 || true
  exit 1
}

"$build/capstan" --data-dir "$work/data" --secure-port 0 >"$work/capstan.log" 2>&1 &
pid=$!
export KUBECONFIG="$work/data/admin.kubeconfig"
for _ in $(seq 1 300); do
  if [ -f "$KUBECONFIG" ] && "$kubectl" get --raw /readyz >/dev/null 2>&1; then break; fi
  sleep 0.1
done
"$kubectl" get --raw /readyz >/dev/null || fail "capstan did not become ready"
export HELM_CACHE_HOME="$work/helm-cache" HELM_CONFIG_HOME="$work/helm-config" HELM_DATA_HOME="$work/helm-data"

cd "$work"
"$helm" create demo >/dev/null
# No image is pulled: nothing runs the pods. The chart's own test pod is left out (no kubelet).
rm -rf demo/templates/tests

"$helm" install web ./demo --namespace apps --create-namespace >"$work/install.out" || fail "helm install: $(cat "$work/install.out")"
grep -q "STATUS: deployed" "$work/install.out" || fail "install did not report deployed: $(cat "$work/install.out")"
[ "$("$kubectl" -n apps get deployment web-demo -o jsonpath='{.spec.replicas}')" = 1 ] || fail "deployment web-demo with 1 replica"
"$kubectl" -n apps get service/web-demo serviceaccount/web-demo >/dev/null || fail "service and service account of the chart"
# Helm 4 applies server-side: the fields belong to its field manager.
"$kubectl" -n apps get deployment web-demo -o jsonpath='{.metadata.managedFields[*].manager}' | grep -q helm ||
  fail "managedFields name helm: $("$kubectl" -n apps get deployment web-demo -o jsonpath='{.metadata.managedFields[*].manager}')"
# The release is a Secret of type helm.sh/release.v1.
[ "$("$kubectl" -n apps get secret sh.helm.release.v1.web.v1 -o jsonpath='{.type}')" = helm.sh/release.v1 ] || fail "release secret v1"

"$helm" upgrade web ./demo --namespace apps --set replicaCount=3 >"$work/upgrade.out" || fail "helm upgrade: $(cat "$work/upgrade.out")"
[ "$("$kubectl" -n apps get deployment web-demo -o jsonpath='{.spec.replicas}')" = 3 ] || fail "upgrade to 3 replicas"
"$helm" history web --namespace apps -o json >"$work/history.json" || fail "helm history"
python3 - "$work/history.json" <<'PY' || fail "history: $(cat "$work/history.json")"
import json, sys
h = json.load(open(sys.argv[1]))
assert [r["revision"] for r in h] == [1, 2], h
assert [r["status"] for r in h] == ["superseded", "deployed"], h
PY

"$helm" rollback web 1 --namespace apps >/dev/null || fail "helm rollback"
[ "$("$kubectl" -n apps get deployment web-demo -o jsonpath='{.spec.replicas}')" = 1 ] || fail "rollback to 1 replica"
"$helm" list --namespace apps -o json | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[0]["revision"]=="3" and r[0]["status"]=="deployed", r' ||
  fail "helm list after rollback"
"$helm" get values web --namespace apps --all -o json | python3 -c 'import json,sys; v=json.load(sys.stdin); assert v["replicaCount"]==1, v' ||
  fail "helm get values"

"$helm" uninstall web --namespace apps >/dev/null || fail "helm uninstall"
for _ in $(seq 1 100); do
  if ! "$kubectl" -n apps get deployment web-demo >/dev/null 2>&1; then break; fi
  sleep 0.1
done
"$kubectl" -n apps get deployment web-demo >/dev/null 2>&1 && fail "deployment still there after uninstall"
[ -z "$("$kubectl" -n apps get secrets -l owner=helm -o name)" ] || fail "release secrets left after uninstall"
echo "helm-check: ok (helm ${helm_version}: create, install, upgrade, history, rollback, list, get values, uninstall)"
