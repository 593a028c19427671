#include "cmd/etcd_stand_in.h"

#include <gtest/gtest.h>

namespace capstan::cmd {
namespace {

TEST(EtcdStandInTest, AnswersEnvtestsHealthProbeAsEtcdDoes) {
  EXPECT_EQ(EtcdStandInResponse("GET /health HTTP/1.1\r\nHost: 127.0.0.1:2379\r\nUser-Agent: Go-http-client/1.1\r\n\r\n"),
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 29\r\nConnection: close\r\n\r\n"
            "{\"health\":\"true\",\"reason\":\"\"}");
  EXPECT_EQ(EtcdStandInResponse("GET /readyz?verbose HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
}

TEST(EtcdStandInTest, EverythingElseIsNotFound) {
  for (const char* req : {"GET /v3/kv/range HTTP/1.1\r\n\r\n", "POST /health HTTP/1.1\r\n\r\n", "GET /healthz HTTP/1.1\r\n\r\n",
                          "", "garbage"}) {
    std::string resp = EtcdStandInResponse(req);
    EXPECT_EQ(resp.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u) << req;
    EXPECT_NE(resp.find("\r\n\r\n404 page not found\n"), std::string::npos) << req;
  }
}

}  // namespace
}  // namespace capstan::cmd
