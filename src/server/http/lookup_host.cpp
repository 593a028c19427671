#include "server/http/lookup_host.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>

namespace capstan::http {

namespace {

StatusOr<std::vector<std::string>> LookupNow(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0) {
    std::string why = rc == EAI_NONAME || rc == EAI_NODATA ? "no such host" : ::gai_strerror(rc);
    return Status(400, "BadRequest", "lookup " + host + ": " + why);
  }
  std::vector<std::string> out;
  for (addrinfo* p = res; p; p = p->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    const void* addr = p->ai_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(p->ai_addr)->sin_addr)
                                               : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(p->ai_addr)->sin6_addr);
    if ((p->ai_family != AF_INET && p->ai_family != AF_INET6) || !::inet_ntop(p->ai_family, addr, buf, sizeof buf)) continue;
    if (std::find(out.begin(), out.end(), buf) == out.end()) out.emplace_back(buf);
  }
  ::freeaddrinfo(res);
  return out;
}

}  // namespace

Task<StatusOr<std::vector<std::string>>> LookupHost(std::string host) {
  co_return co_await Await<StatusOr<std::vector<std::string>>>(
      [host = std::move(host)](std::function<void(StatusOr<std::vector<std::string>>)> done) {
        std::thread([host, done = std::move(done)] { done(LookupNow(host)); }).detach();
      });
}

}  // namespace capstan::http
