// tests/e2e/fake_kubelet_streams.h: the streaming half of the tests' kubelet: exec, attach and
// port-forward over SPDY/3.1, as a kubelet's CRI streaming server answers them (remotecommand v4:
// one SPDY stream per stdin/stdout/stderr/error/resize, the exit status as a metav1.Status on the
// error stream; portforward.k8s.io: a data and an error stream per forwarded connection). WebSocket
// requests are refused with a 400, as a kubelet that speaks only SPDY would.
//
// The "container" runs a few commands: `echo ARGS...` (stdout), `cat` (stdin to stdout until stdin
// ends), `warn TEXT` (stderr), `exit N` (exit code N). attach echoes stdin like cat. Every forwarded
// port is an echo server. Each served request is recorded in `seen` ("METHOD path?query upgrade").
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "server/http/request_context.h"

namespace capstan::e2e {

struct StreamsSeen {
  std::mutex mu;
  std::vector<std::string> requests;
  std::vector<std::string> stream_types;  // streamtype headers of the SPDY streams opened, in order
  std::vector<std::string> resizes;       // resize messages received
  // The container's file system: `tar` and `test` (what kubectl cp runs) act on this folder as if it
  // were "/". Empty: those commands are not found.
  std::string container_root;
};

// Serves /exec/..., /attach/... and /portForward/...; false when the path is none of them.
bool IsStreamingPath(const std::string& path);
Task<void> ServeStreaming(http::RequestContext& ctx, StreamsSeen& seen);

}  // namespace capstan::e2e
