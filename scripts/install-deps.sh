#!/usr/bin/env bash
# Installs the Debian packages Capstan's build and tests need. Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  build-essential clang lld cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libssl-dev zlib1g-dev liblmdb-dev libnghttp2-dev libyaml-cpp-dev libyaml-dev libre2-dev libfmt-dev libspdlog-dev libcli11-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libgtest-dev libgmock-dev libbenchmark-dev libclang-rt-14-dev
  etcd-server etcd-client curl openssl
  libgoogle-perftools4 prometheus
  python3-venv
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# kubectl: the machine's own (several versions under /usr/lib/google-cloud-sdk/bin), else Debian's.
if ! command -v kubectl >/dev/null 2>&1 && ! ls /usr/lib/google-cloud-sdk/bin/kubectl.1.* >/dev/null 2>&1; then
  missing+=(kubernetes-client)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# Debian starts etcd (and prometheus, whose promtool the metrics tests use) as services when they
# are installed; Capstan's tests start their own etcd and need no Prometheus server.
if command -v systemctl >/dev/null 2>&1; then
  $SUDO systemctl disable --now etcd >/dev/null 2>&1 || true
  $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
