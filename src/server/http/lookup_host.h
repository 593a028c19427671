// server/http/lookup_host.h: a host name's addresses from the system resolver (getaddrinfo, as Go's
// net.DefaultResolver.LookupIPAddr uses on Linux), without blocking the caller's thread: the lookup
// runs on a thread of its own and the awaiting coroutine resumes on its executor. Errors read as Go's
// DNSError: "lookup <host>: no such host", else "lookup <host>: <reason>".
#pragma once

#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "util/task.h"

namespace capstan::http {

// Every address of `host` (IPv4 and IPv6, as text, duplicates removed), in the resolver's order.
Task<StatusOr<std::vector<std::string>>> LookupHost(std::string host);

}  // namespace capstan::http
