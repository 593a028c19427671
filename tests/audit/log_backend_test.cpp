#include "audit/log_backend.h"

#include <gtest/gtest.h>

#include <fstream>

#include "audit_test_util.h"

namespace capstan::audit {
namespace {

using testing::MakeEvent;
using testing::TempDir;

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

TEST(LogBackendTest, WritesOneJsonLinePerEvent) {
  TempDir dir;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  auto b = LogBackend::Open(opts, LogFormat::kJson, nullptr);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE((*b)->ProcessEvents({MakeEvent("a"), MakeEvent("b")}));
  auto lines = Lines(opts.path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"auditID\":\"a\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"auditID\":\"b\""), std::string::npos) << lines[1];
}

TEST(LogBackendTest, LegacyFormatIsKubesOneLineText) {
  TempDir dir;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  auto b = LogBackend::Open(opts, LogFormat::kLegacy, nullptr);
  ASSERT_TRUE(b.ok());
  auto e = std::make_shared<Event>(*MakeEvent("id-1"));
  e->request_received = apimachinery::Timestamp{1700000000, 123456000};
  e->user.name = "alice";
  e->user.groups = {"devs", "system:authenticated"};
  e->source_ips = {"10.0.0.1", "127.0.0.1"};
  e->user_agent = "kubectl/v1.32.0";
  e->request_uri = "/api/v1/namespaces/default/pods?limit=500";
  e->object_ref = ObjectReference{};
  e->object_ref->namespace_ = "default";
  e->response_status = boost::json::object{{"code", 200}};
  EXPECT_TRUE((*b)->ProcessEvents({e}));
  auto lines = Lines(opts.path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "2023-11-14T22:13:20.123456Z AUDIT: id=\"id-1\" stage=\"ResponseComplete\" ip=\"10.0.0.1\" "
            "method=\"get\" user=\"alice\" groups=\"\\\"devs\\\",\\\"system:authenticated\\\"\" as=\"<self>\" "
            "asgroups=\"<lookup>\" user-agent=\"kubectl/v1.32.0\" namespace=\"default\" "
            "uri=\"/api/v1/namespaces/default/pods?limit=500\" response=\"200\"");
}

TEST(LogBackendTest, LegacyFormatPlaceholders) {
  Event e;
  e.request_received = apimachinery::Timestamp{1700000000, 0};
  e.stage = Stage::kRequestReceived;
  e.impersonated_user = UserInfo{"bob", "", {}, {}};
  EXPECT_EQ(EventToLegacyLine(e),
            "2023-11-14T22:13:20Z AUDIT: id=\"\" stage=\"RequestReceived\" ip=\"<unknown>\" method=\"\" "
            "user=\"<none>\" groups=\"<none>\" as=\"bob\" asgroups=\"<lookup>\" user-agent=\"\" "
            "namespace=\"<none>\" uri=\"\" response=\"<deferred>\"\n");
}

TEST(LogBackendTest, AFailedWriteIsCountedAndReported) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  RotatingFileOptions opts;
  opts.path = "/dev/full";
  auto b = LogBackend::Open(opts, LogFormat::kJson, &metrics);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE((*b)->ProcessEvents({MakeEvent("a"), MakeEvent("b")}));
  EXPECT_EQ(metrics.errors.Find({"log"})->Value(), 2.0);
}

}  // namespace
}  // namespace capstan::audit
