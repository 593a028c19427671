#!/usr/bin/env bash
# Lays out a KUBEBUILDER_ASSETS folder in which controller-runtime's envtest finds Capstan as its
# kube-apiserver.
#
#   scripts/envtest-assets.sh [--etcd|--embedded] DIR [CAPSTAN]
#
# --embedded (the default): kube-apiserver starts Capstan on its embedded store in envtest's cert dir;
#   the --etcd-servers flag envtest passes is dropped. envtest always starts an `etcd` first and waits for
#   its /health, so DIR/etcd is Capstan's stand-in (`capstan etcd-stand-in`): it answers GET /health on
#   the --listen-client-urls address and nothing else. It is not a key-value store; nothing talks to it.
# --etcd: kube-apiserver is Capstan as given (it stores in the etcd envtest starts) and DIR/etcd is the
#   machine's etcd (Debian's etcd-server, which scripts/install-deps.sh installs).
# CAPSTAN defaults to build/capstan. DIR/kubectl is the machine's kubectl when there is one.
set -euo pipefail
mode=embedded
case "${1:-}" in
  --etcd) mode=etcd; shift ;;
  --embedded) shift ;;
esac
if [ $# -lt 1 ]; then
  echo "usage: $0 [--etcd|--embedded] DIR [CAPSTAN]" >&2
  exit 2
fi
dir=$1
capstan=${2:-build/capstan}
if [ ! -x "$capstan" ]; then
  echo "$0: $capstan is not an executable (make build first)" >&2
  exit 1
fi
capstan=$(cd "$(dirname "$capstan")" && pwd)/$(basename "$capstan")
mkdir -p "$dir"
rm -f "$dir/kube-apiserver" "$dir/etcd" "$dir/kubectl"

if [ "$mode" = etcd ]; then
  etcd_bin=$(command -v etcd || true)
  if [ -z "$etcd_bin" ]; then
    echo "$0: no etcd on PATH (scripts/install-deps.sh installs Debian's etcd-server)" >&2
    exit 1
  fi
  cat >"$dir/kube-apiserver" <<SCRIPT
#!/bin/sh
# Capstan as envtest's kube-apiserver, on the etcd envtest started.
exec "$capstan" "\$@"
SCRIPT
  ln -s "$etcd_bin" "$dir/etcd"
else
  cat >"$dir/kube-apiserver" <<SCRIPT
#!/bin/sh
# Capstan as envtest's kube-apiserver, on its embedded store (in envtest's --cert-dir): the
# --etcd-servers envtest passes names its etcd stand-in, so it is dropped.
for arg do
  shift
  case "\$arg" in
    --etcd-servers=*) ;;
    *) set -- "\$@" "\$arg" ;;
  esac
done
exec "$capstan" "\$@"
SCRIPT
  cat >"$dir/etcd" <<SCRIPT
#!/bin/sh
# Not etcd: Capstan's stand-in that answers envtest's GET /health so that envtest goes on to start
# kube-apiserver (Capstan on its embedded store, which does not use it).
exec "$capstan" etcd-stand-in "\$@"
SCRIPT
fi
chmod 0755 "$dir/kube-apiserver"
[ -L "$dir/etcd" ] || chmod 0755 "$dir/etcd"

kubectl_bin=$(command -v kubectl || ls /usr/lib/google-cloud-sdk/bin/kubectl.1.32 2>/dev/null || true)
if [ -n "$kubectl_bin" ]; then ln -s "$kubectl_bin" "$dir/kubectl"; fi
echo "$dir: kube-apiserver -> $capstan ($mode)"
