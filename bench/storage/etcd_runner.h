// bench/storage/etcd_runner.h: starts a throwaway etcd on free loopback ports and measures its put
// throughput through the v3 JSON gateway (POST /v3/kv/put) with wrk, for the comparison figures.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace capstan::bench {

struct WrkResult {
  double requests_per_second = 0;
  long non_2xx = 0;
  long socket_errors = 0;
  std::string raw;
};

class EtcdRunner {
 public:
  // Starts `etcd_path` with its data in `dir`; waits until /health answers. Empty error on success.
  std::string Start(const std::string& etcd_path, const std::string& dir);
  ~EtcdRunner();
  // Runs wrk with `connections` concurrent connections for `seconds`, each request a put of a
  // value_size-byte value to one of 1000 keys per connection pattern.
  std::optional<WrkResult> PutThroughput(const std::string& wrk_path, int connections, int seconds, size_t value_size);
  int client_port() const { return client_port_; }

 private:
  pid_t pid_ = -1;
  int client_port_ = 0;
  std::string dir_;
};

}  // namespace capstan::bench
