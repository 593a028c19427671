// tests/api/core/core_test_util.h: the core/v1 resources over a real embedded store in a temp dir,
// with the built-in schemas, for strategy and storage tests: Install() them, then call their
// capabilities by "resource" or "resource/subresource".
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "api/core/core_resources.h"
#include "api/schemas/builtin_schemas.h"
#include "apimachinery/schema_registry.h"
#include "registry/rest_resource.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"
#include "util/task.h"

namespace capstan::api::core::testing {

namespace json = boost::json;
using registry::Object;

inline Object Parse(std::string_view s) { return json::parse(s).as_object(); }
inline json::array ParseArray(std::string_view s) { return json::parse(s).as_array(); }

// A store in a temp dir; several CoreApi instances may share one (replicas) or reopen it (restarts).
class TestStore {
 public:
  explicit TestStore(const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() / ("capstan-core-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir_);
    Open();
  }
  ~TestStore() {
    Close();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    storage::EmbeddedOptions o;
    o.dir = dir_.string();
    auto b = storage::OpenEmbeddedBackend(o);
    EXPECT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(*b);
    objects_ = std::make_unique<storage::BackendObjectStore>(*backend_);
  }
  void Close() {
    objects_.reset();
    backend_.reset();
  }
  storage::ObjectStore& objects() { return *objects_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::BackendObjectStore> objects_;
};

inline const apimachinery::SchemaRegistry& Schemas() {
  static const apimachinery::SchemaRegistry* reg = [] {
    auto* r = new apimachinery::SchemaRegistry();
    for (const auto& f : api::BuiltinSchemaFiles()) EXPECT_TRUE(r->AddDocumentJson(f.text).ok()) << f.name;
    EXPECT_TRUE(r->Resolve().ok());
    return r;
  }();
  return *reg;
}

class CoreApi {
 public:
  explicit CoreApi(storage::ObjectStore& store, CoreOptions opts = {}) {
    registry::GroupDeps deps;
    deps.store = &store;
    deps.schemas = &Schemas();
    for (auto& r : Install(deps, opts)) {
      std::string key = r.info.subresource.empty() ? r.info.resource : r.info.resource + "/" + r.info.subresource;
      resources_[key] = r;
    }
  }
  registry::Storage* Get(const std::string& key) {
    auto it = resources_.find(key);
    EXPECT_NE(it, resources_.end()) << key;
    return it == resources_.end() ? nullptr : it->second.storage.get();
  }
  const registry::RestResource& Resource(const std::string& key) { return resources_.at(key); }
  template <class T>
  T* As(const std::string& key) {
    auto* p = dynamic_cast<T*>(Get(key));
    EXPECT_NE(p, nullptr) << key;
    return p;
  }

  static registry::Context Ctx(const std::string& ns = "default") {
    registry::Context c;
    c.namespace_ = ns;
    return c;
  }
  StatusOr<Object> Create(const std::string& res, Object obj, const std::string& ns = "default") {
    return SyncWait(As<registry::Creater>(res)->Create(Ctx(ns), std::move(obj), {}));
  }
  StatusOr<Object> CreateOn(const std::string& res, const std::string& parent, Object obj, const std::string& ns = "default") {
    registry::Context c = Ctx(ns);
    c.name = parent;
    return SyncWait(As<registry::Creater>(res)->Create(c, std::move(obj), {}));
  }
  StatusOr<Object> GetObj(const std::string& res, const std::string& name, const std::string& ns = "default") {
    return SyncWait(As<registry::Getter>(res)->Get(Ctx(ns), name, {}));
  }
  // A PUT of `obj` (its resourceVersion as given).
  StatusOr<Object> Put(const std::string& res, const std::string& name, Object obj, const std::string& ns = "default") {
    auto body = std::make_shared<Object>(std::move(obj));
    auto r = SyncWait(As<registry::Updater>(res)->Update(
        Ctx(ns), name, [body](const Object*) -> Task<StatusOr<Object>> { co_return *body; }, {}));
    if (!r.ok()) return r.TakeStatus();
    return std::move(r->object);
  }
  // Read-modify-write with `fn` applied to the current object.
  StatusOr<Object> Modify(const std::string& res, const std::string& name, std::function<void(Object&)> fn,
                          const std::string& ns = "default") {
    auto r = SyncWait(As<registry::Updater>(res)->Update(
        Ctx(ns), name,
        [fn](const Object* cur) -> Task<StatusOr<Object>> {
          Object o = cur ? *cur : Object();
          fn(o);
          co_return o;
        },
        {}));
    if (!r.ok()) return r.TakeStatus();
    return std::move(r->object);
  }
  StatusOr<registry::DeleteOutcome> Delete(const std::string& res, const std::string& name, const std::string& ns = "default",
                                           registry::DeleteOptions opts = {}) {
    return SyncWait(As<registry::GracefulDeleter>(res)->Delete(Ctx(ns), name, opts));
  }
  StatusOr<registry::ObjectList> List(const std::string& res, const std::string& field_selector = "",
                                      const std::string& ns = "default") {
    registry::ListOptions o;
    o.field_selector = field_selector;
    return SyncWait(As<registry::Lister>(res)->List(Ctx(ns), o));
  }
  StatusOr<registry::ConnectResponse> Connect(const std::string& res, const std::string& name, registry::ConnectRequest req,
                                              const std::string& ns = "default") {
    return SyncWait(As<registry::Connecter>(res)->Connect(Ctx(ns), name, req));
  }

 private:
  std::map<std::string, registry::RestResource> resources_;
};

// The causes of a 422 as "field: message" lines, for matching kube's texts.
inline std::vector<std::string> Causes(const Status& st) {
  std::vector<std::string> out;
  for (const auto& c : st.details().causes) out.push_back(c.field + ": " + c.message);
  return out;
}

inline const json::value* At(const Object& o, std::initializer_list<std::string_view> path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (auto k : path) {
    if (!cur) return nullptr;
    v = cur->if_contains(k);
    if (!v) return nullptr;
    cur = v->is_object() ? &v->get_object() : nullptr;
  }
  return v;
}

inline std::string Str(const Object& o, std::initializer_list<std::string_view> path) {
  const auto* v = At(o, path);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace capstan::api::core::testing
