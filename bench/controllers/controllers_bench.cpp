// controllers_bench: figures for the control loops, in process over the real registry and the
// embedded store on disk (a temp dir; every write is a durable group commit), as `capstan` runs them.
//
//   namespace deletion: a namespace holding N objects (ConfigMaps and Secrets, half each) is deleted;
//     the time from the DELETE to the namespace being gone (NotFound).
//   garbage collection: an owner ConfigMap with M dependents (ConfigMaps) is deleted in the
//     background; the time from the DELETE until the last dependent is gone. Then the same with
//     --cascade=foreground (blocking dependents): until the owner itself is gone.
//
// Usage: controllers_bench [--objects N] [--dependents M] [--dir DIR]
// Not part of `make test`.
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "api/coordination/coordination.h"
#include "api/core/core.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/concurrent.h"
#include "controllers/controller_manager.h"
#include "endpoints/installer.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::controllers {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

const Gvr kNamespaces{"", "v1", "namespaces"};
const Gvr kConfigMaps{"", "v1", "configmaps"};
const Gvr kSecrets{"", "v1", "secrets"};

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Creates objects with up to 64 writes in flight (they share the store's group commits).
Task<int> CreateMany(ApiClient& client, RunScope& scope, const Gvr& r, std::string ns, int n,
                     std::function<Object(int)> make) {
  int failed = 0;
  co_await ForEachConcurrently(scope, n, 64, [&](size_t i) -> Task<void> {
    auto c = co_await client.Create(r, ns, make(static_cast<int>(i)));
    if (!c.ok() && failed++ == 0) std::fprintf(stderr, "create failed: %s\n", c.status().message().c_str());
  });
  co_return failed;
}

bool WaitFor(const std::function<bool()>& cond, std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

int Main(int argc, char** argv) {
  int objects = 5000, dependents = 1000;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--objects")) objects = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dependents")) dependents = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  bool own_dir = dir.empty();
  if (own_dir) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-ctrl-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return 1;
    dir = tmpl;
  }
  storage::EmbeddedOptions eo;
  eo.dir = dir + "/store";
  auto backend = storage::OpenEmbeddedBackend(eo);
  if (!backend.ok()) {
    std::fprintf(stderr, "open: %s\n", backend.status().message().c_str());
    return 1;
  }
  storage::BackendObjectStore objects_store(**backend);
  endpoints::ApiRegistry apis;
  registry::GroupDeps deps;
  deps.store = &objects_store;
  endpoints::InstallResources(apis, api::core::Install(deps));
  endpoints::InstallResources(apis, api::coordination::Install(deps));
  ApiClient client(apis, ControllerManagerUser());
  auto ensure_ns = [&](const std::string& name) {
    Object ns = json::parse(R"({"metadata":{"name":")" + name + R"("}})").as_object();
    auto r = SyncWait(client.Create(kNamespaces, "", ns));
    return r.ok() || am::IsAlreadyExists(r.status());
  };
  for (const char* ns : {"default", "kube-system"}) ensure_ns(ns);

  MetricsRegistry metrics;
  ControllerManagerOptions mo;
  mo.root_ca_pem = "-----BEGIN CERTIFICATE-----\nBENCH\n-----END CERTIFICATE-----\n";
  mo.leader_election.sole_replica = true;
  ControllerManager manager(apis, metrics, mo);
  if (!manager.Start().ok()) return 1;
  WaitFor([&] { return manager.IsLeader(); }, std::chrono::seconds(30));

  // A scope for the bench's own fan-out on this thread's SyncWait loop.
  auto run = [&](auto make_task) {
    return SyncWait([&]() -> Task<int> {
      RunScope scope(CurrentExecutor());
      int r = co_await make_task(scope);
      co_return r;
    }());
  };

  // 1. Namespace deletion.
  const std::string ns = "bench-ns";
  ensure_ns(ns);
  auto t_fill = Clock::now();
  int failed = run([&](RunScope& scope) {
    return CreateMany(client, scope, kConfigMaps, ns, objects / 2, [](int i) {
      return json::parse(R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("},"data":{"k":"v"}})").as_object();
    });
  });
  failed += run([&](RunScope& scope) {
    return CreateMany(client, scope, kSecrets, ns, objects - objects / 2, [](int i) {
      return json::parse(R"({"metadata":{"name":"s-)" + std::to_string(i) + R"("},"stringData":{"k":"v"}})").as_object();
    });
  });
  std::printf("filled namespace with %d objects in %.2f s (%d failed)\n", objects, Since(t_fill), failed);
  auto t0 = Clock::now();
  auto del = SyncWait(client.Delete(kNamespaces, "", ns, {}));
  if (!del.ok()) return 1;
  bool gone = WaitFor([&] {
    auto g = SyncWait(client.Get(kNamespaces, "", ns));
    return !g.ok() && am::IsNotFound(g.status());
  }, std::chrono::seconds(600));
  std::printf("namespace deletion: %d objects, namespace gone after %.3f s%s\n", objects, Since(t0),
              gone ? "" : " (TIMED OUT)");

  // 2. Garbage collection of M dependents, background then foreground.
  for (const char* policy : {"Background", "Foreground"}) {
    std::string owner_name = std::string("owner-") + (policy[0] == 'B' ? "background" : "foreground");
    auto owner = SyncWait(client.Create(kConfigMaps, "default",
                                        json::parse(R"({"metadata":{"name":")" + owner_name + R"("}})").as_object()));
    if (!owner.ok()) {
      std::fprintf(stderr, "creating the owner: %s\n", owner.status().message().c_str());
      return 1;
    }
    std::string ref = R"({"apiVersion":"v1","kind":"ConfigMap","name":")" + owner_name + R"(","uid":")" +
                      std::string(am::GetUid(*owner)) + R"(","blockOwnerDeletion":true})";
    failed = run([&](RunScope& scope) {
      return CreateMany(client, scope, kConfigMaps, "default", dependents, [&](int i) {
        return json::parse(R"({"metadata":{"name":")" + owner_name + "-dep-" + std::to_string(i) +
                           R"(","ownerReferences":[)" + ref + "]}}")
            .as_object();
      });
    });
    // Let the collector's graph see every dependent before the owner goes.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    registry::DeleteOptions o;
    o.propagation_policy = std::string(policy);
    auto t1 = Clock::now();
    if (!SyncWait(client.Delete(kConfigMaps, "default", owner_name, o)).ok()) return 1;
    bool done = WaitFor([&] {
      registry::ListOptions lo;
      auto l = SyncWait(client.List(kConfigMaps, "default", lo));
      if (!l.ok()) return false;
      for (const auto& item : l->items) {
        if (am::GetName(item).rfind(owner_name, 0) == 0) return false;  // owner or a dependent left
      }
      return true;
    }, std::chrono::seconds(600));
    std::printf("garbage collection (%s): %d dependents%s, all gone after %.3f s%s\n", policy, dependents,
                failed ? " (some creates failed)" : "", Since(t1), done ? "" : " (TIMED OUT)");
  }
  manager.Stop();
  if (own_dir) {
    backend->reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace capstan::controllers

int main(int argc, char** argv) { return capstan::controllers::Main(argc, argv); }
