#include "storage/etcd3/endpoint_pool.h"

#include <gtest/gtest.h>

#include "storage/etcd3/etcd3_client.h"

namespace capstan::storage::etcd3 {
namespace {

TEST(ParseEndpoint, SchemesPortsAndTls) {
  auto p = ParseEndpoint("http://127.0.0.1:2379", false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->target, "127.0.0.1:2379");
  EXPECT_FALSE(p->tls);
  p = ParseEndpoint("https://etcd-0.example.com:2379/", false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->target, "etcd-0.example.com:2379");
  EXPECT_TRUE(p->tls);
  p = ParseEndpoint("https://etcd-0", false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->target, "etcd-0:2379");
  p = ParseEndpoint("[::1]:4001", false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->target, "[::1]:4001");
  EXPECT_FALSE(p->tls);
  p = ParseEndpoint("10.0.0.1:2379", true);  // bare: TLS when TLS files are given
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->tls);
  p = ParseEndpoint("unix:///var/run/etcd.sock", false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->target, "unix:/var/run/etcd.sock");
}

TEST(ParseEndpoint, RejectsWhatIsNotAnEndpoint) {
  for (const char* bad : {"ftp://x:1", "http://", "http://host:1/path", "unix://", ""}) {
    auto p = ParseEndpoint(bad, false);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_TRUE(p.status().IsStorage(StorageCode::kInvalidArgument)) << bad;
    EXPECT_NE(p.status().message().find("invalid etcd endpoint"), std::string::npos) << p.status().message();
  }
}

TEST(EndpointPool, TlsFilesAreReadAtCreateWithClearErrors) {
  EtcdOptions o;
  o.endpoints = {"https://127.0.0.1:1"};
  o.ca_file = "/nonexistent/ca.crt";
  auto pool = EndpointPool::Create(o);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().message(), "cannot read --etcd-cafile /nonexistent/ca.crt");
  o.ca_file.clear();
  o.cert_file = "/x.crt";
  pool = EndpointPool::Create(o);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().message(), "--etcd-certfile and --etcd-keyfile must be given together");
  o.cert_file.clear();
  o.endpoints.clear();
  EXPECT_FALSE(EndpointPool::Create(o).ok());
}

TEST(EtcdVersion, OnDemandProgressIsReliableFrom3431And3513) {
  EXPECT_FALSE(ReliableProgressVersion("3.4.23"));
  EXPECT_FALSE(ReliableProgressVersion("3.4.30"));
  EXPECT_TRUE(ReliableProgressVersion("3.4.31"));
  EXPECT_FALSE(ReliableProgressVersion("3.5.0"));
  EXPECT_FALSE(ReliableProgressVersion("3.5.12"));
  EXPECT_TRUE(ReliableProgressVersion("3.5.13"));
  EXPECT_TRUE(ReliableProgressVersion("3.6.0"));
  EXPECT_FALSE(ReliableProgressVersion(""));
  EXPECT_FALSE(ReliableProgressVersion("garbage"));
}

}  // namespace
}  // namespace capstan::storage::etcd3
