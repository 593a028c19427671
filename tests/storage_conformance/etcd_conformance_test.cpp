// The Backend conformance suite against a real etcd: one single-member etcd (the machine's etcd-server)
// on free loopback ports with a temp data dir, started on first use and shared by every test of this
// binary (so the suite runs in `shared` mode: each test has its own key prefix).
#include <cstdlib>
#include <filesystem>

#include "storage/etcd3/etcd3_backend.h"
#include "storage/etcd3/etcd_test_cluster.h"
#include "storage_conformance/backend_conformance.h"

namespace capstan::storage::conformance {
namespace {

std::unique_ptr<capstan::testing::EtcdCluster>& Cluster() {
  static std::unique_ptr<capstan::testing::EtcdCluster> cluster;
  return cluster;
}

std::string& ClusterDir() {
  static std::string dir;
  return dir;
}

class EtcdEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    Cluster().reset();
    if (!ClusterDir().empty()) {
      std::error_code ec;
      std::filesystem::remove_all(ClusterDir(), ec);
    }
  }
};

[[maybe_unused]] ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new EtcdEnvironment);

StatusOr<std::unique_ptr<Backend>> OpenEtcd(const std::string&) {
  if (!Cluster()) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string base = tmp ? tmp : std::filesystem::temp_directory_path().string();
    std::string tmpl = base + "/capstan-etcd-conformance-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) return Status::Storage(StorageCode::kInternal, "mkdtemp failed");
    ClusterDir() = buf.data();
    capstan::testing::EtcdClusterOptions o;
    o.dir = ClusterDir();
    std::string error;
    Cluster() = capstan::testing::EtcdCluster::Start(o, &error);
    if (!Cluster()) return Status::Storage(StorageCode::kUnavailable, "cannot start etcd: " + error);
  }
  etcd3::EtcdOptions o;
  o.endpoints = Cluster()->ClientUrls();
  auto b = etcd3::OpenEtcd3Backend(o);
  if (!b.ok()) return b.TakeStatus();
  Status st = (*b)->WaitForConnected(std::chrono::seconds(20));
  if (!st.ok()) return st;
  return std::unique_ptr<Backend>(std::move(*b));
}

BackendFactory EtcdFactory() {
  BackendFactory f;
  f.name = "Etcd3";
  f.open = OpenEtcd;
  f.shared = true;
  f.can_restart = true;  // a new client on the same cluster sees the same data
  f.lease_ttl = 2;       // etcd's minimum TTL with the default election timeout
  return f;
}

INSTANTIATE_TEST_SUITE_P(Etcd3, BackendConformance, ::testing::Values(EtcdFactory()), BackendFactoryName);

}  // namespace
}  // namespace capstan::storage::conformance
