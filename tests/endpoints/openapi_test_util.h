// tests/endpoints/openapi_test_util.h: an ApiRegistry with stub storages (capabilities only, no data)
// over the built-in schema registry, for the OpenAPI tests.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/schema_registry.h"
#include "endpoints/api_registry.h"

namespace capstan::testing {

// The built-in schemas; with `documentation`, also their descriptions and enums (as the server
// loads them), else without (the shapes alone, for the tests that compare whole definitions).
inline std::shared_ptr<const apimachinery::SchemaRegistry> LoadBuiltinSchemas(bool documentation) {
  auto r = std::make_shared<apimachinery::SchemaRegistry>();
  for (const auto& f : api::BuiltinSchemaFiles()) {
    Status st = r->AddDocumentJson(f.text);
    if (!st.ok()) std::abort();
  }
  if (documentation) {
    for (const auto& f : api::BuiltinDescriptionFiles()) {
      r->AddDescriptions(std::string(f.name.substr(0, f.name.rfind(".json"))), f.text);
    }
  }
  if (!r->Resolve().ok()) std::abort();
  return std::shared_ptr<const apimachinery::SchemaRegistry>(r);
}

inline std::shared_ptr<const apimachinery::SchemaRegistry> BuiltinSchemas() {
  static std::shared_ptr<const apimachinery::SchemaRegistry> reg = LoadBuiltinSchemas(false);
  return reg;
}

inline std::shared_ptr<const apimachinery::SchemaRegistry> DocumentedBuiltinSchemas() {
  static std::shared_ptr<const apimachinery::SchemaRegistry> reg = LoadBuiltinSchemas(true);
  return reg;
}

template <class T>
Task<StatusOr<T>> Unimplemented() {
  co_return Status(500, "InternalError", "stub storage");
}

class StubBase : public virtual registry::Storage {
 public:
  explicit StubBase(registry::ResourceInfo info) : info_(std::move(info)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

 private:
  registry::ResourceInfo info_;
};

// Every verb of a top-level resource (kube's generic Store).
class FullStub : public StubBase,
                 public registry::Patcher,
                 public registry::Lister,
                 public registry::Watcher,
                 public registry::Creater,
                 public registry::GracefulDeleter,
                 public registry::CollectionDeleter {
 public:
  using StubBase::StubBase;
  using StubBase::Info;
  Task<StatusOr<registry::Object>> Get(const registry::Context&, const std::string&, const registry::GetOptions&) override {
    return Unimplemented<registry::Object>();
  }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context&, const std::string&, registry::ObjectTransform,
                                                 const registry::UpdateOptions&) override {
    return Unimplemented<registry::UpdateOutcome>();
  }
  Task<StatusOr<registry::ObjectList>> List(const registry::Context&, const registry::ListOptions&) override {
    return Unimplemented<registry::ObjectList>();
  }
  Task<StatusOr<std::unique_ptr<registry::WatchStream>>> Watch(const registry::Context&,
                                                               const registry::ListOptions&) override {
    return Unimplemented<std::unique_ptr<registry::WatchStream>>();
  }
  Task<StatusOr<registry::Object>> Create(const registry::Context&, registry::Object, const registry::CreateOptions&) override {
    return Unimplemented<registry::Object>();
  }
  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context&, const std::string&,
                                                 const registry::DeleteOptions&) override {
    return Unimplemented<registry::DeleteOutcome>();
  }
  Task<StatusOr<registry::ObjectList>> DeleteCollection(const registry::Context&, const registry::DeleteOptions&,
                                                        const registry::ListOptions&) override {
    return Unimplemented<registry::ObjectList>();
  }
};

// A status subresource: get, update, patch.
class StatusStub : public StubBase, public registry::Patcher {
 public:
  using StubBase::StubBase;
  using StubBase::Info;
  Task<StatusOr<registry::Object>> Get(const registry::Context&, const std::string&, const registry::GetOptions&) override {
    return Unimplemented<registry::Object>();
  }
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context&, const std::string&, registry::ObjectTransform,
                                                 const registry::UpdateOptions&) override {
    return Unimplemented<registry::UpdateOutcome>();
  }
};

// namespaces/finalize: update only.
class UpdateStub : public StubBase, public registry::Updater {
 public:
  using StubBase::StubBase;
  using StubBase::Info;
  Task<StatusOr<registry::UpdateOutcome>> Update(const registry::Context&, const std::string&, registry::ObjectTransform,
                                                 const registry::UpdateOptions&) override {
    return Unimplemented<registry::UpdateOutcome>();
  }
};

inline registry::ResourceInfo Info(std::string group, std::string version, std::string resource, std::string kind,
                                   bool namespaced, std::string definition, std::string subresource = "") {
  registry::ResourceInfo i;
  i.group = std::move(group);
  i.version = std::move(version);
  i.resource = std::move(resource);
  i.subresource = std::move(subresource);
  i.kind = kind;
  i.list_kind = kind + "List";
  i.singular = i.resource.substr(0, i.resource.size() - 1);
  i.namespaced = namespaced;
  i.definition = std::move(definition);
  return i;
}

template <class StubT>
void InstallStub(endpoints::ApiRegistry& apis, registry::ResourceInfo info, const apimachinery::SchemaRegistry* schemas,
                 bool custom = false, const apimachinery::Schema* schema = nullptr) {
  endpoints::ResourceEntry e;
  e.info = info;
  e.storage = std::make_shared<StubT>(info);
  e.schema = schema != nullptr ? schema : (schemas ? schemas->Find(info.definition) : nullptr);
  e.protobuf = !custom;
  e.custom = custom;
  endpoints::ProbeCapabilities(e);
  apis.Install(std::move(e));
}

// core/v1 configmaps and namespaces (+status, +finalize); coordination.k8s.io/v1 leases.
inline void InstallCoreSubset(endpoints::ApiRegistry& apis, const apimachinery::SchemaRegistry* schemas) {
  InstallStub<FullStub>(apis, Info("", "v1", "configmaps", "ConfigMap", true, "io.k8s.api.core.v1.ConfigMap"), schemas);
  InstallStub<FullStub>(apis, Info("", "v1", "namespaces", "Namespace", false, "io.k8s.api.core.v1.Namespace"), schemas);
  InstallStub<StatusStub>(apis, Info("", "v1", "namespaces", "Namespace", false, "io.k8s.api.core.v1.Namespace", "status"),
                          schemas);
  InstallStub<UpdateStub>(apis,
                          Info("", "v1", "namespaces", "Namespace", false, "io.k8s.api.core.v1.Namespace", "finalize"),
                          schemas);
  InstallStub<FullStub>(
      apis, Info("coordination.k8s.io", "v1", "leases", "Lease", true, "io.k8s.api.coordination.v1.Lease"), schemas);
}

inline boost::json::object ParseObject(const std::string& text) {
  boost::json::parse_options opts;
  opts.max_depth = 10000;
  return boost::json::parse(text, {}, opts).as_object();
}

}  // namespace capstan::testing
