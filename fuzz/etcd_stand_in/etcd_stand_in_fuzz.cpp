// Fuzzes cmd::EtcdStandInResponse: any bytes give one well-formed response.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cmd/etcd_stand_in.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view req(reinterpret_cast<const char*>(data), size);
  std::string resp = capstan::cmd::EtcdStandInResponse(req);
  auto head_end = resp.find("\r\n\r\n");
  if (resp.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) std::abort();
  auto cl = resp.find("Content-Length: ");
  if (cl == std::string::npos || cl > head_end) std::abort();
  size_t len = std::stoul(resp.substr(cl + 16));
  if (resp.size() - head_end - 4 != len) std::abort();
  bool ok = resp.rfind("HTTP/1.1 200 OK", 0) == 0;
  bool health = req.rfind("GET /health", 0) == 0 || req.rfind("GET /livez", 0) == 0 || req.rfind("GET /readyz", 0) == 0;
  if (ok && !health) std::abort();
  return 0;
}
