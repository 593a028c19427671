// End-to-end: `capstan migrate` embedded -> etcd -> embedded, with kubectl checking the objects at
// each stop: built-in kinds (kept in kube's protobuf, byte for byte), a Secret, a CRD and its custom
// resource; an occupied target is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "e2e_util.h"
#include "etcd_e2e_helpers.h"

namespace capstan::e2e {
namespace {

namespace fs = std::filesystem;
using namespace etcd_e2e;

CommandResult Migrate(const std::vector<std::string>& args) {
  const char* bin = std::getenv("CAPSTAN_BINARY");
  std::vector<std::string> argv = {bin ? bin : "build/capstan", "migrate"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", std::chrono::seconds(120));
}

class MigrateE2E : public EtcdTest {
 protected:
  MigrateE2E() : EtcdTest("capstan-migrate-e2e") {}
  // The objects the test created, read with kubectl 1.32.
  void ExpectObjects(const ServerProcess& s, bool with_after) {
    auto cm = s.Kubectl({"get", "configmap", "settings", "-n", "mig", "-o", "jsonpath={.data.colour}"});
    EXPECT_EQ(cm.out, "turquoise") << cm.err;
    auto sec = s.Kubectl({"get", "secret", "hidden", "-n", "mig", "-o", "jsonpath={.data.password}"});
    EXPECT_EQ(sec.out, "aHVudGVyMg==") << sec.err;
    auto dep = s.Kubectl({"get", "deployment", "web", "-n", "mig", "-o", "jsonpath={.spec.template.spec.containers[0].image}"});
    EXPECT_EQ(dep.out, "nginx:1.27") << dep.err;
    CommandResult cr = KubectlUntilOk(s, {"get", "widgets", "w", "-n", "mig", "-o", "jsonpath={.spec.size}"});
    EXPECT_EQ(cr.out, "3") << cr.err;
    if (with_after) {
      auto after = s.Kubectl({"get", "configmap", "after", "-n", "mig", "-o", "jsonpath={.data.k}"});
      EXPECT_EQ(after.out, "v") << after.err;
    }
  }
};

TEST_F(MigrateE2E, EmbeddedToEtcdAndBackKeepsEveryObject) {
  const std::string a = dir_ + "/a";
  fs::create_directories(a);
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, a);
  ASSERT_TRUE(server_->ok()) << server_->error();
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "mig"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "settings", "-n", "mig", "--from-literal=colour=turquoise"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "hidden", "-n", "mig", "--from-literal=password=hunter2"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "deployment", "web", "-n", "mig", "--image=nginx:1.27"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"apply", "-f", "-"}, R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}})")
                .exit_code,
            0);
  CommandResult cr = KubectlUntilOk(*server_, {"apply", "-n", "mig", "-f", "-"},
                                    R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}})");
  ASSERT_EQ(cr.exit_code, 0) << cr.err;

  // A running server holds the data dir: the migration waits for it to stop.
  auto busy = Migrate({"--from-data-dir", a, "--to-etcd", etcd_->Endpoints()});
  EXPECT_NE(busy.exit_code, 0);
  EXPECT_NE(busy.err.find("in use"), std::string::npos) << busy.err;
  server_->Stop();
  server_.reset();

  auto out = Migrate({"--from-data-dir", a, "--to-etcd", etcd_->Endpoints()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::printf("[ migrate ] %s", out.out.c_str());
  EXPECT_EQ(out.out.rfind("migrated ", 0), 0u);
  bool ok = true;
  std::string raw = etcd_->Etcdctl({"get", "/registry/configmaps/mig/settings", "--print-value-only"}, &ok);
  EXPECT_EQ(raw.substr(0, 4), std::string("k8s\0", 4));
  // The target holds keys now: a second migration is refused.
  auto again = Migrate({"--from-data-dir", a, "--to-etcd", etcd_->Endpoints()});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already holds"), std::string::npos) << again.err;

  // Capstan on the etcd (the same data dir for its PKI and kubeconfig) serves everything.
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{"--etcd-servers", etcd_->Endpoints()}, a);
  ASSERT_TRUE(server_->ok()) << server_->error();
  ExpectObjects(*server_, false);
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "after", "-n", "mig", "--from-literal=k=v"}).exit_code, 0);
  server_->Stop();
  server_.reset();

  // And back, into a new data dir (one with a store is refused).
  auto occupied = Migrate({"--from-etcd", etcd_->Endpoints(), "--to-data-dir", a});
  EXPECT_NE(occupied.exit_code, 0);
  EXPECT_NE(occupied.err.find("already holds a store"), std::string::npos) << occupied.err;
  const std::string b = dir_ + "/b";
  out = Migrate({"--from-etcd", etcd_->Endpoints(), "--to-data-dir", b});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::printf("[ migrate ] %s", out.out.c_str());
  fs::copy(a + "/pki", b + "/pki", fs::copy_options::recursive);  // the same service-account keys
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{}, b);
  ASSERT_TRUE(server_->ok()) << server_->error();
  ExpectObjects(*server_, true);
}

}  // namespace
}  // namespace capstan::e2e
