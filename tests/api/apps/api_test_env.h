// tests/api/apps/api_test_env.h: a group's resources served by real Stores over the embedded backend
// in a temp dir, with the built-in schemas loaded, for the workload groups' tests (apps, batch,
// autoscaling, policy); plus the upstream fixtures and a "nothing lost" comparison of JSON documents.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "api/core/capabilities.h"
#include "api/schemas/builtin_schemas.h"
#include "apimachinery/schema_registry.h"
#include "registry/rest_resource.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::api::testing {

namespace json = boost::json;
using registry::Object;

// The built-in schemas, loaded once per test process.
inline const apimachinery::SchemaRegistry& BuiltinSchemas() {
  static std::unique_ptr<apimachinery::SchemaRegistry> reg;
  static std::once_flag once;
  std::call_once(once, [] {
    reg = std::make_unique<apimachinery::SchemaRegistry>();
    for (const auto& f : BuiltinSchemaFiles()) {
      Status st = reg->AddDocumentJson(f.text);
      if (!st.ok()) ADD_FAILURE() << f.name << ": " << st.message();
    }
    Status st = reg->Resolve();
    if (!st.ok()) ADD_FAILURE() << st.message();
  });
  return *reg;
}

class ApiTestEnv {
 public:
  using InstallFn = std::function<std::vector<registry::RestResource>(const registry::GroupDeps&)>;

  explicit ApiTestEnv(const InstallFn& install) {
    // The fixtures set every field, privileged containers too: allowed as kubeadm starts kube-apiserver.
    api::core::SetAllowPrivileged(true);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("capstan-api-" + std::to_string(::getpid()) + "-" + (info ? std::string(info->name()) : "x"));
    std::filesystem::remove_all(dir_);
    storage::EmbeddedOptions opts;
    opts.dir = dir_.string();
    auto b = storage::OpenEmbeddedBackend(opts);
    if (!b.ok()) {
      ADD_FAILURE() << b.status().message();
      return;
    }
    backend_ = std::move(*b);
    objects_ = std::make_unique<storage::BackendObjectStore>(*backend_);
    registry::GroupDeps deps;
    deps.store = objects_.get();
    deps.schemas = &BuiltinSchemas();
    resources_ = install(deps);
  }
  ~ApiTestEnv() {
    resources_.clear();
    objects_.reset();
    backend_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  const registry::RestResource* Find(const std::string& resource, const std::string& subresource = "",
                                     const std::string& version = "") const {
    for (const auto& r : resources_) {
      if (r.info.resource == resource && r.info.subresource == subresource &&
          (version.empty() || r.info.version == version)) {
        return &r;
      }
    }
    return nullptr;
  }
  template <class Cap>
  Cap* As(const std::string& resource, const std::string& subresource = "", const std::string& version = "") const {
    const auto* r = Find(resource, subresource, version);
    return r ? dynamic_cast<Cap*>(r->storage.get()) : nullptr;
  }
  const std::vector<registry::RestResource>& resources() const { return resources_; }

  registry::Context Ctx(const std::string& ns = "default") const {
    registry::Context c;
    c.namespace_ = ns;
    return c;
  }

  StatusOr<Object> Create(const std::string& resource, Object obj, const std::string& version = "") {
    auto* c = As<registry::Creater>(resource, "", version);
    if (!c) return Status(404, "NotFound", "no creater for " + resource);
    return SyncWait(c->Create(Ctx(), std::move(obj), {}));
  }
  StatusOr<Object> Get(const std::string& resource, const std::string& name, const std::string& subresource = "",
                       const std::string& version = "") {
    auto* g = As<registry::Getter>(resource, subresource, version);
    if (!g) return Status(404, "NotFound", "no getter for " + resource);
    return SyncWait(g->Get(Ctx(), name, {}));
  }
  // PUT of `obj` (as the client sent it).
  StatusOr<registry::UpdateOutcome> Put(const std::string& resource, const std::string& name, Object obj,
                                        const std::string& subresource = "", const std::string& version = "") {
    auto* u = As<registry::Updater>(resource, subresource, version);
    if (!u) return Status(404, "NotFound", "no updater for " + resource);
    auto body = std::make_shared<Object>(std::move(obj));
    return SyncWait(u->Update(
        Ctx(), name, [body](const Object*) -> Task<StatusOr<Object>> { co_return *body; }, {}));
  }
  // A read-modify-write (what a patch does): `fn` changes the current object.
  StatusOr<registry::UpdateOutcome> Mutate(const std::string& resource, const std::string& name,
                                           std::function<void(Object&)> fn, const std::string& subresource = "",
                                           const std::string& version = "") {
    auto* u = As<registry::Updater>(resource, subresource, version);
    if (!u) return Status(404, "NotFound", "no updater for " + resource);
    return SyncWait(u->Update(
        Ctx(), name,
        [fn](const Object* cur) -> Task<StatusOr<Object>> {
          if (!cur) co_return Status(404, "NotFound", "missing");
          Object next = *cur;
          fn(next);
          co_return next;
        },
        {}));
  }
  std::vector<registry::TableColumn> Columns(const std::string& resource, const std::string& version = "") {
    auto* t = As<registry::TableConvertor>(resource, "", version);
    return t ? t->TableColumns() : std::vector<registry::TableColumn>{};
  }
  json::array Cells(const std::string& resource, const Object& obj, const std::string& version = "") {
    auto* t = As<registry::TableConvertor>(resource, "", version);
    return t ? t->TableCells(obj) : json::array{};
  }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::BackendObjectStore> objects_;
  std::vector<registry::RestResource> resources_;
};

inline Object Parse(const std::string& text) { return json::parse(text).as_object(); }

// ../shared/k8s-api-fixtures/HEAD/<name>.json ($CAPSTAN_API_FIXTURES overrides the folder); nullopt
// when absent.
inline std::optional<Object> LoadFixture(const std::string& name) {
  std::string dir;
  if (const char* env = std::getenv("CAPSTAN_API_FIXTURES"); env && *env) {
    dir = env;
  } else {
    const char* src = std::getenv("CAPSTAN_SOURCE_DIR");
    dir = std::string(src && *src ? src : CAPSTAN_TEST_SOURCE_ROOT) + "/../shared/k8s-api-fixtures/HEAD";
  }
  std::ifstream in(dir + "/" + name + ".json");
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str()).as_object();
}

// Every leaf (scalar, empty object, empty array) of `want` is in `got` with the same value, except
// under the paths in `ignore` (dotted prefixes such as "metadata.uid"). Failures name the path.
inline void ExpectNothingLost(const json::value& want, const json::value& got, const std::vector<std::string>& ignore,
                              const std::string& path = "") {
  for (const auto& p : ignore) {
    if (path == p) return;
  }
  if (want.is_object() && !want.get_object().empty()) {
    if (!got.is_object()) {
      ADD_FAILURE() << path << ": object lost, got " << json::serialize(got);
      return;
    }
    for (const auto& kv : want.get_object()) {
      std::string child = path.empty() ? std::string(kv.key()) : path + "." + std::string(kv.key());
      const auto* g = got.get_object().if_contains(kv.key());
      bool ignored = false;
      for (const auto& p : ignore) ignored = ignored || child == p;
      if (ignored) continue;
      if (!g) {
        ADD_FAILURE() << child << ": lost (was " << json::serialize(kv.value()) << ")";
        continue;
      }
      ExpectNothingLost(kv.value(), *g, ignore, child);
    }
    return;
  }
  if (want.is_array() && !want.get_array().empty()) {
    if (!got.is_array() || got.get_array().size() != want.get_array().size()) {
      ADD_FAILURE() << path << ": list changed: " << json::serialize(got);
      return;
    }
    for (size_t i = 0; i < want.get_array().size(); ++i) {
      ExpectNothingLost(want.get_array()[i], got.get_array()[i], ignore, path + "[" + std::to_string(i) + "]");
    }
    return;
  }
  EXPECT_EQ(json::serialize(want), json::serialize(got)) << "at " << path;
}

// The fixture's metadata made acceptable for a create in namespace default: a valid name, and none
// of the fields the server owns.
inline void SanitizeMetadata(Object& obj, const std::string& name = "fixture") {
  json::object& md = obj["metadata"].as_object();
  md["name"] = name;
  md["namespace"] = "default";
  for (const char* k : {"generateName", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
                        "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "finalizers"}) {
    md.erase(k);
  }
}

// Lower-case, DNS-label-safe form of a fixture's "xxxValue" strings.
inline std::string Label(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace capstan::api::testing
