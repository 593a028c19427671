#!/usr/bin/env bash
# Starts Capstan on the embedded store and tells how to reach it with kubectl.
set -euo pipefail
bin=${1:-build/capstan}
data=${2:-./capstan-data}
port=${CAPSTAN_PORT:-6443}
echo "Starting Capstan on https://127.0.0.1:${port} with its data in ${data}"
echo "In another shell:  kubectl --kubeconfig ${data}/admin.kubeconfig get namespaces"
exec "$bin" --data-dir "$data" --secure-port "$port"
