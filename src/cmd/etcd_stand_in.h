// cmd/etcd_stand_in.h: `capstan etcd-stand-in`, what controller-runtime's envtest starts as its `etcd`
// when Capstan runs on its embedded store (scripts/envtest-assets.sh lays that out).
//
// envtest always starts etcd first, waits until GET <listen-client-url>/health answers 200, then starts
// kube-apiserver with --etcd-servers pointing at it. Capstan on its embedded store needs no etcd, so this
// stand-in only answers that probe: it listens on each http:// URL of --listen-client-urls and answers
// GET /health (and /livez, /readyz) with etcd's {"health":"true","reason":""}; everything else is 404.
// It is not a key-value store and speaks no gRPC. --help prints its usage; other etcd flags are accepted
// and ignored. It exits 0 on SIGTERM or SIGINT.
//
// Thread-safety: RunEtcdStandIn owns the process's signals while it runs; one thread per listener.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace capstan::cmd {

// The whole HTTP/1.1 response to one request (its head, as read from the connection).
std::string EtcdStandInResponse(std::string_view request);

// `args` are the arguments after "etcd-stand-in". Returns the process exit code.
int RunEtcdStandIn(const std::vector<std::string>& args);

}  // namespace capstan::cmd
